# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # soak-vm's variables
#
# recompress: dev0 gets zstd (priority 1) and lz4hc (priority 2) as
# secondary algorithms (here, before the disksize; RECOMP=1 when it took
# them; 6.1's stock zram has no recomp_algorithm: skipped there). In a
# loop, 1 MiB of one of the chunks (soak-vm's chunk_data) written in [32M,
# 64M), every page marked idle, a recompress pass (type=idle, huge,
# huge_idle threshold=3000, max_pages=64 algo=zstd, priority=2,
# threshold=1024 algo=lz4hc, in turn), read back and compared; fio's pages
# on dev0 are recompressed under its verification too.
recompress_loads="mixed"

recompress_setup() {
	[ -e $ZSYS/$D0/recomp_algorithm ] || return 0
	modprobe zstd 2>/dev/null
	modprobe lz4hc 2>/dev/null
	if echo "algo=zstd priority=1" >$ZSYS/$D0/recomp_algorithm &&
		echo "algo=lz4hc priority=2" >$ZSYS/$D0/recomp_algorithm; then
		RECOMP=1
	else
		err setup "recomp_algorithm on $D0"
	fi
	chunk_data
}

recompress_worker() {
	local d=$D0 n=0 mib f how
	while :; do
		n=$((n + 1))
		mib=$((32 + RANDOM % 32))
		f=$T/wr-$((n % 4))
		chunk_write $d $mib $f || err recompress "write at ${mib}M"
		echo all >$ZSYS/$d/idle || err recompress "idle all"
		case $((n % 6)) in
		0) how="type=idle" ;;
		1) how="type=huge" ;;
		2) how="type=huge_idle threshold=3000" ;;
		3) how="type=idle max_pages=64 algo=zstd" ;;
		4) how="type=idle priority=2" ;;
		*) how="type=idle threshold=1024 algo=lz4hc" ;;
		esac
		# -EAGAIN: the grouping worker's pass of the device runs
		echo "$how" >$ZSYS/$d/recompress 2>$T/rc.err ||
			grep -q 'Resource temporarily unavailable' $T/rc.err ||
			err recompress "recompress $how: $(cat $T/rc.err)"
		# the chunk's pages a secondary algorithm now holds (r in block_state)
		add "$T/recomp.pages" "$(awk -v a=$((mib * 256)) '$1 >= a && $1 < a + 256 &&
			index($3, "r") { n++ } END { print n + 0 }' \
			/sys/kernel/debug/$DEV/$d/block_state 2>/dev/null || echo 0)"
		if chunk_same $d $mib $f; then
			add "$T/recomp.bytes" $((1 << 20))
		else
			err recompress "pass $n ($how): ${mib}M reads back wrong after recompression"
		fi
		add "$T/recomp.passes" 1
		left || break
	done
}

recompress_start() {
	[ $RECOMP = 1 ] || return 0
	recompress_worker &
}
