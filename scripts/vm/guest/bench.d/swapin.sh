# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # bench-vm's variables
#
# swapin (bench-vm swapin RUNS MIB LIMIT_MIB SEED SET...): the swap-in
# latency of real application memory, both stacks timed in one pass. For
# each run and data set, zram_ng0 and zram0 are both swap devices of one
# priority (swapped on in the run's order), so the kernel spreads the
# pages between them in batches as they go out; ./realmem (realmem.c)
# writes MIB MiB of ./SET.img from a memory cgroup of LIMIT_MIB, pushes out
# the rest, and once the limit is lifted touches every page back in a
# random order (SEED), each swap-in timed and attributed to its device by
# /proc/self/pagemap (by-swap-type). The two stacks' swap-ins interleave
# in one loop, so a slow moment of the host slows both: the per-run ratio
# of their latencies is what realmem's one-stack-after-the-other passes
# cannot give without 20-50% of noise. Which device takes which batch
# depends on the order they were swapped on: it alternates between runs,
# so that over two runs each stack has had both halves of the data (the
# pages and compr_data_size per device say how alike the halves were).
cg=/sys/fs/cgroup/bench

# ready_or_gone PID: realmem has made its ready file, or has exited
ready_or_gone() {
	[ -e ready ] || ! kill -0 "$1" 2>/dev/null
}

workload_prepare() {	# workload_prepare MIB LIMIT_MIB SEED SET...
	local mib=$1 limit=$2
	shift 3
	realmem_prepare "$mib" "$limit" "$@"
}

# stored DEV: pages DEV holds (orig_data_size / 4096)
stored() {
	echo $(($(mm_stat "$1" orig_data_size) / 4096))
}

# one SET MIB LIMIT_MIB SEED RUN
one() {
	local set=$1 mib=$2 limit=$3 seed=$4 i=$5 tag dev pid t n name held held0 held1
	tag=$set-${mib}M
	swapoff -a 2>/dev/null
	# Swap types are given in swapon order after swapoff -a: 0, then 1.
	# shellcheck disable=SC2046 # two device names
	set -- $(order "$i")
	for dev in "$@"; do
		mkdev "$dev" $((mib * 1048576))
		mkswap "/dev/$dev" >/dev/null || die "mkswap $dev"
	done
	for dev in "$@"; do
		swapon -p 10 "/dev/$dev" || die "swapon $dev"
	done
	rm -f ready
	sync
	echo 3 >/proc/sys/vm/drop_caches
	echo $((limit * 1048576)) >"$cg/memory.max" || die "memory.max refused"
	(echo $BASHPID >"$cg/cgroup.procs" &&
		exec ./realmem "./$set.img" "$mib" "$seed" ready by-swap-type) \
		>/tmp/realmem.out 2>&1 &
	pid=$!
	wait_until 0 ready_or_gone $pid
	[ -e ready ] || { cat /tmp/realmem.out; die "realmem ended before it was ready"; }
	mmstat "$1" "$tag"
	mmstat "$2" "$tag"
	held0=$(stored "$1")
	held1=$(stored "$2")
	echo max >"$cg/memory.max"
	kill -USR1 $pid
	wait $pid
	cat /tmp/realmem.out
	grep -q verified=1 /tmp/realmem.out || die "$set did not read back right"
	# type T is the T-th device swapped on: the buffer's pages of that
	# type must be what the device held before the swap-ins, less at most
	# a few of realmem's own pages that the limit pushed out beside them
	for t in 0 1; do
		if [ $t = 0 ]; then dev=$1 held=$held0; else dev=$2 held=$held1; fi
		name=$(devname "$dev")
		n=$(awk -v k="type${t}_pages" '$1 == k { print $2 }' /tmp/realmem.out)
		[ -n "$n" ] || die "no swap-ins of $dev (swap type $t)"
		[ "$n" -le "$held" ] && [ "$n" -ge $((held - 64)) ] ||
			die "$dev held $held pages, $n of the buffer's were of its swap type $t"
		awk -v t="type${t}_" -v p="@@@ VAL $name $tag." \
			'index($1, t) == 1 && NF == 2 { print p substr($1, length(t) + 1), $2 }' \
			/tmp/realmem.out
	done
	for dev in "$1" "$2"; do
		swapoff "/dev/$dev" || die "swapoff $dev"
		zdev_reset "$dev"
	done
}

workload_run() {	# workload_run RUN MIB LIMIT_MIB SEED SET...
	local i=$1 mib=$2 limit=$3 seed=$4 set
	shift 4
	for set in "$@"; do
		one "$set" "$mib" "$limit" "$seed" "$i"
	done
}
