#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Batched writeback and what upstream's writeback has gained since 6.1
# (zram_ng/writeback.c, top of the file), on a brd ramdisk:
#  1. writeback_batch_size: 32 by default, 1 to 1024, anything else EINVAL,
#     kept across reset.
#  2. The grammar: page_indexes=LO-HI, several indexes in one write,
#     type=MODE, the incompressible mode, a mode with ranges; bad words
#     refused (EINVAL, ERANGE past the disk or LO > HI, E2BIG beyond 256
#     ranges) before anything is written.
#  3. Largest first: with writeback_limit at N pages, the N largest
#     objects go (huge pages before 3/4-page ones before 1/4-page ones),
#     whatever their index; the data verifies.
#  4. Batching for real: on a device whose writes take 50 ms (dm-delay),
#     the writes dm-delay holds at once come near the batch size (24 to
#     32 seen), and stay at 1 with a batch of 1; every page is written once and
#     verifies. The time of each is printed (a figure, not a verdict:
#     benchmarks.rst has the measurement).
# vm-timeout: 300
. "$(dirname "$0")/common.sh"

D=$ZSYS/zram_ng0
B=/dev/zram_ng0
DBG=/sys/kernel/debug/zram_ng/zram_ng0/block_state
export DM_DISABLE_UDEV=1

bd() { bd_stat zram_ng0 "$1"; }
wb() { { echo "$1" >$D/writeback; } 2>/dev/null; }
# written LO HI: how many pages in [LO, HI] are on the backing device
written() {
	awk -v a="$1" -v b="$2" '$1 >= a && $1 <= b && index($3, "w") { n++ }
		END { print n + 0 }' $DBG
}
# wb_adds WORDS N: writeback WORDS succeeds and bd_count grows by N
wb_adds() {
	_b=$(bd bd_count)
	wb "$1" || { echo "# writeback '$1' failed"; return 1; }
	assert_eq $((_b + $2)) "$(bd bd_count)" "bd_count after '$1'"
}

ktap_header
ktap_plan 52

zram_ng_reload
rmmod brd 2>/dev/null
modprobe brd rd_nr=1 rd_size=65536 || { ktap_print "no brd"; exit 1; }

# --- 1. writeback_batch_size ---
ktap_result "writeback_batch_size reads 32" assert_eq 32 "$(cat $D/writeback_batch_size)"
for v in 1 1024 7; do
	ktap_result "writeback_batch_size $v accepted" \
		sh -c "echo $v > $D/writeback_batch_size && test \$(cat $D/writeback_batch_size) = $v"
done
for v in 0 1025 -1 abc "" 4294967296 0x10; do
	ktap_result "writeback_batch_size '$v': EINVAL" \
		write_expect_errno EINVAL "$v" $D/writeback_batch_size
done
echo /dev/ram0 >$D/backing_dev
echo 64M >$D/disksize
echo 1 >$D/reset
ktap_result "... kept across reset (7)" assert_eq 7 "$(cat $D/writeback_batch_size)"
echo 32 >$D/writeback_batch_size

# --- 2. the grammar ---
echo /dev/ram0 >$D/backing_dev
echo 64M >$D/disksize
fio_tagged write 0 8M 50
ktap_result "page_indexes=10-19: 10 pages" wb_adds page_indexes=10-19 10
ktap_result "... exactly those" assert_eq 10 "$(written 10 19)"
ktap_result "page_index=100 page_index=200 page_indexes=300-301: 4 pages" \
	wb_adds "page_index=100 page_index=200 page_indexes=300-301" 4
ktap_result "... exactly those" \
	assert_eq "1 1 2" "$(written 100 100) $(written 200 200) $(written 300 301)"
before=$(bd bd_count)
while read -r errno words; do
	ktap_result "'$words': $errno" write_expect_errno "$errno" "$words" $D/writeback
done <<EOF2
ERANGE page_indexes=20-10
ERANGE page_indexes=0-16384
ERANGE page_index=16384
EINVAL page_indexes=5
EINVAL page_indexes=a-b
EINVAL page_indexes=1-2-3
EINVAL idle huge
EINVAL type=
EINVAL type=bogus
EINVAL bogus=1
EINVAL page_index=1 bogus
EINVAL page_index=1 idle type=idle
EOF2
words=$(awk 'BEGIN { for (i = 0; i < 257; i++) printf "page_index=%d ", i }')
ktap_result "257 indexes in one write: E2BIG" write_expect_errno E2BIG "$words" $D/writeback
ktap_result "... none of them wrote anything" assert_eq "$before" "$(bd bd_count)"
echo all >$D/idle
fio_tagged write 1800K 200K 50	# pages 450..499: written again, not idle
ktap_result "page_indexes=400-499 type=idle: the 50 idle ones" \
	wb_adds "page_indexes=400-499 type=idle" 50
