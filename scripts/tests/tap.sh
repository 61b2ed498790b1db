# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The one TAP helper of the host-side tool tests (scripts/tests/test-*),
# sourced by each. make check (scripts/check, stage 5) counts the "ok " and
# "not ok " lines and takes a non-zero exit status as a failure.
#
#   check DESC WANT GOT    ok when the strings are equal, else both shown
#   check_cmd DESC CMD...  ok when CMD succeeds, else its output shown
#   ok DESC / not_ok DESC [WHY...] / skip DESC WHY
#   tap_done NAME          "# NAME: P passed, F failed"; exits 1 if any failed
#
# Works under dash, bash and busybox sh: the tools are tested under each.

tap_pass=0
tap_fail=0

ok() {
	tap_pass=$((tap_pass + 1))
	printf 'ok %d - %s\n' $((tap_pass + tap_fail)) "$1"
}

not_ok() {	# not_ok DESC [DIAGNOSTIC LINE...]
	tap_fail=$((tap_fail + 1))
	printf 'not ok %d - %s\n' $((tap_pass + tap_fail)) "$1"
	shift
	for line in "$@"; do
		printf '%s\n' "$line" | sed 's/^/#   /'
	done
}

skip() {	# skip DESC WHY: counted as neither
	printf 'ok - %s # SKIP %s\n' "$1" "$2"
}

check() {	# check DESC WANT GOT
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1" "want '$2'" "got  '$3'"
	fi
}

check_cmd() {	# check_cmd DESC CMD...
	_tap_desc=$1
	shift
	if _tap_out=$("$@" 2>&1); then
		ok "$_tap_desc"
	else
		not_ok "$_tap_desc" "$_tap_out"
	fi
}

tap_done() {	# tap_done NAME
	echo "# $1: $tap_pass passed, $tap_fail failed"
	[ "$tap_fail" -eq 0 ] && exit 0
	exit 1
}
