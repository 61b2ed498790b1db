#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Movable zspages (zsmalloc_ng/core/migrate.cpp): the kernel's memory
# compaction ("echo 1 > /proc/sys/vm/compact_memory") migrates zram_ng's
# pages, while data written through fio --verify and through swap stays
# intact; with I/O, device compaction, reset and hot_remove running at the
# same time; with movable=0 nothing is migrated; and after swapoff + reset
# the modules unload and a later compaction finds no page of theirs.
# vm-timeout: 300
. "$(dirname "$0")/common.sh"

D=$ZSYS/zram_ng0
B=/dev/zram_ng0
DBG=/sys/kernel/debug/zsmalloc_ng
CG=/sys/fs/cgroup/zng-migrate
MNT=/mnt/zng-migrate

compact_memory() {
	echo 1 > /proc/sys/vm/compact_memory
}

# compact_memory_loop SECONDS: compact_memory in a loop, in the background
compact_memory_loop() {
	(end=$(($(date +%s) + $1))
	while [ "$(date +%s)" -lt "$end" ]; do
		compact_memory
	done) &
	LOOP=$!
}

# fio_dev NAME RW [ARGS...]: 48 MiB of crc32c-tagged data on zram_ng0
fio_dev() {
	n=$1 rw=$2
	shift 2
	fio --name="$n" --filename=$B --rw="$rw" --bs=4k --size=48M \
		--direct=1 --buffer_compress_percentage=60 --refill_buffers \
		--verify=crc32c --verify_state_save=0 --output=/dev/null "$@"
}

ktap_header
ktap_plan 26

zram_ng_reload
ktap_result "movable is on by default" \
	assert_eq Y "$(cat /sys/module/zsmalloc_ng/parameters/movable)"
echo 64M > $D/disksize
ktap_result "the pool is movable" assert_eq 1 "$(pool_stat zram_ng0 movable)"

# 1. Quiet: write, compact the machine's memory, read back.
ktap_result "48 MiB written with crc32c" fio_dev fill write --do_verify=0
mig0=$(vmstat_get pgmigrate_success)
compact_memory
compact_memory
mig1=$(vmstat_get pgmigrate_success)
moved=$(pool_stat zram_ng0 pages_migrated)
# Which pages the kernel's scanners reach depends on where they landed:
# counted here, asserted over this and the busy phase below.
ktap_print "pgmigrate_success $mig0 -> $mig1, pages_migrated $moved, refused $(pool_stat zram_ng0 migrate_refused)"
ktap_result "compact_memory migrated pages (pgmigrate_success grew)" \
	test "$mig1" -gt "$mig0"
ktap_result "the data verifies after migration" fio_dev fill write --verify_only
ktap_result "mm_stat still adds up (orig_data_size 48 MiB)" \
	assert_eq 50331648 "$(mm_stat zram_ng0 orig_data_size)"

# 2. Busy: random I/O with verify, device compaction and compact_memory,
# on a device whose zspages every other discarded page left half used.
fio --name=holes --filename=$B --rw=trim:4k --bs=4k --size=48M \
	--output=/dev/null
moved0=$moved
compact_memory_loop 20
(end=$(($(date +%s) + 20))
while [ "$(date +%s)" -lt "$end" ]; do
	echo 1 > $D/compact
	sleep 0.05
done) &
CL=$!
ktap_result "random writes with verify during compact_memory and compact" \
	fio_dev busy randwrite --time_based --runtime=20 --verify_backlog=256 \
		--do_verify=1 --verify_fatal=1
wait $LOOP $CL
moved=$(pool_stat zram_ng0 pages_migrated)
ktap_print "pages_migrated $moved0 -> $moved, refused $(pool_stat zram_ng0 migrate_refused), frees deferred $(pool_stat zram_ng0 frees_deferred)"
ktap_result "zram_ng0's pages were migrated (pages_migrated $moved)" \
	test "$moved" -gt 0
ktap_result "objects compacted meanwhile (objs_moved $(mm_stat zram_ng0 objs_moved))" \
	test "$(mm_stat zram_ng0 objs_moved)" -gt 0
ktap_result "no failed reads or writes" \
	assert_eq "0 0" "$(io_stat zram_ng0 1) $(io_stat zram_ng0 2)"
ktap_result "nothing is waiting for a deferred free" \
	assert_eq 0 "$(pool_stat zram_ng0 pages_deferred)"

