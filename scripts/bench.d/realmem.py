# SPDX-License-Identifier: GPL-2.0
"""realmem: real application memory (scripts/mkdatasets' images) swapped
out through zram_ng0 and zram0 from a memory cgroup, then swapped back in
in a random order with each swap-in timed (guest half:
scripts/vm/guest/bench.d/realmem.sh, its process scripts/vm/guest/realmem.c).

The environment chooses what is swapped:
  BENCH_REALMEM_SETS       data sets (default: python-index cc1plus
                           node-objects sqlite-cache)
  BENCH_REALMEM_MIB        MiB swapped per data set (default 48): an image
                           smaller than that is repeated, a larger one cut
  BENCH_REALMEM_IMG_MIB    size of the images mkdatasets makes when they are
                           missing (default: BENCH_REALMEM_MIB, at most 48)
  BENCH_REALMEM_LIMIT_PCT  the cgroup's memory.max in % of that (default 50)
  BENCH_REALMEM_DIR        where the images are (default mkdatasets' cache)
  BENCH_REALMEM_CLASSES    the data set whose debugfs classes tables run 0
                           prints into vm.log (default: the first)
The VM gets memory for the images, the cgroup and the pool (1 GiB at
least).
"""
import os

from benchlib import HIGHER, LOWER, NEITHER, Metric, Workload
from benchrun import (FOOTPRINT, add_ratios, die, footprint_metrics, footprint_ratios, mmstat,
                      realmem_vm_run, REALMEM_SETS as SETS, vm_results)

SEED = 20261206
LATENCY = ("swapin_p50_us", "swapin_p90_us", "swapin_p99_us", "swapin_max_us")
RATIOS = ("mem_used_total", "compr_data_size", "density", "swapin_total_ms", "fill_ms") + LATENCY


def parse(run):
    m = {}
    for line in run:
        f = line.split()
        if line.startswith("@@@ MMSTAT "):
            st = mmstat(f[4:])
            p = "%s.%s." % (f[2], f[3])
            for k in ("orig_data_size", "compr_data_size", "mem_used_total"):
                m[p + k] = st[k]
            if st["orig_data_size"]:
                m[p + "density"] = st["mem_used_total"] / st["orig_data_size"]
        elif line.startswith("@@@ VAL ") and len(f) == 5:
            m["%s.%s" % (f[2], f[3])] = float(f[4])
        elif line.startswith("@@@ FOOT "):
            footprint_metrics(m, line)
    footprint_ratios(m)
    for tag in {k.split(".")[1] for k in m if k.startswith("zram_ng.")}:
        add_ratios(m, tag, RATIOS)
    return m


def classes_tables(lines):
    """'@@@ CLASS dev tag <row>' lines -> {dev: [header, row, ...]}."""
    out = {}
    for line in lines:
        if line.startswith("@@@ CLASS "):
            f = line.split(None, 4)
            out.setdefault(f[2] + " " + f[3], []).append(f[4] if len(f) > 4 else "")
    return out


def run(tree, runs, tmp):
    sets = os.environ.get("BENCH_REALMEM_SETS", " ".join(SETS)).split()
    bad = [s for s in sets if s not in SETS]
    if bad or not sets:
        die("BENCH_REALMEM_SETS: no data set %s (there are: %s)" % (" ".join(bad), " ".join(SETS)))
    mib = int(os.environ.get("BENCH_REALMEM_MIB", 48))
    img_mib = int(os.environ.get("BENCH_REALMEM_IMG_MIB", min(mib, 48)))
    pct = int(os.environ.get("BENCH_REALMEM_LIMIT_PCT", 50))
    cls = os.environ.get("BENCH_REALMEM_CLASSES", sets[0])
    if not 1 <= mib <= 4096 or not 1 <= img_mib <= mib or not 1 <= pct <= 90:
        die("BENCH_REALMEM_MIB 1..4096, BENCH_REALMEM_IMG_MIB 1..MIB, "
            "BENCH_REALMEM_LIMIT_PCT 1..90")
    limit = max(mib * pct // 100, 1)
    lines, manifests = realmem_vm_run(tree, "realmem", [mib, limit, SEED, cls], sets, mib,
                                      img_mib, limit, runs, tmp)
    meta = {"realmem_mib": mib, "memory_max_mib": limit, "seed": SEED, "data_sets": manifests,
            "classes": classes_tables(lines),
            "data": "scripts/mkdatasets' images, repeated to realmem_mib; zero pages dropped"}
    return vm_results(lines, "realmem", meta, parse)


WORKLOAD = Workload(
    "realmem", run,
    doc="real application memory swapped out from a memory cgroup to zram_ng0, then zram0, "
        "and back in in a random order, each swap-in timed",
    plot=("density", "mem_used_total / orig_data_size"),
    metrics=[Metric("orig_data_size", NEITHER, "bytes"),
             Metric("compr_data_size", LOWER, "bytes"),
             Metric("mem_used_total", LOWER, "bytes"),
             Metric("density", LOWER, "mem_used_total / orig_data_size"),
             Metric("pages", NEITHER, "pages"),
             Metric("fill_ms", LOWER, "ms"),
             Metric("resident_pages", NEITHER, "pages"),
             Metric("pageout_tries", NEITHER, "rounds"),
             Metric("swapin_total_ms", LOWER, "ms"),
             Metric("swapin_majflt", NEITHER, "faults"),
             Metric("pswpin", NEITHER, "pages"),
             Metric("swapin_pages_compacted", NEITHER, "pages"),
             Metric("swapin_objs_moved", NEITHER, "objects")]
    + [Metric(k, LOWER, "us") for k in LATENCY]
    + [Metric(k, LOWER, "bytes") for k in FOOTPRINT])
