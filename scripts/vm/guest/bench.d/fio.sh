# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # bench-vm's variables
#
# fio (bench-vm fio RUNS SIZE_MIB RUNTIME_S): in the style of the zram
# maintainers' perf runs, sync I/O, O_DIRECT, partly compressible buffers
# refilled for every I/O; seq-write (fills the device, never cut short),
# seq-read, rand-read, rand-write, rand-rw at numjobs 1 and 2 on a fresh
# zram_ng0 and zram0; mm_stat and the whole footprint after seq-write.

# fio_job DEV JOB NUMJOBS SIZE_MIB RUNTIME_S: fio's JSON between BEGIN/END
fio_job() {
	local dev=$1 job=$2 nj=$3 size=$4 runtime=$5 rw bs extra=
	case $job in
	seq-write) rw=write bs=128k ;;
	seq-read) rw=read bs=128k ;;
	rand-read) rw=randread bs=4k ;;
	rand-write) rw=randwrite bs=4k ;;
	rand-rw) rw=randrw bs=4k extra=--rwmixread=70 ;;
	esac
	# seq-write fills the device for the readers: never cut it short.
	[ "$job" = seq-write ] || extra="$extra --runtime=$runtime"
	# shellcheck disable=SC2086 # extra is a list of options
	fio --name="$job" --filename="/dev/$dev" --ioengine=psync --direct=1 \
		--rw=$rw --bs=$bs --size="${size}M" --numjobs="$nj" \
		--offset_increment="${size}M" --group_reporting \
		--buffer_compress_percentage=33 --buffer_compress_chunk=4k \
		--refill_buffers --scramble_buffers=0 --randrepeat=1 \
		--output-format=json --output=/tmp/fio.json $extra >/dev/null 2>/tmp/fio.err ||
		{ cat /tmp/fio.err; die "fio $job on $dev failed"; }
	echo "@@@ BEGIN FIO $(devname "$dev") $job-j$nj"
	cat /tmp/fio.json
	echo "@@@ END FIO"
}

workload_prepare() {
	setup
}

workload_run() {	# workload_run RUN SIZE_MIB RUNTIME_S
	local i=$1 size=$2 runtime=$3 dev nj job base_s base_o
	for nj in 1 2; do
		for dev in $(order "$i"); do
			mkdev "$dev" $((size * nj * 1048576 + 1048576))
			read -r base_s base_o < <(footprint_base "$dev")
			for job in seq-write seq-read rand-read rand-write rand-rw; do
				fio_job "$dev" "$job" "$nj" "$size" "$runtime"
				[ "$job" = seq-write ] || continue
				mmstat "$dev" "fio-j$nj"
				footprint "$dev" "fio-j$nj" "$base_s" "$base_o"
			done
			zdev_reset "$dev"
		done
	done
}
