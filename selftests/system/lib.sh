# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# What the system-test steps (steps/*.sh) share. They run as root in the
# booted Debian image (dash), in /host, the host's share, which holds the
# packages (debs/, debs-upgrade/), version, version-upgrade,
# other-release, the static memory hog (swapper) and the one TAP helper.
. /host/tap.sh
export DEBIAN_FRONTEND=noninteractive
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# shellcheck disable=SC2034 # the steps read it
VERSION=$(cat /host/version)

# apt_get ARGS...: apt-get -y, its output kept in /tmp/apt.log and shown
# (the tail) only when it fails
apt_get() {
	apt-get -y -q -o Dpkg::Use-Pty=0 "$@" >/tmp/apt.log 2>&1 && return 0
	tail -n 25 /tmp/apt.log
	return 1
}

# good_conf: the configuration the steps expect to see at boot
good_conf() {
	cat >/etc/zram_ng.conf <<'CONF'
# written by the system tests (selftests/system)
[zram_ng0]
zram-size = 256
compression-algorithm = lz4
swap-priority = 100
CONF
}

# swaps: "NAME PRIORITY" of each active swap, one a line
swaps() {
	swapon --show=NAME,PRIO --noheadings --raw 2>/dev/null
}

# our_errors [BOOT]: error lines of this boot's journal (or of boot BOOT,
# e.g. -1) that come from our units, tools or modules
our_errors() {
	journalctl -b "${1:-0}" -p err --no-pager -o short-monotonic 2>/dev/null |
		grep -iE 'zram.ng|zsmalloc.ng|zramctl-ng'
}

# dkms_installed RELEASE: DKMS built and installed our modules for RELEASE
dkms_installed() {
	dkms status -k "$1" 2>/dev/null | grep -q "^zsmalloc_ng/.*: installed"
}

# hog MIB: the memory hog in a cgroup of 64 MiB: MIB MiB of partly
# compressible pages written, read back and verified, so that what does not
# fit goes out to swap and comes back; prints swapper's verdict line
hog() {
	rm -f /tmp/hog.done
	systemd-run --quiet --scope -p MemoryMax=64M -p MemorySwapMax=infinity \
		/host/swapper "$1" 1 /tmp/hog.done >/tmp/hog.out 2>&1 &
	_i=0
	while [ ! -e /tmp/hog.done ] && [ $_i -lt 600 ]; do
		sleep 1
		_i=$((_i + 1))
	done
	grep -o 'verified=[01]' /tmp/hog.out
	pkill -TERM -x swapper
	wait
}

# install_packages: what the admin guide says, checked: apt-get update,
# apt install of the two packages, DKMS built for the running kernel
install_packages() {
	check_cmd "apt-get update" apt_get update
	check_cmd "apt install ./zsmalloc-ng-dkms_*.deb ./zram-ng-tools_*.deb" \
		apt_get install /host/debs/zsmalloc-ng-dkms_*_all.deb /host/debs/zram-ng-tools_*_all.deb
	check_cmd "DKMS built and installed the modules for the running kernel ($(uname -r))" \
		dkms_installed "$(uname -r)"
}