# 3. Reset and hot_remove while pages migrate.
compact_memory_loop 25
ok=0
for i in 1 2 3 4 5; do
	echo 1 > $D/reset
	echo 32M > $D/disksize
	fio --name=r --filename=$B --rw=write --bs=4k --size=24M --direct=1 \
		--buffer_compress_percentage=60 --refill_buffers \
		--output=/dev/null && ok=$((ok + 1))
done
echo 1 > $D/reset
ktap_result "5 fill + reset cycles during compact_memory" assert_eq 5 $ok
ktap_result "after reset the device holds nothing" \
	assert_eq 0 "$(mm_stat zram_ng0 mem_used_total)"
ok=0
for i in 1 2 3; do
	id=$(cat $ZCTL/hot_add)
	echo 32M > $ZSYS/zram_ng$id/disksize
	fio --name=h --filename=/dev/zram_ng$id --rw=write --bs=4k --size=24M \
		--direct=1 --buffer_compress_percentage=60 --refill_buffers \
		--output=/dev/null &&
		echo "$id" > $ZCTL/hot_remove && ok=$((ok + 1))
done
wait $LOOP
ktap_result "3 hot_add + fill + hot_remove cycles during compact_memory" \
	assert_eq 3 $ok
ktap_result "no pool is left in debugfs" sh -c "! ls $DBG | grep -q zram_ng"

# 4. Swap: data swapped out by a memory cgroup, compacted, swapped in.
echo 128M > $D/disksize
mkswap $B >/dev/null
swapon $B
mkdir -p $CG $MNT
echo 24M > $CG/memory.max
mount -t tmpfs -o size=96M tmpfs $MNT
fio_tmpfs() {
	sh -c 'echo $$ > "$0/cgroup.procs" && exec fio "$@"' $CG \
		--name=swapload --directory=$MNT --nrfiles=4 --size=48M \
		--bs=64k --rw=write --buffer_compress_percentage=50 \
		--refill_buffers --verify=crc32c --verify_state_save=0 \
		--output=/dev/null "$@"
}
ktap_result "48 MiB into a tmpfs under memory.max=24M" fio_tmpfs
# The earlier steps left memory compacted: without holes, compact_memory
# may find nothing to move (it did once in four runs). 4096 one-page
# files in a second tmpfs, every other one removed, leave half-used
# pageblocks that it must consolidate.
mkdir -p $MNT-holes
mount -t tmpfs -o size=32M tmpfs $MNT-holes
fio --name=holes --directory=$MNT-holes --nrfiles=4096 --openfiles=64 --filesize=4k \
	--bs=4k --rw=write --output=/dev/null
rm -f $MNT-holes/holes.*[02468]
mig0=$(vmstat_get pgmigrate_success)
compact_memory_loop 10
echo 1 > $D/compact
wait $LOOP
mig1=$(vmstat_get pgmigrate_success)
ktap_print "swap: pgmigrate_success $mig0 -> $mig1, pages_migrated $(pool_stat zram_ng0 pages_migrated), orig_data_size $(mm_stat zram_ng0 orig_data_size)"
ktap_result "pgmigrate_success grew while zram_ng0 held the swapped data" \
	test "$mig1" -gt "$mig0"
umount $MNT-holes
ktap_result "swapped data verifies (swap-in inside the cgroup)" \
	fio_tmpfs --verify_only
echo max > $CG/memory.max
ktap_result "swapoff" swapoff $B
ktap_result "data verifies after swapoff" fio_tmpfs --verify_only
umount $MNT
rmdir $CG

# 5. Unload: no page may still name the module's operations.
echo 1 > $D/reset
ktap_result "rmmod zram_ng" rmmod zram_ng
ktap_result "rmmod zsmalloc_ng" rmmod zsmalloc_ng
compact_memory
compact_memory
ktap_result "compact_memory after unload (no page points into the module)" true

# 6. movable=0: the same fill, nothing migrated.
modprobe zsmalloc_ng movable=0
zram_ng_reload
echo 64M > $D/disksize
fio_dev fill write --do_verify=0
compact_memory
compact_memory
ktap_result "movable=0: the pool is not movable" \
	assert_eq 0 "$(pool_stat zram_ng0 movable)"
ktap_result "movable=0: nothing migrated" \
	assert_eq 0 "$(pool_stat zram_ng0 pages_migrated)"
ktap_result "movable=0: the data verifies" fio_dev fill write --verify_only
echo 1 > $D/reset
rmmod zram_ng
rmmod zsmalloc_ng
modprobe zsmalloc_ng

ktap_finish
