#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make demo: swap on zram_ng under a memory cgroup, fragment the pool and
# show, from mm_stat, what compaction did. Two rounds on the same data:
#
#   1. today's defaults: the pool compacts itself (auto_compact) as the
#      frees fragment it, with no write to compact;
#   2. the manual path: auto_compact off for that device (a module
#      parameter read when the pool is made), so that the fragmentation is
#      left to "echo 1 > compact", shown before and after.
#
# The checks are real: in round 2 the explicit compaction moves objects,
# frees pages and lowers mem_used_total; in round 1, with auto_compact on,
# the pool compacted itself; every file reads back identical in both.
# Runs inside the test VM (scripts/vm-run scripts/vm/guest/demo.sh;
# zramctl-ng comes from /tools).
# shellcheck disable=SC2154 # mm_stat_read (lib.sh) sets the B_* and A_* variables
set -u
. "$(dirname "$0")/lib.sh"

CG=/sys/fs/cgroup/zram_ng-demo
WORK=/mnt/demo-work	# the workload's tmpfs, charged to the cgroup
REF=/tmp/demo-ref	# reference copies, outside the cgroup
LIMIT=24M
AUTO=/sys/module/zram_ng/parameters/auto_compact

step() { printf '\n==> %s\n' "$*"; }
fail() { printf '\nDEMO FAILED: %s\n' "$*"; exit 1; }

human() {
	awk -v b="$1" 'BEGIN { split("B KiB MiB GiB", u, " "); i = 1
		while (b >= 1024 && i < 4) { b /= 1024; i++ }
		printf (i == 1 ? "%d %s" : "%.1f %s"), b, u[i] }'
}

# punch FILE: free every other 4 KiB page of FILE (fallocate punch-hole)
punch() {
	fio --name=punch --filename="$1" --ioengine=falloc --rw=trim:4k \
		--bs=4k --size="$(stat -c %s "$1")" --output=/dev/null
}

verify() {	# verify WHERE: every workload file equals its reference
	bad=0
	for f in "$REF"/*; do
		cmp -s "$f" "$WORK/${f##*/}" || { echo "    MISMATCH: ${f##*/}"; bad=1; }
	done
	[ $bad = 0 ] && echo "    all $(ls "$REF" | wc -l) files identical ($1)"
	return $bad
}

