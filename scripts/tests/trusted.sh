# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# A trusted scratch directory for the host-side tests, sourced by those
# that run tools/zram-ng-setup or tools/zramctl-ng, and by scripts/check.
# The tools read their library beside them only when no one but root (or
# the user running them) can have written it or a directory above it, so
# a clone under /tmp cannot run its own tools/: the tests run a copy of
# tools/ from a directory that passes that rule, and keep there too the
# scratch trees they need "where only root can write" (a scratch /dev,
# mount-points). Whether a directory passes is the tools' own decision: a
# copy of tools/ is put in it and its zramctl-ng --help is run; the rule
# is not written a third time here.
#
#   trusted_base          the directory's physical path on stdout:
#                         $TOP/.cache if the tools run from there, else
#                         ${XDG_CACHE_HOME:-$HOME/.cache}/zsmalloc_ng/tests
#                         (made mode 700); else one line saying why on
#                         stderr, and a failure
#   trusted_tools [DIR]   a fresh copy of tools/ (the scripts, lib/,
#                         config/), go-w, in a new mktemp directory in
#                         DIR (default: trusted_base), its path on stdout;
#                         the caller removes it (or DIR)
#
# $TOP is the tree's top directory. Works under dash, bash and busybox sh.

# _trusted_why DIR: nothing and success when the tools run from a copy in
# DIR, else what the tools said (or that DIR cannot be written) and failure
_trusted_why() {
	_tw=$(mktemp -d "$1/probe.XXXXXX" 2>/dev/null) || { echo "cannot make a directory in it"; return 1; }
	if ! cp -R "$TOP/tools/." "$_tw/" || ! chmod -R go-w "$_tw"; then
		rm -rf "$_tw"
		echo "cannot copy tools/ into it"
		return 1
	fi
	_tm=$(sh "$_tw/zramctl-ng" --help 2>&1 >/dev/null)
	_ts=$?
	rm -rf "$_tw"
	[ "$_ts" = 0 ] && return 0
	# "zramctl-ng: /tmp is missing, a link, or ...: not reading DIR"
	printf '%s\n' "$_tm" | sed -n '1{s/^zramctl-ng: //; s/: not reading .*//; p; }'
	return 1
}

trusted_base() {
	_tb=$TOP/.cache
	if mkdir -p "$_tb" 2>/dev/null; then
		_tb=$(CDPATH="" cd "$_tb" && pwd -P) || return 1
		_why1=$(_trusted_why "$_tb") && { printf '%s\n' "$_tb"; return 0; }
	else
		_why1="cannot make it"
	fi
	_why2="no HOME"
	_ta=
	if [ -n "${XDG_CACHE_HOME:-}" ] || [ -n "${HOME:-}" ]; then
		_ta=${XDG_CACHE_HOME:-$HOME/.cache}/zsmalloc_ng/tests
		if [ -d "$_ta" ] || { mkdir -p "${_ta%/*}" && mkdir -m 700 "$_ta"; } 2>/dev/null; then
			_ta=$(CDPATH="" cd "$_ta" && pwd -P) || return 1
			_why2=$(_trusted_why "$_ta") && { printf '%s\n' "$_ta"; return 0; }
		else
			_why2="cannot make it"
		fi
	fi
	echo "the host-side tests need a directory the tools trust (only root or you can write it and each one above it), and have none:" \
		"$TOP/.cache ($_why1), ${_ta:-\$HOME/.cache} ($_why2):" \
		"move the clone, or set XDG_CACHE_HOME to a private directory" >&2
	return 1
}

trusted_tools() {
	if [ $# -gt 0 ]; then
		_td=$1
	else
		_td=$(trusted_base) || return 1
	fi
	_td=$(mktemp -d "$_td/tools.XXXXXX") || return 1
	if cp -R "$TOP/tools/." "$_td/" && chmod -R go-w "$_td"; then
		printf '%s\n' "$_td"
	else
		rm -rf "$_td"
		return 1
	fi
}
