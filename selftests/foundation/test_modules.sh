#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Both modules load, zsmalloc_ng passes its init-time self-check (the
# testing build's, which the VM runs), they coexist with the stock
# zram/zsmalloc, and unload without a kernel warning.
. "$(dirname "$0")/../lib.sh"

loaded() { lsmod | grep -q "^$1 "; }
# The stock zsmalloc is a module on 6.1 and built in on 6.12.
builtin() { grep -q "/$1\.ko\$" "/lib/modules/$(uname -r)/modules.builtin"; }
present() { loaded "$1" || builtin "$1"; }
warnings() { dmesg | grep -cE 'WARNING:|BUG:|Oops'; }

ktap_header
ktap_plan 8
warn_before=$(warnings)

# modprobe resolves zram_ng's dependency on zsmalloc_ng through modules.dep.
if modprobe zram_ng; then
	ktap_ok "modprobe zram_ng"
else
	ktap_fail "modprobe zram_ng"
fi
ktap_result "zsmalloc_ng pulled in and listed" loaded zsmalloc_ng
ktap_result "zram_ng listed" loaded zram_ng

# The C++ core checks itself at module init: this load's result (a
# dmesg line could be an earlier load's).
ktap_result "zsmalloc_ng self-check passed at this load (selftest_result = 0)" \
	test "$(cat /sys/module/zsmalloc_ng/parameters/selftest_result 2>&1)" = 0

# Our modules must not clash with the stock ones (symbols, sysfs, major).
if modprobe zram && loaded zram && present zsmalloc; then
	ktap_ok "stock zram and zsmalloc load beside them"
else
	ktap_fail "stock zram and zsmalloc load beside them"
fi
if builtin zsmalloc; then
	ktap_result "stock zram unloads (zsmalloc is built in)" rmmod zram
else
	ktap_result "stock zram and zsmalloc unload" rmmod zram zsmalloc
fi

if rmmod zram_ng zsmalloc_ng && ! loaded zram_ng && ! loaded zsmalloc_ng; then
	ktap_ok "rmmod zram_ng zsmalloc_ng"
else
	ktap_fail "rmmod zram_ng zsmalloc_ng"
fi
assert_eq "$warn_before" "$(warnings)" "kernel warnings" &&
	ktap_ok "no kernel warning" || ktap_fail "no kernel warning"

ktap_finish
