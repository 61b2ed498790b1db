#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The slot table costs memory in proportion to what is stored (slot.c,
# "The table"): a top array of 16 bytes per 256 pages of disksize,
# allocated at disksize, and a 4 KiB leaf per 256 slots, allocated when
# one of them is written and freed when the last of them is emptied.
# ng_stat's table_bytes is the exact figure; MemAvailable is the sanity
# check.
#  1. An empty 1, 8, 100 GiB device: the top array only (8 GiB at most
#     1 MiB, 100 GiB at most 2 MiB); a 100 GiB device in this 1 GiB VM is
#     swap: mkswap, swapon, pages swapped out and in, swapoff.
#  2. Pages spread one per leaf cost a leaf each, dense ones 16 bytes each;
#     reads of never-written slots allocate nothing; discarding everything
#     takes the table back to its top array. table_bytes always equals the
#     top array plus a leaf for each leaf block_state shows a slot in.
#  3. Writers, discarders, readers, idle marking and block_state at once on
#     a few leaves, which live and die all the time: nothing leaks.
#  4. The testing build's fail_leaf_alloc: writes still succeed, from the
#     leaves' reserve, which frees refill.
#  5. disksize: beyond 2^32 pages EINVAL, with a kernel log line; the
#     largest size and its last page work; a fuzz of odd sizes: each is
#     accepted or refused with EINVAL, ERANGE or ENOMEM, never more.
#  6. Figures (diagnostics, no verdict): MemAvailable after disksize for
#     zram_ng and the stock zram in this boot.
# vm-timeout: 600
. "$(dirname "$0")/common.sh"

D=$ZSYS/zram_ng0
B=/dev/zram_ng0
DBG=/sys/kernel/debug/zram_ng/zram_ng0/block_state
FAIL=/sys/module/zram_ng/parameters/fail_leaf_alloc
CG=/sys/fs/cgroup/zng-table
MNT=/mnt/zng-table
PG=/tmp/table-page	# one page, neither same-filled nor compressible
LEAF=4096		# bytes of a leaf: 256 slots

tb() { ng_stat zram_ng0 table_bytes; }
stored() { awk '{ print $1 / 4096 }' $D/mm_stat; }
# top BYTES: the top array of a device of BYTES (whole pages beyond one)
top() {
	local b=$(( ($1 / 4096 + 255) / 256 * 16 ))
	[ $b -le 4096 ] && echo $b || echo $(( (b + 4095) / 4096 * 4096 ))
}
# memavail: MemAvailable in KiB, caches dropped first, frees settled,
# the CPUs' counter deltas folded in (else a few MiB may not show yet)
memavail() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 1
	echo 1 >/proc/sys/vm/stat_refresh 2>/dev/null
	awk '/^MemAvailable:/ { print $2 }' /proc/meminfo
}
# put PAGE_INDEX: $PG written to that page of $B, direct
put() { dd if=$PG of=$B bs=4096 seek="$1" count=1 oflag=direct conv=notrunc 2>/dev/null; }
# got PAGE_INDEX: that page reads back as $PG
got() { dd if=$B bs=4096 skip="$1" count=1 iflag=direct 2>/dev/null | cmp -s - $PG; }
# leaves: how many leaves block_state shows a slot in
leaves() { awk '{ print int($1 / 256) }' $DBG | sort -u | wc -l; }
# consistent: table_bytes is the top array plus one leaf for each leaf
# holding a slot
consistent() {
	assert_eq "$(( $(top "$(cat $D/disksize)") + $(leaves) * LEAF ))" "$(tb)" "table_bytes"
}
# setup SIZE: zram_ng0 reset and of SIZE
setup() { echo 1 >$D/reset && echo "$1" >$D/disksize; }

ktap_header
ktap_plan 44

zram_ng_reload
head -c 4096 /dev/urandom >$PG

# 1. Empty devices, and a 100 GiB swap device.
m0=$(memavail)
setup 1G
m1=$(memavail)
ktap_result "1 GiB: table_bytes is the top array, 16 KiB" assert_eq 16384 "$(tb)"
ktap_print "1 GiB: table_bytes $(tb), MemAvailable drop $((m0 - m1)) KiB"
echo 1 >$D/reset
m0=$(memavail)
setup 8G
m1=$(memavail)
ktap_result "8 GiB: table_bytes $(tb) <= 1 MiB (the top array, 128 KiB)" \
	assert_eq 131072 "$(tb)"
