# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # soak-vm's variables
#
# writeback: dev1 has a 128 MiB brd ramdisk as backing device (set up here,
# before the disksize; WB=1 tells soak-vm's teardown to check it). In a
# loop, 1 MiB of one of the chunks (soak-vm's chunk_data) written at a
# random place in [32M, 64M), every page marked idle ("all", or by age
# after a second), written back (idle, huge_idle, huge or one page_index),
# read back from the ramdisk and compared, its first half overwritten
# (freeing those blocks) and the whole compared again; every seventh pass
# under writeback_limit_enable with a limit of 1-64 pages, which writeback
# may not pass. fio's and the discard loop's pages on dev1 are written
# back too, under their own verification.
writeback_loads="mixed"

writeback_setup() {
	[ -e $ZSYS/$D1/backing_dev ] || return 0
	# two ramdisks: /dev/ram1 is wbrace.sh's, which may have loaded brd
	[ -b /dev/ram1 ] || rmmod brd 2>/dev/null
	if modprobe brd rd_nr=2 rd_size=131072 &&
		echo /dev/ram0 >$ZSYS/$D1/backing_dev; then
		WB=1
	else
		err setup "backing_dev /dev/ram0 on $D1"
	fi
	chunk_data
}

bd_writes() { awk '{ print $3 }' $ZSYS/$D1/bd_stat; }

writeback_worker() {
	local d=$D1 n=0 mib f how w0 w1 limit
	while :; do
		n=$((n + 1))
		mib=$((32 + RANDOM % 32))
		f=$T/wr-$((n % 4))
		chunk_write $d $mib $f || err writeback "write at ${mib}M"
		# a quarter of the passes mark by age (every page untouched for 1 s)
		if [ $((n % 4)) = 0 ]; then
			sleep 1
			echo 1 >$ZSYS/$d/idle || err writeback "idle 1"
		else
			echo all >$ZSYS/$d/idle || err writeback "idle all"
		fi
		case $((n % 5)) in
		0) how=huge_idle ;;
		1) how=huge ;;
		2) how=page_index=$((mib * 256 + RANDOM % 256)) ;;
		*) how=idle ;;
		esac
		limit=
		if [ $((n % 7)) = 0 ]; then
			limit=$((1 + RANDOM % 64))
			echo $limit >$ZSYS/$d/writeback_limit
			echo 1 >$ZSYS/$d/writeback_limit_enable
		fi
		w0=$(bd_writes)
		# -EIO once a limit is used up is the limit working, -EAGAIN the
		# grouping worker's pass of the device; anything else (-ENOSPC: the
		# 128 MiB ramdisk holds the whole disk) is an error
		if ! echo $how >$ZSYS/$d/writeback 2>$T/wb.err &&
			! { [ -n "$limit" ] && grep -q 'Input/output error' $T/wb.err; } &&
			! grep -q 'Resource temporarily unavailable' $T/wb.err; then
			err writeback "writeback $how: $(cat $T/wb.err)"
		fi
		w1=$(bd_writes)
		add "$T/wb.pages" $((w1 - w0))
		if [ -n "$limit" ]; then
			[ $((w1 - w0)) -le "$limit" ] ||
				err writeback "$((w1 - w0)) pages written back past a limit of $limit"
			echo 0 >$ZSYS/$d/writeback_limit_enable
		fi
		if chunk_same $d $mib $f; then
			add "$T/wb.bytes" $((1 << 20))
		else
			err writeback "pass $n ($how): ${mib}M reads back wrong after writeback"
		fi
		# overwrite the first half (frees its blocks), the rest still reads back
		dd if=$T/wr-$(((n + 1) % 4)) of=/dev/$d bs=64k seek=$((mib * 16)) count=8 \
			oflag=direct 2>/dev/null || err writeback "overwrite at ${mib}M"
		if cmp -s <(head -c $((512 << 10)) $T/wr-$(((n + 1) % 4)); tail -c $((512 << 10)) $f) \
			<(dd if=/dev/$d bs=64k skip=$((mib * 16)) count=16 iflag=direct 2>/dev/null); then
			add "$T/wb.bytes" $((1 << 20))
		else
			err writeback "pass $n: ${mib}M reads back wrong after an overwrite"
		fi
		add "$T/wb.passes" 1
		left || break
	done
}

writeback_start() {
	[ $WB = 1 ] || return 0
	writeback_worker &
}
