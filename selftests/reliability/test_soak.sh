#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The CI-sized soaks: scripts/vm/guest/soak-vm for SOAK_SECONDS (default
# 60) with the mixed load (fio verify on two devices, compaction every few
# ms, swap under a memory cgroup, hot_add/reset/disksize/mem_limit cycles
# and discards at once), then for SOAK_RECLAIM_SECONDS (default 30) with
# issue 18's reclaim load (cp + md5sum through swap under a 24 MiB cgroup).
# "make soak" runs the same for longer. Last, the soak is made to fail (a
# 4 MiB cgroup with no swap: every copy is OOM-killed) to show that a kill
# is counted as one, never as wrong bytes, and leaves its evidence.
# vm-timeout: 900
. "$(dirname "$0")/../lib.sh"

ktap_header
ktap_plan 23

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

# Its evidence (40 OOM reports and snapshots) is too long for an argument.
SOAK_SWAP_LIMIT=4M SOAK_SWAP_MAX=0 soak-vm --load reclaim 10 >/tmp/soak-oom.out 2>&1
rc=$?
out=$(grep '^soak: ' /tmp/soak-oom.out)
echo "$out" | grep -E '^soak: (swap checks|vmstat|swap cgroup|kernel traces|FAIL|PASS)' | sed 's/^/# /'
ktap_result "OOM: the soak fails" test $rc = 1
ktap_result "OOM: the kills are counted as kills" \
	test "$(echo "$out" | sed -n 's/.*killed \([0-9]*\) (writers.*/\1/p')" -gt 0
ktap_result "OOM: and not as wrong bytes" \
	test "$(echo "$out" | sed -n 's/.*, mismatched \([0-9]*\),.*/\1/p')" = 0
ktap_result "OOM: the cgroup was snapshotted at a kill" \
	sh -c 'sed -n "/^soak-evidence: begin oom-1.txt/,/^soak-evidence: end/p" /tmp/soak-oom.out |
		grep -q "^oom_kill [1-9]"'
ktap_result "OOM: the kernel log went with the evidence" \
	grep -q '^soak-evidence: begin dmesg.txt' /tmp/soak-oom.out
ktap_finish
