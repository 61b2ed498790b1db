#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The design card's path: "insmod zsmalloc_ng.ko && insmod zram_ng.ko" on
# a bare VM, where modprobe cannot find our modules and nothing has loaded
# a compression library. zram_ng.ko links against none (zram_ng/zcomp.c):
# lz4, lz4hc and zstd then go through the crypto API, and dmesg names the
# module of the library backend (zram_ng_lz4, zram_ng_zstd). Each swaps
# real pages and reads them back. Then the installed path: modprobe, and
# the first device of an algorithm loads its library backend by the
# symbol it exports (algorithm_params, which the crypto API cannot take,
# works again).
# vm-timeout: 300
. "$(dirname "$0")/common.sh"

M=/lib/modules/$(uname -r)
KO=/root/insmod-ko
CG=/sys/fs/cgroup/zng-insmod
MNT=/mnt/zng-insmod
B=/dev/zram_ng0
D=$ZSYS/zram_ng0
LIBS="lz4 lz4hc zstd lz4_compress lz4hc_compress zstd_compress"

loaded() { lsmod | grep -q "^$1 "; }
# zstd_compress is a module on 6.1 and built in on 6.12.
builtin() { grep -q "/$1\.ko\$" "$M/modules.builtin"; }
zstd_backend_loaded() {
	loaded zram_ng_zstd && { loaded zstd_compress || builtin zstd_compress; }
}
unload_all() {
	swapoff -a 2>/dev/null
	for m in zram_ng zram_ng_lz4 zram_ng_zstd zsmalloc_ng zram $LIBS; do
		rmmod "$m" 2>/dev/null
	done
	:
}

# swap_verify ALG: 32 MiB of partly compressible, crc32c-tagged data in a
# tmpfs of a cgroup limited to 12 MiB, swapped to zram_ng0 (ALG) and read
# back; every step must pass
swap_verify() {
	echo "$1" >$D/comp_algorithm && echo 64M >$D/disksize &&
		mkswap $B >/dev/null && swapon $B || return 1
	mount -t tmpfs -o size=64M tmpfs $MNT
	set -- --name=insmod --directory=$MNT --nrfiles=2 --size=32M --bs=64k \
		--rw=write --buffer_compress_percentage=50 --refill_buffers \
		--verify=crc32c --verify_state_save=0 --output=/dev/null
	sh -c 'echo $$ > "$0/cgroup.procs" && exec fio "$@"' $CG "$@"
	w=$?
	orig=$(mm_stat zram_ng0 orig_data_size)
	sh -c 'echo $$ > "$0/cgroup.procs" && exec fio "$@"' $CG "$@" --verify_only
	v=$?
	echo max >$CG/memory.max
	swapoff $B
	s=$?
	echo 12M >$CG/memory.max
	umount $MNT
	echo 1 >$D/reset
	ktap_print "$(bracketed $D/comp_algorithm 2>/dev/null): written $w, verified $v, swapoff $s, orig_data_size $orig"
	[ $w = 0 ] && [ $v = 0 ] && [ $s = 0 ] && [ "${orig:-0}" -gt 4194304 ]
}

ktap_header
ktap_plan 14

unload_all
mkdir -p $KO $CG $MNT
echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
echo 12M >$CG/memory.max
# The bare VM: our modules only as files modprobe does not know, given
# back however this test ends (the suite's later tests modprobe them).
restore() {
	set -- $KO/*.ko
	[ -e "$1" ] && mv "$@" $M/extra/ && depmod -a
	:
}
trap restore EXIT
trap 'exit 1' INT TERM
mv $M/extra/*.ko $KO/
depmod -a
ktap_result "modprobe cannot find zram_ng (the modules are only files)" \
	sh -c '! modprobe -n zram_ng 2>/dev/null'
still=
for m in $LIBS; do loaded "$m" && still="$still $m"; done
ktap_result "no compression library loaded${still:+ (loaded:$still)}" test -z "$still"

notes() { dmesg | grep -c "module $1 not found"; }
lz4_notes=$(notes zram_ng_lz4)
zstd_notes=$(notes zram_ng_zstd)
ktap_result "insmod zsmalloc_ng.ko && insmod zram_ng.ko" \
	sh -c "insmod $KO/zsmalloc_ng.ko && insmod $KO/zram_ng.ko"
ktap_result "comp_algorithm lists lz4, lz4hc and zstd" \
	test "$(choices $D/comp_algorithm | tr ' ' '\n' | grep -cxE 'lz4|lz4hc|zstd')" = 3
for alg in lz4 lz4hc zstd; do
	ktap_result "$alg swaps and reads back (the crypto API's)" swap_verify $alg
done
ktap_result "dmesg names zram_ng_lz4 (once for lz4 and lz4hc) and zram_ng_zstd" \
	test "$(notes zram_ng_lz4) $(notes zram_ng_zstd)" = "$((lz4_notes + 1)) $((zstd_notes + 1))"
echo zstd >$D/comp_algorithm
ktap_result "algorithm_params level= without the library backend: EOPNOTSUPP" \
	write_expect_errno EOPNOTSUPP level=9 $D/algorithm_params
ktap_result "rmmod zram_ng zsmalloc_ng" rmmod zram_ng zsmalloc_ng

# Installed: modprobe finds the backend modules by their symbols.
restore
ktap_result "modprobe zram_ng" modprobe zram_ng
echo zstd >$D/comp_algorithm
ktap_result "algorithm_params level=9 for zstd" sh -c "echo level=9 >$D/algorithm_params"
ktap_result "zstd swaps and reads back (the library's)" swap_verify zstd
ktap_result "zram_ng_zstd and zstd_compress loaded by it (or built in)" zstd_backend_loaded

unload_all
rmdir $CG
ktap_finish
