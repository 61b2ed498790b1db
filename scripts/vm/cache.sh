# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The VM runner's cache: sourced by scripts/vm-run (and its test,
# scripts/tests/test-vm-cache). bash.
#
# What is cached: the base initramfs and the stock modules it was built
# from (scripts/vm/mkinitramfs-base), and the kernel's ELF payload. They live
# outside the source tree, where no build's clean can reach them: Kbuild's
# "make clean" (M=<tree>) deletes every *.ko below the tree, and a cache
# there once lost the stock zram.ko/zsmalloc.ko while its key still matched.
#
# So a cache entry is a directory that is trusted only when it proves what
# it holds: its MANIFEST (sha256sum lines of every other file in it) is
# written last, after the entry is complete, and checked before each use.
# A missing, extra, truncated or changed file, or no MANIFEST (a build that
# was interrupted), fails the check and the caller rebuilds the entry.
#
#   VM_RUN_CACHE   the cache directory (default
#                  ${XDG_CACHE_HOME:-$HOME/.cache}/zsmalloc_ng/vm)

# vm_cache_dir: print the cache directory (not created)
vm_cache_dir() {
	echo "${VM_RUN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/zsmalloc_ng/vm}"
}

# cache_files DIR: the regular files of an entry, relative, sorted, NUL-ended
cache_files() {
	(cd "$1" && find . -type f ! -name MANIFEST ! -name MANIFEST.tmp -print0 |
		LC_ALL=C sort -z)
}

# cache_seal DIR: write DIR/MANIFEST for the files DIR holds now. Call it
# once the entry is complete: until then the entry does not verify.
cache_seal() {
	rm -f "$1/MANIFEST"
	cache_files "$1" | (cd "$1" && xargs -0 -r sha256sum) >"$1/MANIFEST.tmp" &&
		mv "$1/MANIFEST.tmp" "$1/MANIFEST"
}

# cache_verify DIR: succeed when DIR has a MANIFEST, holds exactly the files
# it lists (none missing, none added) and each has its recorded checksum.
cache_verify() {
	local n
	[ -s "$1/MANIFEST" ] || return 1
	(cd "$1" && sha256sum --quiet --strict -c MANIFEST) >/dev/null 2>&1 || return 1
	n=$(cache_files "$1" | tr -cd '\0' | wc -c)
	[ "$n" -eq "$(wc -l <"$1/MANIFEST")" ]
}
