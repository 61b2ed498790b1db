#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Grouped recompression (group_recompress, group_stat; zram_ng/group.c and
# grouping.c): idle pages of one leaf compressed together as one stream.
# Pages whose contents repeat across pages (a 16 KiB block of random
# numbers as text, written over and over: 1.4:1 with lz4 in a page, far
# more together)
# are grouped by the default zstd, read back byte for byte (sequentially
# through the CPU's group cache, and at random), and mem_used_total falls.
# Then: what is not taken (pages not idle, huge, same-filled, written
# back, already grouped), pages=, max_pages=, a secondary algorithm by
# algo= and priority=, overwriting, discarding and freeing members (dead
# pages, and a second pass that regroups the groups a quarter dead), a pass
# racing rewrites, writeback taking groups whole (their streams in blocks
# in a row, read back from there), recompression leaving members alone,
# the pass compacting the holes its frees left, swap on grouped pages,
# reset and rmmod with groups alive, and a bad-input table.
# vm-timeout: 300
# shellcheck disable=SC2154 # mm_stat_read sets A_* and B_*
. "$(dirname "$0")/common.sh"

D=$ZSYS/zram_ng0
B=/dev/zram_ng0
DBG=/sys/kernel/debug/zram_ng/zram_ng0/block_state
P=4096

# rep_file FILE MIB: MIB MiB made of one 16 KiB block of random numbers
# below 64 as text (lz4 about 2.9 KiB a page, zstd 1.4 KiB; 16 pages
# together about 5.3 KiB with zstd: the block repeats every 4 pages)
rep_file() {
	head -c 4096 /dev/urandom | od -An -v -tu1 |
		awk '{ for (i = 1; i <= NF; i++) printf "%4d", $i % 64; print "" }' |
		head -c 16384 >"$1.blk"
	: >"$1"
	_i=0
	while [ $_i -lt $(($2 * 64)) ]; do
		cat "$1.blk"
		_i=$((_i + 1))
	done >"$1"
	rm -f "$1.blk"
}

# random_reads_match FIRSTPAGE FILE N: N single pages at random read back right
random_reads_match() {
	_n=$(($(wc -c <"$2") / P))
	_i=0
	while [ $_i -lt "$3" ]; do
		_p=$(($(od -An -N4 -tu4 /dev/urandom) % _n))
		dd if=$B bs=$P skip=$(($1 + _p)) count=1 iflag=direct 2>/dev/null >/tmp/gr-one
		dd if="$2" bs=$P skip=$_p count=1 2>/dev/null | cmp -s - /tmp/gr-one ||
			{ echo "# page $(($1 + _p)) differs"; return 1; }
		_i=$((_i + 1))
	done
}

group() {	# group ARGS: group_recompress ARGS succeeds
	{ echo "$1" >$D/group_recompress; } 2>/dev/null ||
		{ echo "# group_recompress '$1' failed"; return 1; }
}

gstat() {
	group_stat zram_ng0 "$1"
}

# The group counters agree with each other and with block_state: every g
# page is a grouped page, and the dead and live shares add up to the bytes.
consistent() {
	_g=$(gstat grouped_pages)
	[ "$_g" = "$(flags_in 0 999999 g)" ] ||
		{ echo "# grouped_pages $_g, block_state g $(flags_in 0 999999 g)"; return 1; }
	if [ "$(gstat groups)" = 0 ]; then
		assert_eq "0 0 0 0 0" "$_g $(gstat group_bytes) $(gstat dead_pages) $(gstat dead_bytes) $(gstat meta_bytes)" \
			"no group, nothing counted"
	fi
}

ktap_header
ktap_plan 124

for m in lz4 lz4hc zstd; do modprobe $m 2>/dev/null; done
zram_ng_reload
rmmod brd 2>/dev/null
modprobe brd rd_nr=1 rd_size=65536 || { ktap_print "no brd"; exit 1; }

# --- before disksize ---
ktap_result "group_recompress before disksize: EINVAL" \
	write_expect_errno EINVAL type=idle $D/group_recompress
echo lz4 >$D/comp_algorithm
echo /dev/ram0 >$D/backing_dev
echo 64M >$D/disksize
ktap_result "group_stat is all zeros" \
	assert_eq "0 0 0 0 0 0 0 0 0 0" "$(xargs <$D/group_stat)"

