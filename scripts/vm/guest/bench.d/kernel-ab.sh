# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # bench-vm's variables
#
# kernel-ab (bench-vm kernel-ab RUNS OBJS FIO_MIB DATA...): the in-kernel
# A/B benchmark (zsng_ab.ko, zsmalloc_ng/bench/kernel-ab): in each run, for
# each DATA set (swap, mixed, fio, fixed:SIZE), the stock zsmalloc and
# zsmalloc_ng go through the same phases at 1 thread and at one per CPU,
# the allocator that goes first alternating between runs (even runs
# zsmalloc_ng first); seed = run + 1. fio's pages are written once by fio
# itself, with the fio workload's buffer options, and handed to the module.
ab=/sys/kernel/debug/zsng_ab

workload_prepare() {	# workload_prepare OBJS FIO_MIB DATA...
	local fio_mib=$2
	modprobe lz4 || die "modprobe lz4 failed"
	modprobe zsng_ab || die "modprobe zsng_ab failed (make modules builds it)"
	fio --name=pages --filename=/tmp/fio.pages --rw=write --bs=4k --size="${fio_mib}M" \
		--ioengine=psync --buffer_compress_percentage=33 --buffer_compress_chunk=4k \
		--refill_buffers --scramble_buffers=0 --randrepeat=1 >/dev/null 2>&1 ||
		die "fio could not write its pages"
	dd if=/tmp/fio.pages of=$ab/pages bs=1M 2>/dev/null || die "zsng_ab refused the pages"
	rm -f /tmp/fio.pages
	echo "@@@ META kernel $(uname -r)"
	echo "@@@ META algorithm lz4"
	echo "@@@ META policy $(cat /sys/module/zsmalloc_ng/parameters/default_policy)"
	echo "@@@ META vm_mem_kib $(awk '/MemTotal/ {print $2}' /proc/meminfo)"
	echo "@@@ META vm_cpus $(nproc)"
}

workload_run() {	# workload_run RUN OBJS FIO_MIB DATA...
	local i=$1 objs=$2 d spec first
	shift 3
	first=zsmalloc_ng
	[ $((i % 2)) -eq 0 ] || first=zsmalloc
	for d in "$@"; do
		spec="data=$d"
		[ "$d" = fio ] && spec="data=pages label=fio"
		echo "$spec objs=$objs threads=1,all first=$first seed=$((i + 1))" >$ab/run ||
			{ dmesg | tail -n 20; die "kernel-ab: $d failed"; }
		sed 's/^/@@@ AB /' $ab/results
	done
}
