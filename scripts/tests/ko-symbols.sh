# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# What tells the testing build of zsmalloc_ng.ko and zram_ng.ko from the
# product (make ZSNG_TESTING=1, Kbuild): the experiment, the scenarios, the
# self-check and their glue, the core's consistency checker (core/check.cpp),
# the fault injection (kernel/fault_inject.c, zram_ng's fail_leaf_alloc).
# Sourced by test-makefile and test-deb.
#
#   ko_symbols KO          the symbol names of KO (.ko, .ko.xz, .ko.zst), one a line
#   testing_symbols KO     those of the testing build only: none in a product

TESTING_SYMBOLS='experiment|scenario|selfcheck|selftest|workload|zsng_testing'
TESTING_SYMBOLS="$TESTING_SYMBOLS|check_consistency|zsng_core_check|class_inuse_counts"
TESTING_SYMBOLS="$TESTING_SYMBOLS|fault_inject|should_fail|fail_|zsng_fail\$"

ko_symbols() {	# ko_symbols KO
	case $1 in
	*.xz) xz -dc "$1" ;;
	*.zst) zstd -qdc "$1" ;;
	*.gz) gzip -dc "$1" ;;
	*) cat "$1" ;;
	esac >"${TMPDIR:-/tmp}/ko-symbols.$$" &&
		nm "${TMPDIR:-/tmp}/ko-symbols.$$" | awk '{ print $NF }'
	_ks_status=$?
	rm -f "${TMPDIR:-/tmp}/ko-symbols.$$"
	return $_ks_status
}

testing_symbols() {	# testing_symbols KO
	ko_symbols "$1" | grep -iE "$TESTING_SYMBOLS"
}