# --- the data: pages 0-2047 repeating hex, 2048-2303 random hex, 2304-2559
# zeros (same-filled), 2560-2815 random bytes (huge) ---
rep_file /tmp/gr-rep 8
hex_file /tmp/gr-hex 1
head -c 1048576 /dev/zero >/tmp/gr-zero
head -c 1048576 /dev/urandom >/tmp/gr-rand
file_at 0 /tmp/gr-rep
file_at 2048 /tmp/gr-hex
file_at 2304 /tmp/gr-zero
file_at 2560 /tmp/gr-rand

# --- nothing idle: nothing taken ---
ktap_result "type=idle with no page idle" group "type=idle"
ktap_result "... makes no group" assert_eq 0 "$(gstat groups)"

# --- the first pass: zstd (no secondary algorithm set) ---
echo all >$D/idle
mm_stat_read zram_ng0 B_
ktap_result "idle all; group_recompress (type=idle, 16 pages, zstd)" group "type=idle"
mm_stat_read zram_ng0 A_
groups=$(gstat groups)
ktap_print "groups $groups, grouped_pages $(gstat grouped_pages), group_bytes $(gstat group_bytes), meta_bytes $(gstat meta_bytes)"
ktap_print "compr_data_size $B_compr_data_size -> $A_compr_data_size, mem_used_total $B_mem_used_total -> $A_mem_used_total"
ktap_result "every repeating page is grouped" assert_eq 2048 "$(flags_in 0 2048 g)"
ktap_result "... in groups of 16 (128 of them for those pages)" test "$groups" -ge 128
ktap_result "... and no huge, same-filled page is" \
	assert_eq "0 0" "$(flags_in 2304 2560 g) $(flags_in 2560 2816 g)"
ktap_result "grouped pages stay idle" assert_eq "$(flags_in 0 2048 g)" \
	"$(awk '$1 < 2048 && index($3, "g") && index($3, "i")' $DBG | wc -l)"
ktap_result "counters consistent with block_state" consistent
ktap_result "no dead page yet" assert_eq "0 0" "$(gstat dead_pages) $(gstat dead_bytes)"
ktap_result "compr_data_size fell to below half (the huge pages stay)" \
	test $((A_compr_data_size * 2)) -lt "$B_compr_data_size"
ktap_result "mem_used_total fell" test "$A_mem_used_total" -lt "$B_mem_used_total"
ktap_result "orig_data_size unchanged" assert_eq "$B_orig_data_size" "$A_orig_data_size"
d0=$(gstat decompressions) h0=$(gstat cache_hits)
ktap_result "the repeating pages read back (sequential, 4 KiB reads)" file_matches 0 /tmp/gr-rep
d1=$(gstat decompressions) h1=$(gstat cache_hits)
ktap_print "decompressions $d0 -> $d1, cache hits $h0 -> $h1"
ktap_result "... one decompression a group or close (cache)" \
	test $((d1 - d0)) -le $((groups * 2))
ktap_result "... the other reads from the CPU's cache" test $((h1 - h0)) -ge $((2048 - groups * 2))
ktap_result "200 random 4 KiB reads read back right" random_reads_match 0 /tmp/gr-rep 200
ktap_result "the random hex pages read back" file_matches 2048 /tmp/gr-hex
ktap_result "... zeros" file_matches 2304 /tmp/gr-zero
ktap_result "... random bytes" file_matches 2560 /tmp/gr-rand
ktap_result "no failed reads" assert_eq 0 "$(io_stat zram_ng0 failed_reads)"

# --- a second pass takes nothing: members are not taken again ---
echo all >$D/idle
g1=$(gstat groups) b1=$(gstat group_bytes)
ktap_result "second pass" group "type=idle"
ktap_result "... leaves the groups as they were" \
	assert_eq "$g1 $b1" "$(gstat groups) $(gstat group_bytes)"

# --- huge pages written back: groups are left for the section below ---
ktap_result "writeback huge writes back no member" \
	sh -c "echo huge > $D/writeback; test \$(awk '\$1 < 2048 && index(\$3, \"w\")' $DBG | wc -l) = 0"
ktap_result "... the members still read back" file_matches 0 /tmp/gr-rep
ktap_result "... and the written-back pages too" file_matches 2560 /tmp/gr-rand

# --- overwriting and discarding members: dead pages ---
rep_file /tmp/gr-rep2 1
file_at 0 /tmp/gr-rep2			# pages 0-255 rewritten: 16 groups all dead
dead=$(gstat dead_pages)
ktap_result "overwriting 256 members frees their 16 groups (no dead page left)" \
	assert_eq "0 $((2048 - 256))" "$dead $(gstat grouped_pages)"
