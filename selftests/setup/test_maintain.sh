#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# zram-ng-setup's tiers against zram_ng: start with a writeback device
# named by a /dev/disk/by-partuuid-style link (a dm linear over a brd
# ramdisk, so that it can fail later), secondary algorithms and a
# maintenance policy (idle-age 1s, recompress idle pages with zstd, write
# back the idle huge ones within 3 MiB a day), an ext4 on it holding
# random hex text (huge with lz4, half with zstd) and random data (huge
# for every algorithm), then "zram-ng-setup maintain" as the timer runs
# it, the clock moved by ZRAM_NG_NOW: the hex pages are recompressed, the
# random ones written back from the next pass on (recompression clears
# the idle mark of the pages it tries), no more than the day's budget
# however many passes run that day, the budget again the next day;
# everything reads back identical. Then the backing device fails (its table swapped for
# dm's error target): the pass reports EIO with the device, its other
# steps ran, and the device still works and reads back. A backing device
# holding swap is refused by start before anything is set up. Last, a
# policy with group-pages groups the idle pages of a file that reads back.
# vm-timeout: 240
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../../scripts/vm/guest/lib.sh"

CONF=/etc/zram_ng.conf
MNT=/mnt/zng-maint
SYS=/sys/block
D=$SYS/zram_ng0
DBG=/sys/kernel/debug/zram_ng/zram_ng0/block_state
LINK=/dev/disk/by-partuuid/zng-wb
STATE=/var/lib/zram_ng
BUDGET=768	# 3M/day in 4 KiB pages
DAY=20429
export DM_DISABLE_UDEV=1

unload() { rmmod zram_ng 2>/dev/null; rmmod zsmalloc_ng 2>/dev/null; :; }
# quietly CMD...: CMD's output as KTAP diagnostics, its exit status kept
quietly() {
	_out=$("$@" 2>&1)
	_rc=$?
	[ -z "$_out" ] || echo "$_out" | sed 's/^/# /'
	return $_rc
}
# pass DAY HOUR: one maintenance pass at that time, its output in $out
# (and as diagnostics), its status returned
pass() {
	out=$(ZRAM_NG_NOW=$(($1 * 86400 + $2 * 3600)) zram-ng-setup maintain 2>&1)
	_rc=$?
	echo "$out" | sed 's/^/# /'
	return $_rc
}
has() { case $out in *"$1"*) return 0 ;; esac; ktap_print "no '$1' above"; return 1; }
writes() { bd_stat zram_ng0 bd_writes; }
flags() { awk -v c="$1" 'index($3, c) { n++ } END { print n + 0 }' $DBG; }
# table linear|error: the backing device's dm table, live
table() {
	if [ "$1" = linear ]; then t="0 131072 linear /dev/ram0 0"; else t="0 131072 error"; fi
	echo "$t" | { dmsetup suspend --noudevsync zngwb && dmsetup load zngwb &&
		dmsetup resume --noudevsync zngwb; }
}
# same: the files read back (not from the page cache) as written
same() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	cmp -s /tmp/zng-hex $MNT/hex && cmp -s /tmp/zng-rnd $MNT/rnd
}
fails() { ! "$@"; }
le() { [ "$1" -le "$2" ] || { ktap_print "$1 > $2"; return 1; }; }
gt() { [ "$1" -gt "$2" ] || { ktap_print "$1 <= $2"; return 1; }; }

ktap_header
ktap_plan 37

unload
for m in lz4 zstd; do modprobe $m 2>/dev/null; done
rmmod brd 2>/dev/null
modprobe brd rd_nr=1 rd_size=65536 || { ktap_print "no brd"; exit 1; }
echo "0 131072 linear /dev/ram0 0" | dmsetup create --noudevsync zngwb &&
	dmsetup mknodes zngwb 2>/dev/null
BD=/dev/mapper/zngwb
[ -b $BD ] || BD=/dev/$(dmsetup info -c --noheadings -o blkdevname zngwb)
mkdir -p /dev/disk/by-partuuid $MNT
ln -sf "$BD" $LINK
rm -rf $STATE

