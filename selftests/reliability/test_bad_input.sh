#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad input everywhere a user can reach zram_ng and zsmalloc_ng: a table of
# sysfs writes (whitespace, signs, bases, overflow, wrong state) beyond what
# selftests/zram_ng/test_sysfs.sh pins down, the module parameters at load
# time and at run time, the allocator's debugfs files, concurrent writers of
# every attribute, and I/O past the end or unaligned. Each refusal has its
# errno; accepted oddities are the ones stock zram accepts too. Nothing may
# crash, warn or leak: the modules must unload at the end.
# vm-timeout: 900
. "$(dirname "$0")/../zram_ng/common.sh"

DBG=/sys/kernel/debug/zsmalloc_ng
ZP=/sys/module/zsmalloc_ng/parameters
D=$ZSYS/zram_ng0
DEV=/dev/zram_ng0

# write VALUE FILE: like "echo VALUE > FILE"; VALUE may hold \t escapes
write() { printf '%b\n' "$1" >"$2"; }
# try EXPECT VALUE FILE: EXPECT is "ok" or an errno name
try() {
	if [ "$1" = ok ]; then
		sh -c 'printf "%b\n" "$1" > "$2"' sh "$2" "$3" 2>&1 | sed 's/^/# /'
		[ "${PIPESTATUS[0]}" = 0 ]
	else
		expect_errno "$1" sh -c 'printf "%b\n" "$1" > "$2"' sh "$2" "$3"
	fi
}

# The table: STATE ATTR EXPECT VALUE. STATE is the device's before the
# write: "uninit" (reset) or "init" (disksize 1M). VALUE is the rest of
# the line, between quotes, with \t for a tab.
TABLE='
uninit disksize      EINVAL " 64M"
uninit disksize      EINVAL "\t64M"
uninit disksize      EINVAL " "
uninit disksize      EINVAL "\t"
uninit disksize      EINVAL "+64M"
uninit disksize      EINVAL "1e6"
uninit disksize      ERANGE "18446744073709551616"
uninit disksize      ERANGE "99999999999999999999999"
uninit disksize      ERANGE "16E"
uninit disksize      ERANGE "0x10000000000000000"
uninit disksize      ok     "64M "
uninit disksize      ok     "0x100000"
uninit disksize      ok     "0x1E"
uninit disksize      ok     "0x1M"
uninit disksize      ok     "1m"
uninit disksize      EINVAL "0x"
uninit disksize      EINVAL "0xM"
init   disksize      EBUSY  "64M "
init   reset         EINVAL " 1"
init   reset         EINVAL "1 "
init   reset         EINVAL "\t1"
init   reset         EINVAL "1x"
init   reset         EINVAL "0x1"
init   reset         ERANGE "99999999999999999999"
init   reset         ok     "+1"
init   reset         ok     "01"
uninit reset         ok     "1"
init   mem_limit     EINVAL " 1M"
init   mem_limit     EINVAL " "
init   mem_limit     EINVAL "\t"
init   mem_limit     EINVAL "+1M"
init   mem_limit     ERANGE "18446744073709551616"
init   mem_limit     ERANGE "17179869184G"
init   mem_limit     ok     "1M "
init   mem_limit     ok     "0x100000"
init   mem_limit     EINVAL "0x"
init   mem_limit     ERANGE "0x100000000000000000M"
uninit mem_limit     ok     "1M"
init   mem_used_max  EINVAL " 0"
init   mem_used_max  EINVAL "0 "
init   mem_used_max  EINVAL "0x0"
init   mem_used_max  ok     "00"
uninit mem_used_max  ok     "0"
init   compact       ok     "garbage"
init   compact       ok     " "
uninit compact       EINVAL " "
init   max_comp_streams ok  "-1"
uninit max_comp_streams ok  "garbage"
uninit comp_algorithm EINVAL " lz4"
uninit comp_algorithm EINVAL "\tlz4"
uninit comp_algorithm EINVAL "LZ4"
uninit comp_algorithm EINVAL "lz4 zstd"
uninit comp_algorithm ok    "lz4 "
init   comp_algorithm EBUSY "lz4 "
init   comp_algorithm EINVAL " lz4"
uninit allocator_policy EINVAL "RATIO"
uninit allocator_policy EINVAL "ratio exact"
uninit allocator_policy EINVAL "ratio                                      x"
uninit allocator_policy ok  " ratio"
uninit allocator_policy ok  "\tratio\t"
init   allocator_policy EBUSY " exact"
init   allocator_policy EINVAL "RATIO"
'

