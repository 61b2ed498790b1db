# Both came up, each on its own device, with its own priority.
. /host/lib.sh
check "zramswap's /dev/zram0, priority 50" "/dev/zram0 50" "$(swaps | grep -E '^/dev/zram[0-9]')"
check "ours: /dev/zram_ng0, priority 100" "/dev/zram_ng0 100" "$(swaps | grep zram_ng)"
check "zramswap.service is active" active "$(systemctl is-active zramswap.service)"
check "zram-ng-setup.service is active" active "$(systemctl is-active zram-ng-setup.service)"
check "no error from our units or modules in the journal" "" "$(our_errors)"
check_cmd "apt purge zram-tools" apt_get purge zram-tools
tap_done zram-tools-boot
