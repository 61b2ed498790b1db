# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # bench-vm's variables
#
# wbbatch (bench-vm wbbatch RUNS MIB DELAY_MS BMIB FAST_US DEVICES): batched
# writeback and largest-first selection (issue 29; zram_ng/writeback.c).
#  1. Speed: MIB MiB of the fio data set, all idle, written back with
#     "idle" to each backing device of DEVICES (a comma-separated list):
#     ram, a brd ramdisk (which completes a write inside its submission:
#     nothing can be in flight); fast, a memory-backed null_blk that
#     completes each request FAST_US us after its submission from a timer
#     (a fast SSD's write latency); delay, brd behind dm-delay whose
#     writes take DELAY_MS ms, rounded up to a jiffy (reads none); for each,
#     zram_ng with writeback_batch_size 1 (the old one-at-a-time pass) and
#     32 (the default), and the stock zram0, in an order that rotates with
#     the run. The wall time of the write, bd_writes; the data verified.
#  2. What a bounded pass frees: BMIB MiB of the text and swap data sets
#     (pages of many sizes), all idle; writeback_limit at a quarter of the pages
#     (largest first), against the same number of pages in index order
#     ("page_indexes=0-N", no limit: what a bounded pass did before);
#     mem_used_total freed per block written, alternating.

# wb_speed TAG DEV BATCH BACKING MIB: one timed idle writeback
wb_speed() {
	local tag=$1 dev=$2 batch=$3 bdev=$4 mib=$5 n t
	n=$(devname "$dev")
	zdev_reset "$dev"
	[ "$batch" = - ] || zdev_write "$dev" writeback_batch_size "$batch" ||
		die "$dev: writeback_batch_size $batch"
	zdev_write "$dev" backing_dev "$bdev" || die "$dev: backing_dev $bdev"
	zdev_setup "$dev" $(((mib + 1) << 20)) "$ALGO" || die "$dev: disksize"
	fill "$dev" fio "$mib"
	echo all >"/sys/block/$dev/idle" || die "$dev: idle all"
	t=$(timed_write "/sys/block/$dev/writeback" idle) || die "$dev: writeback: $t"
	echo "@@@ VAL $n $tag.wall_ms ${t#* }"
	echo "@@@ VAL $n $tag.sys_ms ${t% *}"
	echo "@@@ VAL $n $tag.bd_writes $(awk '{ print $3 }' "/sys/block/$dev/bd_stat")"
	verify "$dev" fio "$mib"
	zdev_reset "$dev"
}

# wb_bounded TAG SET MIB LARGEST: a quarter of the pages written back,
# largest first (LARGEST 1) or in index order; memory freed per block
wb_bounded() {
	local tag=$1 set=$2 mib=$3 largest=$4 dev=zram_ng0 q before after w
	q=$((mib * 256 / 4))
	zdev_reset $dev
	zdev_write $dev backing_dev /dev/ram0 || die "$dev: backing_dev"
	zdev_setup $dev $(((mib + 1) << 20)) "$ALGO" || die "$dev: disksize"
	fill $dev "$set" "$mib"
	echo all >/sys/block/$dev/idle
	before=$(mm_stat $dev mem_used_total)
	if [ "$largest" = 1 ]; then
		echo 1 >/sys/block/$dev/writeback_limit_enable
		echo $q >/sys/block/$dev/writeback_limit
		echo idle >/sys/block/$dev/writeback 2>/dev/null	# EIO at the limit
		echo 0 >/sys/block/$dev/writeback_limit_enable
	else
		echo "page_indexes=0-$((q - 1))" >/sys/block/$dev/writeback ||
			die "$dev: page_indexes"
	fi
	after=$(mm_stat $dev mem_used_total)
	w=$(awk '{ print $3 }' /sys/block/$dev/bd_stat)
	echo "@@@ VAL zram_ng $tag.$set.blocks $w"
	echo "@@@ VAL zram_ng $tag.$set.freed_per_block $(((before - after) / (w > 0 ? w : 1)))"
	verify $dev "$set" "$mib"
	zdev_reset $dev
}

