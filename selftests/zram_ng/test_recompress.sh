#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Recompression with secondary algorithms (upstream zram's 6.2+ ABI:
# recomp_algorithm, recompress): lz4 primary, zstd (priority 1) and lz4hc
# (priority 2) secondary. Random hex text (huge with lz4, half size with
# zstd), random data (incompressible) and fio data (crc32c-tagged, 2:1) are
# recompressed in huge, idle, threshold, max_pages, algo= and priority=
# passes, and verified byte for byte after each; pages no algorithm shrinks
# are flagged n and not tried again; same-filled and written-back pages are
# left alone; max_pages spends its budget on the largest objects first. Then a bad-input table for both attributes.
# vm-timeout: 300
. "$(dirname "$0")/common.sh"

D=$ZSYS/zram_ng0
B=/dev/zram_ng0
DBG=/sys/kernel/debug/zram_ng/zram_ng0/block_state
P=4096

recomp() {	# recomp ARGS: recompress ARGS succeeds
	{ echo "$1" >$D/recompress; } 2>/dev/null ||
		{ echo "# recompress '$1' failed"; return 1; }
}

compr() {
	mm_stat zram_ng0 compr_data_size
}

ktap_header
ktap_plan 114

for m in lz4 lz4hc zstd; do modprobe $m 2>/dev/null; done
zram_ng_reload
rmmod brd 2>/dev/null
modprobe brd rd_nr=1 rd_size=65536 || { ktap_print "no brd"; exit 1; }

# --- recomp_algorithm before disksize ---
ktap_result "recomp_algorithm is empty at first" assert_eq "" "$(cat $D/recomp_algorithm)"
ktap_result "algo=zstd (priority 1 by default)" sh -c "echo algo=zstd > $D/recomp_algorithm"
ktap_result "... reads '#1: ... [zstd] ...'" \
	sh -c "grep -qx '#1: .*\[zstd\].*' $D/recomp_algorithm"
ktap_result "algo=lz4hc priority=2" sh -c "echo 'algo=lz4hc priority=2' > $D/recomp_algorithm"
ktap_result "... two lines, #2 shows [lz4hc]" \
	sh -c "[ \$(wc -l < $D/recomp_algorithm) = 2 ] && sed -n 2p $D/recomp_algorithm | grep -qx '#2: .*\[lz4hc\].*'"
ktap_result "priority=1 algo=lz4hc replaces #1 (any order)" \
	sh -c "echo 'priority=1 algo=lz4hc' > $D/recomp_algorithm && grep -qx '#1: .*\[lz4hc\].*' $D/recomp_algorithm"
echo "algo=zstd priority=1" >$D/recomp_algorithm
ktap_result "#1 is each algorithm list once, as comp_algorithm" \
	assert_eq "$(sed 's/\[//; s/\]//' $D/comp_algorithm | tr ' ' '\n' | sort | xargs)" \
	"$(sed -n 1p $D/recomp_algorithm | cut -d' ' -f2- | tr -d '[]' | tr ' ' '\n' | sort | xargs)"
echo lz4 >$D/comp_algorithm
echo /dev/ram0 >$D/backing_dev
echo 64M >$D/disksize
ktap_result "recomp_algorithm after disksize: EBUSY" \
	write_expect_errno EBUSY algo=lz4hc $D/recomp_algorithm
ktap_result "... and still reads #1 zstd, #2 lz4hc" \
	sh -c "grep -q '^#1: .*\[zstd\]' $D/recomp_algorithm && grep -q '^#2: .*\[lz4hc\]' $D/recomp_algorithm"

# --- the data: pages 0-1023 hex, 1024-2047 random, 2048-4095 fio 2:1,
# 4096-4351 zeros (same-filled), 4352-4607 hex ---
hex_file /tmp/rc-hex1 4
hex_file /tmp/rc-hex2 1
head -c 1048576 /dev/zero >/tmp/rc-zero
file_at 0 /tmp/rc-hex1
fio_tagged write 4M 4M 0
ktap_result "fio writes 8M of 2:1 data" fio_tagged write 8M 8M 50
file_at 4096 /tmp/rc-zero
file_at 4352 /tmp/rc-hex2
ktap_result "hex pages are huge with lz4 ($(flags_in 0 1024 h) of 1024)" \
	assert_eq 1024 "$(flags_in 0 1024 h)"
ktap_result "random pages are huge ($(flags_in 1024 2048 h) of 1024)" \
	test "$(flags_in 1024 2048 h)" -ge 1000
