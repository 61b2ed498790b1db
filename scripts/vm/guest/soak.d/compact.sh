# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # soak-vm's variables
#
# compact: "1 > compact" on the devices, every 5 ms on all three (mixed),
# every 50 ms on dev0 and dev1 (reclaim).
compact_loads="mixed reclaim"
if [ "$LOAD" = mixed ]; then
	COMPACT_SLEEP=0.005
	COMPACT_DEVS="$D0 $D1 $D2"
else
	COMPACT_SLEEP=0.05
	COMPACT_DEVS="$D0 $D1"
fi

compact_worker() {
	local n=0 d
	while left; do
		for d in $COMPACT_DEVS; do
			echo 1 >$ZSYS/$d/compact && n=$((n + 1))
		done
		sleep $COMPACT_SLEEP
	done
	echo $n >"$T/compactions"
}

compact_start() {
	compact_worker &
}
