#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The CI-sized soak: scripts/vm/guest/soak-vm for SOAK_SECONDS (default 60) with
# fio verify on two devices, compaction every few ms, swap under a memory
# cgroup, hot_add/reset/disksize/mem_limit cycles and discards at once.
# "make soak" runs the same for longer.
# vm-timeout: 900
. "$(dirname "$0")/../lib.sh"

secs=${SOAK_SECONDS:-60}
ktap_header
ktap_plan 5
out=$(soak-vm "$secs" 2>&1)
rc=$?
echo "$out" | grep -v '^soak: ERROR' | sed 's/^/# /'
echo "$out" | grep '^soak: ERROR' | head -n 20 | sed 's/^/# /'
field() { echo "$out" | sed -n "s/^soak: $1 \([0-9]*\).*/\1/p" | tail -n 1; }
ktap_result "soak of $secs s verified data" test "$(field 'bytes verified')" -gt 0
ktap_result "no error" assert_eq 0 "$(field errors)" errors
ktap_result "no kernel report" assert_eq 0 "$(field 'kernel reports')" "kernel reports"
ktap_result "no allocator page left after teardown" \
	assert_eq 0 "$(field 'pages left after teardown')" "pages left"
ktap_result "soak-vm passed" test $rc = 0
ktap_finish
