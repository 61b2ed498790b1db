#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages this project needs: build (kernel headers,
# g++-12, cmake, gtest, benchmark), the test VM (QEMU, the Debian kernel
# images and what goes into the initramfs), style checks and plotting.
# Both supported kernel series (kbuild/kernels): 6.1, Debian 12's own,
# and 6.12 (linux-*-6.12-amd64, the meta-packages that follow its newest
# release); pahole (dwarves) writes the modules' BTF on 6.12; perf
# (linux-perf) is what scripts/vm-perf copies into the test VM.
#
# Idempotent: dpkg-query decides what is missing, and only that is
# installed; 'apt-get update' runs only when something is missing.
# Usage: scripts/deps.sh [--check|--quiet|--debug-kernel]
#   --check         list what is missing, exit 1 if anything is
#   --debug-kernel  also what scripts/build-debug-kernel needs to build
#                   a kernel (flex, bison, libelf, libssl, pahole)
set -eu

PACKAGES="
	linux-headers-amd64 linux-image-amd64 linux-source-6.1
	linux-headers-6.12-amd64 linux-image-6.12-amd64 dwarves
	qemu-system-x86 qemu-utils busybox-static fio kmod util-linux e2fsprogs dmsetup
	debootstrap
	cpio gzip zstd file shellcheck
	ministat gnuplot-nox linux-perf
	gcc-12 g++-12 make cmake libgtest-dev libbenchmark-dev
	clang libclang-rt-14-dev clang-format
	python3 python3-docutils jq bc nodejs
	dpkg-dev debhelper dh-dkms dkms fakeroot lintian systemd
"

[ "${1:-}" = --debug-kernel ] &&
	PACKAGES="$PACKAGES flex bison bc libelf-dev libssl-dev dwarves"

missing=
for pkg in $PACKAGES; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
	[ "$status" = installed ] || missing="$missing $pkg"
done

if [ -z "$missing" ]; then
	echo "deps: all packages installed"
	exit 0
fi

echo "deps: missing:$missing"
[ "${1:-}" = --check ] && exit 1

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086 # word splitting is the point
$SUDO apt-get install -y -qq --no-install-recommends $missing
