#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Writeback under backing-device faults (Documentation/reliability.rst,
# "Writeback integrity"): the backing device is a brd ramdisk behind
# device-mapper targets (linear with an error segment, error, delay,
# flakey), so each fault is injected exactly where it is wanted.
#  1. Bad blocks (one, and three in a row): a write error retires that
#     block (ng_stat bd_retired) and the pass goes on with the next; the
#     block is never tried again.
#  2. A device failing every write: the pass ends after 8 failed writes,
#     every page stays in memory and verifies, and no block is retired
#     (the device failed, not the blocks): once it is back, writeback
#     succeeds.
#  3. writeback_limit under a concurrent rewrite of the same pages: writes
#     that reach the device + the limit left = the limit set, exactly.
#  4. One pass at a time: a writeback or recompress while a slow writeback
#     runs (dm-delay, under a linear map) gets EAGAIN; a device failing in
#     the middle of a pass ends it with EIO; reset waits for the pass,
#     never hangs.
#  5. Reads of written-back pages from a flaky device (dm-flakey, down half
#     the time): each read returns the right page or EIO, never other bytes;
#     failed reads are counted. Then the device is force-removed under
#     reads, and reset, hot_remove and rmmod still work.
# vm-timeout: 300
. "$(dirname "$0")/common.sh"

D=$ZSYS/zram_ng0
B=/dev/zram_ng0
export DM_DISABLE_UDEV=1
RD_SECTORS=131072	# the 64 MiB ramdisk
REF=/tmp/wbf-ref	# 1 MiB of compressible pages, each different

bd() { bd_stat zram_ng0 "$1"; }

# setup TABLE_NAME: zram_ng0 32M with the dm device zwf (table on stdin)
# as backing device; $DM is its node
setup() {
	DM=$(dm_make zwf) && echo "$DM" >$D/backing_dev && echo 32M >$D/disksize
}

teardown() {
	echo 1 >$D/reset
	dmsetup remove --noudevsync zwf 2>/dev/null
	true
}

linear() { echo "0 $RD_SECTORS linear /dev/ram0 0"; }

# ref_write PAGE: $REF (256 pages) into zram_ng0 from PAGE on, direct
ref_write() {
	dd if=$REF of=$B bs=4096 seek="$1" count=256 oflag=direct 2>/dev/null
}

# ref_same PAGE: the 256 pages at PAGE read back (direct) equal $REF
ref_same() {
	dd if=$B bs=4096 skip="$1" count=256 iflag=direct 2>/dev/null | cmp -s - $REF
}

wb() { { echo "$1" >$D/writeback; } 2>/dev/null; }

ktap_header
ktap_plan 47

zram_ng_reload
rmmod brd 2>/dev/null
modprobe brd rd_nr=1 rd_size=65536 || { ktap_print "no brd"; exit 1; }
for m in dm_mod dm_delay dm_flakey; do
	modprobe $m || { ktap_print "no $m"; exit 1; }
done
# 64 lines of 64 bytes a page, numbered: compresses, no two pages alike
awk 'BEGIN { for (p = 0; p < 256; p++) for (l = 0; l < 64; l++)
	printf "%-63s\n", sprintf("page %d line %d of the reference data", p, l) }' >$REF

# --- 1. bad blocks: block 5 (sectors 40..47) and 9..11 (72..95) fail ---
{
	echo "0 40 linear /dev/ram0 0"
	echo "40 8 error"
	echo "48 24 linear /dev/ram0 48"
	echo "72 24 error"
	echo "96 $((RD_SECTORS - 96)) linear /dev/ram0 96"
} | setup
ref_write 0
echo all >$D/idle
ktap_result "bad blocks: writeback idle reports the write error (EIO)" \
	write_expect_errno EIO idle $D/writeback
ktap_result "... wrote back the other 252 pages, those 4 stay in memory" \
	assert_eq 252 "$(bd bd_count)"
ktap_result "... bd_retired is 4 (one, then three in a row)" \
	assert_eq 4 "$(ng_stat zram_ng0 bd_retired)"
ktap_result "... the pages read back from the device" ref_same 0
ref_write 256
echo all >$D/idle
ktap_result "a second pass succeeds: the bad blocks are not tried again" wb idle
ktap_result "... bd_count 512 (those pages went too), bd_retired still 4" \
	assert_eq "512 4" "$(bd bd_count) $(ng_stat zram_ng0 bd_retired)"
blkdiscard $B
ktap_result "discard: bd_count 0" assert_eq 0 "$(bd bd_count)"
ref_write 0
echo all >$D/idle
ktap_result "after the discard, writeback succeeds, never on a bad block" wb idle
ktap_result "... bd_retired still 4" assert_eq 4 "$(ng_stat zram_ng0 bd_retired)"
ktap_result "... and the pages verify" ref_same 0

