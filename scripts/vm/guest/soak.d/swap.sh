# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # soak-vm's variables
#
# swap: dev2 is swap, and a memory cgroup ($CG, memory.max $SWAP_LIMIT)
# pushes its pages there.
#   mixed    fio writes and verifies a 64 MiB tmpfs file from inside the
#            cgroup (memory.max 32M), so half of it is swapped out and read
#            back
#   reclaim  issue 18's round: eight 6 MiB files (made before the clock
#            starts, outside the cgroup) copied into a tmpfs, then each read
#            back with md5sum, both inside the cgroup (memory.max 24M)
# How a check failed is told apart and counted: "killed" (the writer or
# the reader died of a signal: the cgroup's OOM killer, memory.events),
# "ioerr" (an I/O error), "mismatch" (the bytes read back differ: the only
# kind that means lost data). Beside the rounds, two watchers: at every OOM
# kill in the cgroup a snapshot of the cgroup, swap and the devices (the
# question of issue 18: reclaim giving up with free swap), and the peak
# swap use.
swap_loads="mixed reclaim"
if [ "$LOAD" = mixed ]; then
	SWAP_FILE_MB=64
else
	SWAP_FILES=8
	SWAP_FILE_MB=6
fi

swap_setup() {
	local i
	[ $LOAD = reclaim ] || return 0
	# The swap round's files, outside the cgroup (/tmp is charged to the
	# root cgroup), with their sums.
	mkdir -p $T/src
	for i in $(seq $SWAP_FILES); do
		gen $T/src/f$i ${SWAP_FILE_MB}M $((100 + i))
	done
	(cd $T/src && md5sum f*) >$T/src.md5
}

cg_oom_kills() { awk '$1 == "oom_kill" { print $2 }' $CG/memory.events; }
# in_cg CMD...: in a subshell, join the swap cgroup and become CMD, so that
# every page CMD charges is charged there
in_cg() { echo $BASHPID >$CG/cgroup.procs && exec "$@"; }
# classify STATUS OUTFILE: counts one failed check, prints its kind
classify() {
	local kind
	if [ "$1" -gt 128 ]; then
		kind=killed
	elif grep -qiE 'Input/output error|I/O error|EIO' "$2" 2>/dev/null; then
		kind=ioerr
	elif grep -qiE 'verify|bad (magic|header)|crc|mismatch' "$2" 2>/dev/null; then
		kind=mismatch
	else
		kind=other
	fi
	add "$T/swap.$kind" 1
	echo $kind
}

swap_fio_round() {	# swap_fio_round ROUND
	local st=0 kind
	# every shmem page fio writes is charged to the cgroup, the overflow
	# goes to swap
	(in_cg fio --name=swap --directory=/dev/shm/soak \
			--size=${SWAP_FILE_MB}M --rw=randwrite --bs=4k \
			--ioengine=psync --buffer_compress_percentage=50 \
			--buffer_compress_chunk=512 --refill_buffers \
			--randseed="$1" --verify=crc32c --do_verify=1 \
			--verify_fatal=1 --verify_state_save=0 \
			--output="$T/swap.out") >/dev/null 2>&1 || st=$?
	if [ $st = 0 ]; then
		add "$T/swap.bytes" $((SWAP_FILE_MB << 20))
		add "$T/swap.checks" 1
		return
	fi
	kind=$(classify $st "$T/swap.out")
	[ $kind != killed ] || return 0
	err swap "round $1: $kind (status $st): $(grep -m3 -iE 'err|verify' "$T/swap.out" | tr '\n' ' ')"
	cp "$T/swap.out" "$T/evidence/swap-round-$1.out"
}

