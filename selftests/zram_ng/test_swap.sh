#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Swap on zram_ng under memory-cgroup pressure: data written into a tmpfs
# by a cgroup limited to 24 MiB is pushed to zram_ng, and must come back
# intact on swap-in and after swapoff. While swapped on, reset and rmmod
# are refused and change nothing.
# vm-timeout: 180
. "$(dirname "$0")/common.sh"

D=$ZSYS/zram_ng0
B=/dev/zram_ng0
CG=/sys/fs/cgroup/zng-swap
MNT=/mnt/zng-swap

# fio_tmpfs rw|verify: 64 MiB of partly compressible, crc32c-tagged data
fio_tmpfs() {
	set -- --name=swapload --directory=$MNT --nrfiles=4 --size=64M --bs=64k \
		--rw=write --buffer_compress_percentage=50 --refill_buffers \
		--verify=crc32c --verify_state_save=0 --output=/dev/null
	[ "$MODE" = verify ] && set -- "$@" --verify_only
	# the shell moves itself into the cgroup, then becomes fio
	sh -c 'echo $$ > "$0/cgroup.procs" && exec fio "$@"' $CG "$@"
}

ktap_header
ktap_plan 15

zram_ng_reload
echo 128M > $D/disksize
ktap_result "mkswap" sh -c "mkswap $B >/dev/null"
ktap_result "swapon" swapon $B
mkdir -p $CG $MNT
echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
echo 24M > $CG/memory.max
mount -t tmpfs -o size=128M tmpfs $MNT

MODE=write
ktap_result "64 MiB into a tmpfs under memory.max=24M" fio_tmpfs
orig=$(mm_stat zram_ng0 orig_data_size)
swapped=$(cat $CG/memory.swap.current)
ktap_result "the cgroup swapped out at least 32 MiB (memory.swap.current $swapped)" \
	test "$swapped" -gt 33554432
# Since 6.12 swap keeps zero-filled pages in a bitmap of its own and writes
# only the others to the device (about half of this data); 6.1 writes all.
ktap_result "pages went to zram_ng (orig_data_size $orig)" test "$orig" -gt 16777216
ktap_result "they compressed (compr $(mm_stat zram_ng0 compr_data_size) < orig)" \
	test "$(mm_stat zram_ng0 compr_data_size)" -lt "$orig"

# Refusals while swapped on.
ktap_result "reset while swapped on: EBUSY" write_expect_errno EBUSY 1 $D/reset
ktap_result "rmmod while swapped on is refused" sh -c '! rmmod zram_ng 2>/dev/null'
ktap_result "... and changed nothing" sh -c \
	"grep -q zram_ng0 /proc/swaps && test \$(cat $D/disksize) -eq 134217728"

MODE=verify
ktap_result "data verified after swap-in (inside the cgroup)" fio_tmpfs
ktap_result "swap-in freed slots before any swapoff (notify_free $(io_stat zram_ng0 4))" \
	test "$(io_stat zram_ng0 4)" -gt 0
ktap_result "no failed reads or writes" \
	assert_eq "0 0" "$(io_stat zram_ng0 1) $(io_stat zram_ng0 2)"

# swapoff needs room to bring every page back: lift the limit first.
echo max > $CG/memory.max
ktap_result "swapoff" swapoff $B
ktap_result "data verified after swapoff" fio_tmpfs
rm -f $MNT/*
ktap_result "notify_free counted the freed slots ($(io_stat zram_ng0 4))" \
	test "$(io_stat zram_ng0 4)" -gt 0
umount $MNT
rmdir $CG
echo 1 > $D/reset

ktap_finish
