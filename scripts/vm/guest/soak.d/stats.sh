# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # soak-vm's variables
#
# stats: readers of every statistics file and classes table, as monitoring
# would, every 50 ms.
stats_loads="mixed reclaim"

stats_worker() {
	while left; do
		cat $ZSYS/$DEV*/{mm_stat,io_stat,debug_stat} $DBG/*/classes >/dev/null 2>&1
		sleep 0.05
	done
}

stats_start() {
	stats_worker &
}
