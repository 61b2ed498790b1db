# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # soak-vm's variables
#
# memlimit: mem_limit changes on the fio devices every 200 ms (0, 1G,
# 512M, 256M: never below need, so nothing may fail there).
memlimit_loads="mixed"

memlimit_worker() {
	local limits=(0 1G 512M 256M 0) i=0 d
	while left; do
		for d in $D0 $D1; do
			echo ${limits[i % 5]} >$ZSYS/$d/mem_limit || err memlimit "$d ${limits[i % 5]}"
			add "$T/memlimit" 1
		done
		i=$((i + 1))
		sleep 0.2
	done
	for d in $D0 $D1; do echo 0 >$ZSYS/$d/mem_limit; done
}

memlimit_start() {
	memlimit_worker &
}
