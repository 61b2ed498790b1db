# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The shell library of zramctl-ng and zram-ng-setup, sourced by both
# (installed as /usr/lib/zram-ng/zram-ng.sh). POSIX sh, busybox included.
# The tools run as root: nothing here evaluates or re-splits a value, and
# every expansion of data is quoted. A tool sources this only after
# checking that no one but root can have written it (zng_trusted, which
# each tool carries a copy of, since it runs before this is read).
#
# Expects $prog (the tool's name) and $ZNG_LIB (this file's directory).
# shellcheck disable=SC2154 # (they are the tool's)
#
#   zng_stat_columns FILE    the column names of a stat file (stat-columns)
#   zng_max_devices [MODULE] how many devices zram_ng can have, from the
#                            module (modinfo), or nothing
#   zng_write VALUE FILE     write VALUE to a sysfs attribute, or fail with
#                            the kernel's errno text on stdout
#   zng_size SIZE            SIZE in bytes, read as util-linux does, or fail
#   zng_memparse SIZE        SIZE as the kernel's memparse() should get it
#   zng_unused_device DEV    fail, saying why, when DEV holds a signature
#   zng_device_data DEV      the same, the reason on stdout
#   zng_block_device PATH    the block device PATH names, or fail, saying why
#   zng_in_list WORD LIST    WORD is one of LIST's words (one may be [WORD])
#   zng_safe_dir PATH        fail, saying why, when a component of PATH can
#                            be changed by someone else than root
#   zng_safe_parents PATH    the same for the directories above PATH only

# zng_stat_columns FILE: the columns of /sys/block/zram_ngN/FILE, in order,
# from stat-columns (the one list of them)
zng_stat_columns() {
	awk -v f="$1" '$1 == f { $1 = ""; sub(/^ +/, ""); print; n++ } END { exit n != 1 }' \
		"$ZNG_LIB/stat-columns" ||
		{ printf '%s: %s: no "%s" line\n' "$prog" "$ZNG_LIB/stat-columns" "$1" >&2; return 1; }
}

# zng_max_devices [MODULE]: how many devices the zram_ng module (MODULE,
# a name or a .ko, default the installed zram_ng) can make: the top of
# num_devices's range, "0-N" in its description (zram_ng/zram_ng.h's
# ZRAM_NG_MAX_DEVICES, written only there). Nothing when modinfo cannot
# read the module.
zng_max_devices() {
	modinfo -F parm "${1:-zram_ng}" 2>/dev/null |
		sed -n 's/^num_devices:.* 0-\([0-9][0-9]*\)[^0-9].*/\1/p' | head -n 1
}

# zng_write VALUE FILE: VALUE written to the attribute FILE; on failure,
# the errno's text on stdout ("Input/output error"), or "failed". cat
# writes it, since cat reports the errno of its write() where the shells'
# printf does not (dash says "I/O error" for every one, busybox nothing);
# the shells report the open.
zng_write() {
	_err=$( { printf '%s\n' "$1" | cat >"$2"; } 2>&1) && return 0
	_err=$(printf '%s\n' "$_err" | sed -n '$s/.*: //p')
	printf '%s\n' "${_err:-failed}"
	return 1
}

# zng_size SIZE: bytes, as util-linux reads a size (zramctl --size): a
# number, a fraction too, with an optional K M G T P E suffix, 1024-based
# ("K", "KiB") or 1000-based ("KB"); "1.5G" is 1610612736. Anything else
# (signs, spaces, "1,5G", a second number) fails. At most 2^53 bytes,
# which awk counts exactly.
zng_size() {
	case $1 in
	'' | *[!0-9.KMGTPEkmgtpeiB]* | .* | *.*.*) return 1 ;;
	esac
	printf '%s\n' "$1" | awk '
	/^[0-9]+(\.[0-9]+)?([KMGTPEkmgtpe](iB|B)?)?$/ {
		n = $0; unit = ""
		if (match(n, /[KMGTPEkmgtpe]/)) { unit = substr(n, RSTART); n = substr(n, 1, RSTART - 1) }
		base = unit ~ /^.B$/ ? 1000 : 1024
		m = unit == "" ? 0 : index("KMGTPE", toupper(substr(unit, 1, 1)))
		mult = 1
		while (m-- > 0) mult *= base
		b = int(n * mult)
		if (b > 9007199254740992) exit 1
		printf "%.0f\n", b
		ok = 1
	}
	END { exit !ok }'
}

# zng_memparse SIZE: a size zng_size accepts, as the kernel's memparse()
# reads it: unchanged when memparse reads it the same way (digits and a
# K M G T P E suffix, "1G"), else its bytes ("1.5G", "1GB", "1GiB")
zng_memparse() {
	case $1 in
	*[!0-9KMGTPEkmgtpe]* | *[KMGTPEkmgtpe]*[KMGTPEkmgtpe0-9]* | [!0-9]*) zng_size "$1" ;;
	*) printf '%s\n' "$1" ;;
	esac
}

