# SPDX-License-Identifier: GPL-2.0
#
# Compiling freestanding C++ into a kernel module with Kbuild.
#
# The compiler is the g++ that matches the kernel's gcc (gcc-12 -> g++-12).
# The flags are the kernel's own KBUILD_CFLAGS + KBUILD_CFLAGS_MODULE (so
# retpolines, return thunks, SLS, -mcmodel=kernel, -mno-sse..., ftrace,
# stack protector and auto-var-init all follow the kernel's .config), minus
# the options that only mean something to a C compiler, plus the ones that
# make C++ freestanding. No kernel header is ever included from C++: the
# core talks to the kernel through zsmalloc_ng/core/svc.h.
#
# Every C++ object then passes Kbuild's objtool and kbuild/cxx-guard,
# which fails the build on constructor/unwind sections, C++ runtime
# symbols and FPU/SIMD registers.

CXX_KERNEL ?= $(subst gcc,g++,$(CC))

# C-only options g++ would warn about ("valid for C/ObjC but not for C++").
cxx-c-only-flags := -std=gnu% -Werror=strict-prototypes -Wno-override-init \
	-Werror=implicit-function-declaration -Werror=implicit-int \
	-Werror=incompatible-pointer-types -Werror=designated-init \
	-Wno-pointer-sign -Wstrict-prototypes -Wdeclaration-after-statement \
	-Wmissing-prototypes -Wold-style-definition -Wno-packed-not-aligned

cxx-freestanding-flags := -std=gnu++17 -nostdinc -nostdinc++ -ffreestanding \
	-fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-use-cxa-atexit \
	-fcheck-new -fno-unwind-tables -fno-asynchronous-unwind-tables \
	-fno-PIE -fno-pic -Werror -DZSNG_KERNEL

# The debug kernel's checkers (scripts/build-debug-kernel) instrument the
# C++ objects as Makefile.lib instruments C: KASAN's CFLAGS_KASAN when the
# .config has KASAN, UBSAN's CFLAGS_UBSAN when it sanitizes everything.
# One difference: KASAN's global redzones are off for C++ (asan-globals=0).
# They are registered by a compiler-made module constructor, which is the
# .init_array cxx-guard refuses; the core's globals are a few constant
# tables, and its heap objects (the pools, the zspages) are still checked.
cxx-kasan-flags := $(if $(filter y,$(CONFIG_KASAN)), \
	$(subst asan-globals=1,asan-globals=0,$(CFLAGS_KASAN)))
cxx-ubsan-flags := $(if $(filter y,$(CONFIG_UBSAN_SANITIZE_ALL)),$(CFLAGS_UBSAN))

cxx_flags = $(filter-out $(cxx-c-only-flags), \
		$(KBUILD_CFLAGS) $(KBUILD_CFLAGS_MODULE)) \
	    $(cxx-kasan-flags) $(cxx-ubsan-flags) \
	    $(cxx-freestanding-flags) -I$(src)/zsmalloc_ng/core

quiet_cmd_cxx_o_cpp = CXX $(quiet_modtag) $@
      cmd_cxx_o_cpp = $(CXX_KERNEL) -Wp,-MMD,$(depfile) $(cxx_flags) \
		-c -o $@ $< $(cmd_objtool); \
		$(CONFIG_SHELL) $(src)/kbuild/cxx-guard $(OBJDUMP) $(NM) $@

define rule_cxx_o_cpp
	$(call cmd_and_fixdep,cxx_o_cpp)
	$(call cmd,gen_objtooldep)
endef

$(addprefix $(obj)/,$(cxx-objs)): $(obj)/%.o: $(src)/%.cpp FORCE
	$(call if_changed_rule,cxx_o_cpp)