ktap_result "zeros are same-filled" assert_eq 256 "$(flags_in 4096 4352 s)"
ktap_result "block_state has seven flag columns" \
	sh -c "awk '{ print length(\$3) }' $DBG | sort -u | xargs | grep -qx 7"
ktap_result "no page is r or n yet" assert_eq "0 0" "$(flags_in 0 99999 r) $(flags_in 0 99999 n)"
# one hex page written back: never recompressed
ktap_result "writeback page_index=4400" sh -c "echo page_index=4400 > $D/writeback"

# --- type=huge, max_pages, algo=, priority= ---
huge0=$(mm_stat zram_ng0 huge_pages)
c0=$(compr)
ktap_result "type=huge algo=zstd max_pages=100" recomp "type=huge algo=zstd max_pages=100"
ktap_result "... recompressed exactly 100 pages" assert_eq 100 "$(flags_in 0 99999 r)"
ktap_result "... the first 100 hex pages" assert_eq 100 "$(flags_in 0 100 r)"
ktap_result "... huge_pages fell by 100" assert_eq $((huge0 - 100)) "$(mm_stat zram_ng0 huge_pages)"
ktap_result "... compr_data_size fell ($c0 -> $(compr))" test "$(compr)" -lt "$c0"
ktap_result "... the hex pages read back (zstd)" file_matches 0 /tmp/rc-hex1
ktap_result "type=huge priority=1" recomp "type=huge priority=1"
ktap_result "... every hex page is r ($(flags_in 0 1024 r))" assert_eq 1024 "$(flags_in 0 1024 r)"
ktap_result "... and none huge" assert_eq 0 "$(flags_in 0 1024 h)"
ktap_result "... random pages not flagged n: lz4hc not tried" \
	assert_eq 0 "$(flags_in 1024 2048 n)"
ktap_result "type=huge (every secondary)" recomp "type=huge"
nr_n=$(flags_in 1024 2048 n)
ktap_result "... random pages flagged n ($nr_n)" test "$nr_n" -ge 1000
ktap_result "... and not r" assert_eq 0 "$(flags_in 1024 2048 r)"
r1=$(flags_in 0 99999 r) n1=$(flags_in 0 99999 n) c1=$(compr)
ktap_result "second type=huge pass" recomp "type=huge"
ktap_result "... recompresses nothing (r, n, compr_data_size unchanged)" \
	assert_eq "$r1 $n1 $c1" "$(flags_in 0 99999 r) $(flags_in 0 99999 n) $(compr)"
ktap_result "hex pages verify after the passes" file_matches 0 /tmp/rc-hex1
ktap_result "random pages verify (fio)" fio_tagged verify 4M 4M 0

# --- type=idle ---
echo all >$D/idle
c2=$(compr)
ktap_result "idle all; type=idle algo=zstd" recomp "type=idle algo=zstd"
rf=$(flags_in 2048 4096 r)
ktap_result "... recompressed fio pages lz4 -> zstd ($rf of 2048)" test "$rf" -gt 0
ktap_result "... compr_data_size shrank ($c2 -> $(compr))" test "$(compr)" -lt "$c2"
ktap_result "... the recompressed pages are no longer idle" \
	assert_eq 0 "$(awk '$1 >= 2048 && $1 < 4096 && index($3, "r") && index($3, "i")' $DBG | wc -l)"
ktap_result "... fio data verifies byte for byte" fio_tagged verify 8M 8M 50
ktap_result "... same-filled pages not recompressed" assert_eq 0 "$(flags_in 4096 4352 r)"
ktap_result "... still read as zeros" file_matches 4096 /tmp/rc-zero
ktap_result "... the written-back page is w, not r" \
	sh -c "awk '\$1 == 4400 { print \$3 }' $DBG | grep -qx '\\.w\\.[.i]\\.\\.\\.'"
ktap_result "hex2 pages are r (255: one is written back)" assert_eq 255 "$(flags_in 4352 4608 r)"
ktap_result "hex2 pages (and the written-back one) verify" file_matches 4352 /tmp/rc-hex2
ktap_result "orig_data_size unchanged: 4608 pages" \
	assert_eq $((4608 * 4096)) "$(mm_stat zram_ng0 orig_data_size)"

