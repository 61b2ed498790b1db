# A kernel update: the other series' image and headers installed; DKMS's
# kernel hook builds our modules for it.
. /host/lib.sh
other=$(cat /host/other-release)
[ -n "$other" ] || { skip "kernel update" "no other series installed on the host"; tap_done kernel-update; }
check_cmd "apt install linux-image-$other linux-headers-$other" \
	apt_get install "linux-image-$other" "linux-headers-$other"
check_cmd "DKMS built the modules for $other" dkms_installed "$other"
check_cmd "its initramfs is there" test -f "/boot/initrd.img-$other"
tap_done kernel-update
