# SPDX-License-Identifier: GPL-2.0
#
# zsmalloc_ng / zram_ng: the verbs a user of an out-of-tree module expects.
# The kernel objects themselves are described in ./Kbuild.

SHELL := /bin/bash
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))

# Which kernel to build for (kbuild/kernels decides; see its header):
#   KDIR=DIR             this build tree
#   KERNELRELEASE=REL    that installed kernel (6.12.118+deb12-amd64)
#   KSERIES=6.1|6.12     the newest installed kernel of that series
# Default: the running kernel's build tree if it has one, else the 6.1
# series (Debian 12's kernel), never "the newest headers".
ifneq ($(KERNELRELEASE),)
KDIR ?= $(firstword $(wildcard /lib/modules/$(KERNELRELEASE)/build \
			       /usr/src/linux-headers-$(KERNELRELEASE)))
endif
ifeq ($(origin KDIR),undefined)
KDIR := $(shell KSERIES='$(KSERIES)' $(TOP)/kbuild/kernels kdir)
endif

# The testing build: ZSNG_TESTING=1 adds the experiment harness, the
# self-check at load and their debugfs files to zsmalloc_ng.ko (Kbuild).
# make check, the VM runner and the experiment build it; the product
# (make, make modules_install, DKMS) never does. Switching rebuilds what
# differs: Kbuild sees the changed flags and object list.
ZSNG_TESTING ?= 0
ifneq ($(filter-out 0 1,$(ZSNG_TESTING)),)
$(error ZSNG_TESTING=$(ZSNG_TESTING): 1 for the testing build, 0 (default) for the product)
endif
ifeq ($(ZSNG_TESTING)$(filter modules_install,$(MAKECMDGOALS)),1modules_install)
$(error the testing build (ZSNG_TESTING=1) is never installed)
endif

# Module BTF needs a pahole that skips the C++ units (kbuild/pahole-c-only).
KBUILD_ARGS := PAHOLE=$(TOP)/kbuild/pahole-c-only ZSNG_TESTING=$(ZSNG_TESTING)

DEPMOD ?= /sbin/depmod
# The product's modules, as Kbuild lists them (obj-m).
PRODUCT_KOS := $(patsubst %.o,$(TOP)/%.ko,$(shell sed -n 's/^obj-m += //p' $(TOP)/Kbuild))
BUILD_LOG := $(TOP)/.cache/build.log
USER_BUILD := $(TOP)/.cache/user

.PHONY: all modules modules_install clean help style check unit vm-tests \
	guard-test deps demo bench-compaction soak check-debug check-system check-system-quick fuzz \
	print-kdir deb

all: modules

# The in-kernel A/B benchmark (zsng_ab.ko, test only): a Kbuild run of its
# own after the product's, against its Module.symvers, so that
# modules_install never installs it. Absent from the DKMS sources.
KAB := $(wildcard $(TOP)/zsmalloc_ng/bench/kernel-ab)

# Any compiler, objtool or modpost warning fails the build: objtool and
# modpost only print theirs.
modules:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || \
		{ echo "no kernel build tree: make deps, or set KDIR=" >&2; exit 1; }
	@mkdir -p $(dir $(BUILD_LOG))
	@set -o pipefail; \
	$(MAKE) -C $(KDIR) M=$(TOP) $(KBUILD_ARGS) modules 2>&1 | tee $(BUILD_LOG); \
	status=$$?; \
	if [ $$status -eq 0 ] && [ -n "$(KAB)" ]; then \
		$(MAKE) -C $(KDIR) M=$(KAB) KBUILD_EXTRA_SYMBOLS=$(TOP)/Module.symvers \
			$(KBUILD_ARGS) modules 2>&1 | tee -a $(BUILD_LOG); \
		status=$$?; \
	fi; \
	if [ $$status -ne 0 ]; then exit $$status; fi; \
	if grep -qiE 'warning|error' $(BUILD_LOG); then \
		echo "build: warnings are errors in this project (see above)" >&2; \
		rm -f $(PRODUCT_KOS) $(if $(KAB),$(KAB)/zsng_ab.ko); exit 1; \
	fi

modules_install: modules
	$(MAKE) -C $(KDIR) M=$(TOP) INSTALL_MOD_DIR=extra modules_install
	$(DEPMOD) -a $(or $(KERNELRELEASE),$(notdir $(patsubst %/build,%,$(KDIR))))

# The build guard itself must be tested: a C++ object with a global
# constructor, a guarded static and a float must be refused.
guard-test:
	@$(TOP)/scripts/guard-test $(KDIR)

clean:
	$(MAKE) -C $(KDIR) M=$(TOP) clean
	$(if $(KAB),$(MAKE) -C $(KDIR) M=$(KAB) clean)
	rm -rf $(USER_BUILD) $(BUILD_LOG)

deps:
	@$(TOP)/scripts/deps.sh