# --- threshold: only objects of that size or more, results below it ---
file_at 0 /tmp/rc-hex1
fio_tagged write 8M 8M 50
echo all >$D/idle
ktap_result "rewriting clears r ($(flags_in 0 1024 r) hex pages r)" assert_eq 0 "$(flags_in 0 1024 r)"
ktap_result "type=idle threshold=3000" recomp "type=idle threshold=3000"
ktap_result "... recompressed the hex pages (4096 -> ~2K bytes)" assert_eq 1024 "$(flags_in 0 1024 r)"
ktap_result "... and not the fio pages (below 3000 bytes)" assert_eq 0 "$(flags_in 2048 4096 r)"
ktap_result "type=huge_idle after idle all: nothing left huge but the n ones" \
	sh -c "echo all > $D/idle && echo type=huge_idle > $D/recompress && test \$(awk 'index(\$3, \"h\") && !index(\$3, \"n\")' $DBG | wc -l) = 0"

# --- a smaller object in the same size class saves nothing: it stays ---
# (the benchmark's fio data, 33% compressible: zstd gains a few bytes on
# lz4 and a smaller class for about 4% of the pages)
fio --name=cls --filename=/tmp/rc-cls --rw=write --bs=4k --size=4M \
	--buffer_compress_percentage=33 --buffer_compress_chunk=4k \
	--refill_buffers --scramble_buffers=0 --randrepeat=1 --output=/dev/null >/dev/null 2>&1
file_at 8192 /tmp/rc-cls
echo all >$D/idle
ktap_result "type=idle algo=zstd on 33%-compressible pages" recomp "type=idle algo=zstd"
rs=$(flags_in 8192 9216 r)
ktap_result "... moves only those zstd puts in a smaller size class ($rs of 1024)" \
	test "$rs" -lt 512
ktap_result "... the others are not n: lz4hc was not tried" \
	assert_eq 0 "$(flags_in 8192 9216 n)"
ktap_result "... and every page reads back" file_matches 8192 /tmp/rc-cls

# --- priority=2: lz4hc, read back through its own algorithm ---
ktap_result "priority=2 (lz4hc) on every page" recomp "priority=2"
ktap_result "... fio data verifies" fio_tagged verify 8M 8M 50
ktap_result "... hex data verifies" file_matches 0 /tmp/rc-hex1
ktap_result "overwriting random pages clears n" \
	sh -c "fio --name=rc --filename=$B --offset=4M --size=4M --bs=4k --direct=1 --rw=write --buffer_compress_percentage=0 --refill_buffers --output=/dev/null && test \$(awk '\$1 >= 1024 && \$1 < 2048 && index(\$3, \"n\")' $DBG | wc -l) = 0"
ktap_result "no failed reads" assert_eq 0 "$(io_stat zram_ng0 1)"
ktap_result "reset" sh -c "echo 1 > $D/reset"
ktap_result "reset forgets the secondary algorithms (as upstream)" \
	assert_eq "" "$(cat $D/recomp_algorithm)"

# --- max_pages takes the largest objects first, wherever they are ---
echo "algo=zstd priority=1" >$D/recomp_algorithm
echo 64M >$D/disksize
fio_tagged write 0 4M 50	# pages 0..1023: about 2 KiB objects
hex_file /tmp/rc-hexl 4
file_at 1024 /tmp/rc-hexl	# 1024..2047: huge with lz4
echo all >$D/idle
ktap_result "type=idle max_pages=512" recomp "type=idle max_pages=512"
ktap_result "... spent on 512 hex pages (huge), none on the fio pages before them" \
	assert_eq "0 0 512" "$(flags_in 0 1024 r) $(flags_in 0 1024 n) $(flags_in 1024 2048 r)"
ktap_result "... the fio pages verify" fio_tagged verify 0 4M 50
ktap_result "... the hex pages read back" file_matches 1024 /tmp/rc-hexl
echo 1 >$D/reset
rm -f /tmp/rc-hexl
rmmod brd

