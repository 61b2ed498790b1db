#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# zswap on zsmalloc_ng (zsmalloc_ng/kernel/zpool.c): zswap loads the module
# when its zpool parameter names it; data a memory cgroup pushes out comes
# back intact, through zswap and through its writeback to the backing swap
# (a brd ramdisk) once the pool is full; freeing half of it makes the pool
# compact itself; zram_ng shares the module meanwhile; rmmod is refused
# while zswap has a pool here, and works once zswap has switched away and
# drained it; switching back loads it again. Runs last of all the
# selftests: on 6.1 its writeback phase pins the module (below).
# vm-timeout: 420
. "$(dirname "$0")/../zram_ng/common.sh"

ZP=/sys/module/zswap/parameters
ZD=/sys/kernel/debug/zswap
DBG=/sys/kernel/debug/zsmalloc_ng
CG=/sys/fs/cgroup/zng-zswap
MNT=/mnt/zng-zswap
RAM=/dev/ram0

no_zswap_pool() {
	test -z "$(zswap_pools)"
}

pool_compacted() {
	test "$(zswap_pool_stat auto_compactions)" -gt 0 -a \
		"$(zswap_pool_stat pages_compacted)" -gt 0
}

# fio_tmpfs JOB MODE [FIO ARGS...]: JOB's files in the tmpfs, written or
# verified from inside the cgroup: two jobs writing at once, so their pages
# are interleaved in the pool (24 MiB each, 2.5-3:1 with lz4)
fio_tmpfs() {
	_job=$1 _mode=$2
	shift 2
	set -- --name="$_job" --directory=$MNT --nrfiles=2 --size=24M --bs=4k \
		--rw=write --buffer_compress_percentage=65 \
		--buffer_compress_chunk=512 --refill_buffers \
		--verify=crc32c --verify_state_save=0 --output=/dev/null "$@"
	[ "$_mode" = verify ] && set -- "$@" --verify_only
	sh -c 'echo $$ > "$0/cgroup.procs" && exec fio "$@"' $CG "$@"
}

ktap_header
ktap_plan 30

if [ ! -d $ZP ]; then
	ktap_print "this kernel has no zswap"
	i=0
	while [ $i -lt 30 ]; do
		ktap_skip "zswap" "no zswap"
		i=$((i + 1))
	done
	ktap_finish
fi

case $(uname -r) in
6.1.*) EVICT=1 ;;	# writeback through zpool's shrink/evict (compat/zpool.h)
*) EVICT=0 ;;
esac

swapoff -a 2>/dev/null
rmmod zram_ng 2>/dev/null
rmmod zsmalloc_ng 2>/dev/null
modprobe lz4
modprobe brd rd_nr=1 rd_size=262144
echo lz4 > $ZP/compressor
# Since 6.2 zswap sets itself up (pools, debugfs) when first enabled; with
# no swap device on, nothing is stored yet.
echo 1 > $ZP/enabled

# 1. zswap loads the module and makes its pool there.
ktap_result "zsmalloc_ng is not loaded before" sh -c '! grep -q "^zsmalloc_ng " /proc/modules'
ktap_result "echo zsmalloc_ng > zswap's zpool" sh -c "echo zsmalloc_ng > $ZP/zpool"
ktap_result "... loaded the module on demand" grep -q "^zsmalloc_ng " /proc/modules
ktap_result "zswap's pool is in zsmalloc_ng's debugfs ($(zswap_pools | tr '\n' ' '))" \
	test -n "$(zswap_pools)"
ktap_result "the pool compacts itself (auto_compact 1)" \
	assert_eq 1 "$(zswap_pool_stat auto_compact)"
ktap_result "rmmod zsmalloc_ng is refused while zswap has a pool on it" \
	sh -c '! rmmod zsmalloc_ng 2>/dev/null && grep -q "^zsmalloc_ng " /proc/modules'

# 2. Swap through zswap under a memory cgroup.
mkswap $RAM >/dev/null
swapon $RAM
echo 20 > $ZP/max_pool_percent
# 6.8 and later: zswap's own shrinker writes cold entries back under the
# cgroup's pressure, so writer b's pages may have left zswap before step 4
# frees them (it happened once in four 6.12 runs): off for this test, the
# pool limit still writes back (step 5). 6.1 has no such parameter.
[ -w $ZP/shrinker_enabled ] && echo N > $ZP/shrinker_enabled
echo 1 > $ZP/enabled
mkdir -p $CG $MNT
echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
# zswap charges the compressed bytes to the cgroup: room for them too
echo 40M > $CG/memory.max
mount -t tmpfs -o size=256M tmpfs $MNT

fio_tmpfs a write & A=$!
fio_tmpfs b write
rb=$?
wait $A
ra=$?
ktap_result "48 MiB into a tmpfs under memory.max=40M (two writers)" \
	assert_eq "0 0" "$ra $rb"
stored=$(cat $ZD/stored_pages)
# same-filled pages are kept by zswap without an object (none expected)
objs=$((stored - $(cat $ZD/same_filled_pages 2>/dev/null || echo 0)))
ktap_result "zswap stored pages ($stored)" test "$stored" -gt 2048
ktap_result "zswap's pool_total_size is the pool's pages ($(cat $ZD/pool_total_size))" \
	assert_eq "$(($(zswap_pool_stat pages_used) * 4096))" "$(cat $ZD/pool_total_size)"
ktap_result "the pool holds zswap's objects ($(zswap_pool_stat objs_used))" \
	assert_eq "$objs" "$(zswap_pool_stat objs_used)"
