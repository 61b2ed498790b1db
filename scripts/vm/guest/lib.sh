# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# lib.sh: the one shell library of the scripts that run inside the test VM
# (scripts/vm/guest/*, and the selftests through selftests/zram_ng/common.sh).
# POSIX sh: it runs under the VM's /bin/sh (bash) and under busybox sh.
# Sourcing it only defines functions and the column lists below.
#
#	. "$(dirname "$0")/lib.sh"
#	zram_ng_reload num_devices=1 || exit 1
#	zdev_setup zram_ng0 64M lz4 exact || exit 1
#	mm_stat zram_ng0 objs_moved
#	mm_stat_read zram_ng0 before_   # $before_mem_used_total ...
#
# vm-run puts this folder on PATH (/scripts/vm/guest) and selftests/ beside
# scripts/, so "../../scripts/vm/guest/lib.sh" from a selftest folder works
# both in the tree and in the VM.
#
# A device is named as in /sys/block (zram_ng0, zram0) or by its node
# (/dev/zram_ng0). zram's stat files are one line of columns, and columns are
# only ever appended, so they are read by name, never by position. The stock
# 6.1 zram has no objs_moved: that column reads as empty there.

# The project's files are at /scripts and /tools in the VM; host-side users
# (scripts/vm-run, scripts/tests/test-guest-lib) set ZSNG_TOP to the tree.
ZSNG_TOP=${ZSNG_TOP:-}

# stat_columns FILE: print the column names of the stat file FILE (mm_stat,
# io_stat, bd_stat), from tools/lib/stat-columns, where they are written once
stat_columns() {
	sed -n "s/^$1 //p" "$ZSNG_TOP/tools/lib/stat-columns"
}

# kernel_failure_re: print one extended regular expression that matches
# every kernel report of scripts/vm/guest/kernel-failure-patterns
kernel_failure_re() {
	awk '!/^#/ && NF { printf "%s%s", sep, $0; sep = "|" }' \
		"$ZSNG_TOP/scripts/vm/guest/kernel-failure-patterns"
}

MM_STAT_COLUMNS=$(stat_columns mm_stat)
IO_STAT_COLUMNS=$(stat_columns io_stat)
BD_STAT_COLUMNS=$(stat_columns bd_stat)
NG_STAT_COLUMNS=$(stat_columns ng_stat)
GROUP_STAT_COLUMNS=$(stat_columns group_stat)

# zdev_sys DEV: print the sysfs directory of DEV (/sys/block/<name>;
# $ZRAM_SYSFS replaces /sys/block, for scripts/tests/test-guest-lib)
zdev_sys() {
	echo "${ZRAM_SYSFS:-/sys/block}/${1##*/}"
}

# stat_index COLUMNS KEY: print the 1-based position of column KEY in the
# list COLUMNS; a KEY that is already a number is printed as it is. Fails
# (and says so on stderr) for a name that is not in the list.
stat_index() {
	case $2 in
	''|*[!0-9]*) ;;
	*) echo "$2"; return 0 ;;
	esac
	_i=0
	for _c in $1; do
		_i=$((_i + 1))
		[ "$_c" = "$2" ] && { echo "$_i"; return 0; }
	done
	echo "lib.sh: no stat column '$2'" >&2
	return 1
}

# stat_field FILE COLUMNS KEY: print column KEY (a name of COLUMNS, or a
# 1-based number) of the one-line stat FILE
stat_field() {
	_n=$(stat_index "$2" "$3") || return 1
	awk -v n="$_n" '{ print $n }' "$1"
}

# mm_stat DEV NAME: print one mm_stat column of DEV by name (or number),
# e.g. "mm_stat zram_ng0 mem_used_total"
mm_stat() {
	stat_field "$(zdev_sys "$1")/mm_stat" "$MM_STAT_COLUMNS" "$2"
}

# io_stat DEV NAME: print one io_stat column of DEV by name (or number),
# e.g. "io_stat zram_ng0 notify_free"
io_stat() {
	stat_field "$(zdev_sys "$1")/io_stat" "$IO_STAT_COLUMNS" "$2"
}

# bd_stat DEV NAME: print one bd_stat column of DEV by name, e.g.
# "bd_stat zram_ng0 bd_writes"
bd_stat() {
	stat_field "$(zdev_sys "$1")/bd_stat" "$BD_STAT_COLUMNS" "$2"
}

# ng_stat DEV NAME: print one column of zram_ng's own ng_stat by name,
# e.g. "ng_stat zram_ng0 bd_retired"
ng_stat() {
	stat_field "$(zdev_sys "$1")/ng_stat" "$NG_STAT_COLUMNS" "$2"
}

# group_stat DEV NAME: print one column of group_stat by name, e.g.
# "group_stat zram_ng0 grouped_pages"
group_stat() {
	stat_field "$(zdev_sys "$1")/group_stat" "$GROUP_STAT_COLUMNS" "$2"
}