# Issue 18's round: cp each file into the cgroup's tmpfs, then md5sum each.
# A file whose copy was killed is not checked (its bytes were never all
# written); every other file must read back with its sum.
swap_files_round() {	# swap_files_round ROUND
	local i st kind sum want
	for i in $(seq $SWAP_FILES); do
		st=0
		(in_cg cp $T/src/f$i /dev/shm/soak/f$i) >$T/cp.err 2>&1 || st=$?
		[ $st = 0 ] && continue
		kind=$(classify $st $T/cp.err)
		rm -f /dev/shm/soak/f$i
		[ $kind = killed ] && add "$T/swap.killed-writer" 1 ||
			err swap "round $1: cp f$i: $kind (status $st): $(head -c 200 $T/cp.err)"
	done
	for i in $(seq $SWAP_FILES); do
		[ -e /dev/shm/soak/f$i ] || continue
		st=0
		sum=$( (in_cg md5sum /dev/shm/soak/f$i) 2>$T/md5.err) || st=$?
		if [ $st != 0 ]; then
			kind=$(classify $st $T/md5.err)
			[ $kind = killed ] && add "$T/swap.killed-reader" 1 ||
				err swap "round $1: md5sum f$i: $kind (status $st): $(head -c 200 $T/md5.err)"
			continue
		fi
		want=$(awk -v f=f$i '$2 == f { print $1 }' $T/src.md5)
		if [ "${sum%% *}" = "$want" ]; then
			add "$T/swap.bytes" $((SWAP_FILE_MB << 20))
			add "$T/swap.checks" 1
		else
			add "$T/swap.mismatch" 1
			err swap "round $1: f$i reads back as ${sum%% *}, not $want"
			cp /dev/shm/soak/f$i $T/evidence/mismatch-r$1-f$i 2>/dev/null
		fi
	done
}

swap_worker() {
	local round=0
	mkdir -p $CG /dev/shm/soak
	echo $SWAP_LIMIT >$CG/memory.max
	echo "$SWAP_MAX" >$CG/memory.swap.max
	while :; do
		round=$((round + 1))
		if [ $LOAD = mixed ]; then
			swap_fio_round $round
		else
			swap_files_round $round
		fi
		rm -f /dev/shm/soak/*
		add "$T/swap.rounds" 1
		left || break
	done
	echo max >$CG/memory.max
}

# At each OOM kill in the swap cgroup: what the cgroup, swap and the devices
# looked like (the question of issue 18: reclaim giving up with free swap).
# oom_watcher WORKER: watches until the soak's time is up and the swap
# worker (pid WORKER) has ended, then looks once more: a round that runs
# past the deadline (a slow kernel: check-debug's) can still be killed.
oom_watcher() {
	local worker=$1 seen=0 now_kills n=0 f last=
	while [ -z "$last" ]; do
		left || kill -0 "$worker" 2>/dev/null || last=1
		now_kills=$(cg_oom_kills 2>/dev/null || echo 0)
		if [ "${now_kills:-0}" -gt "$seen" ] && [ $n -lt 20 ]; then
			n=$((n + 1))
			f=$T/evidence/oom-$n.txt
			{
				echo "uptime $(cut -d' ' -f1 /proc/uptime) soak $(($(now) - START)) s, oom_kill $now_kills"
				echo "== memory.events"; cat $CG/memory.events
				echo "== memory.current $(cat $CG/memory.current) memory.swap.current $(cat $CG/memory.swap.current)"
				echo "== memory.stat"; cat $CG/memory.stat
				echo "== /proc/swaps"; cat /proc/swaps
				echo "== /proc/meminfo"; cat /proc/meminfo
				for d in $D0 $D1 $D2; do
					echo "== $d mm_stat $(cat $ZSYS/$d/mm_stat)"
					echo "== $d io_stat $(cat $ZSYS/$d/io_stat)"
				done
				echo "== /proc/vmstat"; cat /proc/vmstat
			} >"$f" 2>&1
		fi
		seen=${now_kills:-$seen}
		[ -n "$last" ] || sleep 0.2
	done
}

swap_used_kb() { awk 'NR > 1 { s += $4 } END { print s + 0 }' /proc/swaps; }

# Peak swap use, sampled.
swap_sampler() {
	local peak=0 u
	while left; do
		u=$(swap_used_kb)
		[ "$u" -le "$peak" ] || peak=$u
		echo $peak >$T/swap.peak-kb
		sleep 1
	done
}

swap_start() {
	swap_worker &
	oom_watcher $! &
	swap_sampler &
}