ktap_result "... [400, 449] went, [450, 499] stayed" \
	assert_eq "50 0" "$(written 400 449) $(written 450 499)"
ktap_result "incompressible (no page is known so): nothing, no error" \
	wb_adds incompressible 0
ktap_result "type=huge_idle accepted" wb type=huge_idle
ktap_result "the data verifies" fio_tagged verify 0 8M 50
echo 1 >$D/reset

# --- 3. largest first: 1/4-page, huge and 3/4-page objects ---
echo /dev/ram0 >$D/backing_dev
echo 64M >$D/disksize
fio_tagged write 0 4M 75	# pages 0..1023, about 1/4 page each
fio_tagged write 4M 4M 0	# 1024..2047, incompressible: huge
fio_tagged write 8M 4M 25	# 2048..3071, about 3/4 page
echo all >$D/idle
echo 1 >$D/writeback_limit_enable
echo 1024 >$D/writeback_limit
m0=$(mm_stat zram_ng0 mem_used_total)
ktap_result "limit 1024: writeback idle stops at the limit (EIO)" \
	write_expect_errno EIO idle $D/writeback
m1=$(mm_stat zram_ng0 mem_used_total)
ktap_print "freed $(((m0 - m1) / 1024)) KiB with 1024 blocks"
ktap_result "... it wrote the 1024 huge pages, nothing else" \
	assert_eq "0 1024 0" "$(written 0 1023) $(written 1024 2047) $(written 2048 3071)"
echo 1024 >$D/writeback_limit
ktap_result "another 1024: the 3/4-page objects" \
	write_expect_errno EIO idle $D/writeback
ktap_result "... all of them, none of the 1/4-page ones" \
	assert_eq "0 1024" "$(written 0 1023) $(written 2048 3071)"
echo 512 >$D/writeback_limit
ktap_result "another 512 of the 1/4-page ones" \
	write_expect_errno EIO idle $D/writeback
ktap_result "... 512 of them went" assert_eq 512 "$(written 0 1023)"
echo 0 >$D/writeback_limit_enable
ktap_result "limit off: the rest" wb idle
ktap_result "... all 3072 on the device" assert_eq 3072 "$(bd bd_count)"
ktap_result "... 1/4-page region" fio_tagged verify 0 4M 75
ktap_result "... huge region" fio_tagged verify 4M 4M 0
ktap_result "... 3/4-page region" fio_tagged verify 8M 4M 25
echo 1 >$D/reset

# --- 4. writes in flight on a slow device ---
for m in dm_mod dm_delay; do
	modprobe $m || { ktap_print "no $m"; exit 1; }
done
# writes delayed 50 ms, reads not
DM=$(echo "0 131072 delay /dev/ram0 0 0 /dev/ram0 0 50" | dm_make zwbb)
# pass BATCH SIZE: writeback idle of SIZE of pages with that batch; prints
# "max_in_flight ms bd_count bd_writes": the writes in flight as dm-delay
# counts them (its status: reads and writes it is holding; the disk's
# inflight file does not count a bio-based device's bios), sampled as
# often as dmsetup runs: on a slow kernel (check-debug's) that is a few
# times a second, so batch 32 writes 1024 pages (32 batches) to be seen
pass() {
	echo "$1" >$D/writeback_batch_size
	echo "$DM" >$D/backing_dev
	echo 64M >$D/disksize
	fio_tagged write 0 "$2" 50
	echo all >$D/idle
	t0=$(now_us)
	(echo idle >$D/writeback) &
	_p=$! _max=0
	while kill -0 $_p 2>/dev/null; do
		_w=$(dmsetup status zwbb | awk '{ print $5 }')
		[ "$_w" -gt "$_max" ] && _max=$_w
	done
	wait $_p
	echo "$_max $((($(now_us) - t0) / 1000)) $(bd bd_count) $(bd bd_writes)"
}
set -- $(pass 32 4M)
ktap_print "batch 32: at most $1 writes in flight, $2 ms for 1024 pages"
ktap_result "batch 32: the device saw 24 to 32 writes in flight ($1)" \
	test "$1" -ge 24 -a "$1" -le 32
ktap_result "... each page written once (bd_count, bd_writes 1024)" \
	assert_eq "1024 1024" "$3 $4"
ktap_result "... and verifies" fio_tagged verify 0 4M 50
echo 1 >$D/reset
set -- $(pass 1 1M)
ktap_print "batch 1: at most $1 writes in flight, $2 ms for 256 pages"
ktap_result "batch 1: one write in flight at a time ($1)" assert_eq 1 "$1"
ktap_result "... each page written once" assert_eq "256 256" "$3 $4"
ktap_result "... and verifies" fio_tagged verify 0 1M 50
echo 1 >$D/reset
echo 32 >$D/writeback_batch_size
dmsetup remove --noudevsync zwbb
rmmod brd
ktap_finish