# --- 2. every write fails ---
ref_write 512
error_table() { echo "0 $RD_SECTORS error"; }
error_table | dm_swap zwf
echo all >$D/idle
before=$(ng_stat zram_ng0 bd_retired)
ktap_result "a dead device: writeback idle fails with EIO" \
	write_expect_errno EIO idle $D/writeback
ktap_result "... after 8 failed writes, not 256: no block retired" \
	assert_eq "$before" "$(ng_stat zram_ng0 bd_retired)"
ktap_result "... bd_count unchanged (256)" assert_eq 256 "$(bd bd_count)"
ktap_result "... the pages it tried stay in memory and verify" ref_same 512
linear | dm_swap zwf
echo all >$D/idle
ktap_result "the device back: writeback idle succeeds" wb idle
ktap_result "... bd_count 512, bd_retired unchanged" \
	assert_eq "512 $before" "$(bd bd_count) $(ng_stat zram_ng0 bd_retired)"
ktap_result "... and the pages verify" ref_same 512
teardown

# --- 3. writeback_limit under a concurrent rewrite ---
linear | setup
fio_tagged write 0 8M 50
echo all >$D/idle
echo 1 >$D/writeback_limit_enable
echo 300 >$D/writeback_limit
w0=$(bd bd_writes)
fio_tagged write 0 8M 50 &
fio=$!
# EIO when the limit ran out first, success when the rewrite took the
# idle pages away first: either way the writes are counted
wb idle
ktap_print "writeback idle under the rewrite: exit $?"
wait $fio
frio=$?
w1=$(bd bd_writes)
left=$(cat $D/writeback_limit)
ktap_print "written $((w1 - w0)), limit left $left"
ktap_result "limit 300 under a rewrite: device writes + limit left = 300 ($((w1 - w0)) + $left)" \
	assert_eq 300 $((w1 - w0 + left))
ktap_result "... and no more than 300 writes" test $((w1 - w0)) -le 300
ktap_result "... the rewrite succeeded" assert_eq 0 $frio
ktap_result "... and verifies" fio_tagged verify 0 8M 50
echo 0 >$D/writeback_limit_enable
teardown

# --- 4. one pass at a time; reset waits for a slow pass ---
echo algo=lz4hc >$D/recomp_algorithm
# writes delayed 40 ms, one at a time: 200 pages take 8 s. The delay is
# a device of its own (zwfd) under zwf, a linear map of it, and the
# failure below swaps zwf's table, never the delay's: suspending a delay
# target lets bios through undelayed from its presuspend until dm blocks
# I/O (dm-delay's presuspend flushes the queue and stops delaying), and on
# 6.12 the 180 writes left of a pass (a few ms each) all got through that
# window, once in 5-10 runs: the pass then succeeded before the error
# table was in.
echo 1 >$D/writeback_batch_size
DLY=$(echo "0 $RD_SECTORS delay /dev/ram0 0 0 /dev/ram0 0 40" | dm_make zwfd)
delayed() { echo "0 $RD_SECTORS linear $DLY 0"; }
delayed | setup
dd if=$REF of=$B bs=4096 count=200 oflag=direct 2>/dev/null
echo all >$D/idle
(echo idle >$D/writeback) 2>/dev/null &
pass=$!
sleep 1
ktap_result "a second writeback while one runs: EAGAIN" \
	write_expect_errno EAGAIN idle $D/writeback
ktap_result "a recompress while a writeback runs: EAGAIN" \
	write_expect_errno EAGAIN type=idle $D/recompress
wait $pass
ktap_result "the first pass completed (200 pages written back)" \
	assert_eq 200 "$(bd bd_count)"
ktap_result "passes run again once it is done" wb idle
# the device starts failing in the middle of a pass
blkdiscard $B
dd if=$REF of=$B bs=4096 count=200 oflag=direct 2>/dev/null
echo all >$D/idle
before=$(ng_stat zram_ng0 bd_retired)
w0=$(bd bd_writes)
t0=$(now_us)
(echo idle >$D/writeback) 2>/tmp/wbf-mid.err &
pass=$!
# the device fails once 20 of the 200 delayed writes are done
written_since() { test $(($(bd bd_writes) - $1)) -ge "$2"; }
wait_until 10 written_since "$w0" 20
running=0
kill -0 $pass 2>/dev/null && running=1
error_table | dm_swap zwf
ktap_print "the device failed $((($(now_us) - t0) / 1000)) ms into the pass, after $(($(bd bd_writes) - w0)) writes"
ktap_result "... the pass was still running then" assert_eq 1 $running
wait $pass
ktap_print "the pass: exit $?, $(cat /tmp/wbf-mid.err), bd_stat $(cat $D/bd_stat)"
ktap_result "failing mid-pass: the pass ends with EIO" grep -q "Input/output error" /tmp/wbf-mid.err
ktap_result "... after 8 failed writes, none retired" \
	assert_eq "$before" "$(ng_stat zram_ng0 bd_retired)"