# wbb_device TAG: the backing device of speed part TAG (ram, fast, delay)
wbb_device() {
	case $1 in
	ram) echo /dev/ram0 ;;
	fast) echo /dev/nullb0 ;;
	delay) echo "$WBB_DELAY" ;;
	esac
}

# wbb_prefill DEV MIB: brd and null_blk allocate a page at a block's first
# write: done here, or the first pass of the boot would pay for it alone
wbb_prefill() {
	dd if=/dev/zero of="$1" bs=1M count=$(($2 + 1)) oflag=direct \
		2>/dev/null || die "$1: prefill"
}

workload_prepare() {	# workload_prepare MIB DELAY_MS BMIB FAST_US DEVICES
	local mib=$1 delay=$2 bmib=$3 sectors tag
	WBB_FAST_US=$4
	WBB_DEVICES=$(echo "$5" | tr , ' ')
	setup
	rmmod brd 2>/dev/null
	# ram0: the ramdisk of the speed part and of the bounded passes;
	# ram2: behind dm-delay
	modprobe brd rd_nr=3 rd_size=$(((mib + 1) << 10)) || die "no brd"
	for tag in $WBB_DEVICES; do
		case $tag in
		ram) wbb_prefill /dev/ram0 "$mib" ;;
		fast)
			rmmod null_blk 2>/dev/null
			modprobe null_blk nr_devices=1 queue_mode=2 \
				memory_backed=1 bs=4096 gb=$(((mib >> 10) + 1)) \
				irqmode=2 completion_nsec=$((WBB_FAST_US * 1000)) ||
				die "no null_blk"
			wbb_prefill /dev/nullb0 "$mib"
			;;
		delay)
			wbb_prefill /dev/ram2 "$mib"
			modprobe dm_delay || die "no dm_delay"
			sectors=$(((mib + 1) << 11))
			DM_DISABLE_UDEV=1 dmsetup create --noudevsync wbb-delay \
				--table "0 $sectors delay /dev/ram2 0 0 /dev/ram2 0 $delay" ||
				die "dm-delay"
			DM_DISABLE_UDEV=1 dmsetup mknodes wbb-delay 2>/dev/null
			WBB_DELAY=/dev/mapper/wbb-delay
			[ -b $WBB_DELAY ] ||
				WBB_DELAY=/dev/$(dmsetup info -c --noheadings -o blkdevname wbb-delay)
			;;
		esac
	done
	make_data_sets "$bmib"
	[ "$mib" = "$bmib" ] || make_fio_data "$mib"
	echo "@@@ META wbbatch_mib $mib"
	echo "@@@ META wbbatch_bounded_mib $bmib"
	echo "@@@ META wbbatch_write_delay_ms $delay"
	echo "@@@ META wbbatch_fast_us $WBB_FAST_US"
	echo "@@@ META wbbatch_devices $WBB_DEVICES"
}

workload_run() {	# workload_run RUN MIB DELAY_MS BMIB FAST_US DEVICES
	local i=$1 mib=$2 bmib=$4 bdev tag c cfgs set
	for tag in $WBB_DEVICES; do
		bdev=$(wbb_device "$tag")
		# the three configurations, rotated by the run
		cfgs="ng1 ng32 stock"
		for _ in $(seq $((i % 3))); do
			cfgs="${cfgs#* } ${cfgs%% *}"
		done
		for c in $cfgs; do
			case $c in
			ng1) wb_speed $tag.batch1 zram_ng0 1 "$bdev" "$mib" ;;
			ng32) wb_speed $tag.batch32 zram_ng0 32 "$bdev" "$mib" ;;
			stock) wb_speed $tag.batch1 zram0 - "$bdev" "$mib" ;;
			esac
		done
	done
	for set in text swap; do
		if [ $((i % 2)) -eq 0 ]; then
			wb_bounded largest $set "$bmib" 1
			wb_bounded index $set "$bmib" 0
		else
			wb_bounded index $set "$bmib" 0
			wb_bounded largest $set "$bmib" 1
		fi
	done
}