unit:
	@$(TOP)/scripts/deps.sh --quiet
	cmake -S $(TOP)/zsmalloc_ng/user -B $(USER_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build $(USER_BUILD) -j2
	cd $(USER_BUILD) && ctest --output-on-failure

check:
	@$(TOP)/scripts/check

# Only the VM selftests (stage 6 of make check); TESTS= picks some, as
# selftests/run-vm-tests takes them (files or folders under selftests/).
vm-tests:
	@$(TOP)/scripts/deps.sh --quiet
	@$(TOP)/scripts/vm-tests $(TESTS)

demo:
	@$(TOP)/scripts/deps.sh --quiet
	@$(TOP)/scripts/vm-run $(TOP)/scripts/vm/guest/demo.sh

bench-compaction:
	@$(TOP)/scripts/compaction-experiment $(ARGS)

style:
	@$(TOP)/scripts/style

# The Debian packages (zsmalloc-ng-dkms, zram-ng-tools), built in a copy
# of the tree under .cache/deb, where the .deb files are left.
deb:
	@$(TOP)/scripts/deps.sh --quiet
	@$(TOP)/scripts/mkdeb $(TOP)/.cache/deb

help:
	@echo 'zsmalloc_ng / zram_ng'
	@echo '  make [modules]       build zsmalloc_ng.ko, zram_ng.ko and its zram_ng_lz4.ko, zram_ng_zstd.ko (and the test-only zsng_ab.ko) against KDIR=$(KDIR)'
	@echo '  make ZSNG_TESTING=1  the testing build: zsmalloc_ng.ko with the experiment and the self-check (never installed)'
	@echo '  make modules_install install to /lib/modules/<release>/extra and depmod'
	@echo '  make check           unit tests, build guard test, VM selftests; "N passed, N failed"'
	@echo '  make unit            userspace build of the allocator core + GoogleTest'
	@echo '  make vm-tests [TESTS="zram_ng reliability/test_faults.sh"]  only the VM selftests'
	@echo '  make guard-test      the build guard refuses each forbidden C++ construct'
	@echo '  make demo            boot the test VM: swap on zram_ng, fragment, compact'
	@echo '  make bench-compaction  the compaction experiment (ARGS="--mode kernel ...")'
	@echo '  make style           checkpatch on C, clang-format on C++, docutils on .rst, comment-check'
	@echo '  make soak [DURATION=180] [LOAD=mixed|reclaim] [STACK=ng|stock]'
	@echo '                       concurrent soak in the VM, kept in .cache/soak/ (Documentation/reliability.rst)'
	@echo '  make fuzz [FUZZ_SECONDS=600]  fuzz the core, merge new coverage into the kept corpus'
	@echo '  make check-debug     selftests + soak under a KASAN/lockdep/kmemleak kernel (slow)'
	@echo '  make check-system [SYSTEM_SERIES="6.1 6.12"]  install, reboot, upgrade, purge on a booted Debian (slow)'
	@echo '  make check-system-quick  one boot of it: apt install, DKMS, swap up (run by .ci/run after make check)'
	@echo '  make deps            install the Debian packages this project needs'
	@echo '  make deb             the Debian packages zsmalloc-ng-dkms and zram-ng-tools, in .cache/deb/'
	@echo '  make clean           Kbuild clean and the userspace build (the VM cache lives'
	@echo '                       outside the tree: see scripts/vm-run --help)'
	@echo '  make print-kdir      print the kernel build tree in use'
	@echo '  make help            this list'
	@echo 'Variables: KSERIES=6.1|6.12, KERNELRELEASE=, KDIR=, ZSNG_TESTING=0|1, V=1 (kbuild/kernels list: the installed kernels)'

# KDIR= is printed as given; without it, no tree found is an error.
print-kdir:
	@test -n "$(KDIR)" || \
		{ echo "no kernel build tree: make deps, or set KDIR=" >&2; exit 1; }
	@echo $(KDIR)

# Reliability (Documentation/reliability.rst). "make soak DURATION=600"
# soaks for ten minutes; "make check-debug" builds the debug kernel (once,
# about an hour) and runs the VM selftests and a short soak under it.
# A longer fuzzing run whose new coverage is merged into the corpus kept
# in the repo (zsmalloc_ng/fuzz/corpus): commit what it adds.
FUZZ_SECONDS ?= 600
fuzz:
	@$(TOP)/scripts/deps.sh --quiet
	@$(TOP)/zsmalloc_ng/fuzz/run-fuzz --merge $(FUZZ_SECONDS)

DURATION ?= 180
LOAD ?= mixed
STACK ?= ng
soak:
	@$(TOP)/scripts/soak --load $(LOAD) $(if $(filter stock,$(STACK)),--stock) $(DURATION)

check-debug:
	@$(TOP)/scripts/check-debug

# The user's path on a real Debian system (selftests/system): a booted
# image with systemd and apt per series, install, reboot, upgrade, kernel
# update, the distribution's zram tools beside ours, purge. Slow (a boot a
# step under TCG). check-system-quick is its quick part on the first
# series (one boot: apt install, DKMS, swap up), 5-11 minutes, which
# .ci/run runs after make check.
SYSTEM_SERIES ?= 6.1 6.12
check-system:
	@$(TOP)/scripts/deps.sh --quiet
	@status=0; for s in $(SYSTEM_SERIES); do \
		$(TOP)/selftests/system/run-system-tests --series $$s || status=1; \
	done; exit $$status

check-system-quick:
	@$(TOP)/scripts/deps.sh --quiet
	@$(TOP)/selftests/system/run-system-tests --series $(firstword $(SYSTEM_SERIES)) --quick
