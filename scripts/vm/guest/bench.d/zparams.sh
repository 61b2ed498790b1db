# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # bench-vm's variables
#
# zparams (bench-vm zparams RUNS CONFIGS SET...): compression parameters
# on real application memory. CONFIGS is a comma-separated list of
# ALGO[:LEVEL[:DICT]] (scripts/bench.d/zparams.py). For each run, data set
# and configuration, zram_ng0 and then zram0 (the order alternating
# between runs): comp_algorithm ALGO, algorithm_params "level=LEVEL
# dict=/work/FILE" when the configuration has parameters (a device that
# refuses them, as 6.1's stock zram and 6.1's zstd dictionaries do, is
# skipped and says so), disksize; ./SET.pages written with O_DIRECT, 4 KiB
# at a time, timed; mm_stat; read back the same way, timed, and compared.

workload_prepare() {	# workload_prepare CONFIGS SET...
	local set
	setup
	modprobe zstd 2>/dev/null
	shift
	for set in "$@"; do
		[ -f "./$set.pages" ] || die "./$set.pages missing"
	done
	echo "@@@ META data_sets $*"
}

# ms_since T0: milliseconds since now_us said T0
ms_since() {
	echo $((($(now_us) - $1) / 1000))
}

# one DEV SET CFG
one() {
	local dev=$1 set=$2 cfg=$3 algo level dict params name tag bytes t
	IFS=: read -r algo level dict <<<"$cfg"
	name=$(devname "$dev")
	tag=$set-${cfg//:/-}
	bytes=$(stat -c %s "./$set.pages")
	zdev_reset "$dev"
	if ! zdev_write "$dev" comp_algorithm "$algo"; then
		echo "zparams: $dev has no $algo: $tag skipped"
		return 0
	fi
	params=${level:+level=$level}
	case $dict in
	all) params="$params dict=$PWD/all.dict" ;;
	others) params="$params dict=$PWD/$set.others.dict" ;;
	esac
	if [ -n "$params" ]; then
		if [ ! -e "/sys/block/$dev/algorithm_params" ] ||
			! zdev_write "$dev" algorithm_params "$params"; then
			echo "zparams: $dev refuses \"$params\": $tag skipped"
			return 0
		fi
	fi
	zdev_write "$dev" disksize $((bytes + 1048576)) || die "$dev: disksize"
	t=$(now_us)
	dd if="./$set.pages" of="/dev/$dev" bs=4k oflag=direct 2>/dev/null ||
		die "$dev: writing $tag failed"
	echo "@@@ VAL $name $tag.write_ms $(ms_since "$t")"
	mmstat "$dev" "$tag"
	t=$(now_us)
	dd if="/dev/$dev" of=/dev/null bs=4k count=$((bytes / 4096)) iflag=direct 2>/dev/null ||
		die "$dev: reading $tag failed"
	echo "@@@ VAL $name $tag.read_ms $(ms_since "$t")"
	dd if="/dev/$dev" bs=4k count=$((bytes / 4096)) iflag=direct 2>/dev/null |
		cmp -s - "./$set.pages" || die "$dev: $tag did not read back the same"
	zdev_reset "$dev"
}

workload_run() {	# workload_run RUN CONFIGS SET...
	local i=$1 cfgs=$2 set cfg dev
	shift 2
	for set in "$@"; do
		for cfg in ${cfgs//,/ }; do
			for dev in $(order "$i"); do
				one "$dev" "$set" "$cfg"
			done
		done
	done
}
