# make check's part: in one boot, the packages installed (DKMS builds for
# the running kernel), the unit started, swap on /dev/zram_ng0, data
# swapped out and back, the unit stopped cleanly.
. /host/lib.sh
install_packages
good_conf
check_cmd "systemctl start zram-ng-setup.service" systemctl start zram-ng-setup.service
check "swapon --show: /dev/zram_ng0, priority 100" "/dev/zram_ng0 100" "$(swaps | grep zram_ng)"
check "a memory hog swaps onto it and verifies its data" verified=1 "$(hog 160)"
check_cmd "systemctl stop zram-ng-setup.service" systemctl stop zram-ng-setup.service
check "no swap left on zram_ng" "" "$(swaps | grep zram_ng)"
check "no error from our units or modules in the journal" "" "$(our_errors)"
tap_done install-quick
