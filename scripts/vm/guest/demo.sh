#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make demo: swap on zram_ng under a memory cgroup, fragment the pool,
# compact it, and show what the allocator did. Runs inside the test VM
# (scripts/vm-run scripts/vm/guest/demo.sh; zramctl-ng comes from /tools).
# shellcheck disable=SC2154 # mm_stat_read (lib.sh) sets the B_* and A_* variables
set -u
. "$(dirname "$0")/lib.sh"

CG=/sys/fs/cgroup/zram_ng-demo
WORK=/mnt/demo-work	# the workload's tmpfs, charged to the cgroup
REF=/tmp/demo-ref	# reference copies, outside the cgroup
LIMIT=24M

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

step "Loading zsmalloc_ng and zram_ng"
modprobe zram_ng || fail "modprobe zram_ng"
lsmod | grep -E '^(zram_ng|zsmalloc_ng|lz4) ' | sed 's/^/    /'

step "Creating a 256 MiB zram_ng device (lz4)"
DEV=$(zramctl-ng --find --size 256M --algorithm lz4) || fail "zramctl-ng"
N=${DEV#/dev/}
D=/sys/block/$N
echo "    $DEV: comp_algorithm: $(cat $D/comp_algorithm)"
echo "    $DEV: allocator_policy: $(cat $D/allocator_policy)"
mkswap "$DEV" >/dev/null && swapon "$DEV" || fail "swapon"
echo "    swap on $DEV"

step "Workload: real shared libraries copied into a tmpfs by a cgroup with memory.max=$LIMIT"
mkdir -p "$CG" "$WORK" "$REF"
echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
echo $LIMIT > "$CG/memory.max"
mount -t tmpfs -o size=256M demo "$WORK"
# about 48 MiB of ELF code and data: compresses roughly 2:1, like real memory
files=$(ls -S /usr/lib/x86_64-linux-gnu/*.so* | head -n 40)
total=0
for f in $files; do
	[ $total -lt 50331648 ] || break
	cp "$f" "$REF/"
	total=$((total + $(stat -c %s "$f")))
done
sh -c 'echo $$ > "$1/cgroup.procs"; cp "$2"/* "$3"/' sh "$CG" "$REF" "$WORK"
echo "    $(ls "$WORK" | wc -l) files, $(human $total); cgroup memory.current $(human "$(cat $CG/memory.current)")"
echo "    swapped out to $DEV: $(human "$(mm_stat $N orig_data_size)")"

step "Freeing every other page of every file (fallocate punch-hole) to fragment the pool"
for f in "$REF"/*; do
	punch "$f" && punch "$WORK/${f##*/}" || fail "punch ${f##*/}"
done
echo "    swap slots freed so far (io_stat notify_free): $(io_stat $N notify_free)"

mm_stat_read $N B_
step "echo 1 > $D/compact"
echo 1 > $D/compact
mm_stat_read $N A_

step "mm_stat before and after compaction"
echo "    columns:" $MM_STAT_COLUMNS
echo "    before: $B_line"
echo "    after:  $A_line"
echo
printf '    %-18s %14s %14s\n' "" before after
printf '    %-18s %14s %14s\n' orig_data_size "$(human $B_orig_data_size)" "$(human $A_orig_data_size)"
printf '    %-18s %14s %14s\n' compr_data_size "$(human $B_compr_data_size)" "$(human $A_compr_data_size)"
printf '    %-18s %14s %14s\n' mem_used_total "$(human $B_mem_used_total)" "$(human $A_mem_used_total)"
printf '    %-18s %14s %14s\n' pages_compacted "$B_pages_compacted" "$A_pages_compacted"
printf '    %-18s %14s %14s\n' objs_moved "$B_objs_moved" "$A_objs_moved"
echo
echo "    compaction moved $((A_objs_moved - B_objs_moved)) objects and freed $((A_pages_compacted - B_pages_compacted)) pages:"
echo "    mem_used_total $(human $B_mem_used_total) -> $(human $A_mem_used_total)"
echo
zramctl-ng | sed 's/^/    /'

step "Verifying the workload: read back through swap, inside the cgroup"
sh -c 'echo $$ > "$1/cgroup.procs"; exec cat "$2"/* > /dev/null' sh "$CG" "$WORK"
verify "after swap-in" || fail "data mismatch after swap-in"

step "Tearing down"
echo max > "$CG/memory.max"
swapoff "$DEV" || fail "swapoff"
verify "after swapoff" || fail "data mismatch after swapoff"
umount "$WORK"
rmdir "$CG"
zramctl-ng --reset "$DEV"
echo "    after reset: mem_used_total $(mm_stat $N mem_used_total)"
rmmod zram_ng zsmalloc_ng && echo "    modules unloaded"
[ "$A_objs_moved" -gt "$B_objs_moved" ] || fail "compaction moved nothing"
printf '\nDEMO OK\n'