# swap_on: a 256 MiB zram_ng device (lz4) as swap; sets DEV, N and D
swap_on() {
	DEV=$(zramctl-ng --find --size 256M --algorithm lz4) || fail "zramctl-ng"
	N=${DEV#/dev/}
	D=/sys/block/$N
	echo "    $DEV: comp_algorithm: $(cat $D/comp_algorithm)"
	echo "    $DEV: allocator_policy: $(cat $D/allocator_policy)"
	mkswap "$DEV" >/dev/null && swapon "$DEV" || fail "swapon"
	echo "    swap on $DEV"
}

# workload: the reference files made afresh from $SOURCES (the last round
# punched them) and copied into a tmpfs by a process of a cgroup with
# memory.max=$LIMIT (most of them go to swap), then every other page of
# every file freed in both (punch-hole), which frees swap slots all over
# the pool
workload() {
	rm -f "$REF"/*
	# shellcheck disable=SC2086 # a list of paths without blanks
	cp $SOURCES "$REF/"
	mount -t tmpfs -o size=256M demo "$WORK"
	sh -c 'echo $$ > "$1/cgroup.procs"; cp "$2"/* "$3"/' sh "$CG" "$REF" "$WORK"
	echo "    $(ls "$WORK" | wc -l) files, $(human "$(du -sb "$REF" | cut -f1)");" \
		"cgroup memory.current $(human "$(cat $CG/memory.current)")"
	echo "    swapped out to $DEV: $(human "$(mm_stat $N orig_data_size)")"
	for f in "$REF"/*; do
		punch "$f" && punch "$WORK/${f##*/}" || fail "punch ${f##*/}"
	done
	echo "    every other page of every file freed (fallocate punch-hole):" \
		"$(io_stat $N notify_free) swap slots freed"
}

# swap_off WHEN: read the workload back through swap inside the cgroup,
# verify it, swap off (verify again) and reset the device
swap_off() {
	sh -c 'echo $$ > "$1/cgroup.procs"; exec cat "$2"/* > /dev/null' sh "$CG" "$WORK"
	verify "$1, after swap-in" || fail "data mismatch after swap-in ($1)"
	echo max > "$CG/memory.max"
	swapoff "$DEV" || fail "swapoff"
	verify "$1, after swapoff" || fail "data mismatch after swapoff ($1)"
	echo $LIMIT > "$CG/memory.max"
	umount "$WORK"
	zramctl-ng --reset "$DEV"
	echo "    $DEV reset: mem_used_total $(mm_stat $N mem_used_total)"
}

row() {	# row NAME BEFORE AFTER
	printf '    %-18s %14s %14s\n' "$1" "$2" "$3"
}

step "Loading zsmalloc_ng and zram_ng"
modprobe zram_ng || fail "modprobe zram_ng"
lsmod | grep -E '^(zram_ng[a-z_]*|zsmalloc_ng|lz4[a-z_]*) ' | sed 's/^/    /'
auto_default=$(cat $AUTO)

step "The workload: real shared libraries, a cgroup with memory.max=$LIMIT"
mkdir -p "$CG" "$WORK" "$REF"
echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
echo $LIMIT > "$CG/memory.max"
# about 48 MiB of ELF code and data: compresses roughly 2:1, like real memory
total=0
SOURCES=
for f in $(ls -S /usr/lib/x86_64-linux-gnu/*.so* | head -n 40); do
	[ $total -lt 50331648 ] || break
	SOURCES="$SOURCES $f"
	total=$((total + $(stat -c %s "$f")))
done
echo "    $(echo $SOURCES | wc -w) files, $(human $total), copied in and fragmented once a round"

step "Round 1, the defaults (auto_compact=$auto_default): the pool compacts itself"
swap_on
workload
mm_stat_read $N S_
echo "    with no write to compact, mm_stat says:"
echo "      pages_compacted $S_pages_compacted, objs_moved $S_objs_moved," \
	"mem_used_total $(human $S_mem_used_total)"
echo 1 > $D/compact
mm_stat_read $N T_
echo "    echo 1 > $D/compact after it: $((T_objs_moved - S_objs_moved)) objects" \
	"moved, $((T_pages_compacted - S_pages_compacted)) pages freed"
swap_off "round 1"

step "Round 2, the manual path: auto_compact off for the next device"
echo "    echo N > $AUTO (read when a pool is made; restored after)"
echo N > $AUTO
swap_on
workload
mm_stat_read $N B_
echo "    echo 1 > $D/compact"
echo 1 > $D/compact
mm_stat_read $N A_
echo
echo "    mm_stat columns:" $MM_STAT_COLUMNS
echo "    before: $B_line"
echo "    after:  $A_line"
echo
row "" before after
row orig_data_size "$(human $B_orig_data_size)" "$(human $A_orig_data_size)"
row compr_data_size "$(human $B_compr_data_size)" "$(human $A_compr_data_size)"
row mem_used_total "$(human $B_mem_used_total)" "$(human $A_mem_used_total)"
row pages_compacted "$B_pages_compacted" "$A_pages_compacted"
row objs_moved "$B_objs_moved" "$A_objs_moved"
echo
echo "    the explicit compaction moved $((A_objs_moved - B_objs_moved)) objects" \
	"and freed $((A_pages_compacted - B_pages_compacted)) pages:" \
	"mem_used_total $(human $B_mem_used_total) -> $(human $A_mem_used_total)"
echo
zramctl-ng | sed 's/^/    /'
swap_off "round 2"
echo "$auto_default" > $AUTO

step "Tearing down"
rmdir "$CG"
rmmod zram_ng zsmalloc_ng && echo "    modules unloaded"

step "Summary"
echo "    round 1 (auto_compact=$auto_default): the pool moved $S_objs_moved objects" \
	"and freed $S_pages_compacted pages by itself"
echo "    round 2 (auto_compact=N): echo 1 > compact moved $((A_objs_moved - B_objs_moved))" \
	"objects and freed $((A_pages_compacted - B_pages_compacted)) pages," \
	"mem_used_total $(human $B_mem_used_total) -> $(human $A_mem_used_total)"
case $auto_default in
Y) [ "$S_objs_moved" -gt 0 ] && [ "$S_pages_compacted" -gt 0 ] ||
	fail "auto_compact is on, but the pool did not compact itself" ;;
esac
[ "$A_objs_moved" -gt "$B_objs_moved" ] || fail "the explicit compaction moved nothing"
[ "$A_pages_compacted" -gt "$B_pages_compacted" ] || fail "the explicit compaction freed no page"
[ "$A_mem_used_total" -lt "$B_mem_used_total" ] || fail "mem_used_total did not go down"
printf '\nDEMO OK\n'
