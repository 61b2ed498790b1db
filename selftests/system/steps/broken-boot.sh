# Booted with the broken configuration: the unit failed and said why, the
# system is up, nothing was half set up. Then the good configuration again.
. /host/lib.sh
check "zram-ng-setup.service failed" failed "$(systemctl is-failed zram-ng-setup.service)"
check_cmd "the journal has FILE:LINE: KEY: message" \
	sh -c "journalctl -b -u zram-ng-setup.service --no-pager -o cat | grep -q '/etc/zram_ng.conf:3: compresion-algorithm: unknown key'"
check "the system reached multi-user.target" active "$(systemctl is-active multi-user.target)"
check "no zram_ng swap" "" "$(swaps | grep zram_ng)"
check "no zram_ng device left set up" "" \
	"$(for d in /sys/block/zram_ng*; do [ -e "$d/disksize" ] && [ "$(cat "$d/disksize")" != 0 ] && echo "$d"; done)"
good_conf
check_cmd "with the configuration mended the unit starts" systemctl restart zram-ng-setup.service
check "swap on /dev/zram_ng0 again" "/dev/zram_ng0 100" "$(swaps | grep zram_ng)"
tap_done broken-boot
