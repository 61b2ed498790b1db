#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The modules that the zsmalloc-ng-dkms package built load and work: the
# host test scripts/tests/test-deb installs the package (DKMS builds for
# each installed 6.1 / 6.12 kernel) and keeps what DKMS installed in
# .cache/dkms-modules/<release>/, which scripts/vm-tests brings here. They
# are loaded instead of the tree's own build, with the stock modules they
# need, and a device on them stores and returns data. Skipped when there
# is no DKMS build for this kernel (test-deb has not run).
# vm-timeout: 120
. "$(dirname "$0")/../lib.sh"

D=/work/dkms-modules/$(uname -r)
B=/dev/zram_ng0
ktap_header
if [ ! -d "$D" ]; then
	ktap_plan 1
	ktap_skip "the DKMS-built modules load" "no $D (scripts/tests/test-deb keeps them)"
	ktap_finish
fi
ktap_plan 7

ko() { ls "$D/$1".ko* 2>/dev/null | head -n 1; }
rmmod zram_ng 2>/dev/null
rmmod zsmalloc_ng 2>/dev/null
# What zram_ng needs besides our two modules, from the stock tree.
modprobe --show-depends zram_ng | while read -r cmd path _; do
	case $path in */zsmalloc_ng.ko*|*/zram_ng*.ko*|'') continue ;; esac
	[ "$cmd" = insmod ] && insmod "$path" 2>/dev/null
done
modprobe lz4 2>/dev/null

ktap_result "insmod the DKMS zsmalloc_ng" insmod "$(ko zsmalloc_ng)"
ktap_result "insmod the DKMS zram_ng" insmod "$(ko zram_ng)"
ktap_result "the loaded zram_ng is that file (srcversion, version)" assert_eq \
	"$(modinfo -F srcversion "$(ko zram_ng)") $(modinfo -F version "$(ko zram_ng)")" \
	"$(cat /sys/module/zram_ng/srcversion) $(cat /sys/module/zram_ng/version)"
# The package ships the product: no self-check, no experiment files, no
# fault injection (zsmalloc_ng's fail_* files, zram_ng's fail_leaf_alloc).
ktap_result "the DKMS modules are the product build (no selftest_result, experiment or fail_*)" \
	sh -c '! [ -e /sys/module/zsmalloc_ng/parameters/selftest_result ] &&
	       ! [ -e /sys/kernel/debug/zsmalloc_ng/experiment ] &&
	       ! [ -e /sys/kernel/debug/zsmalloc_ng/scenarios ] &&
	       ! ls /sys/kernel/debug/zsmalloc_ng/fail_* >/dev/null 2>&1 &&
	       ! [ -e /sys/module/zram_ng/parameters/fail_leaf_alloc ]'
ktap_result "a device on them" sh -c "echo 16M > /sys/block/zram_ng0/disksize"
head -c 4194304 /dev/urandom >/tmp/dkms-data
ktap_result "stores and returns 4 MiB" sh -c \
	"dd if=/tmp/dkms-data of=$B bs=1M oflag=direct 2>/dev/null &&
	 dd if=$B of=/tmp/dkms-back bs=1M count=4 iflag=direct 2>/dev/null &&
	 cmp /tmp/dkms-data /tmp/dkms-back"
echo 1 >/sys/block/zram_ng0/reset
ktap_result "rmmod both" sh -c "rmmod zram_ng && rmmod zsmalloc_ng"
rm -f /tmp/dkms-data /tmp/dkms-back
ktap_finish
