#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Allocation failures in zsmalloc_ng's service layer, injected with its
# debugfs knob (fail_every, fail_times, fail_calls, fail_injected; see
# zsmalloc_ng/kernel/fault_inject.c), seen from zram_ng:
#   - disksize fails with ENOMEM at each allocation of pool creation, and
#     leaves the device uninitialised and without a pool;
#   - a write whose allocation fails gets EIO and counts in failed_writes;
#     what was stored before stays, page for page;
#   - afterwards the pool is consistent: the scenarios still pass, a full
#     discard leaves no page in it, reset and rmmod leave nothing behind.
# vm-timeout: 600
. "$(dirname "$0")/../zram_ng/common.sh"

DBG=/sys/kernel/debug/zsmalloc_ng
D=$ZSYS/zram_ng0
DEV=/dev/zram_ng0
PAGES=256	# pages written one by one under faults (1 MiB)

# arm EVERY TIMES: every EVERYth allocation from now fails, TIMES times
arm() {
	echo 0 >$DBG/fail_every
	echo 0 >$DBG/fail_calls
	echo "$2" >$DBG/fail_times
	echo "$1" >$DBG/fail_every
}
disarm() {
	echo 0 >$DBG/fail_every
	echo -1 >$DBG/fail_times
}

# gen FILE SIZE: partly compressible data (several size classes)
gen() {
	fio --name=gen --filename="$1" --rw=write --bs=4k --size="$2" \
		--buffer_compress_percentage=50 --buffer_compress_chunk=512 \
		--refill_buffers --randseed="$3" --output=/dev/null
}

ktap_header
zram_ng_reload
if [ ! -f $DBG/fail_every ]; then
	ktap_plan 1
	ktap_skip "allocation fault injection" "no $DBG/fail_every"
	ktap_finish
fi
ktap_plan 19
disarm
# Under a kmemleak kernel (make check-debug): forget what came before.
KMEMLEAK=/sys/kernel/debug/kmemleak
[ -w $KMEMLEAK ] && echo clear >$KMEMLEAK
echo 0 >$DBG/fail_injected

# --- pool creation -------------------------------------------------------
arm 1 -1
ktap_result "disksize with every allocation failing: ENOMEM" \
	write_expect_errno ENOMEM 64M $D/disksize
disarm
ktap_result "... leaves the device uninitialised, without a pool" sh -c \
	"[ \$(cat $D/initstate) = 0 ] && [ \$(cat $D/disksize) = 0 ] && [ ! -d $DBG/zram_ng0 ]"

# How many allocations pool creation makes: count them with a knob armed
# never to fire, then fail the 1st ... 16th, every 37th, and the last one.
arm 1000000000 0
echo 64M >$D/disksize
calls=$(cat $DBG/fail_calls)
disarm
echo 1 >$D/reset
ktap_print "pool creation makes $calls allocations"
bad=0 tried=0
for n in $(seq 1 16) $(seq 17 37 "$calls") "$calls"; do
	[ "$n" -le "$calls" ] || continue
	arm "$n" 1
	ret=0
	echo 64M >$D/disksize 2>/tmp/err || ret=1
	disarm
	tried=$((tried + 1))
	if [ $ret = 0 ] || ! grep -q "$(errno_text ENOMEM)" /tmp/err ||
		[ "$(cat $D/initstate)" != 0 ] || [ -d $DBG/zram_ng0 ]; then
		ktap_print "allocation $n failing: status $ret, $(cat /tmp/err), initstate $(cat $D/initstate)"
		bad=$((bad + 1))
		echo 1 >$D/reset
	fi
done
ktap_print "failed each of $tried allocations once"
ktap_result "disksize fails cleanly (ENOMEM, uninitialised) at each" \
	test $bad = 0 -a "$calls" -gt 0
echo 64M >$D/disksize
ktap_result "disksize succeeds once nothing fails" assert_eq 1 "$(cat $D/initstate)"

# --- writes --------------------------------------------------------------
gen /tmp/old 4M 1
gen /tmp/new 4M 2
dd if=/tmp/old of=$DEV bs=1M oflag=direct 2>/dev/null
ktap_result "4 MiB written and read back before any fault" \
	cmp -n 4194304 /tmp/old $DEV

fw0=$(io_stat zram_ng0 2)
arm 1 -1
ktap_result "a write with every allocation failing: EIO" \
	expect_errno EIO dd if=/tmp/new of=$DEV bs=4k count=1 oflag=direct
