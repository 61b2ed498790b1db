# A package of a higher version installs over the running one.
. /host/lib.sh
new=$(cat /host/version-upgrade)
check_cmd "apt install the $new packages" \
	apt_get install /host/debs-upgrade/zsmalloc-ng-dkms_*_all.deb /host/debs-upgrade/zram-ng-tools_*_all.deb
check_cmd "DKMS built $new for the running kernel" \
	sh -c "dkms status -k '$(uname -r)' | grep -q '^zsmalloc_ng/$new.*: installed'"
check "the old version's DKMS tree is gone" "" "$(ls -d /var/lib/dkms/zsmalloc_ng/"$VERSION" 2>/dev/null)"
check "modinfo (on disk): zram_ng $new" "$new" "$(modinfo -F version zram_ng 2>&1)"
tap_done upgrade