# every other page of 256-511: half of each group dead
i=256
while [ $i -lt 512 ]; do
	dd if=/tmp/gr-rep2 of=$B bs=$P seek=$i skip=$((i - 256)) count=1 oflag=direct conv=fsync 2>/dev/null
	i=$((i + 2))
done
ktap_result "overwriting every other page of 16 groups: 128 dead pages" \
	assert_eq 128 "$(gstat dead_pages)"
ktap_result "... dead_bytes counted" test "$(gstat dead_bytes)" -gt 0
ktap_result "... counters consistent" consistent
# (overwritten, not discarded: 8 live members alone would compress no
# better than their whole group, 4 distinct pages, and stay as they are)
dd if=/tmp/gr-rep2 of=$B bs=$P seek=512 count=8 oflag=direct conv=fsync 2>/dev/null
ktap_result "overwriting 8 members of one group: 8 more dead" assert_eq 136 "$(gstat dead_pages)"
blkdiscard -o $((528 * P)) -l $((3 * P)) $B
ktap_result "discarding 3 members of the next group: 3 more dead" assert_eq 139 "$(gstat dead_pages)"
# the expected contents now
cp /tmp/gr-rep /tmp/gr-want
dd if=/tmp/gr-rep2 of=/tmp/gr-want bs=$P conv=notrunc 2>/dev/null
i=256
while [ $i -lt 512 ]; do
	dd if=/tmp/gr-rep2 of=/tmp/gr-want bs=$P seek=$i skip=$((i - 256)) count=1 conv=notrunc 2>/dev/null
	i=$((i + 2))
done
dd if=/tmp/gr-rep2 of=/tmp/gr-want bs=$P seek=512 count=8 conv=notrunc 2>/dev/null
dd if=/dev/zero of=/tmp/gr-want bs=$P seek=528 count=3 conv=notrunc 2>/dev/null
ktap_result "every page reads what was last written" file_matches 0 /tmp/gr-want
# the groups' chunks are objects of the pool: compaction and page
# migration move them under the readers
m0=$(mm_stat zram_ng0 objs_moved)
echo 1 >$D/compact
echo 1 >/proc/sys/vm/compact_memory
ktap_print "objs_moved $m0 -> $(mm_stat zram_ng0 objs_moved), pages_compacted $(mm_stat zram_ng0 pages_compacted)"
ktap_result "after compact and compact_memory every page still reads right" \
	file_matches 0 /tmp/gr-want

# --- the next pass regroups the groups a quarter dead or more ---
echo all >$D/idle
ktap_result "a pass after idle all" group "type=idle"
ktap_result "... takes apart the groups a quarter dead or more (3 dead pages left)" \
	assert_eq 3 "$(gstat dead_pages)"
ktap_result "... and groups what was rewritten" test "$(flags_in 0 512 g)" -ge 500
ktap_result "... counters consistent" consistent
ktap_result "... every page reads what was last written" file_matches 0 /tmp/gr-want
ktap_result "no failed reads" assert_eq 0 "$(io_stat zram_ng0 failed_reads)"

# --- discarding everything frees every group ---
blkdiscard $B
ktap_result "discarding the device frees every group" \
	assert_eq "0 0 0 0 0 0" "$(gstat groups) $(gstat grouped_pages) $(gstat group_bytes) $(gstat dead_pages) $(gstat dead_bytes) $(gstat meta_bytes)"
ktap_result "... and compr_data_size is 0" assert_eq 0 "$(mm_stat zram_ng0 compr_data_size)"

# --- pages=, max_pages=, type=all ---
file_at 0 /tmp/gr-rep
ktap_result "type=all pages=4" group "type=all pages=4"
ktap_result "... groups of 4 (512 of them)" assert_eq "512 2048" "$(gstat groups) $(gstat grouped_pages)"
ktap_result "... not idle: they were not" assert_eq 0 "$(flags_in 0 2048 i)"
ktap_result "... read back" file_matches 0 /tmp/gr-rep
blkdiscard $B
file_at 0 /tmp/gr-rep
ktap_result "type=all max_pages=100" group "type=all max_pages=100"
ktap_result "... grouped at most 100 pages ($(gstat grouped_pages))" \
	test "$(gstat grouped_pages)" -le 100 -a "$(gstat grouped_pages)" -ge 96
ktap_result "... read back" file_matches 0 /tmp/gr-rep

