# SPDX-License-Identifier: GPL-2.0
"""wbbatch: batched writeback and largest-first selection (issue 29)
(guest half: scripts/vm/guest/bench.d/wbbatch.sh)."""
import os

from benchlib import HIGHER, LOWER, NEITHER, Metric, Workload
from benchrun import (DATA_SETS_DOC, data_set_files, die, vals_and_mmstats, vm_results,
                      vm_run)

MIB = int(os.environ.get("BENCH_WBBATCH_MIB", 64))
DELAY_MS = int(os.environ.get("BENCH_WBBATCH_DELAY_MS", 1))
# null_blk's completion delay: a fast SSD's write latency
FAST_US = int(os.environ.get("BENCH_WBBATCH_FAST_US", 20))
# the speed part's backing devices, of ram, fast and delay
DEVICES = os.environ.get("BENCH_WBBATCH_DEVICES", "ram fast delay").split()
# the bounded passes' data (text and swap): at most 32 MiB (the kernel
# text the text data set is cut from holds 44 MiB)
BOUNDED_MIB = int(os.environ.get("BENCH_WBBATCH_BOUNDED_MIB", min(MIB, 32)))


def parse(run, mib):
    """Per backing device (ram, fast, delay): zram_ng's pass at batch 1 and 32
    and the stock's, in ms per MiB and MB/s; speedup = batch 1 / batch 32,
    ratio = zram_ng batch 32 / stock. Per data set: memory freed per block
    written, largest first and index order, and their ratio."""
    vals, _ = vals_and_mmstats(run)
    m = {}
    for dev, v in vals.items():
        for k, x in v.items():
            f = k.split(".")
            if f[-1] == "wall_ms":
                m["%s.wbbatch.%s.%s.wall_ms_per_mib" % (dev, f[0], f[1])] = x / mib
                m["%s.wbbatch.%s.%s.MBps" % (dev, f[0], f[1])] = (
                    mib * 1048576 / 1e6 / max(x, 1) * 1000)
            elif f[-1] == "freed_per_block":
                m["%s.wbbatch.%s.%s.freed_per_block" % (dev, f[0], f[1])] = x
    for bd in ("ram", "fast", "delay"):
        b1 = m.get("zram_ng.wbbatch.%s.batch1.wall_ms_per_mib" % bd)
        b32 = m.get("zram_ng.wbbatch.%s.batch32.wall_ms_per_mib" % bd)
        st = m.get("zram.wbbatch.%s.batch1.wall_ms_per_mib" % bd)
        if b1 and b32:
            m["zram_ng.wbbatch.%s.batch_speedup" % bd] = b1 / b32
        if b32 and st:
            m["ratio.wbbatch.%s.batch32_vs_stock_time" % bd] = b32 / st
    for ds in ("text", "swap"):
        lf = m.get("zram_ng.wbbatch.largest.%s.freed_per_block" % ds)
        ix = m.get("zram_ng.wbbatch.index.%s.freed_per_block" % ds)
        if lf and ix:
            m["zram_ng.wbbatch.%s.largest_first_gain" % ds] = lf / ix
    return m


def run(tree, runs, tmp):
    if not 1 <= BOUNDED_MIB <= MIB:
        die("BENCH_WBBATCH_BOUNDED_MIB: 1 to BENCH_WBBATCH_MIB (%d)" % MIB)
    if not 1 <= FAST_US <= 100000:
        die("BENCH_WBBATCH_FAST_US: 1 to 100000")
    if not DEVICES or any(d not in ("ram", "fast", "delay") for d in DEVICES) or \
            len(set(DEVICES)) != len(DEVICES):
        die("BENCH_WBBATCH_DEVICES: some of ram, fast and delay, each once")
    adds = data_set_files(tmp, BOUNDED_MIB)
    # the data in zram_ng and zram, three ramdisks of MIB MiB
    mem = "%dM" % max(1024, 6 * MIB + 512)
    # a batch-1 pass to dm-delay: a jiffy (4 to 8 ms here) a page
    per_run = 300 + (30 * MIB * max(DELAY_MS, 1) // 4 if "delay" in DEVICES else 0) + \
        (2 * MIB * 256 * FAST_US * 4 // 1000000 if "fast" in DEVICES else 0)
    lines = vm_run(tree, "wbbatch", [MIB, DELAY_MS, BOUNDED_MIB, FAST_US, ",".join(DEVICES)],
                   adds, runs, tmp, 600 + runs * per_run, mem=mem)
    meta = {"mib": MIB, "write_delay_ms": DELAY_MS, "bounded_mib": BOUNDED_MIB,
            "fast_us": FAST_US, "devices": DEVICES,
            "backing": "brd ramdisk; memory-backed null_blk completing each "
                       "request fast_us after it (timer); brd behind dm-delay "
                       "(writes delayed)",
            "data_sets": DATA_SETS_DOC,
            "bounded": "a quarter of the pages: writeback_limit (largest first) "
                       "against page_indexes=0-N (index order)"}
    return vm_results(lines, "wbbatch", meta, parse, MIB)


WORKLOAD = Workload(
    "wbbatch", run, doc="issue 29: batched writeback (batch 1, 32, stock) and largest first",
    metrics=[Metric("wall_ms_per_mib", LOWER, "ms/MiB"),
             Metric("MBps", HIGHER, "MB/s"),
             Metric("batch_speedup", HIGHER, "batch 1 time / batch 32 time"),
             Metric("batch32_vs_stock_time", LOWER, "zram_ng batch 32 / stock time"),
             Metric("freed_per_block", HIGHER, "bytes of memory per block written"),
             Metric("largest_first_gain", HIGHER, "largest first / index order")])
