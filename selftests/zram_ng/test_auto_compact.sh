#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A device's pool compacts itself (zram_ng's auto_compact, on by default):
# after a workload that leaves every zspage half used, mm_stat shows pages
# compacted and objects moved without anyone writing to "compact", and the
# device holds well under what the same workload leaves with
# auto_compact=0; the surviving data reads back. The run waits for the
# frees to settle and then starts by itself (core/compaction.cpp; the
# unit test Reclaim.AutoCompactionWaitsForTheFreesToSettle pins down when).
# The parameter is read when a device is initialised.
# vm-timeout: 180
. "$(dirname "$0")/common.sh"

D=$ZSYS/zram_ng0
B=/dev/zram_ng0
PARAM=/sys/module/zram_ng/parameters/auto_compact

# self_compacted: the pool's debugfs stats (which, unlike mm_stat, do not
# run a pending compaction first) show a run of its own
self_compacted() {
	test "$(pool_stat zram_ng0 auto_compactions)" -gt 0
}

# run LABEL: the fragmenting workload on a fresh 32 MiB device
run() {
	echo 1 > $D/reset
	echo 32M > $D/disksize
	fill_and_fragment zram_ng0 32M
	# runs 250 ms after the frees settle (core/compaction.cpp): given
	# 10 s, it must have run by itself when on
	! grep -q Y $PARAM || wait_until 10 self_compacted
	auto_runs=$(pool_stat zram_ng0 auto_compactions)
	used=$(mm_stat zram_ng0 mem_used_total)
	compacted=$(mm_stat zram_ng0 pages_compacted)
	moved=$(mm_stat zram_ng0 objs_moved)
	ktap_print "$1: mem_used_total $used, pages_compacted $compacted, objs_moved $moved"
}

ktap_header
ktap_plan 9

zram_ng_reload
ktap_result "auto_compact is on by default" grep -q Y $PARAM

echo N > $PARAM
run "auto_compact=N"
used_off=$used
ktap_result "off: nothing compacted without a request" test "$compacted" -eq 0

echo Y > $PARAM
run "auto_compact=Y"
ktap_result "on: pages compacted without a request" test "$compacted" -gt 0
ktap_result "on: by itself, once the frees settled (auto_compactions $auto_runs)" \
	test "$auto_runs" -gt 0
ktap_result "on: objects moved" test "$moved" -gt 0
# half of every zspage was discarded: compaction gives back about half
ktap_result "on: memory under 3/4 of the same workload's without" \
	test $((used * 4)) -lt $((used_off * 3))
ktap_result "on: surviving pages still verify" \
	fio --name=check --filename=$B --rw=read:4k --offset=4k --bs=4k \
		--size=32M --direct=1 --verify=crc32c --verify_only \
		--verify_state_save=0 --output=/dev/null
echo 1 > $D/compact
ktap_result "a compaction on request still runs after it" \
	test "$(mm_stat zram_ng0 pages_compacted)" -ge "$compacted"

# the parameter is read at initialisation: a device set up before the
# change keeps its pool's behaviour until its reset
echo N > $PARAM
echo 1 > $D/reset
echo 32M > $D/disksize
echo Y > $PARAM
fill_and_fragment zram_ng0 32M
ktap_result "a device initialised with N keeps N" \
	test "$(mm_stat zram_ng0 pages_compacted)" -eq 0
echo 1 > $D/reset
ktap_finish
