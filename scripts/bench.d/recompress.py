# SPDX-License-Identifier: GPL-2.0
"""recompress: issue 14's recompression of idle pages, lz4 -> zstd, on
zram_ng0 (guest half: scripts/vm/guest/bench.d/recompress.sh)."""
from benchlib import HIGHER, LOWER, NEITHER, Metric, Workload
from benchrun import (DATA_SET_MIB, DATA_SETS_DOC, data_set_files, split_runs,
                      vals_and_mmstats, vm_meta, vm_run)


def parse(run, mib):
    """Per data set: compr_data_size and mem_used_total before and after
    the type=idle pass, the fraction each saved, the CPU time per MiB of
    data, pages recompressed and flagged incompressible, zstd as primary
    (compr_zstd_primary) and the recompressed size against it."""
    vals, mms = vals_and_mmstats(run)
    m = {}
    v, st = vals.get("zram_ng", {}), mms.get("zram_ng", {})
    for tag in st:
        ds = tag.split(".")[0]
        b, a, z = st.get(ds + ".before"), st.get(ds + ".after"), st.get(ds + ".zstd")
        if not (b and a) or ("recompress.%s.compr_before" % ds) in m:
            continue
        p = "recompress.%s." % ds
        m[p + "compr_before"] = b["compr_data_size"]
        m[p + "compr_after"] = a["compr_data_size"]
        m[p + "mem_used_before"] = b["mem_used_total"]
        m[p + "mem_used_after"] = a["mem_used_total"]
        if b["compr_data_size"]:
            m[p + "compr_saved_frac"] = 1 - a["compr_data_size"] / b["compr_data_size"]
        if b["mem_used_total"]:
            m[p + "mem_saved_frac"] = 1 - a["mem_used_total"] / b["mem_used_total"]
        c = st.get(ds + ".compacted")
        if c and b["mem_used_total"]:
            m[p + "mem_used_compacted"] = c["mem_used_total"]
            m[p + "mem_saved_frac_compacted"] = 1 - c["mem_used_total"] / b["mem_used_total"]
        if z:
            m[p + "compr_zstd_primary"] = z["compr_data_size"]
            if z["compr_data_size"]:
                m[p + "compr_after_vs_zstd_primary"] = a["compr_data_size"] / z["compr_data_size"]
        for k in ("pages_recompressed", "pages_incompressible"):
            if ds + "." + k in v:
                m[p + k] = v[ds + "." + k]
        if ds + ".recompress_sys_ms" in v:
            m[p + "cpu_ms_per_mib"] = v[ds + ".recompress_sys_ms"] / mib
            m[p + "wall_ms_per_mib"] = v[ds + ".recompress_wall_ms"] / mib
    return m


def run(tree, runs, tmp):
    mib = DATA_SET_MIB
    adds = data_set_files(tmp, mib)
    lines = vm_run(tree, "recompress", [mib], adds, runs, tmp, 300 + 200 * runs)
    vm, rl = split_runs(lines)
    meta = {"recompress": {"mib_per_data_set": mib, "primary": "lz4",
                           "secondary": "zstd (priority 1)", "pass": "idle all; type=idle",
                           "data_sets": DATA_SETS_DOC,
                           "cpu": "system CPU time of the recompress write (bash time)"}}
    vm_meta(meta, vm)
    meta["boots"] = "one VM boot for all runs; zram_ng only (6.1's zram has no recompression)"
    return [parse(r, mib) for r in rl], meta


WORKLOAD = Workload(
    "recompress", run, doc="issue 14: idle pages recompressed lz4 -> zstd on zram_ng0",
    metrics=[Metric("compr_before", NEITHER, "bytes"), Metric("compr_after", LOWER, "bytes"),
             Metric("mem_used_before", LOWER, "bytes"),
             Metric("mem_used_after", LOWER, "bytes"),
             Metric("mem_used_compacted", LOWER, "bytes"),
             Metric("compr_saved_frac", HIGHER, "fraction"),
             Metric("mem_saved_frac", HIGHER, "fraction"),
             Metric("mem_saved_frac_compacted", HIGHER, "fraction"),
             Metric("compr_zstd_primary", NEITHER, "bytes"),
             Metric("compr_after_vs_zstd_primary", NEITHER, "ratio"),
             Metric("pages_recompressed", NEITHER, "pages"),
             Metric("pages_incompressible", NEITHER, "pages"),
             Metric("cpu_ms_per_mib", LOWER, "ms/MiB"),
             Metric("wall_ms_per_mib", LOWER, "ms/MiB")])
