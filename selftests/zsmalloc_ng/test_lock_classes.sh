#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The allocator's lock classes under lockdep (a debug kernel: make
# check-debug; skipped where there is no /proc/lockdep). Each lock role of
# core/svc.h is a class of its own, named after the role: after zram_ng
# has stored, freed and compacted through a movable pool while the
# kernel's memory compaction migrates its pages, /proc/lockdep lists
# zsng_class_lock and zsng_deferred_lock (with one spin_lock_init() for
# every lock, neither name existed), and lockdep is still on (one report,
# such as the recursive locking a shared class caused when a free took
# the deferred lock under a class lock, switches it off). When a
# free was deferred meanwhile, lockdep recorded the nesting as a
# dependency from one class to the other. The LRU lock (zswap's pools) is
# listed when test_zswap.sh ran before.
# vm-timeout: 300
. "$(dirname "$0")/../zram_ng/common.sh"

D=$ZSYS/zram_ng0
B=/dev/zram_ng0
PLAN=6

ktap_header
ktap_plan $PLAN
if [ ! -r /proc/lockdep ]; then
	ktap_print "this kernel has no lockdep (make check-debug boots one)"
	i=0
	while [ $i -lt $PLAN ]; do
		ktap_skip "lock classes" "no /proc/lockdep"
		i=$((i + 1))
	done
	ktap_finish
fi

# debug_locks: 1 while lockdep runs, 0 once a report switched it off
debug_locks() {
	awk '$1 == "debug_locks:" { print $2 }' /proc/lockdep_stats
}

# /proc/lockdep: a line per class, "KEY FD: ... BD: ... USAGE: NAME", and
# below it " -> [KEY] NAME" for each class taken under it. KEY is a hashed
# pointer, or "(____ptrval____)" before the kernel's random pool is ready.

# has_class NAME: /proc/lockdep lists a class NAME
has_class() {
	awk -v n="$1" '!/^ / && $NF == n { found = 1 } END { exit !found }' /proc/lockdep
}

# depends FROM TO: lockdep recorded TO taken under FROM
depends() {
	awk -v f="$1" -v t="$2" '
		!/^ / { in_from = ($NF == f); next }
		in_from && $1 == "->" && $NF == t { found = 1 }
		END { exit !found }' /proc/lockdep
}

ktap_result "lockdep is on at the start (debug_locks 1)" assert_eq 1 "$(debug_locks)"

zram_ng_reload
echo 32M > $D/disksize
ktap_result "zram_ng0's pool is movable" assert_eq 1 "$(pool_stat zram_ng0 movable)"

# Stores and frees in every class, compaction of the pool, and the
# kernel's memory compaction taking page locks meanwhile, so that some
# frees find a page locked and defer (class lock, then deferred lock).
fill_and_fragment zram_ng0 24M
(end=$(($(date +%s) + 10))
while [ "$(date +%s)" -lt "$end" ]; do
	echo 1 > /proc/sys/vm/compact_memory
done) &
LOOP=$!
for i in 1 2 3; do
	fio --name=churn --filename=$B --rw=randwrite --bs=4k --size=24M \
		--direct=1 --buffer_compress_percentage=65 --refill_buffers \
		--time_based --runtime=3 --output=/dev/null
	fio --name=holes --filename=$B --rw=trim:4k --bs=4k --size=24M \
		--output=/dev/null
	echo 1 > $D/compact
done
wait $LOOP
cat /sys/kernel/debug/zsmalloc_ng/zram_ng0/stats >/dev/null
deferred=$(pool_stat zram_ng0 frees_deferred)
ktap_print "frees deferred $deferred, pages migrated $(pool_stat zram_ng0 pages_migrated), objs_moved $(mm_stat zram_ng0 objs_moved)"
ktap_print "a class: $(sed -n 2p /proc/lockdep)"
ktap_print "ours: $(awk '!/^ / && $NF ~ /^zsng_/ { print $NF }' /proc/lockdep | sort | tr '\n' ' ')"

ktap_result "a class for class locks: zsng_class_lock" has_class zsng_class_lock
ktap_result "a class for deferred locks: zsng_deferred_lock" has_class zsng_deferred_lock
if [ "${deferred:-0}" -gt 0 ]; then
	ktap_result "a deferred free: zsng_class_lock -> zsng_deferred_lock" \
		depends zsng_class_lock zsng_deferred_lock
else
	ktap_skip "a deferred free: zsng_class_lock -> zsng_deferred_lock" \
		"no free was deferred this time"
fi
echo 1 > $D/reset
ktap_result "lockdep is still on (debug_locks 1)" assert_eq 1 "$(debug_locks)"
ktap_finish