# Both read back at once, as they were written: on 6.9 and later a load
# takes the entry out of zswap, so what step 4 frees must be pushed out
# again, and in an interleaved order (two readers at once) for the pool
# to be left fragmented by it.
fio_tmpfs a verify & A=$!
fio_tmpfs b verify
rb=$?
wait $A
ra=$?
ktap_result "data of writer a verified after swap-in" assert_eq 0 "$ra"
ktap_result "data of writer b verified after swap-in" assert_eq 0 "$rb"

# 3. zram_ng on the same module meanwhile.
# not zram_ng_reload: that swaps everything off
modprobe zram_ng
echo 64M > $ZSYS/zram_ng0/disksize
ktap_result "zram_ng0 beside zswap: 32 MiB written and verified" \
	fio --name=zram --filename=/dev/zram_ng0 --rw=write --bs=4k --size=32M \
		--direct=1 --buffer_compress_percentage=60 --refill_buffers \
		--verify=crc32c --verify_state_save=0 --output=/dev/null
ktap_result "both pools in debugfs" \
	test -d $DBG/zram_ng0 -a -n "$(zswap_pools)"

# 4. Half the data freed, interleaved: the pool compacts itself. First
# everything of the cgroup pushed out (memory.reclaim stops with EAGAIN
# when nothing is left to take: not an error here).
echo 64M > $CG/memory.reclaim 2>/dev/null
stored=$(cat $ZD/stored_pages)
before=$(zswap_pool_stat pages_used)
rm -f $MNT/b.*
wait_until 20 sh -c "test \$(cat $ZD/stored_pages) -lt $stored"
# the pool compacts once the frees have settled (a quarter of a second
# after the last, core/compaction.cpp)
wait_until 10 pool_compacted
ktap_print "after freeing writer b: pages_used $before -> $(zswap_pool_stat pages_used), auto_compactions $(zswap_pool_stat auto_compactions), objs_moved $(zswap_pool_stat objs_moved), pages_compacted $(zswap_pool_stat pages_compacted)"
ktap_result "the pool compacted itself (auto_compactions, pages_compacted > 0)" \
	pool_compacted
ktap_result "data of writer a verified after compaction" fio_tmpfs a verify

# 5. Switching away: the old pool lives until its entries are gone.
ktap_result "echo zbud > zpool" sh -c "echo zbud > $ZP/zpool"
ktap_result "rmmod is still refused: the old pool holds entries" \
	sh -c '! rmmod zsmalloc_ng 2>/dev/null'
echo max > $CG/memory.max
ktap_result "swapoff brings everything back" swapoff $RAM
ktap_result "data of writer a verified after swapoff" fio_tmpfs a verify
rm -f $MNT/*
ktap_result "zswap freed its zsmalloc_ng pool" wait_until 20 no_zswap_pool
echo 1 > $ZSYS/zram_ng0/reset
rmmod zram_ng
ktap_result "rmmod zsmalloc_ng works once zswap has left" rmmod zsmalloc_ng
ktap_result "switching back loads it again" \
	sh -c "echo zsmalloc_ng > $ZP/zpool && grep -q '^zsmalloc_ng ' /proc/modules"

# 6. A full pool writes back to the backing device. Last: 6.1's zswap
# leaks a pool reference each time its pool-limit path finds the shrink
# work already queued (mm/zswap.c, "shrink:"), so after this the pool is
# never freed and zsmalloc_ng stays loaded until reboot (zbud, built in,
# is pinned the same way). That is why this directory runs last.
swapon $RAM
# 1% of the VM's memory is about 10 MiB of pool: 72 MiB through a 32 MiB
# cgroup compress to more than that
echo 32M > $CG/memory.max
echo 1 > $ZP/max_pool_percent
wb0=$(cat $ZD/written_back_pages)
lim0=$(cat $ZD/pool_limit_hit)
ktap_result "72 MiB more with max_pool_percent=1" fio_tmpfs c write --size=72M
ktap_print "stored_pages $(cat $ZD/stored_pages), pool_total_size $(cat $ZD/pool_total_size), swap $(awk 'NR > 1 { print $1, $4 }' /proc/swaps)"
ktap_print "pool_limit_hit $lim0 -> $(cat $ZD/pool_limit_hit), written_back_pages $wb0 -> $(cat $ZD/written_back_pages), reject_reclaim_fail $(cat $ZD/reject_reclaim_fail 2>/dev/null), objs_evicted $(zswap_pool_stat objs_evicted), pages_reclaimed $(zswap_pool_stat pages_reclaimed)"
ktap_result "the pool limit was hit" \
	test "$(cat $ZD/pool_limit_hit)" -gt "$lim0"
ktap_result "... and zswap wrote pages back" \
	test "$(cat $ZD/written_back_pages)" -gt "$wb0"
if [ $EVICT = 1 ]; then
	ktap_result "... through zsmalloc_ng's LRU (objs_evicted, pages_reclaimed > 0)" \
		test "$(zswap_pool_stat objs_evicted)" -gt 0 -a \
			"$(zswap_pool_stat pages_reclaimed)" -gt 0
else
	ktap_skip "... through zsmalloc_ng's LRU" "zswap writes back by itself since 6.5"
fi
ktap_result "data of writer c verified (from zswap and the device)" \
	fio_tmpfs c verify --size=72M
echo max > $CG/memory.max
ktap_result "swapoff after writeback" swapoff $RAM
ktap_result "data of writer c verified after swapoff" fio_tmpfs c verify --size=72M

echo 0 > $ZP/enabled
echo 20 > $ZP/max_pool_percent
[ -w $ZP/shrinker_enabled ] && echo Y > $ZP/shrinker_enabled
echo zbud > $ZP/zpool
rm -f $MNT/*
umount $MNT
rmdir $CG
ktap_finish
