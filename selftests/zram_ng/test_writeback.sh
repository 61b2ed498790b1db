#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Writeback to a backing device and idle tracking (6.1's
# CONFIG_ZRAM_WRITEBACK and CONFIG_ZRAM_MEMORY_TRACKING ABI): a brd ramdisk
# as the backing device; fio data (crc32c-tagged, one tag per page) written
# back in a huge pass and an idle pass, then read back from the ramdisk and
# verified; page_index=N; idle by age; writeback_limit; discard and
# overwrite freeing blocks; the ramdisk released on reset. Then a backing
# device that fails: a device-mapper linear target over the ramdisk whose
# table is swapped for the "error" target (write errors leave the pages in
# memory, reads of written-back pages fail with EIO and nothing else), and
# is force-removed while claimed. Last, a bad-input table run on zram_ng
# and on the stock zram with the same expected errno.
# vm-timeout: 300
. "$(dirname "$0")/common.sh"

D=$ZSYS/zram_ng0
B=/dev/zram_ng0
DBG=/sys/kernel/debug/zram_ng/zram_ng0/block_state
export DM_DISABLE_UDEV=1

# bd DEV COLUMN: a bd_stat column (1 bd_count, 2 bd_reads, 3 bd_writes)
bd() {
	awk -v n="$2" '{ print $n }' "$ZSYS/$1/bd_stat"
}

# flagged FILE CHAR: how many block_state lines carry flag CHAR
flagged() {
	awk -v c="$2" 'index($3, c) { n++ } END { print n + 0 }' "$1"
}

# page_write INDEX FILE: FILE (one page) into page INDEX of $B, and back
page_write() {
	dd if="$2" of=$B bs=4096 seek="$1" count=1 conv=fsync 2>/dev/null &&
		blockdev --flushbufs $B
}

page_matches() {	# page_matches INDEX FILE
	blockdev --flushbufs $B &&
		dd if=$B bs=4096 skip="$1" count=1 2>/dev/null | cmp -s - "$2"
}

# read_fails DEV: reading DEV's first page fails with EIO (page cache
# dropped first)
read_fails() {
	blockdev --flushbufs "$1" 2>/dev/null
	expect_errno EIO dd if="$1" of=/dev/null bs=4096 count=1
}

write_ok() {	# write_ok VALUE FILE
	{ echo "$1" >"$2"; } 2>/dev/null
}

# wb_changes MODE FIELD DELTA: writeback MODE succeeds and bd_stat column
# FIELD changes by DELTA
wb_changes() {
	_before=$(bd zram_ng0 "$2")
	write_ok "$1" $D/writeback || { echo "# writeback $1 failed"; return 1; }
	assert_eq $((_before + $3)) "$(bd zram_ng0 "$2")" "writeback $1"
}

# idle_in FIRST LAST: how many pages in [FIRST, LAST) are idle
idle_in() {
	awk -v a="$1" -v b="$2" '$1 >= a && $1 < b && index($3, "i") { n++ }
		END { print n + 0 }' $DBG
}

