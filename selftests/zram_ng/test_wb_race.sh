#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Reads never return another page's data (issue 27). A read of a
# written-back slot names its block under the slot lock and reads it after
# dropping the lock; if the slot is overwritten or discarded meanwhile,
# the block must not be given to another slot's page before that read
# has reached the device. Here the backing device is a brd ramdisk behind
# dm-delay, reads delayed WBRACE_READ_MS (default 50) ms and writes not,
# so every read of a written-back page stays in flight long enough for
# the race; ./wbrace (scripts/vm/guest/wbrace.c, built by scripts/vm-tests)
# writes WBRACE_PAGES pages, then for WBRACE_SECONDS (default 60) rewrites
# and discards them and reads them back with O_DIRECT, checking that every
# page carries its own LBA and a generation its writes could have left,
# while a loop here marks every page idle and writes the idle pages back.
# Passes when wbrace saw no page of another LBA, no corrupt and no stale
# page, and writeback really happened: bd_writes and bd_reads grew (reads
# did go to the device), and the setup tears down. Without the fix (an
# epoch quarantine of freed blocks) wbrace saw hundreds of pages of
# another LBA a minute (Documentation/reliability.rst).
# vm-timeout: 240
. "$(dirname "$0")/common.sh"

D=$ZSYS/zram_ng0
B=/dev/zram_ng0
T=/tmp/wb-race
WBRACE=${WBRACE:-/work/wbrace}
READ_MS=${WBRACE_READ_MS:-50}
SECONDS_RUN=${WBRACE_SECONDS:-60}
PAGES=${WBRACE_PAGES:-512}
DM=zwbrace
export DM_DISABLE_UDEV=1

# wb_loop: "all" > idle, "idle" > writeback until $T/stop exists; counts
# the passes that wrote, those refused because another pass ran (EAGAIN,
# EBUSY: not an error) and the others, in $T/wb.counts
wb_loop() {
	_ok=0 _busy=0 _other=0
	while [ ! -e $T/stop ]; do
		echo all >$D/idle 2>/dev/null
		if echo idle >$D/writeback 2>$T/wb.err; then
			_ok=$((_ok + 1))
		elif grep -qE "$(errno_text EAGAIN)|$(errno_text EBUSY)" $T/wb.err; then
			_busy=$((_busy + 1))
		else
			_other=$((_other + 1))
			cat $T/wb.err >>$T/wb.errors
		fi
	done
	echo "$_ok $_busy $_other" >$T/wb.counts
}

# field NAME: a count of wbrace's last line
field() {
	sed -n "s/^wbrace:.* $1 \([0-9]*\).*/\1/p" $T/wbrace.out
}

ktap_header
if [ ! -x "$WBRACE" ]; then
	ktap_plan 1
	ktap_fail "$WBRACE is here (scripts/vm-tests builds scripts/vm/guest/wbrace.c and adds it)"
	ktap_finish
fi
ktap_plan 14

rm -rf $T
mkdir -p $T
zram_ng_reload
rmmod brd 2>/dev/null
ok=1
modprobe brd rd_nr=1 rd_size=65536 && modprobe dm_delay || ok=0
sectors=$(blockdev --getsz /dev/ram0 2>/dev/null)
[ $ok = 1 ] && dmsetup create $DM --noudevsync \
	--table "0 $sectors delay /dev/ram0 0 $READ_MS /dev/ram0 0 0" &&
	dmsetup mknodes $DM || ok=0
ktap_result "dm-delay over /dev/ram0: reads delayed $READ_MS ms, writes not" \
	sh -c "[ $ok = 1 ] && [ -b /dev/mapper/$DM ]"
ktap_result "it is zram_ng0's backing_dev" \
	sh -c "echo /dev/mapper/$DM > $D/backing_dev && echo 32M > $D/disksize"

w0=$(bd_stat zram_ng0 bd_writes)
r0=$(bd_stat zram_ng0 bd_reads)
wb_loop &
loop=$!
ktap_print "wbrace $B 0 $PAGES $SECONDS_RUN, idle + writeback in a loop"
"$WBRACE" $B 0 "$PAGES" "$SECONDS_RUN" --readers 4 --writers 2 \
	>$T/wbrace.out 2>$T/wbrace.err
rc=$?
touch $T/stop
wait $loop
head -n 10 $T/wbrace.err | sed 's/^/# /'
sed 's/^/# /' $T/wbrace.out
read -r passes busy other <$T/wb.counts
ktap_print "writeback passes $passes, refused as busy $busy, failed $other; bd_stat $(xargs <$D/bd_stat), ng_stat $(xargs <$D/ng_stat 2>/dev/null)"
[ ! -s $T/wb.errors ] || sort $T/wb.errors | uniq -c | sed 's/^/# writeback: /'

ktap_result "wbrace read pages ($(field reads) reads)" test "$(field reads)" -gt 0
ktap_result "no read returned another page's LBA (foreign_lba $(field foreign_lba))" \
	assert_eq 0 "$(field foreign_lba)"
ktap_result "no read returned a corrupt page (corrupt $(field corrupt))" \
	assert_eq 0 "$(field corrupt)"
ktap_result "no read returned an older page or lost data (stale $(field stale))" \
	assert_eq 0 "$(field stale)"
ktap_result "no I/O error" assert_eq "0 0" "$(field read_errors) $(field write_errors)"
ktap_result "wbrace passed (exit $rc)" test $rc = 0
ktap_result "writeback passes ran ($passes) and none failed ($other)" \
	sh -c "[ $passes -ge 10 ] && [ $other = 0 ]"
ktap_result "bd_writes grew by $(($(bd_stat zram_ng0 bd_writes) - w0)) (at least $PAGES)" \
	test "$(($(bd_stat zram_ng0 bd_writes) - w0))" -ge "$PAGES"
ktap_result "bd_reads grew by $(($(bd_stat zram_ng0 bd_reads) - r0)) (at least 100: reads went to the device)" \
	test "$(($(bd_stat zram_ng0 bd_reads) - r0))" -ge 100

ktap_result "reset" sh -c "echo 1 > $D/reset"
ktap_result "dmsetup remove" dmsetup remove --noudevsync $DM
ktap_result "rmmod brd" rmmod brd
rm -rf $T
ktap_finish