ktap_header
ktap_plan 147

zram_ng_reload
state() {
	echo 1 >$D/reset 2>/dev/null
	[ "$1" = uninit ] || echo 1M >$D/disksize
}
echo "$TABLE" | while read -r st attr want value; do
	[ -n "$st" ] || continue
	value=${value#\"}
	value=${value%\"}
	state "$st"
	ktap_result "$attr [$value] when $st: $want" try "$want" "$value" "$D/$attr"
done | tee /tmp/table.out
# The pipe ran in a subshell: count its results here.
KTAP_TESTNUM=$(grep -c '^\(not \)\?ok ' /tmp/table.out)
KTAP_PASS=$(grep -c '^ok ' /tmp/table.out)
# shellcheck disable=SC2034 # lib.sh's ktap_finish reads it
KTAP_FAIL=$(grep -c '^not ok ' /tmp/table.out)
state uninit

# memparse wraps (2^64 would read as 0, "no limit", in stock zram): the
# refused value must leave the old limit in place.
echo 1M >$D/disksize
echo 2M >$D/mem_limit
echo 18446744073709551616 >$D/mem_limit 2>/dev/null
ktap_result "mem_limit 2^64 refused, the old limit kept" \
	test "$(mm_stat zram_ng0 mem_limit)" = 2097152
state uninit

# --- files that are read-only or write-only --------------------------------
for f in io_stat mm_stat debug_stat; do
	ktap_result "$f is read-only: EACCES" write_expect_errno EACCES 1 $D/$f
done
for f in reset mem_limit mem_used_max compact; do
	ktap_result "$f is write-only: EACCES" expect_errno EACCES cat $D/$f
done
ktap_result "hot_add cannot be written: EACCES" write_expect_errno EACCES 1 $ZCTL/hot_add
ktap_result "hot_remove cannot be read: EACCES" expect_errno EACCES cat $ZCTL/hot_remove
for v in " 1" "1 " "0x1" "1x"; do
	ktap_result "hot_remove [$v]: EINVAL" write_expect_errno EINVAL "$v" $ZCTL/hot_remove
done
ktap_result "hot_remove 2^31: ERANGE" write_expect_errno ERANGE 2147483648 $ZCTL/hot_remove

# --- module parameters --------------------------------------------------------
ktap_result "zram_ng num_devices is read-only at run time: EACCES" \
	write_expect_errno EACCES 1 /sys/module/zram_ng/parameters/num_devices
for p in max_pages_per_zspage selftest_result; do
	ktap_result "zsmalloc_ng $p is read-only at run time: EACCES" \
		write_expect_errno EACCES 1 $ZP/$p
done
for v in " " "RATIO" "ratio exact" "$(printf 'x%.0s' $(seq 300))"; do
	ktap_result "default_policy [${v:0:20}]: EINVAL, unchanged" sh -c \
		"printf '%s\n' '$v' > $ZP/default_policy 2>/dev/null; [ \$? != 0 ] && [ \$(cat $ZP/default_policy) = ratio ]"
done
ktap_result "default_policy [ exact ] (whitespace trimmed)" sh -c \
	"echo ' exact ' > $ZP/default_policy && [ \$(cat $ZP/default_policy) = exact ]"
echo ratio >$ZP/default_policy
ktap_result "default_policy [ratio + 40 spaces + junk]: EINVAL" \
	write_expect_errno EINVAL "ratio                                        junk" $ZP/default_policy
echo ratio >$ZP/default_policy
movable_refused() {	# movable_refused VALUE: EINVAL, and movable stays Y
	write_expect_errno EINVAL "$1" $ZP/movable && [ "$(cat $ZP/movable)" = Y ]
}
for v in maybe 2; do
	ktap_result "movable [$v]: EINVAL, still Y" movable_refused "$v"
done

# At load: each refused value leaves nothing loaded.
rmmod zram_ng
loadfail() {	# loadfail ERRNO MODULE PARAM
	expect_errno "$1" modprobe "$2" "$3" && ! grep -q "^$2 " /proc/modules
}
# One above the module's device limit (zram_ng.h's ZRAM_NG_MAX_DEVICES, in
# num_devices's description: "0-N")
maxdev=$(modinfo -F parm zram_ng | sed -n 's/^num_devices:.* 0-\([0-9][0-9]*\)[^0-9].*/\1/p')
for v in abc -1 $((maxdev + 1)) " 1" ""; do
	ktap_result "modprobe zram_ng num_devices=[$v]: EINVAL" loadfail EINVAL zram_ng "num_devices=$v"
done
ktap_result "modprobe zram_ng num_devices=99999999999: ERANGE" \
	loadfail ERANGE zram_ng num_devices=99999999999
ktap_result "... and no device was left behind" sh -c '! ls /dev/zram_ng* 2>/dev/null'
rmmod zsmalloc_ng
for v in 3 17 abc -1 " 8"; do
	ktap_result "modprobe zsmalloc_ng max_pages_per_zspage=[$v]: EINVAL" \
		loadfail EINVAL zsmalloc_ng "max_pages_per_zspage=$v"
done
ktap_result "modprobe zsmalloc_ng default_policy=foo: EINVAL" \
	loadfail EINVAL zsmalloc_ng default_policy=foo
ktap_result "modprobe zsmalloc_ng selftest_result=5: the self-check overwrites it" sh -c \
	"modprobe zsmalloc_ng selftest_result=5 && [ \$(cat $ZP/selftest_result) = 0 ]"
rmmod zsmalloc_ng
ktap_result "modprobe zsmalloc_ng max_pages_per_zspage=16 default_policy=exact" sh -c \
	"modprobe zsmalloc_ng max_pages_per_zspage=16 default_policy=exact &&
	 [ \$(cat $ZP/default_policy) = exact ] && rmmod zsmalloc_ng"
modprobe zram_ng

# --- zsmalloc_ng's debugfs input -------------------------------------------------
E=$DBG/experiment
echo "published ratio 1 4" >$E
for v in "" " " garbage "published ratio 1" "published foo 1 4" \
	"published ratio 1 1" "published ratio 1 4097" "published ratio -1 4" \
	"published ratio 1 -4" "averyveryverylongpatternname ratio 1 4" \
	"$(printf 'x%.0s' $(seq 200))"; do
	ktap_result "experiment [${v:0:40}]: EINVAL" write_expect_errno EINVAL "$v" $E
done
ktap_result "... the last accepted experiment still runs" assert_eq result=0 "$(tail -n 1 $E)"
ktap_result "experiment with an unknown pattern: accepted, the run says result=-22" \
	sh -c "echo 'nosuch ratio 1 4' > $E && [ \"\$(tail -n 1 $E)\" = result=-22 ]"
echo "published ratio 1 4" >$E
if [ -f $DBG/fail_every ]; then
	for f in fail_every fail_times fail_calls; do
		ktap_result "$f [abc]: EINVAL" write_expect_errno EINVAL abc $DBG/$f
		ktap_result "$f [2^64]: ERANGE" write_expect_errno ERANGE 18446744073709551616 $DBG/$f
	done
	ktap_result "fail_every [-1]: EINVAL" write_expect_errno EINVAL -1 $DBG/fail_every
	ktap_result "the knob stayed off" assert_eq 0 "$(cat $DBG/fail_every)"
else
	for i in 1 2 3 4 5 6 7 8; do ktap_skip "fault knob input $i" "no fail_every"; done
fi

# --- I/O past the end and unaligned ----------------------------------------------------
state init	# 1 MiB: 256 pages
fio --name=g --filename=/tmp/data --rw=write --bs=4k --size=1M \
	--buffer_compress_percentage=50 --refill_buffers --output=/dev/null
dd if=/tmp/data of=$DEV bs=64k oflag=direct 2>/dev/null
ktap_result "write past the end (buffered): ENOSPC" \
	expect_errno ENOSPC dd if=/dev/zero of=$DEV bs=4k seek=256 count=1
ktap_result "write past the end (O_DIRECT): ENOSPC" \
	expect_errno ENOSPC dd if=/dev/zero of=$DEV bs=4k seek=256 count=1 oflag=direct
ktap_result "write across the end: ENOSPC after the last page" \
	expect_errno ENOSPC dd if=/dev/zero of=$DEV bs=4k seek=255 count=2 oflag=direct
ktap_result "... which was written" cmp -n 4096 /dev/zero <(dd if=$DEV bs=4k skip=255 2>/dev/null)
dd if=/tmp/data of=$DEV bs=4k seek=255 skip=255 oflag=direct 2>/dev/null
ktap_result "read past the end: end of file, no error" sh -c \
	"[ \$(dd if=$DEV bs=4k skip=256 count=1 iflag=direct 2>/dev/null | wc -c) = 0 ]"
# busybox dd retries without O_DIRECT on EINVAL: fio does not.
fio_einval() {	# fio_einval RW BS OFFSET
	! fio --name=u --filename=$DEV --rw="$1" --bs="$2" --offset="$3" --size=8k \
		--direct=1 --output=/tmp/fio.u >/dev/null 2>&1 &&
		grep -q 'Invalid argument' /tmp/fio.u
}
for bs in 512 1000 4095; do
	ktap_result "O_DIRECT read of $bs bytes (logical block 4096): EINVAL" \
		fio_einval read $bs 0
	ktap_result "O_DIRECT write of $bs bytes: EINVAL" fio_einval write $bs 0
done
ktap_result "O_DIRECT read at offset 512: EINVAL" fio_einval read 4k 512
ktap_result "O_DIRECT write at offset 2048: EINVAL" fio_einval write 4k 2048
ktap_result "the refused I/O changed nothing" cmp /tmp/data $DEV
# Buffered I/O at odd offsets goes through the page cache: read-modify-write.
head -c 3000 /dev/urandom >/tmp/odd
cp /tmp/data /tmp/expect
dd if=/tmp/odd of=/tmp/expect bs=1000 seek=5 conv=notrunc 2>/dev/null
dd if=/tmp/odd of=$DEV bs=1000 seek=5 conv=notrunc,fsync 2>/dev/null
echo 3 >/proc/sys/vm/drop_caches
ktap_result "buffered writes of 1000 bytes at offset 5000 read back" cmp /tmp/expect $DEV
ktap_result "invalid_io stays 0 (the block layer stops them first)" \
	assert_eq 0 "$(io_stat zram_ng0 3)"
state uninit
ktap_result "write to an uninitialised device: ENOSPC" \
	expect_errno ENOSPC dd if=/dev/zero of=$DEV bs=4k count=1
ktap_result "read of an uninitialised device: end of file" sh -c \
	"[ \$(dd if=$DEV bs=4k count=1 2>/dev/null | wc -c) = 0 ]"

# --- concurrent writers of every attribute ----------------------------------------------
end=$(($(cut -d. -f1 /proc/uptime) + 10))
alive() { [ "$(cut -d. -f1 /proc/uptime)" -lt $end ]; }
{
	(while alive; do echo 4M >$D/disksize; echo 1 >$D/reset; done) &
	(while alive; do echo zstd >$D/comp_algorithm; echo lz4 >$D/comp_algorithm; done) &
	(while alive; do for p in legacy exact ratio; do echo $p >$D/allocator_policy; done; done) &
	(while alive; do echo 1M >$D/mem_limit; echo 0 >$D/mem_limit; echo 0 >$D/mem_used_max; done) &
	(while alive; do echo 1 >$D/compact; done) &
	(while alive; do cat $D/* $DBG/zram_ng0/classes >/dev/null; done) &
	(while alive; do dd if=/tmp/data of=$DEV bs=64k count=4 oflag=direct; dd if=$DEV of=/dev/null bs=64k count=4; done) &
	(while alive; do id=$(cat $ZCTL/hot_add) && echo 2M >$ZSYS/zram_ng$id/disksize &&
		echo "$id" >$ZCTL/hot_remove; done) &
	(while alive; do echo 1 >$ZCTL/hot_remove; echo 2 >$ZCTL/hot_remove; done) &
	(while alive; do echo ratio >$ZP/default_policy; echo legacy >$ZP/default_policy; done) &
	wait
} >/dev/null 2>&1
echo ratio >$ZP/default_policy
for id in $(ls -d $ZSYS/zram_ng* | sed 's/.*zram_ng//'); do
	[ "$id" = 0 ] || echo "$id" >$ZCTL/hot_remove
done
ktap_result "after concurrent writers: reset works, device uninitialised" sh -c \
	"echo 1 > $D/reset && [ \$(cat $D/initstate) = 0 ] && [ \$(cat $D/disksize) = 0 ]"
ktap_result "... then disksize, write and verify work" sh -c \
	"echo 1M > $D/disksize && dd if=/tmp/data of=$DEV bs=64k oflag=direct 2>/dev/null && cmp /tmp/data $DEV"
ktap_result "... and only zram_ng0 is left" assert_eq zram_ng0 "$(cd $ZSYS && echo zram_ng*)"
echo 1 >$D/reset

ktap_result "no pool was destroyed with live objects" \
	sh -c '! dmesg | grep -q "destroying a pool with live objects"'
ktap_result "zram_ng and zsmalloc_ng unload" sh -c 'rmmod zram_ng && rmmod zsmalloc_ng'
ktap_finish