# mm_stat_read DEV PREFIX: read mm_stat once (a consistent snapshot) into
# the variables PREFIX<column>, e.g. "mm_stat_read zram_ng0 B_" sets
# $B_orig_data_size ... $B_objs_moved, and $PREFIX"line" to the raw line.
mm_stat_read() {
	_line=$(cat "$(zdev_sys "$1")/mm_stat") || return 1
	eval "${2}line=\$_line"
	# shellcheck disable=SC2086 # the columns are the words of the line
	set -- "$2" $_line
	_p=$1
	shift
	for _c in $MM_STAT_COLUMNS; do
		eval "$_p$_c=\${1:-}"
		[ $# -gt 0 ] && shift
	done
	return 0
}

# bracketed FILE: print the [selected] word of a choice attribute such as
# comp_algorithm or allocator_policy
bracketed() {
	sed -n 's/.*\[\([^]]*\)\].*/\1/p' "$1"
}

# choices FILE: print the words of a choice attribute without the brackets
# around the selected one, e.g. "legacy legacy-groups ratio exact" from
# allocator_policy
choices() {
	tr -d '[]' <"$1"
}

# zdev_write DEV ATTR VALUE: write VALUE to DEV's sysfs ATTR; on failure say
# which on stderr and fail
zdev_write() {
	{ printf '%s\n' "$3" >"$(zdev_sys "$1")/$2"; } 2>/dev/null && return 0
	echo "lib.sh: $1: '$3' > $2 refused" >&2
	return 1
}

# zdev_setup DEV DISKSIZE [ALGORITHM [POLICY]]: initialise an unused
# device: allocator_policy (zram_ng only), then comp_algorithm, then
# disksize (the first two must precede the last). "" or "-" skips one.
zdev_setup() {
	case ${4:--} in -) ;; *) zdev_write "$1" allocator_policy "$4" || return 1 ;; esac
	case ${3:--} in -) ;; *) zdev_write "$1" comp_algorithm "$3" || return 1 ;; esac
	zdev_write "$1" disksize "$2"
}

# zdev_reset DEV: reset DEV (frees everything; a device not set up is fine)
zdev_reset() {
	echo 1 >"$(zdev_sys "$1")/reset" 2>/dev/null
}

# zram_ng_reload [MODPARAMS...]: zram_ng loaded anew with a clean slate:
# every swap off, zram_ng unloaded (zsmalloc_ng stays), then modprobe'd
# with MODPARAMS
zram_ng_reload() {
	swapoff -a 2>/dev/null
	rmmod zram_ng 2>/dev/null
	modprobe zram_ng "$@"
}

# pool_stat POOL NAME: a counter of zsmalloc_ng's debugfs <pool>/stats,
# e.g. "pool_stat zram_ng0 pages_migrated" (empty if there is no such pool)
pool_stat() {
	awk -v k="$2" '$1 == k { print $2 }' "/sys/kernel/debug/zsmalloc_ng/$1/stats" 2>/dev/null
}

# zswap_pools: the zsmalloc_ng pools zswap made (zswap names them zswapN)
zswap_pools() {
	for _p in /sys/kernel/debug/zsmalloc_ng/zswap*; do
		[ -e "$_p" ] && echo "${_p##*/}"
	done
}

# zswap_pool_stat NAME: a pool_stat counter summed over zswap_pools
zswap_pool_stat() {
	_sum=0
	for _p in $(zswap_pools); do
		_sum=$((_sum + $(pool_stat "$_p" "$1")))
	done
	echo $_sum
}

# vmstat_get KEY: print a /proc/vmstat counter, e.g. "vmstat_get pswpout"
vmstat_get() {
	awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat
}

# now_us: print a microsecond clock: bash's $EPOCHREALTIME, else date's
# %N (busybox date has none), else /proc/uptime (10 ms steps)
now_us() {
	if [ -n "${EPOCHREALTIME:-}" ]; then
		_t=$EPOCHREALTIME
		echo "${_t%.*}${_t#*.}"
		return
	fi
	_t=$(date +%s%N 2>/dev/null)
	case $_t in
	*N|"") _t=$(cut -d' ' -f1 /proc/uptime | tr -d .)0000 ;;
	*) _t=${_t%???} ;;
	esac
	echo "$_t"
}

# wait_until SECONDS CMD...: run CMD every 0.1 s until it succeeds; fail
# once SECONDS have passed (0: wait as long as it takes)
wait_until() {
	_limit=$1
	shift
	_end=$(($(now_us) / 1000000 + _limit))
	until "$@"; do
		[ "$_limit" -eq 0 ] || [ "$(($(now_us) / 1000000))" -lt "$_end" ] || return 1
		sleep 0.1
	done
}
