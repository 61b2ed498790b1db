# The maintenance policy as the timer runs it, on a real system
# (zram-ng-maintain.timer, issue 29): the timer came enabled with the
# setup unit; a policy (idle after 1 s, groups of 16, recompression of
# what is left with zstd), the timer made to fire every 20 s by a drop-in;
# a tmpfs file of text written from a 32 MiB cgroup goes out to
# /dev/zram_ng0; the timer's pass groups its idle pages, the file reads
# back identical, nothing of ours logs an error. The good configuration
# and the hourly timer back at the end.
. /host/lib.sh
DROPIN=/run/systemd/system/zram-ng-maintain.timer.d
MNT=/mnt/zng-maint
D=/sys/block/zram_ng0

check "zram-ng-maintain.timer is enabled (the setup unit's Also=)" enabled \
	"$(systemctl is-enabled zram-ng-maintain.timer 2>&1)"
check "... and waiting" active "$(systemctl is-active zram-ng-maintain.timer 2>&1)"

cat >/etc/zram_ng.conf <<'CONF'
# written by the system tests (selftests/system): maintain
[zram_ng0]
zram-size = 256
compression-algorithm = lz4 zstd
swap-priority = 100
idle-age = 1s
group-pages = 16
recompress = idle
CONF
check_cmd "zram-ng-setup print accepts the policy" zram-ng-setup print
check_cmd "systemctl restart zram-ng-setup.service (a secondary algorithm now)" \
	systemctl restart zram-ng-setup.service
check "swap is back on" "/dev/zram_ng0 100" "$(swaps | grep zram_ng)"

# 96 MiB of one 16 KiB block of text, over and over (a file a group
# of 16 pages stores in far less than its pages one by one)
head -c 4096 /dev/urandom | od -An -v -tu1 |
	awk '{ for (i = 1; i <= NF; i++) printf "%4d", $i % 64; print "" }' 2>/dev/null |
	head -c 16384 >/tmp/zng-blk
# /tmp/zng-1m: 1 MiB of it; rep: the file's contents, 96 of those
_i=0
while [ $_i -lt 64 ]; do
	cat /tmp/zng-blk
	_i=$((_i + 1))
done >/tmp/zng-1m
rep() {
	_i=0
	while [ $_i -lt 96 ]; do
		cat /tmp/zng-1m
		_i=$((_i + 1))
	done
}
reads_back() { rep | cmp -s - $MNT/rep; }
said() { printf '%s\n' "$log" | grep -q "$1"; }
mkdir -p $MNT
mount -t tmpfs -o size=160M tmpfs $MNT
# shellcheck disable=SC2016 # the loop is the service's
check_cmd "96 MiB into a tmpfs from a 32 MiB cgroup" \
	systemd-run --wait --quiet -p MemoryMax=32M -p MemorySwapMax=infinity \
	sh -c 'i=0; while [ $i -lt 96 ]; do cat /tmp/zng-1m; i=$((i + 1)); done >/mnt/zng-maint/rep'
orig=$(awk '{ print $1 }' $D/mm_stat)
check_cmd "... most of it went out to /dev/zram_ng0 (orig_data_size $orig)" \
	test "$orig" -ge $((48 << 20))

mkdir -p $DROPIN
cat >$DROPIN/every-20s.conf <<'UNIT'
[Timer]
OnCalendar=
OnCalendar=*:*:0/20
RandomizedDelaySec=0
AccuracySec=1s
UNIT
systemctl daemon-reload
systemctl restart zram-ng-maintain.timer
before=$(systemctl show -p ExecMainExitTimestampMonotonic --value zram-ng-maintain.service)
i=0
while [ $i -lt 600 ]; do
	now=$(systemctl show -p ExecMainExitTimestampMonotonic --value zram-ng-maintain.service)
	[ "$now" != "$before" ] && [ "$now" != 0 ] && break
	sleep 2
	i=$((i + 2))
done
echo "# the timer's pass ended ${i} s after the timer was restarted"
# no second pass beside what follows: the timer stopped, any pass let end
systemctl stop zram-ng-maintain.timer
while [ "$(systemctl is-active zram-ng-maintain.service)" = activating ]; do
	sleep 1
done
check "the timer started zram-ng-maintain.service, which succeeded" success \
	"$(systemctl show -p Result --value zram-ng-maintain.service)"
log=$(journalctl -b --no-pager -o cat -u zram-ng-maintain.service)
echo "$log" | sed 's/^/#   /' | tail -n 12
check_cmd "... and said it grouped idle pages" said "grouped idle pages"
grouped=$(awk '{ print $2 }' $D/group_stat)
check_cmd "16 MiB or more of the file is in groups (grouped_pages $grouped)" \
	test "$grouped" -ge 4096
check_cmd "the file reads back identical" reads_back
check "no error from our units or modules in the journal" "" "$(our_errors)"

umount $MNT
rm -f /tmp/zng-blk /tmp/zng-1m
good_conf
check_cmd "the good configuration back (restart)" systemctl restart zram-ng-setup.service
check "swap on /dev/zram_ng0, priority 100" "/dev/zram_ng0 100" "$(swaps | grep zram_ng)"
rm -rf $DROPIN
systemctl daemon-reload
check_cmd "the hourly timer back" systemctl start zram-ng-maintain.timer
tap_done maintain