ktap_print "written back before the failure: $(bd bd_count) pages"
ktap_result "... some pages went before it" test "$(bd bd_count)" -gt 0
delayed | dm_swap zwf
ktap_result "... the device back, all 200 pages verify" \
	sh -c "dd if=$REF bs=4096 count=200 of=/tmp/wbf-200 2>/dev/null &&
		dd if=$B bs=4096 count=200 iflag=direct 2>/dev/null | cmp -s - /tmp/wbf-200"
dd if=$REF of=$B bs=4096 count=100 oflag=direct 2>/dev/null
echo all >$D/idle
(echo idle >$D/writeback) 2>/dev/null &
pass=$!
sleep 1
t0=$(now_us)
ktap_result "reset during a slow pass waits for it and succeeds" \
	sh -c "echo 1 > $D/reset"
ms=$((($(now_us) - t0) / 1000))
ktap_print "reset took $ms ms"
ktap_result "... it did wait for the pass ($ms ms, the pass had 3 s left)" \
	test $ms -ge 500
wait $pass
ktap_result "... the pass has ended" sh -c "! kill -0 $pass 2>/dev/null"
ktap_result "... the backing device is released" assert_eq none "$(cat $D/backing_dev)"
dmsetup remove --noudevsync zwf
dmsetup remove --noudevsync zwfd
echo 32 >$D/writeback_batch_size

# --- 5. a flaky device: right data or EIO, never other bytes ---
linear | setup
ref_write 0
echo all >$D/idle
wb idle
ktap_result "256 pages on the device" assert_eq 256 "$(bd bd_count)"
# up 1 s, down 1 s: reads in a down interval fail
echo "0 $RD_SECTORS flakey /dev/ram0 0 1 1" | dm_swap zwf
ok=0 eio=0 wrong=0 p=0
end=$(($(now_us) + 6000000))
while [ "$(now_us)" -lt $end ]; do
	p=$(((p + 37) % 256))
	dd if=$REF of=/tmp/wbf-want bs=4096 skip=$p count=1 2>/dev/null
	if dd if=$B of=/tmp/wbf-got bs=4096 skip=$p count=1 iflag=direct 2>/dev/null; then
		if cmp -s /tmp/wbf-got /tmp/wbf-want; then
			ok=$((ok + 1))
		else
			wrong=$((wrong + 1))
		fi
	else
		eio=$((eio + 1))
	fi
done
ktap_print "flaky reads: $ok right, $eio failed, $wrong wrong"
ktap_result "flaky: no read returned wrong data" assert_eq 0 $wrong
ktap_result "flaky: reads succeeded ($ok) and failed ($eio) both" \
	test $ok -gt 0 -a $eio -gt 0
ktap_result "flaky: failed_reads counts the failures" \
	test "$(io_stat zram_ng0 failed_reads)" -ge $eio
linear | dm_swap zwf
ktap_result "the device back: every page verifies" ref_same 0
# readers running while the device is force-removed
(for i in 1 2 3 4 5 6 7 8; do ref_same 0; done) >/dev/null 2>&1 &
readers=$!
echo "0 $RD_SECTORS delay /dev/ram0 0 200" | dm_swap zwf
sleep 1
dmsetup remove --force --noudevsync zwf >/dev/null 2>&1
ktap_result "dmsetup remove --force under reads: the table is gone" \
	sh -c "! dmsetup status zwf 2>/dev/null | grep -q delay"
wait $readers
ktap_result "reads of the removed device fail with EIO" \
	expect_errno EIO dd if=$B of=/dev/null bs=4096 count=1 iflag=direct
ktap_result "reset after the removal" sh -c "echo 1 > $D/reset"
ktap_result "bd_stat is zero after reset" assert_eq "0 0 0" "$(xargs <$D/bd_stat)"
dmsetup remove --noudevsync zwf 2>/dev/null
id=$(cat $ZCTL/hot_add)
ktap_result "hot_remove of a device that had a backing device" \
	sh -c "echo /dev/ram0 > $ZSYS/zram_ng$id/backing_dev && echo $id > $ZCTL/hot_remove"
ktap_result "rmmod brd" rmmod brd
ktap_result "rmmod zram_ng" rmmod zram_ng
ktap_result "modprobe zram_ng again" modprobe zram_ng
ktap_finish