disarm
fw1=$(io_stat zram_ng0 2)
ktap_result "... counted in failed_writes" test "$fw1" -gt "$fw0"
ktap_result "... and the page keeps its old data" \
	cmp -n 4096 /tmp/old $DEV

# Page by page: every allocation fails (the write must fail), every 2nd
# (the writer's retry or a partly built zspage), every 5th, or none.
cp /tmp/old /tmp/expect
ok=0 failed=0 other=0
i=0
while [ $i -lt $PAGES ]; do
	case $((i % 4)) in
	0) arm 1 -1 ;;
	1) arm 2 -1 ;;
	2) arm 5 -1 ;;
	3) disarm ;;
	esac
	if dd if=/tmp/new of=$DEV bs=4k skip=$i seek=$i count=1 oflag=direct \
		2>/tmp/err; then
		ok=$((ok + 1))
		dd if=/tmp/new of=/tmp/expect bs=4k skip=$i seek=$i count=1 \
			conv=notrunc 2>/dev/null
	elif grep -q "$(errno_text EIO)" /tmp/err; then
		failed=$((failed + 1))
	else
		other=$((other + 1))
		ktap_print "page $i: $(cat /tmp/err)"
	fi
	i=$((i + 1))
done
disarm
injected=$(cat $DBG/fail_injected)
fw2=$(io_stat zram_ng0 2)
ktap_print "$PAGES page writes under faults: $ok written, $failed EIO, $other other; $injected failures injected"
ktap_result "under faults, a write succeeds or gets EIO" \
	test $ok -gt 0 -a $failed -gt 0 -a $other = 0
ktap_result "failed_writes counts each EIO" assert_eq $failed $((fw2 - fw1))
ktap_result "every page holds its new data if written, else its old data" \
	cmp -n 4194304 /tmp/expect $DEV

# Compaction while allocations fail moves nothing it cannot place.
arm 2 -1
echo 1 >$D/compact
disarm
echo 1 >$D/compact
ktap_result "the data survives compaction under faults" \
	cmp -n 4194304 /tmp/expect $DEV

# Reads need no allocation: they must not fail while allocations do.
arm 1 -1
ktap_result "reads succeed while every allocation fails" \
	cmp -n 4194304 /tmp/expect $DEV
disarm

# --- consistency and leaks -----------------------------------------------
res=$(tail -n 1 $DBG/scenarios)
ktap_result "the allocator scenarios still pass" assert_eq result=0 "$res"

blkdiscard $DEV
echo 1 >$D/compact
left="$(mm_stat zram_ng0 orig_data_size) $(mm_stat zram_ng0 mem_used_total)"
# columns by name: the table may gain columns
left="$left $(awk 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ o += $(c["obj_used"]); p += $(c["pages_used"]) } END { print o + 0, p + 0 }' \
	$DBG/zram_ng0/classes)"
ktap_result "a full discard leaves no object and no page in the pool" \
	assert_eq "0 0 0 0" "$left" "orig_data_size mem_used obj_used pages_used"

echo 1 >$D/reset
ktap_result "reset removes the pool" sh -c "[ ! -d $DBG/zram_ng0 ] && [ \$(cat $D/initstate) = 0 ]"
ktap_result "no pool was destroyed with live objects" \
	sh -c '! dmesg | grep -q "destroying a pool with live objects"'
# Error paths leak most easily: ask kmemleak while the modules' symbols
# still resolve (after rmmod its traces would show bare addresses).
if [ -w $KMEMLEAK ]; then
	echo scan >$KMEMLEAK
	sleep 5
	echo scan >$KMEMLEAK
	grep -B2 -A14 'unreferenced object' $KMEMLEAK >/tmp/leaks
	n=$(grep -c 'unreferenced object' /tmp/leaks)
	[ "$n" = 0 ] || head -n 40 /tmp/leaks | sed 's/^/# /'
	ktap_result "kmemleak: no leak after allocation failures" assert_eq 0 "$n" "unreferenced objects"
else
	ktap_skip "kmemleak: no leak after allocation failures" "kernel without kmemleak"
fi
ktap_result "zram_ng and zsmalloc_ng unload" sh -c 'rmmod zram_ng && rmmod zsmalloc_ng'

ktap_finish
