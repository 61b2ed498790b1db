# SPDX-License-Identifier: GPL-2.0
"""writeback: issue 14's idle writeback to a ramdisk, zram_ng0 and zram0
(guest half: scripts/vm/guest/bench.d/writeback.sh)."""
from benchlib import HIGHER, LOWER, NEITHER, Metric, Workload
from benchrun import (DATA_SET_MIB, DATA_SETS_DOC, data_set_files, vals_and_mmstats,
                      vm_results, vm_run)


def parse(run, mib):
    """Per stack and data set: mem_used_total before and after writing
    back every idle page, the floor (one zspage per class in use), bytes
    written, CPU time per MiB, read-back time; ratios zram_ng / zram."""
    vals, mms = vals_and_mmstats(run)
    m = {}
    for dev, st in mms.items():
        v = vals.get(dev, {})
        for tag in st:
            ds = tag.split(".")[0]
            b, a = st.get(ds + ".before"), st.get(ds + ".after")
            p = "%s.writeback.%s." % (dev, ds)
            if not (b and a) or (p + "mem_used_before") in m:
                continue
            m[p + "mem_used_before"] = b["mem_used_total"]
            m[p + "mem_used_after"] = a["mem_used_total"]
            m[p + "mem_returned_frac"] = (1 - a["mem_used_total"] / b["mem_used_total"]
                                          if b["mem_used_total"] else 0)
            if ds + ".floor_pages" in v:
                m[p + "floor_bytes"] = v[ds + ".floor_pages"] * 4096
                m[p + "within_floor"] = int(a["mem_used_total"] <= m[p + "floor_bytes"])
            if ds + ".bd_writes" in v:
                m[p + "bytes_written"] = v[ds + ".bd_writes"] * 4096
            if ds + ".writeback_sys_ms" in v:
                m[p + "cpu_ms_per_mib"] = v[ds + ".writeback_sys_ms"] / mib
                m[p + "wall_ms_per_mib"] = v[ds + ".writeback_wall_ms"] / mib
            if ds + ".readback_ms" in v:
                m[p + "readback_MBps"] = mib * 1048576 / 1e6 / max(v[ds + ".readback_ms"], 1) * 1000
    for k in list(m):
        if k.startswith("zram_ng.") and (k.endswith("wall_ms_per_mib") or
                                         k.endswith("readback_MBps") or k.endswith("mem_used_before")):
            other = m.get("zram." + k[len("zram_ng."):])
            if other:
                m["ratio." + k[len("zram_ng."):]] = m[k] / other
    return m


def run(tree, runs, tmp):
    mib = DATA_SET_MIB
    adds = data_set_files(tmp, mib)
    lines = vm_run(tree, "writeback", [mib], adds, runs, tmp, 300 + 200 * runs)
    meta = {"mib_per_data_set": mib, "backing": "brd ramdisk",
            "pass": "idle all; writeback idle", "data_sets": DATA_SETS_DOC,
            "cpu": "system CPU time of the writeback write (bash time)"}
    return vm_results(lines, "writeback", meta, parse, mib)


WORKLOAD = Workload(
    "writeback", run, doc="issue 14: idle pages written back to a ramdisk, zram_ng0 and zram0",
    metrics=[Metric("mem_used_before", LOWER, "bytes"),
             Metric("mem_used_after", LOWER, "bytes"),
             Metric("mem_returned_frac", HIGHER, "fraction"),
             Metric("floor_bytes", NEITHER, "bytes"),
             Metric("within_floor", NEITHER, "0 or 1"),
             Metric("bytes_written", NEITHER, "bytes"),
             Metric("cpu_ms_per_mib", LOWER, "ms/MiB"),
             Metric("wall_ms_per_mib", LOWER, "ms/MiB"),
             Metric("readback_MBps", HIGHER, "MB/s")])
