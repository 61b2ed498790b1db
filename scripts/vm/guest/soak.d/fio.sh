# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # soak-vm's variables
#
# fio: verify=crc32c rounds on dev0 and dev1, until the time is up.
#   mixed    32 MiB random writes, mixed block sizes (4k/16k/64k),
#            verify_backlog and a full verify pass; two rounds in three
#            with O_DIRECT, one buffered; data about 2:1 compressible
#   reclaim  two jobs of 64 MiB each per device, random read/write
#            (issue 18's load)
fio_loads="mixed reclaim"
if [ "$LOAD" = mixed ]; then
	FIO_MB=32		# fio uses [0, 32M) of dev0/1
	FIO_JOBS=1
else
	FIO_MB=64		# per job; two jobs: all of a 128M device
	FIO_JOBS=2
fi

fio_worker() {	# fio_worker DEV
	local dev=$1 round=0 direct opts
	while :; do
		round=$((round + 1))
		if [ $LOAD = mixed ]; then
			direct=$((round % 3 ? 1 : 0))
			opts="--rw=randwrite --bssplit=4k/60:16k/30:64k/10 --blockalign=4k --iodepth=8 --direct=$direct --verify_backlog=512"
		else
			opts="--rw=randrw --bs=4k --iodepth=4 --direct=1 --numjobs=$FIO_JOBS --offset_increment=${FIO_MB}M"
		fi
		# shellcheck disable=SC2086 # opts is a list of options
		if fio --name="soak-$dev" --filename="/dev/$dev" --size=${FIO_MB}M \
			$opts --ioengine=libaio \
			--buffer_compress_percentage=50 --buffer_compress_chunk=512 \
			--refill_buffers --randseed=$((round * 7919 + ${#dev})) \
			--verify=crc32c --do_verify=1 --verify_fatal=1 \
			--verify_state_save=0 \
			--output="$T/fio-$dev.out" >/dev/null 2>&1; then
			add "$T/fio-$dev.bytes" $((FIO_JOBS * FIO_MB << 20))
			add "$T/fio-$dev.rounds" 1
		else
			err "fio-$dev" "round $round: $(grep -m3 -iE 'err|verify' "$T/fio-$dev.out" | tr '\n' ' ')"
			cp "$T/fio-$dev.out" "$T/evidence/fio-$dev.failed-$round"
		fi
		left || break
	done
}

fio_start() {
	fio_worker $D0 &
	fio_worker $D1 &
}
