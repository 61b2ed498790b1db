# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # bench-vm's variables
#
# swap (bench-vm swap RUNS WSET_MIB LIMIT_MIB PASSES): ./swapper (swapper.c,
# built on the host) in a memory cgroup of LIMIT_MIB touches WSET_MIB,
# verifies and rewrites it PASSES times, swapping to zram_ng0, then zram0
# (the order alternating); swap rates, the time, mm_stat and the whole
# footprint while the data is still swapped out.
cg=/sys/fs/cgroup/bench

now_ms() {
	echo $(($(now_us) / 1000))
}

# swapper_gone PID: the swapper has signalled "done" or has exited
swapper_gone() {
	[ -e "done" ] || ! kill -0 "$1" 2>/dev/null
}

workload_prepare() {	# workload_prepare WSET_MIB LIMIT_MIB PASSES
	local wset=$1 limit=$2
	setup
	[ -x ./swapper ] || die "./swapper missing"
	[ -e /sys/fs/cgroup/cgroup.controllers ] ||
		mount -t cgroup2 cgroup2 /sys/fs/cgroup || die "no cgroup2"
	grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
		echo +memory >/sys/fs/cgroup/cgroup.subtree_control || die "no memory controller"
	mkdir -p "$cg"
	echo $((limit * 1048576)) >"$cg/memory.max" || die "memory.max refused"
	echo "@@@ META memcg_max_mib $limit"
	echo "@@@ META working_set_mib $wset"
}

workload_run() {	# workload_run RUN WSET_MIB LIMIT_MIB PASSES
	local i=$1 wset=$2 passes=$4 dev
	local in0 out0 t0 t1 pid base_s base_o
	for dev in $(order "$i"); do
		swapoff -a 2>/dev/null
		mkdev "$dev" $((wset * 2 * 1048576))
		mkswap "/dev/$dev" >/dev/null || die "mkswap $dev"
		read -r base_s base_o < <(footprint_base "$dev")
		swapon "/dev/$dev" || die "swapon $dev"
		rm -f "done"
		sync
		echo 3 >/proc/sys/vm/drop_caches
		in0=$(vmstat_get pswpin) out0=$(vmstat_get pswpout) t0=$(now_ms)
		# The subshell moves itself into the cgroup before exec.
		(echo $BASHPID >"$cg/cgroup.procs" && exec ./swapper "$wset" "$passes" "done") \
			>/tmp/swapper.out 2>&1 &
		pid=$!
		wait_until 0 swapper_gone $pid
		t1=$(now_ms)
		cat /tmp/swapper.out
		grep -q verified=1 /tmp/swapper.out || die "$dev: swapper did not verify"
		mmstat "$dev" swap
		footprint "$dev" swap "$base_s" "$base_o"
		echo "@@@ VAL $(devname "$dev") elapsed_ms $((t1 - t0))"
		echo "@@@ VAL $(devname "$dev") pswpin $(($(vmstat_get pswpin) - in0))"
		echo "@@@ VAL $(devname "$dev") pswpout $(($(vmstat_get pswpout) - out0))"
		kill $pid
		wait $pid 2>/dev/null
		swapoff "/dev/$dev" || die "swapoff $dev"
		zdev_reset "$dev"
	done
}
