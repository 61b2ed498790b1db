# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # soak-vm's variables
#
# compact_memory: the kernel's memory compaction, "1 >
# /proc/sys/vm/compact_memory" every 5 s, which migrates the devices' pages
# (the zspages of a movable pool) while everything else runs.
compact_memory_loads="mixed reclaim"

compact_memory_worker() {
	local n=0
	while left; do
		echo 1 >/proc/sys/vm/compact_memory && n=$((n + 1))
		sleep 5
	done
	echo $n >"$T/compact_memory"
}

compact_memory_start() {
	compact_memory_worker &
}
