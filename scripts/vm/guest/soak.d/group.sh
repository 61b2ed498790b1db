# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # soak-vm's variables
#
# group: grouped recompression (group_recompress, zram_ng only) racing
# everything else on dev0 and dev1: fio's verified random writes, the
# discard loop, recompression (dev0), writeback and its reads (dev1),
# compaction, page migration, and the swap device's hot paths. In a loop,
# on dev0 and dev1 in turn: idle all (or not), then a pass of type=idle or
# type=all with 2 to 16 pages a group. The pages' owners verify them; this
# worker counts the passes, the groups alive after each and the passes
# another pass of the device refused (-EAGAIN, which is expected: one pass
# at a time per device). Any other failure is an error.
group_loads="mixed"

group_setup() {
	[ -e $ZSYS/$D0/group_recompress ] && GROUP=1
}

group_worker() {
	local n=0 d how
	while :; do
		n=$((n + 1))
		d=$D0
		[ $((n % 2)) = 0 ] && d=$D1
		[ $((n % 3)) = 0 ] || echo all >$ZSYS/$d/idle || err group "idle all on $d"
		how="type=idle pages=$((2 + RANDOM % 15))"
		[ $((n % 4)) = 0 ] && how="type=all pages=$((2 + RANDOM % 15))"
		if echo "$how" >$ZSYS/$d/group_recompress 2>$T/gr.err; then
			add "$T/group.passes" 1
			add "$T/group.groups" "$(group_stat $d groups)"
		elif grep -q 'Resource temporarily unavailable' $T/gr.err; then
			add "$T/group.eagain" 1
		else
			err group "group_recompress $how on $d: $(cat $T/gr.err)"
		fi
		sleep 0.$((RANDOM % 10))
		left || break
	done
}

group_start() {
	[ $GROUP = 1 ] || return 0
	group_worker &
}