# --- a pass racing rewrites: each page is what was written last ---
blkdiscard $B
file_at 0 /tmp/gr-rep
echo all >$D/idle
dd if=/tmp/gr-rep2 of=$B bs=$P seek=1024 oflag=direct conv=fsync 2>/dev/null &
w=$!
ktap_result "a pass while pages 1024-1279 are rewritten" group "type=idle"
wait $w
cp /tmp/gr-rep /tmp/gr-want
dd if=/tmp/gr-rep2 of=/tmp/gr-want bs=$P seek=1024 conv=notrunc 2>/dev/null
ktap_result "... every page reads what was written last" file_matches 0 /tmp/gr-want
ktap_result "... no rewritten page is a member" assert_eq 0 "$(flags_in 1024 1280 g)"
ktap_result "... counters consistent" consistent
ktap_result "... no page under a pass left marked: a second pass works" group "type=all"
ktap_result "... and every page still reads right" file_matches 0 /tmp/gr-want
ktap_result "reset with groups alive" sh -c "echo 1 > $D/reset"
ktap_result "... group_stat all zeros again" \
	assert_eq "0 0 0 0 0 0 0 0 0 0" "$(xargs <$D/group_stat)"
# a pass and a reset at once: one waits for the other (init_lock); the
# pass either ran whole or found the device reset (EINVAL)
echo 64M >$D/disksize
file_at 0 /tmp/gr-rep
{ echo "type=all" >$D/group_recompress; } 2>/tmp/gr-race.err &
p=$!
echo 1 >$D/reset
wait $p
ktap_result "a pass racing reset: done or EINVAL, nothing else" \
	sh -c "! [ -s /tmp/gr-race.err ] || grep -q 'Invalid argument' /tmp/gr-race.err"
ktap_result "... and the device is reset: group_stat all zeros" \
	assert_eq "0 0 0 0 0 0 0 0 0 0" "$(xargs <$D/group_stat)"

# --- a secondary algorithm: algo= and priority= ---
echo "algo=lz4hc priority=1" >$D/recomp_algorithm
echo "algo=zstd priority=2" >$D/recomp_algorithm
echo 64M >$D/disksize
file_at 0 /tmp/gr-rep
ktap_result "priority=1 (lz4hc)" group "type=all priority=1"
lz=$(gstat group_bytes)
ktap_result "... grouped and read back" file_matches 0 /tmp/gr-rep
blkdiscard $B
file_at 0 /tmp/gr-rep
ktap_result "algo=zstd" group "type=all algo=zstd"
zs=$(gstat group_bytes)
ktap_print "group_bytes: lz4hc $lz, zstd $zs"
ktap_result "... grouped and read back" file_matches 0 /tmp/gr-rep
ktap_result "... zstd's stream smaller than lz4hc's" test "$zs" -lt "$lz"
blkdiscard $B
file_at 0 /tmp/gr-rep
ktap_result "no algo: the first secondary (lz4hc)" group "type=all"
ktap_result "... the same bytes as priority=1" assert_eq "$lz" "$(gstat group_bytes)"
ktap_result "recompress leaves members alone" \
	sh -c "echo type=idle > $D/recompress 2>/dev/null; echo all > $D/idle; echo 'algo=zstd' > $D/recompress; test \$(awk 'index(\$3, \"g\") && index(\$3, \"r\")' $DBG | wc -l) = 0"
ktap_result "... and they read back" file_matches 0 /tmp/gr-rep

# --- writeback takes a group whole: its stream in blocks in a row ---
echo 1 >$D/reset
echo /dev/ram0 >$D/backing_dev
echo 64M >$D/disksize
file_at 0 /tmp/gr-rep
echo all >$D/idle
group "type=idle" >/dev/null
g=$(gstat groups)
w0=$(bd_stat zram_ng0 bd_writes)
ktap_result "writeback page_index=5 (a grouped page)" sh -c "echo page_index=5 > $D/writeback"
w1=$(bd_stat zram_ng0 bd_writes)
ktap_result "... wrote its group whole, 16 pages in $((w1 - w0)) blocks" \
	test $((w1 - w0)) -ge 1 -a $((w1 - w0)) -lt 16
ktap_result "... pages 0-15 are w and g" assert_eq "16 16" "$(flags_in 0 16 w) $(flags_in 0 16 g)"
ktap_result "... wb_groups 1, wb_grouped_pages 16" \
	assert_eq "1 16" "$(gstat wb_groups) $(gstat wb_grouped_pages)"
