#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The pool's shrinker compacts under memory pressure: drop_caches=2 runs
# every registered shrinker (drop_slab()), so after a fragmenting workload
# pages_compacted must rise without anyone writing to "compact", and the
# debugfs "freeable" column (the shrinker's count) must fall to 0.
# vm-timeout: 120
. "$(dirname "$0")/common.sh"

D=$ZSYS/zram_ng0
CLASSES=/sys/kernel/debug/zsmalloc_ng/zram_ng0/classes

freeable() {	# sum of the "freeable" column of the pool's classes table
	awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "freeable") col = i; next }
	     { sum += $col } END { print sum + 0 }' $CLASSES
}

ktap_header
ktap_plan 4

# only the shrinker may compact (test_auto_compact.sh: the pool by itself)
zram_ng_reload auto_compact=0
echo ratio > $D/allocator_policy
echo 32M > $D/disksize
fill_and_fragment zram_ng0 32M
before=$(mm_stat zram_ng0 pages_compacted)
free0=$(freeable)
ktap_print "before: pages_compacted $before, freeable $free0"
ktap_result "the fragmenting workload leaves freeable pages" test "$free0" -gt 0

echo 2 > /proc/sys/vm/drop_caches
after=$(mm_stat zram_ng0 pages_compacted)
free1=$(freeable)
ktap_print "after drop_caches: pages_compacted $after, freeable $free1"
ktap_result "the shrinker compacted: pages_compacted rose" test "$after" -gt "$before"
ktap_result "nothing freeable is left" test "$free1" -eq 0
ktap_result "objs_moved counted the shrinker's copies" \
	test "$(mm_stat zram_ng0 objs_moved)" -gt 0
echo 1 > $D/reset
ktap_finish
