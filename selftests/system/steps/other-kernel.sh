# Booted on the other series' kernel: swap comes up the same way.
. /host/lib.sh
check "running $(cat /host/other-release)" "$(cat /host/other-release)" "$(uname -r)"
check "zram-ng-setup.service is active" active "$(systemctl is-active zram-ng-setup.service)"
check "swap on /dev/zram_ng0" "/dev/zram_ng0 100" "$(swaps | grep zram_ng)"
check "a memory hog swaps onto it and verifies its data" verified=1 "$(hog 160)"
check "no error from our units or modules in the journal" "" "$(our_errors)"
tap_done other-kernel