ktap_result "... one group fewer in memory" assert_eq $((g - 1)) "$(gstat groups)"
head -c 65536 /tmp/gr-rep >/tmp/gr-16
ktap_result "... its pages read back (from the backing device)" file_matches 0 /tmp/gr-16
echo all >$D/idle
ktap_result "writeback idle" sh -c "echo idle > $D/writeback"
w2=$(bd_stat zram_ng0 bd_writes)
ktap_result "... every page went (w)" assert_eq 2048 "$(flags_in 0 2048 w)"
ktap_result "... in far fewer blocks than pages ($((w2 - w0)) for 2048)" test $((w2 - w0)) -lt 1024
ktap_result "... no group left in memory, $(gstat wb_groups) on the backing device" \
	assert_eq "0 2048" "$(gstat groups) $(gstat wb_grouped_pages)"
ktap_result "... bd_count is the blocks written" assert_eq $((w2 - w0)) "$(bd_stat zram_ng0 bd_count)"
ktap_result "... every page reads back" file_matches 0 /tmp/gr-rep
ktap_result "... and 100 random reads" random_reads_match 0 /tmp/gr-rep 100
c0=$(bd_stat zram_ng0 bd_count) wg=$(gstat wb_groups)
dd if=/tmp/gr-rep2 of=$B bs=$P seek=16 count=16 oflag=direct conv=fsync 2>/dev/null
ktap_result "overwriting a written-back group's 16 pages frees its blocks" \
	test "$(bd_stat zram_ng0 bd_count)" -lt "$c0"
ktap_result "... and the group" assert_eq $((wg - 1)) "$(gstat wb_groups)"
dd if=/tmp/gr-rep2 of=$B bs=$P seek=32 count=8 oflag=direct conv=fsync 2>/dev/null
c1=$(bd_stat zram_ng0 bd_count)
ktap_result "overwriting 8 pages of the next keeps its blocks" assert_eq "$c1" "$(bd_stat zram_ng0 bd_count)"
cp /tmp/gr-rep /tmp/gr-want
dd if=/tmp/gr-rep2 of=/tmp/gr-want bs=$P seek=16 count=16 conv=notrunc 2>/dev/null
dd if=/tmp/gr-rep2 of=/tmp/gr-want bs=$P seek=32 count=8 conv=notrunc 2>/dev/null
ktap_result "... every page reads what was written last" file_matches 0 /tmp/gr-want
blkdiscard $B
ktap_result "discarding everything frees every block and group" \
	assert_eq "0 0 0" "$(bd_stat zram_ng0 bd_count) $(gstat wb_groups) $(gstat wb_grouped_pages)"
file_at 0 /tmp/gr-rep
echo all >$D/idle
group "type=idle" >/dev/null
# a group of these pages is about 5.3 KiB: 2 blocks
echo 1 >$D/writeback_limit
echo 1 >$D/writeback_limit_enable
w0=$(bd_stat zram_ng0 bd_writes)
ktap_result "a writeback_limit of 1 block, below a group's 2: EIO" \
	write_expect_errno EIO idle $D/writeback
ktap_result "... nothing written, the limit still 1" \
	assert_eq "$w0 1" "$(bd_stat zram_ng0 bd_writes) $(cat $D/writeback_limit)"
echo 0 >$D/writeback_limit_enable
ktap_result "... the pages read back" file_matches 0 /tmp/gr-rep
ktap_result "reset with written-back groups" sh -c "echo 1 > $D/reset"
ktap_result "no failed reads" assert_eq 0 "$(io_stat zram_ng0 failed_reads)"

# --- the pass compacts what its frees left: with every other run of 4
# pages read (not idle, so not taken), the pages it grouped leave holes in
# every zspage (runs of 4, not every other page: the data repeats every 4
# pages, and the sizes of pages 0 and 2 may fall in one class and those
# of 1 and 3 in another); auto_compact off, so that only the pass can
# have compacted; borrow_slots off, since with 6.1's shared tails the
# classes of a run hold their pages one after another in one class, where
# the runs of 4 read would leave whole zspages behind the pass and nothing
# to compact (the pool already compact: zsmalloc_ng.rst, "Borrowed
# slots") ---
echo N >/sys/module/zram_ng/parameters/auto_compact
BORROW=/sys/module/zsmalloc_ng/parameters/borrow_slots
borrow=$(cat $BORROW)
echo N >$BORROW
echo 1 >$D/reset
echo 64M >$D/disksize
echo "$borrow" >$BORROW
head -c 2097152 /tmp/gr-rep >/tmp/gr-2m
file_at 0 /tmp/gr-2m
echo all >$D/idle
i=4
while [ $i -lt 512 ]; do
	dd if=$B of=/dev/null bs=$P skip=$i count=4 iflag=direct 2>/dev/null
	i=$((i + 8))
