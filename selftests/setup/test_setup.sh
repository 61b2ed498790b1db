#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# zram-ng-setup as zram-ng-setup.service runs it ("zram-ng-setup start",
# "zram-ng-setup stop", /etc/zram_ng.conf), from an unloaded zram_ng: swap
# with the configured size, algorithm, policy and priority, and an ext4
# mounted on a /tmp-like directory, then both taken down and the devices
# removed. A configuration that is wrong, in the file or only against the
# kernel, or a device that fails while being set up, leaves no device
# behind.
# vm-timeout: 180
. "$(dirname "$0")/../lib.sh"

CONF=/etc/zram_ng.conf
MNT=/mnt/zng-tmp
SYS=/sys/block

unload() { rmmod zram_ng 2>/dev/null; rmmod zsmalloc_ng 2>/dev/null; :; }
no_device() {	# nothing of zram_ng left: devices, swap, mounts, state
	set -- $SYS/zram_ng*
	[ -e "$1" ] && { ktap_print "left: $*"; return 1; }
	grep -q zram_ng /proc/swaps /proc/mounts && { ktap_print "still in use"; return 1; }
	[ -z "$(ls /run/zram_ng 2>/dev/null)" ]
}
# quietly CMD...: CMD's output as KTAP diagnostics, its exit status kept
quietly() {
	_out=$("$@" 2>&1)
	_rc=$?
	[ -z "$_out" ] || echo "$_out" | sed 's/^/# /'
	return $_rc
}
# start_fails WANT: start fails, its message has WANT, nothing is left
start_fails() {
	if out=$(zram-ng-setup start 2>&1); then
		ktap_print "start succeeded"; zram-ng-setup stop; return 1
	fi
	echo "$out" | sed 's/^/# /'
	case $out in *"$1"*) ;; *) ktap_print "no '$1' in the above"; return 1 ;; esac
	no_device
}

ktap_header
ktap_plan 19

unload
mkdir -p $MNT
chmod 1777 $MNT
cat >$CONF <<CONFIG
# the test's configuration
[zram_ng0]
zram-size = min(ram * 2, 64)
compression-algorithm = lz4hc
allocator-policy = exact
swap-priority = 77

[zram_ng1]
zram-size = 32
fs-type = ext4
mount-point = $MNT
CONFIG

ktap_result "print: the plan" assert_eq \
	"zram_ng0 size=67108864 limit=0 algorithm=lz4hc policy=exact fs=swap mount=- priority=77 options=discard" \
	"$(zram-ng-setup --ram 2048 print | head -n 1)"
ktap_result "start" quietly zram-ng-setup start
ktap_result "swap on /dev/zram_ng0 at priority 77" assert_eq "/dev/zram_ng0 77" \
	"$(awk '$1 == "/dev/zram_ng0" { print $1, $5 }' /proc/swaps)"
ktap_result "its disksize is min(ram * 2, 64) MiB" assert_eq 67108864 "$(cat $SYS/zram_ng0/disksize)"
ktap_result "its algorithm is lz4hc" sh -c "grep -q '\[lz4hc\]' $SYS/zram_ng0/comp_algorithm"
ktap_result "its policy is exact" sh -c "grep -q '\[exact\]' $SYS/zram_ng0/allocator_policy"
ktap_result "ext4 on /dev/zram_ng1 mounted on $MNT" assert_eq "/dev/zram_ng1 ext4" \
	"$(awk -v m=$MNT '$2 == m { print $1, $3 }' /proc/mounts)"
ktap_result "$MNT kept its mode (1777) and takes files" sh -c \
	"test \$(stat -c %a $MNT) = 1777 && echo data > $MNT/f && test \$(cat $MNT/f) = data"
ktap_result "zramctl-ng lists both" assert_eq \
	"/dev/zram_ng0 [SWAP] exact /dev/zram_ng1 $MNT ratio" \
	"$(zramctl-ng --raw --noheadings --output NAME,MOUNTPOINT,POLICY | xargs)"
ktap_result "a second start is refused" sh -c '! zram-ng-setup start 2>/dev/null'
ktap_result "... and changed nothing" sh -c "grep -q zram_ng0 /proc/swaps && grep -q $MNT /proc/mounts"
ktap_result "stop" quietly zram-ng-setup stop
ktap_result "stop: swapoff, umount, and the devices removed" no_device
ktap_result "stop again: nothing to do" quietly zram-ng-setup stop

# Wrong in the file: nothing is loaded or made. (A writeback device is
# waited for a second, not ten.)
printf '[zram_ng0]\nzram-size = 64\nwriteback-device = /dev/zng-nosuch\n' >$CONF
export ZRAM_NG_DEVICE_WAIT=1
ktap_result "a writeback-device that is not there is refused, naming the file, line and key" \
	start_fails "$CONF:3: writeback-device: /dev/zng-nosuch: no such device"

# Wrong only against the kernel: found before anything is set up.
printf '[zram_ng0]\nzram-size = 64\n[zram_ng1]\nzram-size = 8\ncompression-algorithm = nosuch\n' >$CONF
ktap_result "an algorithm the kernel lacks: no device left" \
	start_fails "$CONF:5: compression-algorithm: \"nosuch\" is not available"
printf '[zram_ng0]\nallocator-policy = nosuch\n' >$CONF
ktap_result "a policy the allocator lacks: no device left" \
	start_fails "$CONF:2: allocator-policy: \"nosuch\" is not a policy"

# Fails while being set up (the mount-point cannot be made: a file is in
# its way; under /mnt, since a mount-point below a world-writable /tmp is
# refused before anything is touched): the swap already on zram_ng0 is
# undone too.
: >/mnt/zng-file
printf '[zram_ng0]\nzram-size = 16\n[zram_ng1]\nzram-size = 8\nfs-type = ext4\nmount-point = /mnt/zng-file/x\n' >$CONF
ktap_result "a device failing while set up: every device undone" \
	start_fails "[zram_ng1] failed: undoing everything"
ktap_result "the module is still there to use" test -d /sys/class/zram_ng-control

rm -f $CONF /mnt/zng-file
unload
ktap_finish