# the rest of the drop is the pool and the streams, the same at any size
ktap_result "8 GiB: MemAvailable dropped by $((m0 - m1)) KiB, under 4 MiB" \
	test $((m0 - m1)) -lt 4096
echo 1 >$D/reset
m0=$(memavail)
ktap_result "100 GiB accepted in a VM of $(awk '/^MemTotal/ { print int($2 / 1024) }' /proc/meminfo) MiB" \
	setup 100G
m1=$(memavail)
ktap_result "100 GiB: table_bytes $(tb) <= 2 MiB (the top array, 1600 KiB)" \
	assert_eq 1638400 "$(tb)"
ktap_result "100 GiB: MemAvailable dropped by $((m0 - m1)) KiB, under 6 MiB" \
	test $((m0 - m1)) -lt 6144
ktap_result "100 GiB: mkswap" sh -c "mkswap $B >/dev/null"
ktap_result "100 GiB: swapon" swapon $B
mkdir -p $CG $MNT
echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
echo 24M >$CG/memory.max
mount -t tmpfs -o size=96M tmpfs $MNT
# fio_tmpfs write|verify: 48 MiB of partly compressible, tagged data,
# from inside the cgroup
fio_tmpfs() {
	set -- --name=swapload --directory=$MNT --nrfiles=4 --size=48M --bs=64k \
		--rw=write --buffer_compress_percentage=50 --refill_buffers \
		--verify=crc32c --verify_state_save=0 --output=/dev/null
	[ "$MODE" = verify ] && set -- "$@" --verify_only
	sh -c 'echo $$ > "$0/cgroup.procs" && exec fio "$@"' $CG "$@"
}
MODE="write"
ktap_result "100 GiB swap: 48 MiB into a tmpfs under memory.max=24M" fio_tmpfs
swapped=$(stored)
ktap_result "pages were swapped out ($swapped), table_bytes grew ($(tb))" \
	test "$swapped" -gt 2048 -a "$(tb)" -gt 1638400
