# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # soak-vm's variables
#
# hotplug: hot_add a fourth device with a random policy (zram_ng) and
# compressor, disksize, write and verify; a mem_limit below what it holds
# (new writes must fail with EIO/ENOSPC, stored data must stay), lifted;
# compact, reset, a second disksize, write and verify, hot_remove.
hotplug_loads="mixed"

hotplug_setup() {
	head -c $((4 << 20)) /dev/urandom >$T/hp-rand
	gen $T/hp-data 4M 3
}

hotplug_worker() {
	local policies algos=(lz4 lzo lzo-rle zstd lz4hc)
	local id d cycle=0 got moved
	while :; do
		cycle=$((cycle + 1))
		if ! id=$(cat $ZCTL/hot_add); then
			err hotplug "hot_add failed"
			sleep 1
			left || break
			continue
		fi
		d=$DEV$id
		if [ $STACK = ng ]; then
			# the allocator's own list of policies
			read -ra policies <<<"$(choices $ZSYS/$d/allocator_policy)"
			echo "${policies[RANDOM % ${#policies[@]}]}" >$ZSYS/$d/allocator_policy ||
				err hotplug "policy"
		fi
		echo ${algos[RANDOM % 5]} >$ZSYS/$d/comp_algorithm || err hotplug "comp_algorithm"
		echo 16M >$ZSYS/$d/disksize || err hotplug "disksize 16M"
		dd if=$T/hp-data of=/dev/$d bs=64k oflag=direct 2>/dev/null || err hotplug "write"
		if cmp -n $((4 << 20)) $T/hp-data /dev/$d; then
			add "$T/hotplug.bytes" $((4 << 20))
		else
			err hotplug "cycle $cycle: data differs on $d"
		fi
		# A limit below what is stored: new writes must fail with an
		# I/O error, never corrupt what is there.
		echo 64K >$ZSYS/$d/mem_limit
		add "$T/hotplug.memlimit" 1
		if dd if=$T/hp-rand of=/dev/$d bs=64k seek=128 count=16 oflag=direct 2>$T/hp-err; then
			err hotplug "cycle $cycle: writes beyond mem_limit succeeded"
		elif ! grep -qE 'Input/output error|No space left' $T/hp-err; then
			err hotplug "cycle $cycle: beyond mem_limit: $(cat $T/hp-err)"
		fi
		echo 0 >$ZSYS/$d/mem_limit
		add "$T/hotplug.memlimit" 1
		cmp -n $((4 << 20)) $T/hp-data /dev/$d || err hotplug "cycle $cycle: data lost under mem_limit"
		echo 1 >$ZSYS/$d/compact
		moved=$(mm $d objs_moved)
		add "$T/hotplug.moved" "$moved"
		echo 1 >$ZSYS/$d/reset || err hotplug "reset"
		got=$(cat $ZSYS/$d/initstate)
		[ "$got" = 0 ] || err hotplug "initstate $got after reset"
		echo 8M >$ZSYS/$d/disksize || err hotplug "disksize 8M after reset"
		dd if=$T/hp-data of=/dev/$d bs=4k count=512 oflag=direct 2>/dev/null
		cmp -n $((2 << 20)) $T/hp-data /dev/$d && add "$T/hotplug.bytes" $((2 << 20)) ||
			err hotplug "cycle $cycle: data differs after reset"
		echo "$id" >$ZCTL/hot_remove || err hotplug "hot_remove $id"
		[ ! -e /dev/$d ] || err hotplug "$d still there after hot_remove"
		add "$T/hotplug.cycles" 1
		left || break
	done
}

hotplug_start() {
	hotplug_worker &
}
