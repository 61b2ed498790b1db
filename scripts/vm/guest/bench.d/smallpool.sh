# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # bench-vm's variables
#
# smallpool (bench-vm smallpool RUNS PERCENT PAGES...): the small,
# fragmented pool (issue 17). Per run, pool size and stack (the order
# alternating), PAGES pages of fragmenter.c's mixed data written to the
# device, PERCENT of them discarded at random, one page at a time; mm_stat
# before and after one compaction; the pages of the classes of 3,264 bytes
# and more (6.1's zsmalloc stores those one object to a page; zram_ng only:
# Debian builds zsmalloc without its debugfs classes table, ZSMALLOC_STAT)
# before compaction; then every kept page read back.

# class_pages FILE MIN: pages_used of the classes of objects of MIN bytes
# or more, from a debugfs classes table (columns by name)
class_pages() {
	awk -v min="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$(c["size"]) >= min { s += $(c["pages_used"]) } END { print s + 0 }' "$1"
}

workload_prepare() {	# workload_prepare PERCENT PAGES...
	setup
	[ -x ./fragmenter ] || die "./fragmenter missing"
}

workload_run() {	# workload_run RUN PERCENT PAGES...
	local i=$1 pct=$2 n dev name
	shift 2
	for n in "$@"; do
		for dev in $(order "$i"); do
			name=$(devname "$dev")
			mkdev "$dev" $(((n + 256) * 4096))
			./fragmenter --block write "/dev/$dev" "$n" $((i + 1)) "$pct" ||
				die "$dev: fragmenter --block write failed"
			sync
			mmstat "$dev" "smallpool-$n.before"
			[ $name = zram ] || echo "@@@ VAL $name smallpool-$n.big_class_pages" \
				"$(class_pages /sys/kernel/debug/zsmalloc_ng/zram_ng0/classes 3264)"
			echo 1 >"/sys/block/$dev/compact" || die "$dev: compact failed"
			mmstat "$dev" "smallpool-$n.after"
			./fragmenter --block verify "/dev/$dev" "$n" $((i + 1)) "$pct" |
				grep -q verified=1 || die "$dev: the kept pages did not read back"
			zdev_reset "$dev"
		done
	done
}
