#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Compaction through zram_ng, for every allocator policy: after a workload
# that leaves every zspage half used, "echo 1 > compact" must move objects
# (objs_moved) and free pages (pages_compacted, mem_used_total falls), and
# the surviving data must read back intact.
# vm-timeout: 180
. "$(dirname "$0")/common.sh"

D=$ZSYS/zram_ng0
B=/dev/zram_ng0

# One compaction, on request: the pool must not compact itself meanwhile
# (test_auto_compact.sh tests that).
zram_ng_reload auto_compact=0
# every policy the allocator has, from its own list
POLICIES=$(choices $D/allocator_policy)
set -- $POLICIES
ktap_header
ktap_plan $((5 * $# + 1))
for p in $POLICIES; do
	echo 1 > $D/reset
	echo $p > $D/allocator_policy
	echo 32M > $D/disksize
	ktap_result "$p: the pool uses policy $p" \
		sh -c "grep -q '\[$p\]' $D/allocator_policy"
	fill_and_fragment zram_ng0 32M
	used0=$(mm_stat zram_ng0 mem_used_total)
	echo 1 > $D/compact
	used1=$(mm_stat zram_ng0 mem_used_total)
	moved=$(mm_stat zram_ng0 objs_moved)
	compacted=$(mm_stat zram_ng0 pages_compacted)
	ktap_print "$p: mem_used_total $used0 -> $used1, pages_compacted $compacted, objs_moved $moved"
	ktap_result "$p: objs_moved > 0" test "$moved" -gt 0
	ktap_result "$p: pages_compacted > 0" test "$compacted" -gt 0
	ktap_result "$p: mem_used_total fell" test "$used1" -lt "$used0"
	# the pages fio wrote and trim:4k skipped still carry good crc32c
	ktap_result "$p: surviving pages still verify" \
		fio --name=check --filename=$B --rw=read:4k --offset=4k --bs=4k \
			--size=32M --direct=1 --verify=crc32c --verify_only \
			--verify_state_save=0 --output=/dev/null
done
ktap_result "the check above does catch bad pages (the discarded ones)" sh -c \
	"! fio --name=neg --filename=$B --rw=read:4k --bs=4k --size=1M --direct=1 \
		--verify=crc32c --verify_only --verify_state_save=0 --output=/dev/null 2>/dev/null"
echo 1 > $D/reset

ktap_finish
