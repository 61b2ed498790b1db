# The user's first steps (Documentation/admin-guide/zram_ng-setup.rst):
# apt install the two packages, DKMS builds for the running kernel, a
# configuration, the unit enabled. The next boot brings swap up.
. /host/lib.sh
install_packages
check "modinfo: zram_ng $VERSION" "$VERSION" "$(modinfo -F version zram_ng 2>&1)"
good_conf
check_cmd "zram-ng-setup print accepts the configuration" zram-ng-setup print
check_cmd "systemctl enable zram-ng-setup.service" systemctl enable zram-ng-setup.service
check "nothing is set up before the reboot" "" "$(swaps | grep zram_ng)"
tap_done install