# A backing device that holds swap: refused, nothing set up.
mkswap $BD >/dev/null 2>&1
cat >$CONF <<CONFIG
[zram_ng0]
zram-size = 64
compression-algorithm = lz4 zstd (type=idle)
idle-age = 1s
writeback-device = $LINK
writeback = huge_idle
writeback-limit = 3M/day
fs-type = ext4
mount-point = $MNT
options = noatime
CONFIG
out=$(zram-ng-setup start 2>&1)
echo "$out" | sed 's/^/# /'
ktap_result "a backing device holding swap: refused at its line, nothing set up" sh -c \
	"case \"\$1\" in *'$CONF:5: writeback-device: $BD holds data (TYPE swap)'*) ;; *) exit 1 ;; esac &&
	! [ -e /run/zram_ng/zram_ng0 ] && ! grep -q zram_ng /proc/mounts" sh "$out"
dd if=/dev/zero of=$BD bs=4096 count=16 2>/dev/null

ktap_result "print: the link resolved to the device" sh -c \
	"zram-ng-setup print | grep -qx 'tiers zram_ng0 backing=$BD recomp=zstd levels=- idle=1 recompress=type=idle writeback=huge_idle budget=$BUDGET group=-'"
ktap_result "start" quietly zram-ng-setup start
ktap_result "backing_dev is the device, zstd the secondary algorithm" assert_eq "$BD zstd" \
	"$(cat $D/backing_dev) $(sed -n 's/^#1: .*\[\(.*\)\].*/\1/p' $D/recomp_algorithm)"
ktap_result "no writeback, no limit set by start" assert_eq "0 0" \
	"$(writes) $(cat $D/writeback_limit_enable)"

# 8 MiB of hex text, 8 MiB of random data; sources kept in /tmp
head -c 4194304 /dev/urandom | od -An -v -tx1 | tr -d ' \n' >/tmp/zng-hex
head -c 8388608 /dev/urandom >/tmp/zng-rnd
cp /tmp/zng-hex $MNT/hex && cp /tmp/zng-rnd $MNT/rnd && sync
huge0=$(mm_stat zram_ng0 huge_pages)
compr0=$(mm_stat zram_ng0 compr_data_size)
ktap_print "huge pages $huge0, compressed $compr0 B"
sleep 2

ktap_result "pass 1: succeeds" pass $DAY 1
ktap_print "bd_writes $(writes), recompressed $(flags r), incompressible $(flags n), idle $(flags i)"
ktap_result "pass 1: idle, recompress, writeback reported" sh -c \
	'case "$1" in *"marked idle"*"recompress type=idle"*"writeback huge_idle"*) ;; *) exit 1 ;; esac' sh "$out"
ktap_result "pass 1: pages recompressed (hex text, zstd)" gt "$(flags r)" 1000
ktap_result "pass 1: compressed data fell" gt "$compr0" "$(mm_stat zram_ng0 compr_data_size)"
# (recompression clears the idle mark of every page it tries, as
# upstream's does: those it could not shrink are idle again at the next
# pass, and not tried again)
ktap_result "pass 1: nothing written back: the pages recompression tried are not idle" \
	assert_eq 0 "$(writes)"

ktap_result "pass 2: succeeds" pass $DAY 2
w2=$(writes)
ktap_print "bd_writes $w2, recompressed $(flags r), incompressible $(flags n), idle $(flags i)"
ktap_result "pass 2: the incompressible pages written back" gt "$w2" 0
ktap_result "pass 2: no more than the day's budget ($BUDGET pages)" le "$w2" $BUDGET
ktap_result "pass 2: the budget stopped it (more was idle)" has "(the budget stopped it)"
ktap_result "zramctl-ng: the tiers, WB-LIMIT 0" sh -c \
	'set -- $(zramctl-ng -o IDLE,RECOMPRESSED,WRITTEN-BACK,WB-LIMIT --bytes --raw -n /dev/zram_ng0)
	echo "# IDLE $1 RECOMPRESSED $2 WRITTEN-BACK $3 WB-LIMIT $4"
	[ "$1" -gt 0 ] && [ "$2" -gt 0 ] && [ "$3" -gt 0 ] && [ "$4" = 0 ]'

