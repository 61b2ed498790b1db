# The boot after the upgrade runs the new module, and swap is up.
. /host/lib.sh
new=$(cat /host/version-upgrade)
check "zram_ng $new is loaded" "$new" "$(cat /sys/module/zram_ng/version 2>&1)"
check "zsmalloc_ng $new is loaded" "$new" "$(cat /sys/module/zsmalloc_ng/version 2>&1)"
check "swap on /dev/zram_ng0" "/dev/zram_ng0 100" "$(swaps | grep zram_ng)"
check "no error from our units or modules in the journal" "" "$(our_errors)"
tap_done upgrade-boot