# --- bad input ---
bad_table() {	# bad_table STATE: lines "ERRNO|VALUE|ATTR" on stdin
	while IFS='|' read -r errno value attr; do
		ktap_result "$1: '$value' > $attr: $errno" \
			write_expect_errno "$errno" "$value" "$D/$attr"
	done
}
long=$(printf '%0130d' 0)
bad_table "before disksize" <<-EOF
EINVAL|garbage|recomp_algorithm
EINVAL||recomp_algorithm
EINVAL|algo=|recomp_algorithm
EINVAL|algo|recomp_algorithm
EINVAL|priority=1|recomp_algorithm
EINVAL|algo=nonexistent|recomp_algorithm
E2BIG|algo=$long|recomp_algorithm
EINVAL|algo=zstd priority=0|recomp_algorithm
EINVAL|algo=zstd priority=4|recomp_algorithm
EINVAL|algo=zstd priority=-1|recomp_algorithm
EINVAL|algo=zstd priority=abc|recomp_algorithm
ERANGE|algo=zstd priority=99999999999|recomp_algorithm
EINVAL|algo=zstd bogus=1|recomp_algorithm
EINVAL|algo=zstd algo=lz4hc|recomp_algorithm
EINVAL|algo=zstd priority=1 priority=2|recomp_algorithm
EINVAL|type=huge|recompress
EINVAL|threshold=4096|recompress
EOF
echo 16M >$D/disksize
bad_table "no secondary algorithm" <<-EOF
EINVAL|type=huge|recompress
EINVAL||recompress
EINVAL|garbage|recompress
EINVAL|type=|recompress
EINVAL|algo=zstd|recompress
EINVAL|threshold=abc|recompress
ERANGE|threshold=4294967296|recompress
EINVAL|max_pages=-1|recompress
ERANGE|max_pages=18446744073709551616|recompress
EBUSY|algo=zstd|recomp_algorithm
EOF
echo 1 >$D/reset
echo algo=zstd >$D/recomp_algorithm
echo 16M >$D/disksize
bad_table "zstd at priority 1" <<-EOF
EINVAL|algo=lz4hc|recompress
EINVAL|algo=lz4|recompress
EINVAL|priority=2|recompress
EINVAL|priority=4|recompress
EINVAL|threshold=4095|recompress
EINVAL|type=garbage|recompress
EINVAL|type=IDLE|recompress
EINVAL|type=idle type=huge|recompress
EINVAL|threshold=100 threshold=200|recompress
EINVAL|max_pages=1 max_pages=1|recompress
EINVAL|priority=1 tresholds=100|recompress
EOF
ktap_result "every key at once is taken" \
	recomp "type=huge_idle threshold=100 max_pages=10 priority=1"
ktap_result "priority=0 means priority 1 (as upstream)" recomp "priority=0"
echo 1 >$D/reset

# --- zramctl-ng drives both: setup, idle, recompress, writeback, columns ---
modprobe brd rd_nr=1 rd_size=65536
echo 16M >$D/disksize	# in use: --find hot_adds a device
ctl() { zramctl-ng --raw --noheadings "$@"; }
dev=$(zramctl-ng --find --size 16M --algorithm lz4 --recomp-algorithm zstd,lz4hc \
	--backing-dev /dev/ram0 2>/tmp/rc-ctl.err)
ktap_result "zramctl-ng --find --recomp-algorithm zstd,lz4hc --backing-dev ($dev)" \
	test -b "$dev"
n=${dev##*/}
ktap_result "... RECOMP-ALGORITHM zstd,lz4hc" assert_eq zstd,lz4hc "$(ctl -o RECOMP-ALGORITHM "$dev")"
ktap_result "... BACKING /dev/ram0" assert_eq /dev/ram0 "$(ctl -o BACKING "$dev")"
hex_file /tmp/rc-hex1 2
dd if=/tmp/rc-hex1 of="$dev" bs=1M oflag=direct 2>/dev/null
ktap_result "zramctl-ng --idle all --recompress type=idle" \
	zramctl-ng --idle all --recompress type=idle "$dev"
ktap_result "... the hex pages are r" \
	test "$(awk 'index($3, "r")' /sys/kernel/debug/zram_ng/$n/block_state | wc -l)" = 512
ktap_result "zramctl-ng --idle all --writeback idle" zramctl-ng --idle all --writeback idle "$dev"
ktap_result "... BD-WRITES 2M" assert_eq 2097152 "$(ctl --bytes -o BD-WRITES "$dev")"
ktap_result "... and the data reads back" \
	sh -c "dd if=$dev bs=1M count=2 iflag=direct 2>/dev/null | cmp -s - /tmp/rc-hex1"
ktap_result "zramctl-ng --writeback without a backing device: refused" \
	sh -c "! zramctl-ng --writeback idle /dev/zram_ng0 2>/dev/null"
ktap_result "zramctl-ng --reset" zramctl-ng --reset "$dev" /dev/zram_ng0
echo "${n#zram_ng}" >/sys/class/zram_ng-control/hot_remove
rmmod brd
rm -f /tmp/rc-hex1 /tmp/rc-hex2 /tmp/rc-zero /tmp/rc-cls /tmp/rc-ctl.err

ktap_finish
