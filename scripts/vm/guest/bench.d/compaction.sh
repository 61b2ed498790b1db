# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # bench-vm's variables
#
# compaction (bench-vm compaction RUNS PAGES DISCARDS): the
# compaction-experiment block run (zram_ng under each policy, then the
# stock zram; its own fixed order), once per run; its input
# (./pages.bin, ./discards) and compaction-experiment-vm come from the host.

workload_prepare() {
	setup
}

workload_run() {	# workload_run RUN PAGES DISCARDS
	"$GUEST/compaction-experiment-vm" block "$2" "$3" || die "compaction-experiment-vm failed"
}
