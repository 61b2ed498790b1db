# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # bench-vm's variables
#
# writeback (bench-vm writeback RUNS MIB): idle writeback, per run, data set
# (bench-vm's make_data_sets) and stack (zram_ng0 and zram0, the order
# alternating), a device with a brd ramdisk as backing device, MIB MiB
# written, every page marked idle, "idle" written back; mm_stat before and
# after, bd_stat (the blocks written), the write's CPU and wall time, the
# floor below, the data read back from the ramdisk and verified.

# classes_floor FILE: the bound of "within one zspage per class of zero":
# pages_per_zspage summed over the classes with pages in use, from a
# debugfs classes table (zsmalloc's or zsmalloc_ng's: columns by name)
classes_floor() {
	awk 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$(c["pages_used"]) > 0 { s += $(c["pages_per_zspage"]) } END { print s + 0 }' "$1"
}

workload_prepare() {	# workload_prepare MIB
	local mib=$1
	setup
	rmmod brd 2>/dev/null
	modprobe brd rd_nr=2 rd_size=$(((mib + 1) << 10)) || die "no brd"
	make_data_sets "$mib"
	echo "@@@ META writeback_mib $mib"
}

workload_run() {	# workload_run RUN MIB
	local i=$1 mib=$2 set dev n t ram pool
	for set in $DATA_SETS; do
		for dev in $(order "$i"); do
			n=$(devname $dev)
			ram=/dev/ram0 pool=/sys/kernel/debug/zsmalloc_ng/zram_ng0/classes
			[ $n = zram_ng ] || ram=/dev/ram1 pool=/sys/kernel/debug/zsmalloc/zram0/classes
			zdev_reset $dev
			zdev_write $dev backing_dev $ram || die "$dev: backing_dev $ram"
			zdev_setup $dev $(((mib + 1) << 20)) $ALGO || die "$dev: disksize"
			fill $dev $set "$mib"
			mmstat $dev $set.before
			[ ! -r $pool ] ||
				echo "@@@ VAL $n $set.floor_pages $(classes_floor $pool)"
			echo all >/sys/block/$dev/idle || die "$dev: idle all"
			t=$(timed_write /sys/block/$dev/writeback idle) || die "$dev: writeback: $t"
			echo "@@@ VAL $n $set.writeback_sys_ms ${t% *}"
			echo "@@@ VAL $n $set.writeback_wall_ms ${t#* }"
			mmstat $dev $set.after
			echo "@@@ VAL $n $set.bd_writes $(awk '{ print $3 }' /sys/block/$dev/bd_stat)"
			t=$(now_us)
			verify $dev $set "$mib"
			echo "@@@ VAL $n $set.readback_ms $((($(now_us) - t) / 1000))"
			echo "@@@ VAL $n $set.bd_reads $(awk '{ print $2 }' /sys/block/$dev/bd_stat)"
			zdev_reset $dev
		done
	done
}