# zng_unused_device DEV: succeed when DEV holds nothing that writing it
# would destroy: no file system, swap, RAID member or partition table
# signature, as libblkid's low-level probe (blkid -p, what mkswap and
# wipefs read) sees it. When it cannot be told (no blkid with -p, a probe
# error), it is not taken either. A DEV that is not there is left to the
# kernel to refuse. The message says why and names --force.
zng_unused_device() {
	[ -e "$1" ] || return 0
	_why=$(zng_device_data "$1") && return 0
	printf '%s: %s (--force to use it anyway)\n' "$prog" "$_why" >&2
	return 1
}

# zng_device_data DEV: zng_unused_device's test, its reason on stdout
# ("DEV holds data (TYPE swap): not overwriting it")
zng_device_data() {
	sig=$(blkid -p -o export -- "$1" 2>&1)
	case $? in
	2) return 0 ;;	# nothing found
	0)
		sig=$(printf '%s\n' "$sig" | awk -F= '
			$1 == "TYPE" || $1 == "PTTYPE" { t = t (t == "" ? "" : ", ") $1 " " $2 }
			END { print t }')
		printf '%s holds data (%s): not overwriting it\n' "$1" "${sig:-a signature}"
		;;
	*)
		printf '%s: cannot tell whether it holds data (blkid -p: %s): not using it\n' \
			"$1" "$(printf '%s' "$sig" | tr -d '\n' | cut -c1-200)"
		;;
	esac
	return 1
}

# zng_block_device PATH: the block device PATH names, on stdout: PATH, or
# what the link PATH points to (udev's /dev/disk/by-*, LVM's /dev/VG/LV),
# both in $ZNG_DEVDIR (default /dev) and below directories only root can
# change, so that what is checked is what the kernel opens. On failure,
# the reason on stdout (for a FILE:LINE: KEY: message).
zng_block_device() {
	_dd=${ZNG_DEVDIR:-/dev}
	if [ ! -e "$1" ]; then
		if [ -L "$1" ]; then
			printf '%s is a symbolic link to %s, which is not there\n' "$1" "$(readlink -- "$1")"
		else
			printf '%s: no such device\n' "$1"
		fi
		return 1
	fi
	zng_safe_parents "$1" || return 1
	_real=$1
	if [ -L "$1" ]; then
		_real=$(readlink -f -- "$1") || { printf 'cannot resolve the link %s\n' "$1"; return 1; }
		case $_real in
		"$_dd"/*) ;;
		*) printf '%s is a symbolic link to %s, outside %s\n' "$1" "$_real" "$_dd"; return 1 ;;
		esac
		# (what the configuration's paths may hold: the plan is words)
		case $_real in
		*[!A-Za-z0-9._/+@:,=~-]*)
			printf '%s is a symbolic link to a path that is not written with letters, digits and . _ / + @ : , = ~ - only\n' "$1"
			return 1
			;;
		esac
		zng_safe_parents "$_real" || return 1
	fi
	if [ ! -b "$_real" ]; then
		if [ "$_real" = "$1" ]; then
			printf '%s is not a block device\n' "$1"
		else
			printf '%s (%s) is not a block device\n' "$1" "$_real"
		fi
		return 1
	fi
	printf '%s\n' "$_real"
}

# zng_in_list WORD LIST: WORD is one of LIST's words, "[WORD]" included;
# compared as strings, never as patterns or file names
zng_in_list() {
	_l=$(printf '%s\n' "$2" | tr -s ' \t\n' '   ')
	case " $_l " in *" $1 "* | *" [$1] "*) return 0 ;; esac
	return 1
}

# zng_safe_dir PATH: PATH's components that exist are what they say
# (no symbolic link) and, but for PATH itself, can be changed only by root:
# owned by root and not group or world writable, as OpenSSH checks the
# directories above authorized_keys. A user who could write one of them
# could put a link in place of what is below it between the check and the
# use. On failure, the reason on stdout (for a FILE:LINE: KEY: message).
zng_safe_dir() { _zng_safe "$1" 1; }

# zng_safe_parents PATH: the directories above PATH (not PATH itself, which
# may be a link) are what they say and can be changed only by root
zng_safe_parents() {
	_d=${1%/*}
	_zng_safe "${_d:-/}" 0
}

# _zng_safe PATH LAST: zng_safe_dir, PATH itself exempt from the owner
# and mode check when LAST is 1
_zng_safe() {
	_p=$1 _last=$2
	while [ -n "$_p" ]; do
		if [ -L "$_p" ]; then
			printf '%s is a symbolic link (to %s): give the real path\n' \
				"$_p" "$(readlink -- "$_p")"
			return 1
		fi
		if [ -e "$_p" ] && [ $_last = 0 ]; then
			_s=$(stat -c '%u %a' -- "$_p") || { printf 'cannot stat %s\n' "$_p"; return 1; }
			if [ "${_s% *}" != 0 ]; then
				printf '%s belongs to uid %s, not root: its owner could change what is below it\n' \
					"$_p" "${_s% *}"
				return 1
			fi
			if [ $((0${_s#* } & 022)) != 0 ]; then
				printf '%s is writable by others than root (mode %s): they could change what is below it\n' \
					"$_p" "${_s#* }"
				return 1
			fi
		fi
		_last=0
		[ "$_p" = / ] && break
		_p=${_p%/*}
		[ -n "$_p" ] || _p=/
	done
	return 0
}