ktap_print "swapped out: $swapped pages stored, table_bytes $(tb), $(( ($(tb) - 1638400) / swapped )) bytes of leaves a page"
ktap_result "table_bytes: the top array + a leaf per leaf in use" consistent
MODE="verify"
ktap_result "data verified after swap-in" fio_tmpfs
echo max >$CG/memory.max
ktap_result "swapoff" swapoff $B
MODE="verify"
ktap_result "data verified after swapoff" fio_tmpfs
rm -f $MNT/*
umount $MNT
rmdir $CG
# what swapoff left: the swap header, and slots a busy notify missed
ktap_print "after swapoff: $(stored) pages stored, table_bytes $(tb), miss_free $(awk 'NR == 2 { print $2 }' $D/debug_stat)"
ktap_result "after swapoff: table_bytes consistent" consistent
blkdiscard -f $B
ktap_result "after discarding it all: the top array alone, nothing stored" \
	assert_eq "1638400 0" "$(tb) $(stored)"

# 2. Spread and dense.
setup 1G
T=$(top 1073741824)
dd if=$B of=/dev/null bs=1M count=64 iflag=direct 2>/dev/null
ktap_result "reading 64 MiB never written: zeroes, nothing allocated" \
	sh -c "cmp -s -n 67108864 $B /dev/zero && test \$(awk '{ print \$3 }' $D/ng_stat) -eq $T"
i=0
ok=1
while [ $i -lt 64 ]; do
	put $((i * 256 + i)) || ok=0
	i=$((i + 1))
done
ktap_result "64 pages spread, one per leaf: written" test $ok = 1
ktap_result "... a leaf each: table_bytes = top + 64 x 4 KiB" \
	assert_eq $((T + 64 * LEAF)) "$(tb)"
ok=1
i=0
while [ $i -lt 64 ]; do
	got $((i * 256 + i)) || ok=0
	i=$((i + 1))
done
ktap_result "... and read back" test $ok = 1
before=$(tb)
ktap_result "64 MiB dense (64 leaves), at 64 MiB" fio_tagged write 64M 64M 50
dense=$(( ($(tb) - before) / 16384 ))
ktap_result "dense: $dense bytes of table a stored page (<= 16)" test "$dense" -le 16
ktap_print "1 GiB device: $(stored) pages stored, table_bytes $(tb) (top $T, 64 spread pages a leaf each, dense $dense bytes a page); a flat table of 24 bytes a page: $((262144 * 24))"
ktap_result "table_bytes consistent with block_state" consistent
echo all >$D/idle
ktap_result "idle marking and block_state reach every stored slot, and only them" \
	assert_eq "16448 16448" "$(wc -l <$DBG) $(awk 'substr($3, 4, 1) == "i"' $DBG | wc -l)"
fio --name=holes --filename=$B --offset=64M --size=64M --rw=trim:4k --bs=4k \
	--output=/dev/null
ktap_result "every other page discarded: each leaf still in use, none freed" \
	assert_eq $((T + 128 * LEAF)) "$(tb)"
blkdiscard -f $B
ktap_result "all discarded: table_bytes is the top array again, nothing stored" \
	assert_eq "$T 0" "$(tb) $(stored)"

# 3. Leaves born and killed under concurrent use: 4 MiB, 4 leaves.
setup 1G
stress() {
	fio --name=w --filename=$B --size=4M --bs=4k --direct=1 --rw=randwrite \
		--buffer_compress_percentage=50 --refill_buffers --time_based \
		--runtime=8 --output=/dev/null &
	fio --name=t --filename=$B --size=4M --bs=16k --direct=1 --rw=randtrim \
		--time_based --runtime=8 --output=/dev/null &
	fio --name=r --filename=$B --size=4M --bs=4k --direct=1 --rw=randread \
		--time_based --runtime=8 --output=/dev/null &
	end=$(($(date +%s) + 8))
	while [ "$(date +%s)" -lt $end ]; do
		echo all >$D/idle
		cat $DBG >/dev/null
		echo 1 >$D/compact
	done
	wait
}
ktap_result "8 s of writes, discards, reads, idle marking, block_state on 4 leaves" stress
ktap_result "table_bytes consistent with block_state after it" consistent
blkdiscard -f $B
ktap_result "all discarded: the top array again" assert_eq "$T 0" "$(tb) $(stored)"

# 4. Leaves from the reserve.
if [ -w $FAIL ]; then
	echo 4 >$FAIL
	ok=1
	for i in 0 1 2 3; do put $((i * 256)) || ok=0; done
	ktap_result "4 leaf allocations failing: the 4 writes succeed" test $ok = 1
	ktap_result "... each took a leaf from the reserve" \
		assert_eq "0 $((T + 4 * LEAF))" "$(cat $FAIL) $(tb)"
	ok=1
	for i in 0 1 2 3; do got $((i * 256)) || ok=0; done
	ktap_result "... and read back" test $ok = 1
	echo -1 >$FAIL
	ok=1
	for i in 4 5 6 7; do put $((i * 256)) || ok=0; done
	ktap_result "every allocation failing: 4 more writes, the reserve's last" test $ok = 1
	echo 0 >$FAIL
	blkdiscard -f $B
	sleep 1	# the grace period gives the leaves back to the reserve
	echo -1 >$FAIL
	ok=1
	for i in 0 1 2 3; do put $((i * 256)) || ok=0; done
	echo 0 >$FAIL
	ktap_result "the freed leaves refilled the reserve: 4 writes again" test $ok = 1
	blkdiscard -f $B
else
	for t in 1 2 3 4 5; do
		ktap_skip "fail_leaf_alloc ($t)" "not the testing build"
	done
fi

# 5. disksize: the index's limit, and a fuzz.
echo 1 >$D/reset
ktap_result "2^32 pages (16 TiB): EINVAL" write_expect_errno EINVAL 17592186044416 $D/disksize
ktap_result "... and the kernel log says why" \
	sh -c "dmesg | grep -q 'zram_ng0: disksize 17592186044416 refused: more than 4294967295 pages'"
ktap_result "16 TiB and 1 byte, page aligned to 2^32 pages: EINVAL" \
	write_expect_errno EINVAL 17592186040321 $D/disksize
if echo 17592186040320 >$D/disksize 2>/dev/null; then
	ktap_result "2^32 - 1 pages: accepted, the top array 256 MiB" \
		assert_eq 268435456 "$(tb)"
	ktap_result "... its last page written and read back" \
		sh -c "$(command -v dd) if=$PG of=$B bs=4096 seek=4294967294 count=1 oflag=direct 2>/dev/null &&
			$(command -v dd) if=$B bs=4096 skip=4294967294 count=1 iflag=direct 2>/dev/null | cmp -s - $PG"
	echo all >$D/idle
	ktap_result "... idle marking and block_state find it, alone" \
		assert_eq "4294967294 i" "$(awk '{ print $1, substr($3, 4, 1) }' $DBG)"
	ktap_result "... table_bytes: the top array and one leaf" \
		assert_eq $((268435456 + LEAF)) "$(tb)"
else
	ktap_result "2^32 - 1 pages: ENOMEM (no 256 MiB for the top array)" \
		write_expect_errno ENOMEM 17592186040320 $D/disksize
	for t in 1 2 3; do ktap_skip "2^32 - 1 pages ($t)" "not accepted"; done
fi
echo 1 >$D/reset

# fuzz: a line each, "ok", or the errno text of the refusal
fuzz_one() {
	if err=$(sh -c 'printf "%s\n" "$1" > "$2"' sh "$1" $D/disksize 2>&1); then
		size=$(cat $D/disksize)
		echo 1 >$D/reset
		# accepted: page aligned, not below what was asked (when numeric)
		[ $((size % 4096)) -eq 0 ] && [ "$size" -gt 0 ] || { echo "bad $1 -> $size"; return; }
		echo ok
	else
		case $err in
		*"Invalid argument"*|*"Numerical result out of range"*|*"Cannot allocate memory"*)
			echo refused ;;
		*) echo "bad $1: $err" ;;
		esac
	fi
}
# fuzz_values: 300 odd sizes (the same every run), then the edges
fuzz_values() {
	local i v sfx=(K M G T P E k m g t p e x X - + . "," "" " ")
	RANDOM=33
	for ((i = 0; i < 300; i++)); do
		case $((RANDOM % 5)) in
		0) v=$((RANDOM * 32768 + RANDOM)) ;;
		1) v=$(( (RANDOM << 30 | RANDOM << 15 | RANDOM) << (RANDOM % 24) )) ;;
		2) v=$((RANDOM % 70000))${sfx[RANDOM % 20]} ;;
		3) v=0x$(printf %x $((RANDOM * 32768 + RANDOM)))${sfx[RANDOM % 20]} ;;
		4) v=${sfx[RANDOM % 20]}$((RANDOM % 20000))${sfx[RANDOM % 20]}${sfx[RANDOM % 20]} ;;
		esac
		echo "$v"
	done
	printf '%s\n' 17592186040320 17592186040321 17592186044415 16T 17T \
		16383G 16384G 4294967295K 0 -1 "" 4096 1 18446744073709547520 \
		0x1000000000000 99999999999999999999 1E 15E
}
fuzz() {
	fuzz_values | while read -r v; do
		r=$(fuzz_one "$v")
		case $r in bad*) echo "# $r" ;; esac
		echo "$r" >>/tmp/table-fuzz
	done
	! grep -q '^bad' /tmp/table-fuzz
}
: >/tmp/table-fuzz
ktap_result "disksize fuzz: accepted page aligned, or EINVAL/ERANGE/ENOMEM" fuzz
ktap_print "fuzz: $(grep -c '^ok' /tmp/table-fuzz) accepted, $(grep -c '^refused' /tmp/table-fuzz) refused"
setup 64M
ktap_result "after it, a device works" sh -c "$(command -v dd) if=$PG of=$B bs=4096 seek=7 count=1 oflag=direct 2>/dev/null &&
	$(command -v dd) if=$B bs=4096 skip=7 count=1 iflag=direct 2>/dev/null | cmp -s - $PG"
echo 1 >$D/reset

# 6. Figures: the stock zram in the same boot (its table is 24 bytes a
# page of disksize, allocated at disksize).
if modprobe zram num_devices=1 2>/dev/null; then
	for size in 1G 8G 100G; do
		m0=$(memavail)
		setup "$size"
		ng=$((m0 - $(memavail)))
		echo 1 >$D/reset
		m0=$(memavail)
		if echo "$size" >$ZSYS/zram0/disksize 2>/dev/null; then
			stock=$((m0 - $(memavail)))
		else
			stock=refused
		fi
		echo 1 >$ZSYS/zram0/reset
		ktap_print "MemAvailable drop after disksize $size: zram_ng $ng KiB, stock zram $stock KiB"
	done
	rmmod zram
	ktap_ok "stock zram measured in the same boot"
else
	ktap_skip "stock zram measured in the same boot" "no zram module"
fi

ktap_finish
