# SPDX-License-Identifier: GPL-2.0
#
# Helpers shared by the zram_ng selftests (sourced, busybox sh).
. "$(dirname "$0")/../lib.sh"

ZSYS=/sys/block
ZCTL=/sys/class/zram_ng-control

# zng_fresh [MODPARAMS...]: zram_ng loaded anew, with a clean slate
zng_fresh() {
	swapoff -a 2>/dev/null
	rmmod zram_ng 2>/dev/null
	modprobe zram_ng "$@"
}

# mm_field DEV N: column N (1-based) of DEV's mm_stat
mm_field() {
	awk -v n="$2" '{ print $n }' "$ZSYS/$1/mm_stat"
}

io_field() {
	awk -v n="$2" '{ print $n }' "$ZSYS/$1/io_stat"
}

# The mm_stat columns, by name.
ORIG=1 COMPR=2 MEM_USED=3 MEM_LIMIT=4 MEM_MAX=5 SAME=6 COMPACTED=7 HUGE=8 HUGE_SINCE=9 MOVED=10

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
