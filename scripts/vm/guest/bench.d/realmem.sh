# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # bench-vm's variables
#
# realmem (bench-vm realmem RUNS MIB LIMIT_MIB SEED CLASSES SET...): real
# application memory (./SET.img, made on the host by scripts/mkdatasets)
# swapped out and back in. For each run, data set and stack (zram_ng0,
# zram0, the order alternating between runs): ./realmem (realmem.c, built
# on the host) writes MIB MiB of the image into anonymous memory from a
# memory cgroup of LIMIT_MIB, so that it is swapped out as it is written,
# and pushes out the rest; mm_stat and the whole footprint are read then,
# with everything out; the limit is lifted and every page touched back in
# a random order (SEED: the same order on both stacks), each swap-in
# timed, and what compaction did meanwhile counted; the data verified. In run 0, the pools' debugfs classes tables
# of data set CLASSES (zsmalloc_ng's; the stock's when its kernel has
# ZSMALLOC_STAT, which Debian's have not) with everything out.
cg=/sys/fs/cgroup/bench

# ready_or_gone PID: realmem has made its ready file, or has exited
ready_or_gone() {
	[ -e ready ] || ! kill -0 "$1" 2>/dev/null
}

workload_prepare() {	# workload_prepare MIB LIMIT_MIB SEED CLASSES SET...
	local mib=$1 limit=$2
	shift 4
	realmem_prepare "$mib" "$limit" "$@"
}

# classes DEV TAG: DEV's pool's debugfs classes table, as "@@@ CLASS"
# lines (the header first)
classes() {
	local f
	case $1 in
	zram_ng*) f=/sys/kernel/debug/zsmalloc_ng/$1/classes ;;
	*) f=/sys/kernel/debug/zsmalloc/$1/classes ;;
	esac
	if [ -r "$f" ]; then
		sed "s/^/@@@ CLASS $(devname "$1") $2 /" "$f"
	else
		echo "realmem: no $f (a stock kernel without ZSMALLOC_STAT)"
	fi
}

# one DEV SET MIB LIMIT_MIB SEED RUN CLASSES
one() {
	local dev=$1 set=$2 mib=$3 limit=$4 seed=$5 i=$6 name tag pid base_s base_o in0
	local comp0 moved0
	name=$(devname "$dev")
	tag=$set-${mib}M
	swapoff -a 2>/dev/null
	mkdev "$dev" $((mib * 2 * 1048576))
	mkswap "/dev/$dev" >/dev/null || die "mkswap $dev"
	read -r base_s base_o < <(footprint_base "$dev")
	swapon "/dev/$dev" || die "swapon $dev"
	rm -f ready
	sync
	echo 3 >/proc/sys/vm/drop_caches
	echo $((limit * 1048576)) >"$cg/memory.max" || die "memory.max refused"
	in0=$(vmstat_get pswpin)
	# The subshell moves itself into the cgroup before exec.
	(echo $BASHPID >"$cg/cgroup.procs" && exec ./realmem "./$set.img" "$mib" "$seed" ready) \
		>/tmp/realmem.out 2>&1 &
	pid=$!
	wait_until 0 ready_or_gone $pid
	[ -e ready ] || { cat /tmp/realmem.out; die "$dev: realmem ended before it was ready"; }
	mmstat "$dev" "$tag"
	footprint "$dev" "$tag" "$base_s" "$base_o"
	[ "$i" != 0 ] || [ "$set" != "$7" ] || classes "$dev" "$tag"
	# Every swap-in now only reads: nothing else goes out meanwhile. What
	# compaction does meanwhile (the frees of the swap-ins fragment the
	# pool) is counted: pages_compacted on both, objs_moved on zram_ng.
	comp0=$(mm_stat "$dev" pages_compacted)
	moved0=$(mm_stat "$dev" objs_moved)
	echo max >"$cg/memory.max"
	kill -USR1 $pid
	wait $pid
	cat /tmp/realmem.out
	grep -q verified=1 /tmp/realmem.out || die "$dev: $set did not read back right"
	awk -v p="@@@ VAL $name $tag." 'NF == 2 && $1 ~ /^[a-z0-9_]+$/ { print p $1, $2 }' \
		/tmp/realmem.out
	echo "@@@ VAL $name $tag.pswpin $(($(vmstat_get pswpin) - in0))"
	echo "@@@ VAL $name $tag.swapin_pages_compacted" \
		$(($(mm_stat "$dev" pages_compacted) - comp0))
	[ -z "$moved0" ] ||
		echo "@@@ VAL $name $tag.swapin_objs_moved $(($(mm_stat "$dev" objs_moved) - moved0))"
	swapoff "/dev/$dev" || die "swapoff $dev"
	zdev_reset "$dev"
}

workload_run() {	# workload_run RUN MIB LIMIT_MIB SEED CLASSES SET...
	local i=$1 mib=$2 limit=$3 seed=$4 cls=$5 set dev
	shift 5
	for set in "$@"; do
		for dev in $(order "$i"); do
			one "$dev" "$set" "$mib" "$limit" "$seed" "$i" "$cls"
		done
	done
}
