# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154,SC2034 # soak-vm's variables
#
# wbrace: the read race of issue 27 (selftests/zram_ng/test_wb_race.sh)
# on a device of its own, hot_added here (zram_ng only: the stock zram has
# the race). Its backing device is the second brd ramdisk (/dev/ram1;
# writeback.sh's is ram0) under a dm-linear device under dm-delay, reads
# delayed 50 ms, writes not. ./wbrace (scripts/vm/guest/wbrace.c, which
# scripts/soak adds) rewrites, discards and reads back 512 pages with
# O_DIRECT, checking that each carries its own LBA and a generation its
# writes could have left, while a loop marks every page idle and writes
# the idle pages back. First half: a page of another LBA, a corrupt or
# stale page, any I/O error is an error. Second half, the flaky phase: the
# linear table is swapped for dm-flakey (up 2 s, down 1 s, every I/O
# failing while down): read errors and failed writeback passes (EIO, and
# ENOSPC once the blocks retired by failed writes fill the ramdisk) are
# accepted, wrong data never is.
wbrace_loads="mixed"
WBR_BIN=${WBRACE:-/work/wbrace}
WBR_PAGES=512
WBR_LOWER=zsoak-wbl	# linear, then flakey, over /dev/ram1
WBR_UPPER=zsoak-wbr	# delay over the lower one: the backing device
WBR_ID=
WBR_DEV=

wbrace_setup() {
	local sectors
	if [ $STACK != ng ]; then
		log "wbrace: not on the stock zram (it has the race of issue 27)"
		return 0
	fi
	[ -x "$WBR_BIN" ] || { err wbrace "$WBR_BIN missing (scripts/soak adds it)"; return 0; }
	# Two ramdisks, whichever of this and writeback.sh loads brd first.
	if [ ! -b /dev/ram1 ]; then
		rmmod brd 2>/dev/null
		modprobe brd rd_nr=2 rd_size=131072 || { err wbrace "modprobe brd"; return 0; }
	fi
	sectors=$(blockdev --getsz /dev/ram1)
	export DM_DISABLE_UDEV=1
	if ! modprobe dm_delay || ! modprobe dm_flakey ||
		! dmsetup create $WBR_LOWER --noudevsync --table "0 $sectors linear /dev/ram1 0" ||
		! dmsetup create $WBR_UPPER --noudevsync \
			--table "0 $sectors delay /dev/mapper/$WBR_LOWER 0 50 /dev/mapper/$WBR_LOWER 0 0" ||
		! dmsetup mknodes; then
		err wbrace "dm-delay over dm-linear over /dev/ram1"
		return 0
	fi
	if ! WBR_ID=$(cat $ZCTL/hot_add); then
		err wbrace "hot_add"
		return 0
	fi
	WBR_DEV=$DEV$WBR_ID
	echo /dev/mapper/$WBR_UPPER >$ZSYS/$WBR_DEV/backing_dev &&
		echo 32M >$ZSYS/$WBR_DEV/disksize || err wbrace "$WBR_DEV: backing_dev, disksize"
}

# wbrace_loop: "all" > idle, "idle" > writeback until $T/wbr.stop exists;
# once $T/wbr.eio-ok exists (the flaky phase) -EIO is accepted, and
# -ENOSPC: each failed write retires its block, so a long flaky phase may
# use the ramdisk up
wbrace_loop() {
	local s=$ZSYS/$WBR_DEV
	while [ ! -e $T/wbr.stop ]; do
		echo all >$s/idle 2>/dev/null
		if echo idle >$s/writeback 2>$T/wbr.err; then
			add $T/wbr.passes 1
		elif [ -e $T/wbr.eio-ok ] &&
			grep -qE 'Input/output error|No space left on device' $T/wbr.err; then
			add $T/wbr.passes-failed 1
		elif ! grep -qE 'Resource temporarily unavailable|Device or resource busy' $T/wbr.err; then
			err wbrace "writeback: $(cat $T/wbr.err)"
			sleep 1
		fi
	done
}

# wbrace_run PHASE SECONDS [WBRACE-OPTIONS]: one wbrace run; its counts
# to $T/wbr.PHASE, a wrong page (or an error the phase does not accept)
# to the errors
wbrace_run() {
	local out=$T/wbrace-$1.out line k v
	"$WBR_BIN" /dev/$WBR_DEV 0 $WBR_PAGES "$2" --readers 4 --writers 2 "${@:3}" >"$out" 2>&1
	line=$(grep '^wbrace: reads' "$out")
	echo "${line#wbrace: }" >$T/wbr.$1
	if [ -z "$line" ]; then
		err wbrace "$1: wbrace did not finish: $(head -n 2 "$out" | tr '\n' ' ')"
		return
	fi
	for k in foreign_lba corrupt stale write_errors read_errors; do
		v=$(echo "$line" | sed -n "s/.* $k \([0-9]*\).*/\1/p")
		[ "$v" = 0 ] && continue
		[ "$k" = read_errors ] && [ "$1" = flaky ] && continue
		err wbrace "$1: $k $v, the first: $(grep -v '^wbrace: reads' "$out" | head -n 1)"
	done
}

wbrace_worker() {
	local s loop sectors
	sectors=$(blockdev --getsz /dev/ram1)
	wbrace_loop &
	loop=$!
	s=$(((END - $(now)) / 2))
	wbrace_run clean $((s < 5 ? 5 : s))
	touch $T/wbr.eio-ok
	dmsetup suspend $WBR_LOWER &&
		dmsetup load $WBR_LOWER --table "0 $sectors flakey /dev/ram1 0 2 1" &&
		dmsetup resume $WBR_LOWER || err wbrace "dm-flakey under $WBR_UPPER"
	s=$((END - $(now)))
	wbrace_run flaky $((s < 5 ? 5 : s)) --eio-ok
	touch $T/wbr.stop
	wait $loop
	# the teardown's reset sees a working device
	dmsetup suspend $WBR_LOWER &&
		dmsetup load $WBR_LOWER --table "0 $sectors linear /dev/ram1 0" &&
		dmsetup resume $WBR_LOWER || err wbrace "dm-linear back under $WBR_UPPER"
}

wbrace_start() {
	[ -n "$WBR_DEV" ] || return 0
	wbrace_worker &
}

wbrace_teardown() {
	[ -n "$WBR_DEV" ] || return 0
	log "wbrace on $WBR_DEV: clean phase: $(cat $T/wbr.clean)"
	log "wbrace on $WBR_DEV: flaky phase: $(cat $T/wbr.flaky 2>/dev/null)"
	log "wbrace on $WBR_DEV: writeback passes $(cat $T/wbr.passes 2>/dev/null || echo 0), failed (flaky: EIO, ENOSPC) $(cat $T/wbr.passes-failed 2>/dev/null || echo 0), bd_stat $(xargs <$ZSYS/$WBR_DEV/bd_stat), ng_stat $(xargs <$ZSYS/$WBR_DEV/ng_stat), failed_reads $(io_stat $WBR_DEV failed_reads)"
	echo 1 >$ZSYS/$WBR_DEV/reset || err teardown "reset $WBR_DEV"
	echo "$WBR_ID" >$ZCTL/hot_remove || err teardown "hot_remove $WBR_DEV"
	dmsetup remove --noudevsync $WBR_UPPER && dmsetup remove --noudevsync $WBR_LOWER ||
		err teardown "dmsetup remove $WBR_UPPER $WBR_LOWER"
	# writeback.sh's teardown unloads brd after its own reset
	[ "$WB" = 1 ] || rmmod brd || err teardown "rmmod brd"
}
