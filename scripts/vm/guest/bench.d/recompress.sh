# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # bench-vm's variables
#
# recompress (bench-vm recompress RUNS MIB): per run and data set
# (bench-vm's make_data_sets), zram_ng0 with lz4 and zstd as its priority-1
# secondary; MIB MiB written, every page marked idle, "type=idle"
# recompression; mm_stat before, after and after a compact (the old
# objects leave holes in their zspages), the write's CPU time, the pages
# block_state flags r (recompressed) and n (no algorithm shrinks it), the
# data verified. Then the same data with zstd as the primary: what zstd
# alone stores, the floor.

workload_prepare() {	# workload_prepare MIB
	setup
	modprobe zstd 2>/dev/null
	make_data_sets "$1"
	echo "@@@ META recompress_mib $1"
}

workload_run() {	# workload_run RUN MIB
	local mib=$2 set d=zram_ng0 t bs=/sys/kernel/debug/zram_ng/zram_ng0/block_state
	for set in $DATA_SETS; do
		# reset forgets the secondary algorithms: set after it
		zdev_reset $d
		zdev_write $d recomp_algorithm "algo=zstd priority=1" || die "recomp_algorithm"
		zdev_setup $d $(((mib + 1) << 20)) $ALGO || die "$d: disksize"
		fill $d $set "$mib"
		mmstat $d $set.before
		echo all >/sys/block/$d/idle || die "idle all"
		t=$(timed_write /sys/block/$d/recompress type=idle) || die "recompress: $t"
		echo "@@@ VAL zram_ng $set.recompress_sys_ms ${t% *}"
		echo "@@@ VAL zram_ng $set.recompress_wall_ms ${t#* }"
		mmstat $d $set.after
		# the holes the old objects left are compaction's to free
		echo 1 >/sys/block/$d/compact
		mmstat $d $set.compacted
		echo "@@@ VAL zram_ng $set.pages_recompressed $(awk 'index($3, "r") { n++ } END { print n + 0 }' $bs)"
		echo "@@@ VAL zram_ng $set.pages_incompressible $(awk 'index($3, "n") { n++ } END { print n + 0 }' $bs)"
		verify $d $set "$mib"
		zdev_reset $d
		ALGO=zstd mkdev $d $(((mib + 1) << 20))
		fill $d $set "$mib"
		mmstat $d $set.zstd
		zdev_reset $d
	done
}
