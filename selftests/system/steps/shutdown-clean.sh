# The previous boot ended with a poweroff: the unit was stopped (swapoff,
# reset, hot_remove) before the module went, nothing failed or hung.
. /host/lib.sh
prev() { journalctl -b -1 --no-pager -o cat 2>/dev/null; }
check_cmd "the previous boot's journal is there" test -n "$(prev | head -n 1)"
check_cmd "zram-ng-setup.service was stopped at shutdown" \
	sh -c "journalctl -b -1 --no-pager -o cat -u zram-ng-setup.service | grep -qE 'Stopped|Deactivated|Finished|Stopping'"
check "no error from our units or modules in the previous boot" "" "$(our_errors -1)"
check "no unit failed at its shutdown" "" \
	"$(journalctl -b -1 --no-pager -o cat | grep -E 'Failed with result|timed out|Timed out' | grep -v zsng-system-step)"
check "swap is back on this boot" "/dev/zram_ng0 100" "$(swaps | grep zram_ng)"
tap_done shutdown-clean
