# Both came up, each on its own device, with its own priority.
. /host/lib.sh
check "zram-generator's /dev/zram0, priority 50" "/dev/zram0 50" "$(swaps | grep -E '^/dev/zram[0-9]')"
check "ours: /dev/zram_ng0, priority 100" "/dev/zram_ng0 100" "$(swaps | grep zram_ng)"
check "zram-ng-setup.service is active" active "$(systemctl is-active zram-ng-setup.service)"
check "no unit failed" "" "$(systemctl --failed --no-legend --plain | grep -v zsng-system-step)"
check "no error from our units or modules in the journal" "" "$(our_errors)"
check_cmd "apt purge systemd-zram-generator" apt_get purge systemd-zram-generator
rm -f /etc/systemd/zram-generator.conf
tap_done generator-boot
