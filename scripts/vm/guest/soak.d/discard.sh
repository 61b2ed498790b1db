# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # soak-vm's variables
#
# discard: in [64M, 128M) of dev0 and dev1 (fio does not go there), 1 MiB
# written, its middle 512 KiB discarded; the middle must read zeros and
# the edges their data.
discard_loads="mixed"
DISCARD_OFF=$((64 << 20))

discard_setup() {
	head -c $((512 << 10)) /dev/zero >$T/zero
	gen $T/dc-$D0 1M 5
	gen $T/dc-$D1 1M 6
}

discard_worker() {
	local d=$1 off n=0
	while :; do
		off=$((DISCARD_OFF + (RANDOM % 63) * (1 << 20)))
		dd if=$T/dc-$d of=/dev/$d bs=64k seek=$((off / 65536)) oflag=direct 2>/dev/null ||
			err discard "write at $off"
		blkdiscard -o $((off + (256 << 10))) -l $((512 << 10)) /dev/$d || err discard "blkdiscard at $off"
		# [0, 256K) and [768K, 1M) keep their data, the middle reads 0.
		if cmp -n $((256 << 10)) $T/dc-$d \
			<(dd if=/dev/$d bs=64k skip=$((off / 65536)) count=4 iflag=direct 2>/dev/null) &&
			cmp -n $((512 << 10)) $T/zero \
			<(dd if=/dev/$d bs=64k skip=$((off / 65536 + 4)) count=8 iflag=direct 2>/dev/null) &&
			cmp <(dd if=$T/dc-$d bs=64k skip=12 2>/dev/null) \
			<(dd if=/dev/$d bs=64k skip=$((off / 65536 + 12)) count=4 iflag=direct 2>/dev/null); then
			add "$T/discard-$d.bytes" $((1 << 20))
		else
			err discard "$d at $off: wrong data after a discard"
		fi
		n=$((n + 1))
		left || break
	done
	add "$T/discards-$d" $n
}

discard_start() {
	discard_worker $D0 &
	discard_worker $D1 &
}
