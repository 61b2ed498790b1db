# SPDX-License-Identifier: GPL-2.0
#
# Helpers shared by the zram_ng selftests (sourced, busybox sh).
. "$(dirname "$0")/../lib.sh"
# The in-VM shell library (stat columns by name, device setup): the same
# relative path works in the tree and in the VM (/selftests, /scripts).
. "$(dirname "$0")/../../scripts/vm/guest/lib.sh"

ZSYS=/sys/block
ZCTL=/sys/class/zram_ng-control

# fio_tagged write|verify OFFSET SIZE COMPRESS%: 4 KiB blocks, one crc32c tag
# each, direct I/O on $B (the test's device)
fio_tagged() {
	_mode=$1
	set -- --name=dev --filename=$B --offset="$2" --size="$3" --bs=4k \
		--direct=1 --rw=write --buffer_compress_percentage="$4" \
		--refill_buffers --verify=crc32c --verify_state_save=0 \
		--output=/dev/null
	if [ "$_mode" = verify ]; then
		fio "$@" --verify_only
	else
		fio "$@" --do_verify=0
	fi
}

# A 4 KiB-page-interleaved workload: fio writes partly compressible blocks
# (about 3:1 with lz4, several allocator size classes), then every other
# page is discarded, leaving every zspage half used.
# fill_and_fragment DEV SIZE
fill_and_fragment() {
	fio --name=fill --filename="/dev/$1" --rw=write --bs=4k --size="$2" \
		--direct=1 --buffer_compress_percentage=65 \
		--buffer_compress_chunk=512 --refill_buffers \
		--verify=crc32c --do_verify=0 --verify_state_save=0 \
		--output=/dev/null || return 1
	fio --name=holes --filename="/dev/$1" --rw=trim:4k --bs=4k \
		--size="$2" --output=/dev/null
}

# Device-mapper without udev (the VM has none): DM_DISABLE_UDEV=1 in the
# caller's environment. dm_make NAME: the table on stdin; prints the node
dm_make() {
	dmsetup create --noudevsync "$1" || return 1
	dmsetup mknodes "$1" 2>/dev/null
	if [ -b "/dev/mapper/$1" ]; then
		echo "/dev/mapper/$1"
	else
		echo "/dev/$(dmsetup info -c --noheadings -o blkdevname "$1")"
	fi
}

# dm_swap NAME: load the table on stdin into NAME, live
dm_swap() {
	dmsetup suspend --noudevsync "$1" && dmsetup load "$1" &&
		dmsetup resume --noudevsync "$1"
}


# Pages of the test's device $B ($P bytes each: 4096), direct I/O, and
# its block_state $DBG, for the tests that put data files at page offsets.
# hex_file FILE MIB: MIB MiB of random hex digits (4 bits of entropy a byte)
hex_file() {
	head -c $(($2 * 524288)) /dev/urandom | od -An -v -tx1 | tr -d ' \n' >"$1"
}

# file_at FIRSTPAGE FILE: FILE written at page FIRSTPAGE of $B, direct
file_at() {
	dd if="$2" of="$B" bs="$P" seek="$1" oflag=direct conv=fsync 2>/dev/null
}

# file_matches FIRSTPAGE FILE: the pages at FIRSTPAGE read back as FILE
file_matches() {
	_n=$(($(wc -c <"$2") / P))
	dd if="$B" bs="$P" skip="$1" count="$_n" iflag=direct 2>/dev/null | cmp -s - "$2"
}

# flags_in FIRST LAST CHAR: how many pages in [FIRST, LAST) carry CHAR
flags_in() {
	awk -v a="$1" -v b="$2" -v c="$3" '$1 >= a && $1 < b && index($3, c) { n++ }
		END { print n + 0 }' "$DBG"
}