ktap_result "pass 3, the same day: succeeds" pass $DAY 5
ktap_result "pass 3: the budget is spent, said" has "today's budget ($BUDGET pages (3 MiB)) is spent"
ktap_result "pass 3: nothing written" assert_eq "$w2" "$(writes)"

ktap_result "pass 4, the next day: succeeds" pass $((DAY + 1)) 0
w4=$(writes)
ktap_result "pass 4: written back again" gt "$w4" "$w2"
ktap_result "pass 4: within the new day's budget" le $((w4 - w2)) $BUDGET
ktap_result "the state: the day and what it spent" assert_eq "day=$((DAY + 1)) spent=$((w4 - w2))" \
	"$(cut -d' ' -f1-2 $STATE/zram_ng0)"
ktap_result "the files read back identical" same

# The backing device fails: the pass says so, the device goes on.
sleep 2
table error
ktap_result "pass 5, the backing device failing: fails" fails pass $((DAY + 2)) 0
ktap_result "pass 5: the device and the error said" \
	has "/dev/zram_ng0: writeback \"huge_idle\": Input/output error (the backing device failed)"
ktap_result "pass 5: idle and recompress ran" sh -c \
	'case "$1" in *"marked idle"*"recompress type=idle"*) ;; *) exit 1 ;; esac' sh "$out"
table linear
ktap_result "the files read back identical after the failure" same
ktap_result "the device still takes and returns data" sh -c \
	"head -c 1048576 /dev/urandom >/tmp/zng-new && cp /tmp/zng-new $MNT/new && sync &&
	echo 3 >/proc/sys/vm/drop_caches && cmp -s /tmp/zng-new $MNT/new"
ktap_result "zramctl-ng lists the device with its backing device" assert_eq "/dev/zram_ng0 $BD" \
	"$(zramctl-ng -o NAME,BACKING --raw -n /dev/zram_ng0)"
ktap_result "stop" quietly zram-ng-setup stop

# Grouping: a policy that groups the idle pages (group-pages), on a file
# of text that repeats every 16 KiB (far smaller in groups than alone).
cat >$CONF <<CONFIG
[zram_ng0]
zram-size = 64
idle-age = 1s
group-pages = 16
fs-type = ext4
mount-point = $MNT
options = noatime
CONFIG
ktap_result "start with group-pages" quietly zram-ng-setup start
head -c 4096 /dev/urandom | od -An -v -tu1 |
	awk '{ for (i = 1; i <= NF; i++) printf "%4d", $i % 64; print "" }' | head -c 16384 >/tmp/zng-blk
i=0
while [ $i -lt 512 ]; do cat /tmp/zng-blk; i=$((i + 1)); done >/tmp/zng-rep
cp /tmp/zng-rep $MNT/rep && sync && echo 3 >/proc/sys/vm/drop_caches
sleep 2
ktap_result "pass 6: succeeds" pass $((DAY + 3)) 0
ktap_result "pass 6: grouped the idle pages, said" has "grouped idle pages"
ktap_result "pass 6: 2048 pages or more in groups" le 2048 "$(group_stat zram_ng0 grouped_pages)"
ktap_result "zramctl-ng: GROUPED" le $((2048 * 4096)) \
	"$(zramctl-ng -o GROUPED --bytes --raw -n /dev/zram_ng0)"
ktap_result "the grouped file reads back identical" sh -c \
	"echo 3 >/proc/sys/vm/drop_caches && cmp -s /tmp/zng-rep $MNT/rep"
ktap_result "stop, with groups" quietly zram-ng-setup stop

rm -f $CONF /tmp/zng-hex /tmp/zng-rnd /tmp/zng-new /tmp/zng-blk /tmp/zng-rep $LINK
rm -rf $STATE
dmsetup remove --noudevsync zngwb
rmmod brd 2>/dev/null
unload
ktap_finish
