# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # bench-vm's variables
#
# grouping (bench-vm grouping RUNS MIB CONFIGS [SET=IMAGE...] [text] [swap]):
# grouped recompression against per-page zstd and lz4 pages on zram_ng0
# (scripts/bench.d/grouping.py says what is measured). CONFIGS is a comma
# list of lz4, zstd, groupN (N pages a group) and groupN-L (zstd level L
# for the groups); SET=IMAGE is a
# real-memory image in ./ (its first MIB MiB are used); text and swap are
# bench-vm's data sets.

# workload_prepare MIB CONFIGS [SET=IMAGE...] [text] [swap]
workload_prepare() {
	local mib=$1 a set img c
	CONFIGS=$(echo "$2" | tr ',' ' ')
	REVERSED=
	for c in $CONFIGS; do
		case $c in
		lz4|zstd|group[0-9]|group[0-9][0-9]|group[0-9]-[0-9]|group[0-9]-[0-9][0-9]|\
		group[0-9][0-9]-[0-9]|group[0-9][0-9]-[0-9][0-9]) REVERSED="$c $REVERSED" ;;
		*) die "grouping: no configuration $c" ;;
		esac
	done
	shift 2
	modprobe zram_ng num_devices=1 || die "modprobe zram_ng failed"
	modprobe zstd 2>/dev/null
	[ -e /sys/block/zram_ng0/group_recompress ] || die "zram_ng0 has no group_recompress"
	echo "@@@ META kernel $(uname -r)"
	echo "@@@ META algorithm lz4"
	echo "@@@ META policy $(bracketed /sys/block/zram_ng0/allocator_policy)"
	echo "@@@ META vm_mem_kib $(awk '/MemTotal/ {print $2}' /proc/meminfo)"
	echo "@@@ META vm_cpus $(nproc)"
	GSETS=
	for a in "$@"; do
		case $a in
		*=*)
			set=${a%%=*} img=${a#*=}
			[ -f "./$img" ] || die "./$img missing"
			head -c $((mib << 20)) "./$img" >"/tmp/data-$set"
			[ "$(stat -c %s "/tmp/data-$set")" = $((mib << 20)) ] ||
				die "./$img is shorter than $mib MiB"
			GSETS="$GSETS $set"
			;;
		text|swap)
			GSETS="$GSETS $a"
			;;
		*) die "grouping: no data set $a" ;;
		esac
	done
	case " $* " in
	*" text "*|*" swap "*) make_data_sets "$mib" ;;
	esac
	GMIB=$mib
}

# gtimed FILE VALUE TAG: the pass written, its system CPU time as a VAL
gtimed() {
	local t
	t=$(timed_write "$1" "$2") || die "$1: '$2' failed: $t"
	echo "@@@ VAL zram_ng $3.pass_sys_ms ${t%% *}"
	echo "@@@ VAL zram_ng $3.pass_wall_ms ${t##* }"
}

# pages CFG: the N of groupN or groupN-L
pages() {
	local n=${1#group}
	echo "${n%%-*}"
}

# the pass of configuration $1 (tag $2)
pass() {
	case $1 in
	lz4) ;;
	zstd) gtimed /sys/block/zram_ng0/recompress "type=idle" "$2" ;;
	group*) gtimed /sys/block/zram_ng0/group_recompress "type=idle pages=$(pages "$1")" "$2" ;;
	esac
}

# rand_pcts TAG: 2000 random 4 KiB reads; their clat p50 and p99 as VALs
rand_pcts() {
	local out p50 p99
	out=$(fio --name=rr --filename=/dev/zram_ng0 --rw=randread --bs=4k --direct=1 \
		--ioengine=psync --size=$((GMIB << 20)) --number_ios=2000 --randrepeat=1 \
		--percentile_list=50:99 --output-format=terse --terse-version=3 2>/dev/null) ||
		die "$1: fio randread failed"
	# the read side's clat percentiles come first, "50.000000%=USEC"
	p50=$(echo "$out" | tr ';' '\n' | sed -n 's/^50\.0*%=//p' | head -1)
	p99=$(echo "$out" | tr ';' '\n' | sed -n 's/^99\.0*%=//p' | head -1)
	[ -n "$p50" ] && [ -n "$p99" ] || die "$1: no percentiles in fio's output"
	echo "@@@ VAL zram_ng $1.rand_p50_us $p50"
	echo "@@@ VAL zram_ng $1.rand_p99_us $p99"
}

# one SET CFG
one() {
	local set=$1 cfg=$2 tag=$1.$2 bytes=$((GMIB << 20)) t d
	zdev_reset zram_ng0
	zdev_write zram_ng0 comp_algorithm lz4 || die "lz4"
	if [ "$cfg" != lz4 ]; then
		zdev_write zram_ng0 recomp_algorithm "algo=zstd priority=1" || die "zstd"
	fi
	case $cfg in
	group*-*) zdev_write zram_ng0 algorithm_params "priority=1 level=${cfg#*-}" ||
		die "$tag: zstd level ${cfg#*-}" ;;
	esac
	zdev_write zram_ng0 disksize $((bytes + (1 << 20))) || die "disksize"
	dd if="/tmp/data-$set" of=/dev/zram_ng0 bs=4k oflag=direct 2>/dev/null ||
		die "$tag: writing failed"
	echo all >/sys/block/zram_ng0/idle
	pass "$cfg" "$tag"
	mmstat zram_ng0 "$tag.packed"
	echo 1 >/sys/block/zram_ng0/compact
	mmstat zram_ng0 "$tag.packed_compacted"
	echo "@@@ VAL zram_ng $tag.grouped_pages $(group_stat zram_ng0 grouped_pages)"
	echo "@@@ VAL zram_ng $tag.groups $(group_stat zram_ng0 groups)"
	d=$(group_stat zram_ng0 decompressions)
	t=$(now_us)
	dd if=/dev/zram_ng0 of=/tmp/grouping-back bs=4k count=$((bytes / 4096)) iflag=direct 2>/dev/null ||
		die "$tag: reading failed"
	echo "@@@ VAL zram_ng $tag.seq_read_ms $((($(now_us) - t) / 1000))"
	echo "@@@ VAL zram_ng $tag.seq_decompressions $(($(group_stat zram_ng0 decompressions) - d))"
	cmp -s /tmp/grouping-back "/tmp/data-$set" || die "$tag: did not read back the same"
	rm -f /tmp/grouping-back
	rand_pcts "$tag"
	fio --name=trim --filename=/dev/zram_ng0 --rw=randtrim --bs=4k \
		--size="$bytes" --number_ios=$((bytes / 4096 * 3 / 10)) --randrepeat=1 \
		--output=/dev/null >/dev/null 2>&1 || die "$tag: fio randtrim failed"
	echo 1 >/sys/block/zram_ng0/compact
	mmstat zram_ng0 "$tag.compacted"
	case $cfg in
	group*) echo "type=idle pages=$(pages "$cfg")" >/sys/block/zram_ng0/group_recompress ||
		die "$tag: the pass after the frees failed" ;;
	esac
	mmstat zram_ng0 "$tag.freed"
	zdev_reset zram_ng0
}

workload_run() {	# workload_run RUN MIB CONFIGS [SET=IMAGE...] [text] [swap]
	local i=$1 set cfg cfgs=$CONFIGS
	[ $((i % 2)) -eq 1 ] && cfgs=$REVERSED
	for set in $GSETS; do
		for cfg in $cfgs; do
			one "$set" "$cfg"
		done
	done
}
