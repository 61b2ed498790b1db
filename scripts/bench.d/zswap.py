# SPDX-License-Identifier: GPL-2.0
"""zswap: issue 13's scenario, zswap's zpools side by side in one boot
(guest half: scripts/vm/guest/bench.d/zswap.sh)."""
import os

from benchlib import HIGHER, LOWER, NEITHER, Metric, Workload
from benchrun import build_guest_tool, vm_results, vm_run

# 300 MiB through zswap from a 200 MiB cgroup, half freed, in a 1.5 GiB
# VM. BENCH_ZSWAP_MIB / _LIMIT_MIB shrink it.
MIB = int(os.environ.get("BENCH_ZSWAP_MIB", 300))
LIMIT_MIB = int(os.environ.get("BENCH_ZSWAP_LIMIT_MIB", 200))
VM_MEM = "1536M"
POOLS = ("zsmalloc", "zbud", "zsmalloc_ng")


def parse(run):
    """Per zpool: stored_pages, pool_total_size after the workload and
    after the shrinkers (pool_total_size_shrunk), write_MBps and the zswap
    counters; ratios zsmalloc_ng / zsmalloc and zsmalloc_ng / zbud."""
    m = {}
    for line in run:
        f = line.split()
        if line.startswith("@@@ VAL "):
            m["%s.zswap.%s" % (f[2], f[3])] = int(f[4])
    for base in ("zsmalloc", "zbud"):
        for k in ("pool_total_size", "pool_total_size_shrunk", "stored_pages", "write_MBps"):
            a, b = m.get("zsmalloc_ng.zswap." + k), m.get("%s.zswap.%s" % (base, k))
            if a is not None and b:
                m["ratio_%s.zswap.%s" % (base, k)] = a / b
    # pool bytes per compressed byte: what the allocator adds to the data
    for zp in POOLS:
        c = m.get(zp + ".zswap.compressed_bytes")
        for k in ("pool_total_size", "pool_total_size_shrunk"):
            if c and m.get("%s.zswap.%s" % (zp, k)):
                m["%s.zswap.%s_per_compressed" % (zp, k)] = m["%s.zswap.%s" % (zp, k)] / c
    return m


def run(tree, runs, tmp):
    exe = build_guest_tool("fragmenter")
    lines = vm_run(tree, "zswap", [MIB, LIMIT_MIB], [exe], runs, tmp,
                   300 + 400 * runs, mem=VM_MEM)
    meta = {"written_mib": MIB, "memory_max_mib": LIMIT_MIB,
            "vm_mem": VM_MEM, "compressor": "lz4",
            "backing": "brd ramdisk", "zpools": list(POOLS),
            "data": "per page 256..3840 random bytes, the rest a pattern; "
                    "MADV_NOHUGEPAGE; a random half freed; the rest verified",
            "order": "zpools in one boot, the order rotating between runs; seed = run + 1"}
    return vm_results(lines, "zswap", meta, parse)


WORKLOAD = Workload(
    "zswap", run, doc="issue 13: zswap on the zsmalloc, zbud and zsmalloc_ng zpools, one boot",
    plot=("pool_total_size_shrunk", ""),
    metrics=[Metric("stored_pages", HIGHER, "pages"),
             Metric("compressed_bytes", NEITHER, "bytes"),
             Metric("pool_total_size", LOWER, "bytes"),
             Metric("pool_total_size_shrunk", LOWER, "bytes"),
             Metric("pool_total_size_per_compressed", LOWER, "bytes per byte"),
             Metric("pool_total_size_shrunk_per_compressed", LOWER, "bytes per byte"),
             Metric("elapsed_ms", LOWER, "ms"), Metric("write_MBps", HIGHER, "MB/s"),
             Metric("written_back_pages", HIGHER, "pages"),
             Metric("pool_limit_hit", NEITHER, "events"),
             Metric("reject_alloc_fail", LOWER, "pages"),
             Metric("reject_compress_poor", LOWER, "pages"),
             Metric("reject_reclaim_fail", LOWER, "pages"),
             Metric("objs_moved", LOWER, "objects"),
             Metric("pages_compacted", HIGHER, "pages"),
             Metric("auto_compactions", NEITHER, "passes")])
