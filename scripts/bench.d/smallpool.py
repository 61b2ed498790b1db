# SPDX-License-Identifier: GPL-2.0
"""smallpool: issue 17's small, fragmented pools, zram_ng0 and zram0
(guest half: scripts/vm/guest/bench.d/smallpool.sh)."""
import os

from benchlib import HIGHER, LOWER, NEITHER, Metric, Workload
from benchrun import build_guest_tool, vals_and_mmstats, vm_results, vm_run

# Pool sizes in pages written, the percentage discarded at random.
# BENCH_SMALLPOOL_PAGES shrinks it for the smoke test.
PAGES = [int(x) for x in
         os.environ.get("BENCH_SMALLPOOL_PAGES", "50 100 300 1000 3000 8000 24000").split()]
PERCENT = 60


def parse(run):
    """Per stack and pool size: mm_stat before and after the compaction,
    the pages freed, objects moved (zram_ng only), the big classes' pages;
    ratios zram_ng / zram."""
    m = {}
    vals, mms = vals_and_mmstats(run)
    for dev, tags in mms.items():
        for tag, before in tags.items():
            if not tag.endswith(".before"):
                continue
            size = tag[:-len(".before")]
            after = tags.get(size + ".after")
            if after is None:
                continue
            p = "%s.%s." % (dev, size)
            m[p + "mem_used_before"] = before["mem_used_total"]
            m[p + "mem_used_compacted"] = after["mem_used_total"]
            m[p + "pages_freed"] = after["pages_compacted"] - before["pages_compacted"]
            m[p + "orig_data_size"] = before["orig_data_size"]
            if "objs_moved" in after:
                m[p + "objs_moved"] = after["objs_moved"] - before["objs_moved"]
            big = vals.get(dev, {}).get(size + ".big_class_pages")
            if big is not None:
                m[p + "big_class_pages"] = big
    for k in list(m):
        if k.startswith("zram_ng."):
            rest = k[len("zram_ng."):]
            other = m.get("zram." + rest)
            if other and not rest.endswith("orig_data_size"):
                m["ratio." + rest] = m[k] / other
    return m


def run(tree, runs, tmp):
    exe = build_guest_tool("fragmenter")
    lines = vm_run(tree, "smallpool", [PERCENT] + PAGES, [exe], runs, tmp,
                   300 + 10 * runs * sum(PAGES) // 1000)
    meta = {
        "pages": PAGES, "discarded_percent": PERCENT,
        "data": "fragmenter.c's mixed pages (256..3840 pseudo-random bytes, the rest a "
  "pattern), written with O_DIRECT; the discards one page each (BLKDISCARD), "
  "pseudo-random by index and seed (run + 1); kept pages read back",
        "big_class_pages": "pages of the classes of 3,264 bytes and more (6.1's zsmalloc: "
             "one object to a page there), before compaction"}
    return vm_results(lines, "smallpool", meta, parse)


WORKLOAD = Workload(
    "smallpool", run,
    doc="issue 17: small pools, 60% discarded at random, before and after a compaction",
    metrics=[Metric("mem_used_before", LOWER, "bytes"),
             Metric("mem_used_compacted", LOWER, "bytes"),
             Metric("pages_freed", HIGHER, "pages"),
             Metric("objs_moved", LOWER, "objects"),
             Metric("big_class_pages", LOWER, "pages"),
             Metric("orig_data_size", NEITHER, "bytes")])
