#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# zsmalloc_ng.ko in the kernel: the boot self-check, the module parameters,
# and the same deterministic scenarios and experiment as the userspace
# build, compared line for line with the host's output (scripts/check
# passes it in with vm-run --add as /work/*.expected).
# vm-timeout: 240
. "$(dirname "$0")/../lib.sh"

DBG=/sys/kernel/debug/zsmalloc_ng
PARAMS=/sys/module/zsmalloc_ng/parameters
EXPECTED=${ZSNG_EXPECTED_DIR:-/work}

ktap_header
ktap_plan 9

rmmod zram_ng 2>/dev/null
rmmod zsmalloc_ng 2>/dev/null

# Before: nothing loaded. After: the C++ core checked itself at load.
ktap_result "load zsmalloc_ng" modprobe zsmalloc_ng
ktap_result "self-check passed (selftest_result = 0)" \
	test "$(cat $PARAMS/selftest_result)" = 0

ktap_result "default_policy is ratio" test "$(cat $PARAMS/default_policy)" = ratio
echo exact > $PARAMS/default_policy 2>/dev/null
p=$(cat $PARAMS/default_policy)
echo ratio > $PARAMS/default_policy
if [ "$p" = exact ] &&
	write_expect_errno EINVAL bogus $PARAMS/default_policy &&
	test "$(cat $PARAMS/default_policy)" = ratio; then
	ktap_ok "default_policy accepts policy names, refuses others with EINVAL"
else
	ktap_fail "default_policy accepts policy names, refuses others with EINVAL"
fi

compare() {	# compare NAME FILE-FROM-KERNEL
	if [ ! -f "$EXPECTED/$1.expected" ]; then
		ktap_skip "$1: kernel counts equal userspace" "no $1.expected"
		return
	fi
	if diff "$EXPECTED/$1.expected" "$2" >/tmp/diff.$$; then
		ktap_ok "$1: kernel counts equal userspace"
	else
		sed 's/^/# /' /tmp/diff.$$ | head -20
		ktap_fail "$1: kernel counts equal userspace"
	fi
}

cat $DBG/scenarios >/tmp/scenarios.out
compare scenarios /tmp/scenarios.out

: >/tmp/experiment.out
# every policy, in the order of the expected file (made from the core's list)
for policy in $(sed -n 's/.* policy=\([^ ]*\) .*/\1/p' "$EXPECTED/experiment.expected" | uniq); do
	echo "published $policy 1 4" >$DBG/experiment
	cat $DBG/experiment >>/tmp/experiment.out
done
compare experiment /tmp/experiment.out

ktap_result "rmmod zsmalloc_ng" rmmod zsmalloc_ng

# A chain length outside 4..16 is refused at load with EINVAL.
if modprobe zsmalloc_ng max_pages_per_zspage=3 2>/dev/null; then
	rmmod zsmalloc_ng
	ktap_fail "max_pages_per_zspage=3 refused"
else
	dmesg | grep -q "max_pages_per_zspage=3 is outside 4..16" &&
		ktap_ok "max_pages_per_zspage=3 refused" ||
		ktap_fail "max_pages_per_zspage=3 refused"
fi

if modprobe zsmalloc_ng max_pages_per_zspage=16 &&
	test "$(cat $DBG/scenarios | tail -n 1)" = "result=0"; then
	ktap_ok "max_pages_per_zspage=16 loads and passes the scenarios"
else
	ktap_fail "max_pages_per_zspage=16 loads and passes the scenarios"
fi
rmmod zsmalloc_ng 2>/dev/null
ktap_finish