# bad_input SYSDIR NODE NEGINDEX: the table, on a fresh device without
# backing device; the device is initialised (16M) on the way and reset at
# the end. NEGINDEX: the errno of page_index=-1 without backing device
# (6.1's zram parses it as a huge index, so ENODEV; 6.12's zram and
# zram_ng, which checks the words before the device, EINVAL)
bad_input() {
	_s=$1 _n=$2 _t=${1##*/} _neg=$3
	ktap_result "$_t: backing_dev reads none" assert_eq none "$(cat "$_s/backing_dev")"
	while read -r errno value attr; do
		[ "$value" = '""' ] && value=
		ktap_result "$_t: '$value' > $attr before disksize: $errno" \
			write_expect_errno "$errno" "$value" "$_s/$attr"
	done <<-EOF
	ENOENT /nonexistent backing_dev
	EISDIR "" backing_dev
	EISDIR /tmp backing_dev
	ENOTBLK /dev/null backing_dev
	ENOTBLK /tmp/wb-regular-file backing_dev
	EINVAL $_n backing_dev
	EINVAL idle writeback
	EINVAL page_index=0 writeback
	EINVAL all idle
	EINVAL 10 idle
	EINVAL abc writeback_limit
	EINVAL -1 writeback_limit
	EINVAL 0x10 writeback_limit
	EINVAL 18446744073709551616 writeback_limit
	EINVAL abc writeback_limit_enable
	EINVAL 18446744073709551616 writeback_limit_enable
	EOF
	echo 16M >"$_s/disksize"
	while read -r errno value attr; do
		[ "$value" = '""' ] && value=
		ktap_result "$_t: '$value' > $attr after disksize: $errno" \
			write_expect_errno "$errno" "$value" "$_s/$attr"
	done <<-EOF
	EBUSY /dev/ram0 backing_dev
	EBUSY /nonexistent backing_dev
	ENODEV idle writeback
	ENODEV huge_idle writeback
	ENODEV page_index=0 writeback
	$_neg page_index=-1 writeback
	EINVAL idle_huge writeback
	EINVAL page_index= writeback
	EINVAL page_index=abc writeback
	EINVAL page_index=18446744073709551616 writeback
	EINVAL "" writeback
	EINVAL garbage idle
	EINVAL -1 idle
	EINVAL 1x idle
	EINVAL "" idle
	EOF
	ktap_result "$_t: writeback_limit 18446744073709551615 accepted" \
		sh -c "echo 18446744073709551615 > $_s/writeback_limit"
	ktap_result "$_t: ... and reads back" \
		assert_eq 18446744073709551615 "$(cat "$_s/writeback_limit")"
	ktap_result "$_t: writeback_limit_enable 7 reads back as 1" \
		sh -c "echo 7 > $_s/writeback_limit_enable && test \$(cat $_s/writeback_limit_enable) = 1"
	echo 0 >"$_s/writeback_limit_enable"
	echo 0 >"$_s/writeback_limit"
	echo 1 >"$_s/reset"
}

ktap_header
ktap_plan 155

zram_ng_reload
rmmod brd 2>/dev/null
modprobe brd rd_nr=1 rd_size=65536 || { ktap_print "no brd"; exit 1; }
: >/tmp/wb-regular-file

# --- normal flows ---
ktap_result "backing_dev reads none" assert_eq none "$(cat $D/backing_dev)"
ktap_result "backing_dev /dev/ram0" sh -c "echo /dev/ram0 > $D/backing_dev"
ktap_result "backing_dev reads /dev/ram0" assert_eq /dev/ram0 "$(cat $D/backing_dev)"
echo 1 >$D/reset
ktap_result "reset before disksize releases it" assert_eq none "$(cat $D/backing_dev)"
echo /dev/ram0 >$D/backing_dev
id=$(cat $ZCTL/hot_add)
ktap_result "claimed exclusively: zram_ng$id cannot take it (EBUSY)" \
	write_expect_errno EBUSY /dev/ram0 $ZSYS/zram_ng$id/backing_dev
ktap_result "rmmod brd refused while claimed" sh -c '! rmmod brd 2>/dev/null'
echo 64M >$D/disksize
ktap_result "backing_dev after disksize: EBUSY" write_expect_errno EBUSY /dev/ram0 $D/backing_dev
ktap_result "bd_stat is three zeros" assert_eq "0 0 0" "$(cat $D/bd_stat | xargs)"

# 24 MiB of 2:1 data at 0, 4 MiB of incompressible data at 24M
ktap_result "fio writes 24M compressible" fio_tagged write 0 24M 50
ktap_result "fio writes 4M incompressible" fio_tagged write 24M 4M 0
mm_stat_read zram_ng0 A_
huge=$A_huge_pages
ktap_result "1024 huge pages ($huge)" test "$huge" -ge 1000
ktap_result "block_state lists the huge pages" assert_eq "$huge" "$(flagged $DBG h)"
ktap_result "writeback huge" write_ok huge $D/writeback
ktap_result "bd_count and bd_writes are the huge pages" \
	assert_eq "$huge $huge" "$(bd zram_ng0 1) $(bd zram_ng0 3)"
ktap_result "huge_pages is 0, block_state shows $huge w" \
	assert_eq "0 $huge" "$(mm_stat zram_ng0 huge_pages) $(flagged $DBG w)"
ktap_result "orig_data_size unchanged" assert_eq "$A_orig_data_size" "$(mm_stat zram_ng0 orig_data_size)"
ktap_result "fio verifies the huge pages (read from the ramdisk)" fio_tagged verify 24M 4M 0
ktap_result "bd_reads counts them" assert_eq "$huge" "$(bd zram_ng0 2)"

ktap_result "idle all" write_ok all $D/idle
ktap_result "every page with data is idle" \
	assert_eq "$(wc -l <$DBG)" "$(flagged $DBG i)"
ktap_result "writeback idle" write_ok idle $D/writeback
mm_stat_read zram_ng0 C_
ktap_result "every page is on the ramdisk (bd_count $(bd zram_ng0 1))" \
	assert_eq "$(($(wc -l <$DBG) - C_same_pages))" "$(bd zram_ng0 1)"
ktap_result "compr_data_size is 0" assert_eq 0 "$C_compr_data_size"
ktap_result "mem_used_total dropped ($A_mem_used_total -> $C_mem_used_total)" \
	test "$((C_mem_used_total * 32))" -le "$A_mem_used_total"
ktap_result "orig_data_size unchanged after idle writeback" \
	assert_eq "$A_orig_data_size" "$C_orig_data_size"
ktap_result "fio verifies all 28M from the ramdisk" fio_tagged verify 0 28M 50
ktap_result "no failed reads" assert_eq 0 "$(io_stat zram_ng0 1)"
ktap_result "writeback idle again writes nothing" wb_changes idle 3 0

# page_index=N on a page in memory
head -c 4096 /dev/urandom >/tmp/wb-page
page_write 7200 /tmp/wb-page
ktap_result "page_index=7200: bd_count +1" wb_changes page_index=7200 1 1
ktap_result "... block_state shows it w" \
	sh -c "awk '\$1 == 7200 { print \$3 }' $DBG | grep -q w"
ktap_result "... and it reads back byte for byte" page_matches 7200 /tmp/wb-page
ktap_result "page_index past the disk: ERANGE (as the newest upstream)" \
	write_expect_errno ERANGE page_index=16384 $D/writeback
blkdiscard -o $((9000 * 4096)) -l 4096 $B
ktap_result "page_index of an empty page succeeds, writes nothing" \
	wb_changes page_index=9000 1 0

# discard and overwrite free blocks
before=$(bd zram_ng0 1)
ktap_result "discard 4M" blkdiscard -o 0 -l 4194304 $B
ktap_result "... frees 1024 blocks" assert_eq $((before - 1024)) "$(bd zram_ng0 1)"
before=$(bd zram_ng0 1)
ktap_result "overwrite 4M at 4M" fio_tagged write 4M 4M 50
ktap_result "... frees 1024 more" assert_eq $((before - 1024)) "$(bd zram_ng0 1)"
ktap_result "overwritten data verifies" fio_tagged verify 4M 4M 50

# idle by age: [0, 4M) written, 3 s later [8M, 12M) rewritten
fio_tagged write 0 4M 50
sleep 3
fio_tagged write 8M 4M 50
ktap_result "idle 2 (seconds)" sh -c "echo 2 > $D/idle"
ktap_result "marks the 1024 older pages ($(idle_in 0 1024) of [0, 4M))" \
	assert_eq 1024 "$(idle_in 0 1024)"
ktap_result "and not the newer ones ($(idle_in 2048 3072) of [8M, 12M))" \
	assert_eq 0 "$(idle_in 2048 3072)"
# the idle pages still in memory: those 1024, and [4M, 8M) written earlier
todo=$(awk 'index($3, "i") && !index($3, "w") { n++ } END { print n + 0 }' $DBG)
ktap_result "writeback idle wrote the $todo idle pages in memory" wb_changes idle 3 "$todo"
write_ok 3600 $D/idle
ktap_result "idle 3600 leaves the recent pages alone" assert_eq 0 "$(idle_in 2048 3072)"
write_ok 0x0 $D/idle
ktap_result "idle 0x0 (any base, 0 s) marks everything" \
	assert_eq "$(wc -l <$DBG)" "$(flagged $DBG i)"

# writeback_limit
ktap_result "writeback_limit_enable 1" write_ok 1 $D/writeback_limit_enable
echo 0 >$D/writeback_limit
ktap_result "limit 0 stops writeback: EIO" write_expect_errno EIO idle $D/writeback
echo 10 >$D/writeback_limit
before=$(bd zram_ng0 3)
ktap_result "limit 10: writeback stops with EIO" write_expect_errno EIO idle $D/writeback
ktap_result "... after exactly 10 pages" assert_eq $((before + 10)) "$(bd zram_ng0 3)"
ktap_result "... writeback_limit reads 0" assert_eq 0 "$(cat $D/writeback_limit)"
echo 0 >$D/writeback_limit_enable
ktap_result "limit disabled: writeback idle goes through" write_ok idle $D/writeback
ktap_result "[0,4M) verifies" fio_tagged verify 0 4M 50
ktap_result "[4M,12M) verifies" fio_tagged verify 4M 8M 50
ktap_result "[24M,28M) verifies" fio_tagged verify 24M 4M 0

# reset gives the ramdisk back
ktap_result "reset" sh -c "echo 1 > $D/reset"
ktap_result "backing_dev reads none after reset" assert_eq none "$(cat $D/backing_dev)"
ktap_result "bd_stat is zero after reset" assert_eq "0 0 0" "$(cat $D/bd_stat | xargs)"
ktap_result "zram_ng$id can claim the ramdisk now" \
	sh -c "echo /dev/ram0 > $ZSYS/zram_ng$id/backing_dev"
echo 1 >$ZSYS/zram_ng$id/reset
echo $id >$ZCTL/hot_remove
ktap_result "rmmod brd after reset" rmmod brd

# --- swap: swapped-out pages written back, swapped in from the ramdisk
# (6.1: through ->rw_page; 6.12: through bios) ---
CG=/sys/fs/cgroup/zng-wb
MNT=/mnt/zng-wb
fio_swap() {	# fio_swap write|verify: 32 MiB into a tmpfs, in the cgroup
	set -- --name=swapwb --directory=$MNT --nrfiles=2 --size=32M --bs=64k \
		--rw=write --buffer_compress_percentage=50 --refill_buffers \
		--verify=crc32c --verify_state_save=0 --output=/dev/null
	[ "$1" = verify ] && set -- "$@" --verify_only
	sh -c 'echo $$ > "$0/cgroup.procs" && exec fio "$@"' $CG "$@"
}
modprobe brd rd_nr=1 rd_size=65536
echo /dev/ram0 >$D/backing_dev
echo 64M >$D/disksize
mkswap $B >/dev/null && swapon $B
mkdir -p $CG $MNT
echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
echo 12M >$CG/memory.max
mount -t tmpfs -o size=64M tmpfs $MNT
ktap_result "swap: 32M into a tmpfs under memory.max=12M" fio_swap write
write_ok all $D/idle
ktap_result "swap: writeback idle" write_ok idle $D/writeback
ktap_result "swap: pages went to the ramdisk (bd_count $(bd zram_ng0 1))" \
	test "$(bd zram_ng0 1)" -gt 1024
ktap_result "swap: data verified after swap-in from the ramdisk" fio_swap verify
ktap_result "swap: read from the ramdisk (bd_reads $(bd zram_ng0 2))" \
	test "$(bd zram_ng0 2)" -gt 0
ktap_result "swap: no failed reads" assert_eq 0 "$(io_stat zram_ng0 1)"
echo max >$CG/memory.max
ktap_result "swap: swapoff" swapoff $B
ktap_result "swap: data verified after swapoff" fio_swap verify
umount $MNT
rmdir $CG
echo 1 >$D/reset
rmmod brd

# --- a failing backing device: dm linear over the ramdisk, then error ---
modprobe brd rd_nr=1 rd_size=65536
if modprobe dm_mod 2>/dev/null && command -v dmsetup >/dev/null &&
	dmsetup create zwb --table "0 131072 linear /dev/ram0 0" 2>/dev/null; then
	DM=/dev/mapper/zwb
	[ -b $DM ] || DM=/dev/$(ls /sys/block | grep '^dm-' | head -1)
	ktap_print "dm device $DM"
	ktap_result "backing_dev $DM" sh -c "echo $DM > $D/backing_dev"
	echo 32M >$D/disksize
	fio_tagged write 0 4M 50
	echo all >$D/idle
	echo idle >$D/writeback
	ktap_result "4M written back" assert_eq 1024 "$(bd zram_ng0 1)"
	fio_tagged write 4M 4M 50
	dmsetup suspend zwb && dmsetup load zwb --table "0 131072 error" &&
		dmsetup resume zwb
	ktap_result "the backing device now fails (error target)" read_fails $DM
	mm_stat_read zram_ng0 E_
	echo all >$D/idle
	ktap_result "writeback idle fails: EIO" write_expect_errno EIO idle $D/writeback
	ktap_result "... bd_count unchanged, nothing left memory" \
		assert_eq "1024 $E_compr_data_size" "$(bd zram_ng0 1) $(mm_stat zram_ng0 compr_data_size)"
	ktap_result "... the pages in memory verify" fio_tagged verify 4M 4M 50
	ktap_result "reading a written-back page: EIO" read_fails $B
	ktap_result "... counted in failed_reads" test "$(io_stat zram_ng0 1)" -ge 1
	ktap_result "... and only that read failed: pages in memory still read" \
		fio_tagged verify 4M 4M 50
	ktap_result "overwriting the written-back pages works" fio_tagged write 0 4M 50
	ktap_result "... frees their blocks (bd_count 0)" assert_eq 0 "$(bd zram_ng0 1)"
	ktap_result "... and they verify" fio_tagged verify 0 4M 50
	# a backing device that goes away while claimed
	echo 1 >$D/reset
	dmsetup remove zwb 2>/dev/null
	dmsetup create zwb --table "0 131072 linear /dev/ram0 0"
	echo $DM >$D/backing_dev
	echo 32M >$D/disksize
	fio_tagged write 0 4M 50
	echo all >$D/idle
	echo idle >$D/writeback
	ktap_result "dmsetup remove --force while claimed" \
		sh -c "dmsetup remove --force zwb >/dev/null 2>&1; ! dmsetup status zwb 2>/dev/null | grep -q linear"
	ktap_result "reading a written-back page of the dead device: EIO" read_fails $B
	fio_tagged write 4M 4M 50
	echo all >$D/idle
	ktap_result "writeback to the dead device: EIO" write_expect_errno EIO idle $D/writeback
	ktap_result "... its pages stay in memory and verify" fio_tagged verify 4M 4M 50
	ktap_result "reset releases the dead device" sh -c "echo 1 > $D/reset"
	dmsetup remove zwb 2>/dev/null
	ktap_result "the dm device is gone" sh -c "! dmsetup info zwb >/dev/null 2>&1"
	ktap_result "rmmod brd" rmmod brd
else
	for t in $(seq 19); do ktap_skip "failing backing device" "no dm_mod or dmsetup"; done
	rmmod brd
fi

# --- bad input, zram_ng and stock zram ---
modprobe brd rd_nr=1 rd_size=65536
bad_input $D /dev/zram_ng0 EINVAL
if modprobe zram num_devices=1 2>/dev/null && [ -e $ZSYS/zram0/backing_dev ]; then
	case $(uname -r) in
	6.1.*) neg=ENODEV ;;
	*) neg=EINVAL ;;
	esac
	bad_input $ZSYS/zram0 /dev/zram0 $neg
	rmmod zram
else
	for t in $(seq 35); do ktap_skip "stock zram" "no stock zram with writeback"; done
fi
rmmod brd
rm -f /tmp/wb-regular-file /tmp/wb-page

ktap_finish
