# SPDX-License-Identifier: GPL-2.0
"""swap: swapper.c in a memory cgroup swapping to zram_ng0, then to zram0
(guest half: scripts/vm/guest/bench.d/swap.sh)."""
from benchlib import HIGHER, LOWER, NEITHER, Metric, Workload
from benchrun import (FOOTPRINT, add_ratios, build_guest_tool, footprint_metrics,
                      footprint_ratios, mmstat, vm_results, vm_run)

WSET_MIB, LIMIT_MIB, PASSES = 96, 32, 2


def parse(run):
    m, vals = {}, {}
    for line in run:
        f = line.split()
        if line.startswith("@@@ MMSTAT "):
            st = mmstat(f[4:])
            d = f[2]
            m[d + ".swap.orig_data_size"] = st["orig_data_size"]
            m[d + ".swap.mem_used_total"] = st["mem_used_total"]
            if st["orig_data_size"]:
                m[d + ".swap.density"] = st["mem_used_total"] / st["orig_data_size"]
        elif line.startswith("@@@ VAL "):
            vals.setdefault(f[2], {})[f[3]] = int(f[4])
        elif line.startswith("@@@ FOOT "):
            footprint_metrics(m, line)
    footprint_ratios(m)
    for d, v in vals.items():
        s = max(v["elapsed_ms"], 1) / 1000.0
        m[d + ".swap.elapsed_ms"] = v["elapsed_ms"]
        m[d + ".swap.pswpout_per_s"] = v["pswpout"] / s
        m[d + ".swap.pswpin_per_s"] = v["pswpin"] / s
    add_ratios(m, "swap",
               ("pswpout_per_s", "pswpin_per_s", "elapsed_ms", "density", "mem_used_total"))
    return m


def run(tree, runs, tmp):
    exe = build_guest_tool("swapper")
    lines = vm_run(tree, "swap", [WSET_MIB, LIMIT_MIB, PASSES], [exe],
                   runs, tmp, 300 + 200 * runs, append="slab_nomerge")
    meta = {"working_set_mib": WSET_MIB, "memory_max_mib": LIMIT_MIB,
            "passes": PASSES, "data": "half xorshift, half pattern per page; verified"}
    return vm_results(lines, "swap", meta, parse)


WORKLOAD = Workload(
    "swap", run, doc="swapper.c in a 32 MiB memory cgroup, swap on zram_ng0, then zram0",
    plot=("per_s", "pages/s"),
    metrics=[Metric("pswpout_per_s", HIGHER, "pages/s"),
             Metric("pswpin_per_s", HIGHER, "pages/s"),
             Metric("elapsed_ms", LOWER, "ms"),
             Metric("orig_data_size", NEITHER, "bytes"),
             Metric("mem_used_total", LOWER, "bytes"),
             Metric("density", LOWER, "mem_used_total / orig_data_size")]
    + [Metric(k, LOWER, "bytes") for k in FOOTPRINT])
