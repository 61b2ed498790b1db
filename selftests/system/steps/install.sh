# The user's first steps (Documentation/admin-guide/zram_ng-setup.rst):
# apt install the two packages, DKMS builds for the running kernel, a
# configuration, the unit enabled. The next boot brings swap up.
. /host/lib.sh
rel=$(uname -r)
check_cmd "apt-get update" apt_get update
check_cmd "apt install ./zsmalloc-ng-dkms_*.deb ./zram-ng-tools_*.deb" \
	apt_get install /host/debs/zsmalloc-ng-dkms_*_all.deb /host/debs/zram-ng-tools_*_all.deb
check_cmd "DKMS built and installed the modules for the running kernel ($rel)" dkms_installed "$rel"
check "modinfo: zram_ng $VERSION" "$VERSION" "$(modinfo -F version zram_ng 2>&1)"
good_conf
check_cmd "zram-ng-setup print accepts the configuration" zram-ng-setup print
check_cmd "systemctl enable zram-ng-setup.service" systemctl enable zram-ng-setup.service
check "nothing is set up before the reboot" "" "$(swaps | grep zram_ng)"
tap_done install
