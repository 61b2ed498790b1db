#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Devices come and go: num_devices, hot_add/hot_remove of several devices,
# hot_remove of an open or unknown device, and rmmod of a loaded module.
# vm-timeout: 120
. "$(dirname "$0")/common.sh"

ktap_header
ktap_plan 16

swapoff -a 2>/dev/null
rmmod zram_ng 2>/dev/null
ktap_result "num_devices=2000 is refused" sh -c '! modprobe zram_ng num_devices=2000 2>/dev/null'
ktap_result "num_devices=0 creates no device" sh -c \
	"modprobe zram_ng num_devices=0 && [ ! -e /dev/zram_ng0 ] && rmmod zram_ng"
ktap_result "num_devices=3 creates three" sh -c \
	"modprobe zram_ng num_devices=3 && [ -b /dev/zram_ng2 ] && [ ! -e /dev/zram_ng3 ]"
ktap_result "hot_add is 0400" assert_eq "-r--------" "$(ls -l $ZCTL/hot_add | cut -c1-10)"

ids=
for i in 1 2 3; do ids="$ids $(cat $ZCTL/hot_add)"; done
ktap_result "three hot_adds give ids 3 4 5" assert_eq " 3 4 5" "$ids"
ktap_result "their disks exist" sh -c '[ -b /dev/zram_ng5 ] && [ -d /sys/block/zram_ng5 ]'
for n in 3 4 5; do echo 16M > $ZSYS/zram_ng$n/disksize; done
dd if=/dev/urandom of=/dev/zram_ng4 bs=1M count=2 2>/dev/null

ktap_result "hot_remove garbage: EINVAL" write_expect_errno EINVAL abc $ZCTL/hot_remove
ktap_result "hot_remove empty: EINVAL" write_expect_errno EINVAL "" $ZCTL/hot_remove
ktap_result "hot_remove negative: EINVAL" write_expect_errno EINVAL -1 $ZCTL/hot_remove
ktap_result "hot_remove unknown id: ENODEV" write_expect_errno ENODEV 99 $ZCTL/hot_remove
exec 3</dev/zram_ng4
ktap_result "hot_remove of an open device: EBUSY" write_expect_errno EBUSY 4 $ZCTL/hot_remove
ktap_result "rmmod with an open device is refused" sh -c '! rmmod zram_ng 2>/dev/null'
exec 3<&-
ktap_result "hot_remove 4 (initialised, with data)" sh -c "echo 4 > $ZCTL/hot_remove"
ktap_result "zram_ng4 is gone, 3 and 5 stay" sh -c \
	'[ ! -e /sys/block/zram_ng4 ] && [ -d /sys/block/zram_ng3 ] && [ -d /sys/block/zram_ng5 ]'
ktap_result "hot_add reuses the free id 4" assert_eq 4 "$(cat $ZCTL/hot_add)"
ktap_result "rmmod with initialised devices" rmmod zram_ng
modprobe zram_ng

ktap_finish
