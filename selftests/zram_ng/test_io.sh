#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# zram_ng's data path: verified block I/O (dd, fio crc32c), same-filled and
# huge pages, ext4 on top, discard freeing allocator memory, mem_limit
# failing writes cleanly, and reset/rmmod leaving no allocator pages.
# vm-timeout: 180
. "$(dirname "$0")/common.sh"

D=$ZSYS/zram_ng0
B=/dev/zram_ng0
T=/tmp/zng-io
mkdir -p $T

ktap_header
ktap_plan 22

zram_ng_reload
echo 64M > $D/disksize

# Same-filled pages: no allocation at all.
dd if=/dev/zero of=$B bs=1M count=4 conv=fsync 2>/dev/null
ktap_result "zero pages are same_pages (1024)" assert_eq 1024 "$(mm_stat zram_ng0 same_pages)"
ktap_result "same pages allocate nothing" assert_eq 0 "$(mm_stat zram_ng0 mem_used_total)"

# Incompressible pages are stored raw and counted as huge.
dd if=/dev/urandom of=$T/rnd bs=1M count=2 2>/dev/null
dd if=$T/rnd of=$B bs=1M seek=4 conv=fsync 2>/dev/null
ktap_result "random pages are huge_pages (512)" assert_eq 512 "$(mm_stat zram_ng0 huge_pages)"
ktap_result "huge_pages_since counts them too" assert_eq 512 "$(mm_stat zram_ng0 huge_pages_since)"
echo 3 > /proc/sys/vm/drop_caches
ktap_result "huge pages read back" sh -c "dd if=$B bs=1M skip=4 count=2 2>/dev/null | cmp -s - $T/rnd"

# Compressible data through the page cache, read back after dropping it.
i=0
while [ $i -lt 300 ]; do echo "zram_ng line $i: the quick brown fox $((i * 7919))"; i=$((i + 1)); done > $T/text
cat $T/text $T/text $T/text $T/text $T/rnd $T/text > $T/mixed
dd if=$T/mixed of=$B bs=4k seek=2048 conv=fsync 2>/dev/null
echo 3 > /proc/sys/vm/drop_caches
ktap_result "mixed data verified by dd" sh -c \
	"dd if=$B bs=4k skip=2048 2>/dev/null | head -c $(stat -c %s $T/mixed) | cmp -s - $T/mixed"
ktap_result "compr_data_size < orig_data_size" \
	test "$(mm_stat zram_ng0 compr_data_size)" -lt "$(mm_stat zram_ng0 orig_data_size)"

# Sub-page direct I/O: a 4 KiB block from a buffer that is 512-byte but
# not page aligned arrives as two segments, each a partial page.
ktap_result "fio crc32c, 512-byte aligned buffers (partial segments)" \
	fio --name=partial --filename=$B --rw=randwrite --bs=4k --size=8M \
		--offset=16M --direct=1 --iomem_align=512 --mem_align=512 \
		--verify=crc32c --verify_state_save=0 --buffer_compress_percentage=50 \
		--refill_buffers --output=/dev/null
ktap_result "fio crc32c randrw, 4 jobs" \
	fio --name=rw --filename=$B --rw=randwrite --bs=4k --size=12M \
		--offset=24M --offset_increment=12M --numjobs=3 --direct=1 \
		--verify=crc32c --verify_state_save=0 --buffer_compress_percentage=40 \
		--refill_buffers --output=/dev/null
ktap_result "no failed reads or writes" \
	assert_eq "0 0 0" "$(io_stat zram_ng0 1) $(io_stat zram_ng0 2) $(io_stat zram_ng0 3)"

# Discard frees allocator memory.
before=$(mm_stat zram_ng0 mem_used_total)
blkdiscard $B
ktap_result "blkdiscard frees every slot (orig_data_size 0)" assert_eq 0 "$(mm_stat zram_ng0 orig_data_size)"
ktap_result "blkdiscard frees allocator memory ($before -> 0)" \
	assert_eq 0 "$(mm_stat zram_ng0 mem_used_total)"
ktap_result "discarded blocks read as zeros" sh -c \
	"dd if=$B bs=1M count=1 2>/dev/null | cmp -s - /dev/zero -n 1048576"

# ext4 on top.
modprobe ext4 2>/dev/null
if mkfs.ext4 -q -F $B >/dev/null 2>&1 && mkdir -p /mnt/zng && mount $B /mnt/zng; then
	ktap_ok "mkfs.ext4 + mount"
	cp $T/mixed /mnt/zng/a; cp $T/text /mnt/zng/b; cp $T/rnd /mnt/zng/c
	umount /mnt/zng && echo 3 > /proc/sys/vm/drop_caches && mount $B /mnt/zng
	ktap_result "ext4 files verified after remount" sh -c \
		"cmp -s /mnt/zng/a $T/mixed && cmp -s /mnt/zng/b $T/text && cmp -s /mnt/zng/c $T/rnd"
	ktap_result "umount" umount /mnt/zng
else
	ktap_fail "mkfs.ext4 + mount"
	ktap_skip "ext4 files verified after remount" "no mount"
	ktap_skip "umount" "no mount"
fi

# mem_limit: writes beyond it fail with EIO, are counted, and lose nothing.
echo 1 > $D/reset
echo 64M > $D/disksize
dd if=$T/rnd of=$B bs=1M conv=fsync 2>/dev/null
echo 2M > $D/mem_limit
dd if=$T/rnd of=$B bs=1M seek=2 oflag=direct 2>/dev/null
ktap_result "writes beyond mem_limit fail (failed_writes > 0)" \
	test "$(io_stat zram_ng0 2)" -gt 0
ktap_result "mem_used_total stays within mem_limit" \
	test "$(mm_stat zram_ng0 mem_used_total)" -le 2097152
ktap_result "data below the limit is intact" sh -c \
	"dd if=$B bs=1M count=2 iflag=direct 2>/dev/null | cmp -s - $T/rnd"
echo 0 > $D/mem_limit
ktap_result "writes succeed again without the limit" \
	dd if=$T/rnd of=$B bs=1M seek=2 oflag=direct 2>/dev/null

# Reset and rmmod give everything back.
echo 1 > $D/reset
ktap_result "mem_used_total is 0 after reset" sh -c \
	"echo 64M > $D/disksize && test \$(awk '{ print \$3 }' $D/mm_stat) -eq 0"
dd if=$T/mixed of=$B bs=4k conv=fsync 2>/dev/null
rmmod zram_ng
ktap_result "after rmmod, zsmalloc_ng has no pool left" sh -c \
	"! ls /sys/kernel/debug/zsmalloc_ng/ 2>/dev/null | grep -q zram_ng"
modprobe zram_ng

ktap_finish
