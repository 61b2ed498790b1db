# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # bench-vm's variables
#
# pageblocks (bench-vm pageblocks RUNS MIB LIMIT_MIB SEED SPEC): issue 12's
# scenario. A memory cgroup of LIMIT_MIB swaps out MIB of mixed-size data
# (./fragmenter, fragmenter.c built on the host), a random half is freed,
# the device is compacted, then the machine's memory ("compact_memory");
# then the 2 MiB blocks are counted and the data kept is read back and
# verified. A pageblock's type outlives the run that set it, so the host
# boots a VM for each stack of each run and passes one SPEC (zram_ng0,
# zram0 or zram_ng0:unmovable, i.e. movable=N) and the run's SEED (the
# same data for every stack of a run).
cg=/sys/fs/cgroup/bench

# The machine's 2 MiB blocks: free ones (buddyinfo orders 9 and 10, the
# issue's measure: each order-10 block counted once) and pageblocks marked
# Unmovable (pagetypeinfo), summed over the zones.
free_2m_blocks() {
	awk '{ n += $14 + $15 } END { print n }' /proc/buddyinfo
}

unmovable_pageblocks() {
	awk '/^Number of blocks type/ { t = 1; next }
		t && /^Node/ { n += $5 } END { print n }' /proc/pagetypeinfo
}

workload_prepare() {	# workload_prepare MIB LIMIT_MIB SEED SPEC
	local mib=$1 limit=$2
	setup
	[ -x ./fragmenter ] || die "./fragmenter missing"
	mkdir -p "$cg"
	echo $((limit * 1048576)) >"$cg/memory.max" || die "memory.max refused"
	echo "@@@ META memcg_max_mib $limit"
	echo "@@@ META written_mib $mib"
}

workload_run() {	# workload_run RUN MIB LIMIT_MIB SEED SPEC
	local mib=$2 seed=$4 spec=$5 dev pid mig0 mig1 name
	for spec in $spec; do
		dev=${spec%%:*} name=$(devname "$dev")
		if [ "$spec" = zram_ng0:unmovable ]; then
			name=zram_ng-unmovable
			echo N >/sys/module/zsmalloc_ng/parameters/movable
		fi
		swapoff -a 2>/dev/null
		mkdev "$dev" $((mib * 1048576 + 64 * 1048576))
		echo Y >/sys/module/zsmalloc_ng/parameters/movable
		mkswap "/dev/$dev" >/dev/null || die "mkswap $dev"
		swapon "/dev/$dev" || die "swapon $dev"
		rm -f "done" done.verified
		sync
		echo 3 >/proc/sys/vm/drop_caches
		echo 1 >/proc/sys/vm/compact_memory
		(echo $BASHPID >"$cg/cgroup.procs" && exec ./fragmenter "$mib" "$seed" "done") \
			>/tmp/fragmenter.out 2>&1 &
		pid=$!
		wait_until 0 fragmenter_done $pid "done"
		[ -e "done" ] || { cat /tmp/fragmenter.out; die "$dev: fragmenter died"; }
		echo 1 >"/sys/block/$dev/compact"
		echo "@@@ MMSTAT $name compacted $(cat "/sys/block/$dev/mm_stat")"
		mig0=$(vmstat_get pgmigrate_success)
		echo 1 >/proc/sys/vm/compact_memory
		mig1=$(vmstat_get pgmigrate_success)
		echo "@@@ VAL $name free_2m_blocks $(free_2m_blocks)"
		echo "@@@ VAL $name unmovable_pageblocks $(unmovable_pageblocks)"
		echo "@@@ VAL $name pgmigrate_success $((mig1 - mig0))"
		[ "$dev" = zram_ng0 ] &&
			echo "@@@ VAL $name pages_migrated $(pool_stat zram_ng0 pages_migrated)"
		fragmenter_finish $pid "$dev"
		swapoff "/dev/$dev" || die "swapoff $dev"
		zdev_reset "$dev"
	done
}
