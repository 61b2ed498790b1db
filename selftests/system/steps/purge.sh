# apt purge, the tools then the modules (the admin guide's order): swap on
# zram_ng is gone, the modules unloaded, nothing of ours left.
. /host/lib.sh
check_cmd "apt purge zram-ng-tools" apt_get purge zram-ng-tools
check "its removal stopped the unit: no swap on zram_ng" "" "$(swaps | grep zram_ng)"
check "no zram_ng device left" "" "$(ls -d /sys/block/zram_ng* 2>/dev/null)"
check_cmd "apt purge zsmalloc-ng-dkms" apt_get purge zsmalloc-ng-dkms
check "its removal unloaded the modules" "" "$(lsmod | grep -E '^(zram_ng[a-z_]*|zsmalloc_ng) ')"
check "no module file left" "" "$(find /lib/modules -name 'zram_ng*.ko*' -o -name 'zsmalloc_ng.ko*')"
check "no DKMS tree left" "" "$(ls -d /var/lib/dkms/zsmalloc_ng /usr/src/zsmalloc_ng-* 2>/dev/null)"
check "no unit left" "" "$(ls /lib/systemd/system/zram-ng-setup.service /etc/systemd/system/*/zram-ng-setup.service 2>/dev/null)"
check "no configuration left" "" "$(ls /etc/zram_ng.conf 2>/dev/null)"
check "no tool left" "" "$(ls /usr/sbin/zramctl-ng /usr/sbin/zram-ng-setup 2>/dev/null)"
tap_done purge
