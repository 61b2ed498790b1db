# SPDX-License-Identifier: GPL-2.0
#
# KTAP helpers for the in-VM selftests (busybox sh compatible). Source it:
#
#	. "$(dirname "$0")/../lib.sh"
#	ktap_header
#	ktap_plan 2
#	if modprobe zram_ng; then ktap_ok "load"; else ktap_fail "load"; fi
#	expect_errno EINVAL sh -c 'echo -1 > /sys/block/zram0/disksize' &&
#		ktap_ok "negative disksize" || ktap_fail "negative disksize"
#	ktap_finish
#
# ktap_finish exits 0 when every test passed, 1 when any failed, and 4
# (kselftest's KSFT_SKIP) when all of them were skipped.

KTAP_TESTNUM=0
KTAP_PASS=0
KTAP_FAIL=0
KTAP_SKIP=0
KTAP_PLANNED=

ktap_header() {
	echo "TAP version 13"
}

ktap_plan() {
	KTAP_PLANNED=$1
	echo "1..$1"
}

ktap_ok() {
	KTAP_TESTNUM=$((KTAP_TESTNUM + 1))
	KTAP_PASS=$((KTAP_PASS + 1))
	echo "ok $KTAP_TESTNUM $1"
}

ktap_fail() {
	KTAP_TESTNUM=$((KTAP_TESTNUM + 1))
	KTAP_FAIL=$((KTAP_FAIL + 1))
	echo "not ok $KTAP_TESTNUM $1"
}

# ktap_skip DESC REASON
ktap_skip() {
	KTAP_TESTNUM=$((KTAP_TESTNUM + 1))
	KTAP_SKIP=$((KTAP_SKIP + 1))
	echo "ok $KTAP_TESTNUM $1 # SKIP ${2:-}"
}

# ktap_result DESC CMD...: ok when CMD succeeds, not ok otherwise
ktap_result() {
	_desc=$1
	shift
	if "$@"; then ktap_ok "$_desc"; else ktap_fail "$_desc"; fi
}

ktap_print() {	# a diagnostic line
	echo "# $*"
}

ktap_finish() {
	if [ -n "$KTAP_PLANNED" ] && [ "$KTAP_PLANNED" -ne "$KTAP_TESTNUM" ]; then
		echo "# planned $KTAP_PLANNED tests but ran $KTAP_TESTNUM"
		KTAP_FAIL=$((KTAP_FAIL + 1))
	fi
	echo "# Totals: pass:$KTAP_PASS fail:$KTAP_FAIL skip:$KTAP_SKIP"
	[ "$KTAP_FAIL" -eq 0 ] || exit 1
	[ "$KTAP_TESTNUM" -gt 0 ] && [ "$KTAP_SKIP" -eq "$KTAP_TESTNUM" ] && exit 4
	exit 0
}

# errno_text NAME: the strerror() text (glibc and busybox/musl agree on these)
errno_text() {
	case $1 in
	EPERM) echo "Operation not permitted" ;;
	ENOENT) echo "No such file or directory" ;;
	EIO) echo "Input/output error" ;;
	ENXIO) echo "No such device or address" ;;
	E2BIG) echo "Argument list too long" ;;
	EBADF) echo "Bad file descriptor" ;;
	EAGAIN) echo "Resource temporarily unavailable" ;;
	ENOMEM) echo "Cannot allocate memory" ;;
	EACCES) echo "Permission denied" ;;
	EFAULT) echo "Bad address" ;;
	EBUSY) echo "Device or resource busy" ;;
	EEXIST) echo "File exists" ;;
	ENODEV) echo "No such device" ;;
	ENOTBLK) echo "Block device required" ;;
	ENOTDIR) echo "Not a directory" ;;
	EISDIR) echo "Is a directory" ;;
	EINVAL) echo "Invalid argument" ;;
	ENOSPC) echo "No space left on device" ;;
	EFBIG) echo "File too large" ;;
	EROFS) echo "Read-only file system" ;;
	ERANGE) echo "Numerical result out of range" ;;
	ENOSYS) echo "Function not implemented" ;;
	EOPNOTSUPP|ENOTSUP) echo "Operation not supported" ;;
	ETIMEDOUT) echo "Connection timed out" ;;
	*) return 1 ;;
	esac
}

# expect_errno ERRNO_NAME CMD...
# Succeeds when CMD fails and its stderr names the errno, e.g.
#	expect_errno EBUSY sh -c 'echo 1G > /sys/block/zram0/disksize'
# (busybox echo prints "sh: write error: Device or resource busy").
# On a mismatch, prints what happened as a KTAP diagnostic.
expect_errno() {
	_want=$(errno_text "$1") || { echo "# expect_errno: unknown errno $1"; return 2; }
	shift
	if _err=$("$@" 2>&1 >/dev/null); then
		echo "# expected $_want, but succeeded: $*"
		return 1
	fi
	case $_err in
	*"$_want"*) return 0 ;;
	esac
	echo "# expected $_want from: $*"
	echo "# got: $_err"
	return 1
}

# write_expect_errno ERRNO_NAME VALUE FILE: the common sysfs case
write_expect_errno() {
	expect_errno "$1" sh -c 'echo "$1" > "$2"' sh "$2" "$3"
}

# assert_eq WANT GOT [DESC]: succeeds when equal, else prints a diagnostic
assert_eq() {
	[ "$1" = "$2" ] && return 0
	echo "# ${3:-assert_eq}: expected '$1', got '$2'"
	return 1
}
