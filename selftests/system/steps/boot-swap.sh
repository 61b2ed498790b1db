# The boot after the install: the unit brought swap up by itself.
. /host/lib.sh
check "zram-ng-setup.service is active" active "$(systemctl is-active zram-ng-setup.service)"
check "swapon --show: /dev/zram_ng0, priority 100" "/dev/zram_ng0 100" "$(swaps | grep zram_ng)"
check "zram_ng $VERSION is loaded" "$VERSION" "$(cat /sys/module/zram_ng/version 2>&1)"
check "no error from our units or modules in the journal" "" "$(our_errors)"
check "a memory hog swaps onto it and verifies its data" verified=1 "$(hog 160)"
used=$(awk '$1 == "/dev/zram_ng0" { print $4 }' /proc/swaps)
check_cmd "the hog's pages went to /dev/zram_ng0 (orig_data_size > 0)" \
	test "$(awk '{ print $1 }' /sys/block/zram_ng0/mm_stat)" -gt 0
echo "# /proc/swaps used on zram_ng0 after the hog: ${used:-?} KiB"
tap_done boot-swap
