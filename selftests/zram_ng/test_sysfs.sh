#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Every zram_ng sysfs attribute: the values it takes, and the exact errno of
# the ones it refuses (garbage, empty, negative, overflow, wrong state).
# vm-timeout: 120
. "$(dirname "$0")/common.sh"

D=$ZSYS/zram_ng0
bad() {	# bad ERRNO VALUE ATTR DESC
	ktap_result "$4" write_expect_errno "$1" "$2" "$D/$3"
}
good() {	# good VALUE ATTR DESC
	ktap_result "$3" sh -c 'echo "$1" > "$2"' sh "$1" "$D/$2"
}
reads() {	# reads WANT ATTR DESC
	ktap_result "$3" assert_eq "$1" "$(cat "$D/$2")" "$2"
}

ktap_header
ktap_plan 75

zram_ng_reload
ktap_result "num_devices=1 by default gives zram_ng0 only" \
	sh -c '[ -b /dev/zram_ng0 ] && [ ! -e /dev/zram_ng1 ]'

# Before init.
reads 0 initstate "initstate is 0 before init"
reads 0 disksize "disksize is 0 before init"
reads "$(grep -c processor /proc/cpuinfo)" max_comp_streams "max_comp_streams shows the CPUs"
good 4 max_comp_streams "max_comp_streams takes a number (compatibility)"
ktap_result "comp_algorithm defaults to [lz4]" \
	sh -c "grep -q '\[lz4\]' $D/comp_algorithm"
for a in lzo lzo-rle lz4hc zstd; do
	ktap_result "comp_algorithm lists $a" \
		sh -c "tr ' ' '\n' < $D/comp_algorithm | grep -qx '$a'"
done
ktap_result "allocator_policy shows the default legacy legacy-groups [ratio] exact" \
	assert_eq "legacy legacy-groups [ratio] exact" "$(cat $D/allocator_policy)"
# The default follows zsmalloc_ng's default_policy until the device chooses.
echo exact >/sys/module/zsmalloc_ng/parameters/default_policy
ktap_result "allocator_policy follows zsmalloc_ng's default_policy (exact)" \
	assert_eq "legacy legacy-groups ratio [exact]" "$(cat $D/allocator_policy)"
echo ratio >/sys/module/zsmalloc_ng/parameters/default_policy
bad EINVAL "" compact "compact before init: EINVAL"
bad EINVAL 1 compact "compact before init (1): EINVAL"
ktap_result "mm_stat has 10 columns" \
	assert_eq 10 "$(awk '{ print NF }' $D/mm_stat)"
ktap_result "io_stat has 4 columns" \
	assert_eq 4 "$(awk '{ print NF }' $D/io_stat)"
ktap_result "debug_stat is version 1" \
	assert_eq "version: 1" "$(head -n 1 $D/debug_stat)"
ktap_result "initstate is read-only: EACCES" write_expect_errno EACCES 1 $D/initstate

# comp_algorithm
bad EINVAL foo comp_algorithm "comp_algorithm foo: EINVAL"
bad EINVAL "" comp_algorithm "comp_algorithm empty: EINVAL"
bad EINVAL "-1" comp_algorithm "comp_algorithm -1: EINVAL"
bad EINVAL "$(printf '%0100d' 0)" comp_algorithm "comp_algorithm 100 chars: EINVAL"
good zstd comp_algorithm "comp_algorithm zstd"
ktap_result "comp_algorithm shows [zstd]" sh -c "grep -q '\[zstd\]' $D/comp_algorithm"
good lz4 comp_algorithm "comp_algorithm back to lz4"

# allocator_policy
bad EINVAL foo allocator_policy "allocator_policy foo: EINVAL"
bad EINVAL "" allocator_policy "allocator_policy empty: EINVAL"
bad EINVAL "-1" allocator_policy "allocator_policy -1: EINVAL"
bad EINVAL 2 allocator_policy "allocator_policy 2 (numbers are not names): EINVAL"
for p in legacy legacy-groups exact ratio; do
	good $p allocator_policy "allocator_policy $p"
	ktap_result "allocator_policy shows [$p]" sh -c "grep -q '\[$p\]' $D/allocator_policy"
done

# disksize
bad EINVAL "" disksize "disksize empty: EINVAL"
bad EINVAL abc disksize "disksize garbage: EINVAL"
bad EINVAL -1 disksize "disksize negative: EINVAL"
bad EINVAL 0 disksize "disksize 0: EINVAL"
bad EINVAL 0xffffffffffffffff disksize "disksize 2^64-1 (would wrap): EINVAL"
bad EINVAL 64T disksize "disksize 64T (more than 2^32 pages): EINVAL"
bad EINVAL 16T disksize "disksize 16T (2^32 pages, beyond the slot index): EINVAL"
reads 0 initstate "refused sizes leave the device uninitialised"
good 5000 disksize "disksize 5000"
reads 8192 disksize "disksize is page aligned"
bad EBUSY 64M disksize "disksize once initialised: EBUSY"
reads 1 initstate "initstate is 1 after init"
bad EBUSY zstd comp_algorithm "comp_algorithm after init: EBUSY"
bad EINVAL foo comp_algorithm "comp_algorithm unknown after init: EINVAL"
bad EBUSY exact allocator_policy "allocator_policy after init: EBUSY"
reads "legacy legacy-groups [ratio] exact" allocator_policy "allocator_policy shows the pool's policy"

# reset
bad EINVAL "" reset "reset empty: EINVAL"
bad EINVAL abc reset "reset garbage: EINVAL"
bad EINVAL -1 reset "reset negative: EINVAL"
bad ERANGE 70000 reset "reset overflow: ERANGE"
bad EINVAL 0 reset "reset 0: EINVAL"
exec 3</dev/zram_ng0
bad EBUSY 1 reset "reset while open: EBUSY"
exec 3<&-
reads 8192 disksize "a refused reset changes nothing"
good 1 reset "reset 1"
reads 0 initstate "reset leaves the device uninitialised"
echo 64M > $D/disksize

# mem_limit (write-only)
bad EINVAL "" mem_limit "mem_limit empty: EINVAL"
bad EINVAL abc mem_limit "mem_limit garbage: EINVAL"
bad EINVAL -1 mem_limit "mem_limit negative: EINVAL"
bad EINVAL 0xffffffffffffffff mem_limit "mem_limit overflow: EINVAL"
good 1M mem_limit "mem_limit 1M"
ktap_result "mm_stat shows mem_limit" assert_eq 1048576 "$(mm_stat zram_ng0 mem_limit)"
good 0 mem_limit "mem_limit 0 (no limit)"

# mem_used_max (write-only, only 0)
bad EINVAL 1 mem_used_max "mem_used_max 1: EINVAL"
bad EINVAL abc mem_used_max "mem_used_max garbage: EINVAL"
bad EINVAL "" mem_used_max "mem_used_max empty: EINVAL"
bad EINVAL -1 mem_used_max "mem_used_max negative: EINVAL"
good 0 mem_used_max "mem_used_max 0 resets it"

good 1 compact "compact after init"
echo 1 > $D/reset

ktap_finish