done
c0=$(mm_stat zram_ng0 pages_compacted)
ktap_result "a pass over every other run of 4 pages (the others just read)" group "type=idle"
c1=$(mm_stat zram_ng0 pages_compacted)
ktap_result "... took only the idle ones" assert_eq "256 0" \
	"$(flags_in 0 512 g) $(awk 'int($1 / 4) % 2 && index($3, "g")' $DBG | wc -l)"
ktap_result "... and compacted the pool ($((c1 - c0)) pages)" test "$c1" -gt "$c0"
echo 1 >$D/compact
ktap_result "... a compact after it finds nothing more" \
	assert_eq "$c1" "$(mm_stat zram_ng0 pages_compacted)"
ktap_result "... every page reads back" file_matches 0 /tmp/gr-2m
echo Y >/sys/module/zram_ng/parameters/auto_compact
echo 1 >$D/reset

# --- bad input ---
echo "algo=lz4hc priority=1" >$D/recomp_algorithm
echo "algo=zstd priority=2" >$D/recomp_algorithm
echo 64M >$D/disksize
file_at 0 /tmp/gr-rep
for bad in "type=bogus" "type=" "pages=1" "pages=17" "pages=0" "pages=x" \
	"max_pages=x" "priority=0" "priority=4" "priority=3" "algo=lzo" \
	"algo=zstd priority=2" "bogus=1" "type=idle type=all" "pages"; do
	ktap_result "'$bad': EINVAL" write_expect_errno EINVAL "$bad" $D/group_recompress
done
ktap_result "group_stat is read-only" sh -c "! echo 1 > $D/group_stat 2>/dev/null"
ktap_result "the pages still read back after the bad input" file_matches 0 /tmp/gr-rep

# --- swap on grouped pages: a tmpfs under memory.max=24M swaps out, the
# swapped pages are grouped, then read back through swap-in ---
echo 1 >$D/reset
echo 128M >$D/disksize
CG=/sys/fs/cgroup/zng-group
MNT=/mnt/zng-group
# fio_tmpfs write|verify: 48 MiB of partly compressible, crc32c-tagged data
fio_tmpfs() {
	set -- --name=grswap --directory=$MNT --nrfiles=4 --size=48M --bs=64k \
		--rw=write --buffer_compress_percentage=50 --refill_buffers \
		--verify=crc32c --verify_state_save=0 --output=/dev/null
	[ "$1" = verify ] && set -- "$@" --verify_only
	# the shell moves itself into the cgroup, then becomes fio
	sh -c 'echo $$ > "$0/cgroup.procs" && exec fio "$@"' $CG "$@"
}
mkswap $B >/dev/null
swapon $B
mkdir -p $CG $MNT
echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
echo 24M >$CG/memory.max
mount -t tmpfs -o size=96M tmpfs $MNT
ktap_result "48 MiB into a tmpfs under memory.max=24M, swapped to zram_ng" fio_tmpfs write
echo all >$D/idle
ktap_result "group_recompress on the swapped pages" group "type=idle"
sw=$(gstat grouped_pages)
ktap_result "... grouped some ($sw pages in $(gstat groups) groups)" test "$sw" -gt 0
ktap_result "... the data verifies after swap-in" fio_tmpfs verify
ktap_result "... swap-in freed members (dead pages or fewer members: $(gstat grouped_pages))" \
	test "$(gstat grouped_pages)" -lt "$sw"
umount $MNT
rmdir $CG $MNT 2>/dev/null
ktap_result "swapoff" swapoff $B
ktap_result "no failed reads or writes" \
	assert_eq "0 0" "$(io_stat zram_ng0 failed_reads) $(io_stat zram_ng0 failed_writes)"
echo 1 >$D/reset
ktap_result "rmmod with no device set up" rmmod zram_ng
ktap_result "modprobe again" modprobe zram_ng
echo 64M >$D/disksize
file_at 0 /tmp/gr-rep
group "type=all" >/dev/null
ktap_result "groups alive, then reset and rmmod" \
	sh -c "echo 1 > $D/reset && rmmod zram_ng && modprobe zram_ng"

rm -f /tmp/gr-*
rmmod brd
ktap_finish
