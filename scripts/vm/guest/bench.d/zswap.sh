# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # bench-vm's variables
#
# zswap (bench-vm zswap RUNS MIB LIMIT_MIB): issue 13's scenario. zswap
# (lz4) in front of a brd swap device; a memory cgroup writes MIB of
# mixed-size data with MADV_NOHUGEPAGE and frees a random half
# (./fragmenter). Per zpool (zsmalloc, zbud, zsmalloc_ng, the order
# rotating between runs): stored pages, pool_total_size after the workload
# and after "echo 3 > drop_caches" (the pools' shrinkers), the write
# phase's time; then the kept half is read back and verified. Every
# pool_total_size is read after the fragmenter freed 512 more pages
# (SIGUSR2): 6.1's zswap refreshes that figure only when an entry is
# stored or freed (and freed swap slots reach it in batches of 64), so
# without it a shrinker's work would not show.
ZPOOLS="zsmalloc zbud zsmalloc_ng"
ZSWAP_COUNTERS="written_back_pages pool_limit_hit reject_alloc_fail reject_compress_poor reject_reclaim_fail"
cg=/sys/fs/cgroup/bench zs=/sys/module/zswap/parameters zd=/sys/kernel/debug/zswap

zswap_counter() {
	cat "/sys/kernel/debug/zswap/$1" 2>/dev/null || echo 0
}

zswap_total() {
	local pid=$1 done=$2
	rm -f "$done.poked"
	kill -USR2 "$pid"
	wait_until 60 test -e "$done.poked" || die "fragmenter did not free its poke pages"
	cat /sys/kernel/debug/zswap/pool_total_size
}

workload_prepare() {	# workload_prepare MIB LIMIT_MIB
	local mib=$1 limit=$2
	[ -d $zs ] || die "this kernel has no zswap"
	[ -x ./fragmenter ] || die "./fragmenter missing"
	modprobe lz4 || die "modprobe lz4 failed"
	modprobe zsmalloc_ng || die "modprobe zsmalloc_ng failed"
	modprobe brd rd_nr=1 rd_size=$(((mib + 64) * 1024)) || die "modprobe brd failed"
	echo lz4 >$zs/compressor || die "zswap: no lz4"
	echo 1 >$zs/enabled
	mkdir -p "$cg"
	echo $((limit * 1048576)) >"$cg/memory.max" || die "memory.max refused"
	echo "@@@ META kernel $(uname -r)"
	echo "@@@ META algorithm lz4"
	echo "@@@ META policy $(cat /sys/module/zsmalloc_ng/parameters/default_policy)"
	echo "@@@ META vm_mem_kib $(awk '/MemTotal/ {print $2}' /proc/meminfo)"
	echo "@@@ META vm_cpus $(nproc)"
	echo "@@@ META memcg_max_mib $limit"
	echo "@@@ META written_mib $mib"
	echo "@@@ META max_pool_percent $(cat $zs/max_pool_percent)"
}

workload_run() {	# workload_run RUN MIB LIMIT_MIB
	local i=$1 mib=$2 zp pid t0 t1 v pools
	local -A c0
	# shellcheck disable=SC2086 # ZPOOLS is a list
	pools=$(echo $ZPOOLS $ZPOOLS | cut -d' ' -f$((i % 3 + 1))-$((i % 3 + 3)))
	for zp in $pools; do
		echo "$zp" >$zs/zpool || die "zswap refused zpool $zp"
		mkswap /dev/ram0 >/dev/null || die "mkswap /dev/ram0"
		swapon /dev/ram0 || die "swapon /dev/ram0"
		rm -f "done" done.verified done.poked
		sync
		echo 3 >/proc/sys/vm/drop_caches
		for v in $ZSWAP_COUNTERS; do
			c0[$v]=$(zswap_counter $v)
		done
		t0=$(now_us)
		(echo $BASHPID >"$cg/cgroup.procs" && exec ./fragmenter "$mib" $((i + 1)) "done") \
			>/tmp/fragmenter.out 2>&1 &
		pid=$!
		wait_until 0 fragmenter_done $pid "done"
		t1=$(now_us)
		[ -e "done" ] || { cat /tmp/fragmenter.out; die "$zp: fragmenter died"; }
		# the frees' own work (zsmalloc_ng's self-compaction) settles
		sleep 1
		echo "@@@ VAL $zp elapsed_ms $(((t1 - t0) / 1000))"
		echo "@@@ VAL $zp write_MBps $((mib * 1048576 / ((t1 - t0) / 1000 + 1) * 1000 / 1000000))"
		echo "@@@ VAL $zp stored_pages $(cat $zd/stored_pages)"
		# the compressed bytes zswap charged to the cgroup: the floor
		echo "@@@ VAL $zp compressed_bytes $(awk '$1 == "zswap" { print $2 }' "$cg/memory.stat")"
		echo "@@@ VAL $zp pool_total_size $(zswap_total $pid "done")"
		# drop_caches skips every shrinker when it finds the
		# shrinker lock taken (a pool being created or destroyed
		# elsewhere): three tries, a second apart
		for v in 1 2 3; do
			echo 3 >/proc/sys/vm/drop_caches
			sleep 1
		done
		echo "@@@ VAL $zp pool_total_size_shrunk $(zswap_total $pid "done")"
		for v in $ZSWAP_COUNTERS; do
			echo "@@@ VAL $zp $v $(($(zswap_counter $v) - c0[$v]))"
		done
		if [ "$zp" = zsmalloc_ng ]; then
			for v in objs_moved pages_compacted auto_compactions; do
				echo "@@@ VAL $zp $v $(zswap_pool_stat $v)"
			done
		fi
		fragmenter_finish $pid "$zp"
		swapoff /dev/ram0 || die "swapoff /dev/ram0"
		# the emptied pool is destroyed in a work item: let it go
		sleep 3
	done
}
