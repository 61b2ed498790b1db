#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The CI-sized soaks: scripts/vm/guest/soak-vm for SOAK_SECONDS (default
# 60) with the mixed load (fio verify on two devices, compaction every few
# ms, swap under a memory cgroup, hot_add/reset/disksize/mem_limit cycles
# and discards at once), then for SOAK_RECLAIM_SECONDS (default 30) with
# issue 18's reclaim load (cp + md5sum through swap under a 24 MiB cgroup).
# "make soak" runs the same for longer.
# vm-timeout: 900
. "$(dirname "$0")/../lib.sh"

ktap_header
ktap_plan 18

# soak LOAD SECONDS: one soak-vm run, its results as KTAP
soak() {
	out=$(soak-vm --load "$1" "$2" 2>&1)
	rc=$?
	echo "$out" | grep -v -e '^soak: ERROR' -e '^soak-evidence' | grep '^soak: ' | sed 's/^/# /'
	echo "$out" | grep '^soak: ERROR' | head -n 20 | sed 's/^/# /'
	field() { echo "$out" | sed -n "s/^soak: $1 \([0-9]*\).*/\1/p" | tail -n 1; }
	ktap_result "$1 soak of $2 s verified data" test "$(field 'bytes verified')" -gt 0
	ktap_result "$1: swap checks passed" test "$(field 'swap checks passed')" -gt 0
	ktap_result "$1: no error" assert_eq 0 "$(field errors)" errors
	ktap_result "$1: no kernel report" assert_eq 0 "$(field 'kernel reports')" "kernel reports"
	ktap_result "$1: no kernel trace" assert_eq 0 "$(field 'kernel traces')" "kernel traces"
	ktap_result "$1: no allocator page left after teardown" \
		assert_eq 0 "$(field 'pages left after teardown')" "pages left"
	ktap_result "$1: no swap reader or writer killed" \
		test "$(echo "$out" | sed -n 's/.*killed \([0-9]*\) (writers.*/\1/p')" = 0
	ktap_result "$1: no bytes differ" \
		test "$(echo "$out" | sed -n 's/.*, mismatched \([0-9]*\),.*/\1/p')" = 0
	ktap_result "$1: soak-vm passed" test $rc = 0
}
soak mixed "${SOAK_SECONDS:-60}"
soak reclaim "${SOAK_RECLAIM_SECONDS:-30}"
ktap_finish
