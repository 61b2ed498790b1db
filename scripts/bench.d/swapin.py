# SPDX-License-Identifier: GPL-2.0
"""swapin: the swap-in latency of real application memory (scripts/
mkdatasets' images) with zram_ng0 and zram0 timed in one pass: both swap
devices of one priority, the pages spread between them as they go out,
each swap-in timed and attributed to its device (guest half:
scripts/vm/guest/bench.d/swapin.sh, its process scripts/vm/guest/realmem.c
with by-swap-type). realmem times one stack after the other, and a
run-to-run drift of this host of 20-50% lands in its ratios; here it
slows both alike within a run.

The environment chooses what is swapped, as for realmem:
  BENCH_SWAPIN_SETS        data sets (default: python-index cc1plus
                           node-objects sqlite-cache)
  BENCH_SWAPIN_MIB         MiB swapped per data set (default 48; an image
                           smaller than that is repeated)
  BENCH_SWAPIN_LIMIT_PCT   the cgroup's memory.max in % of that (default 50)
  BENCH_REALMEM_DIR        where the images are (default mkdatasets' cache)
Metrics per device and data set: the pages it took, their latencies
(p50, p90, p99, max, mean: the mean is the time to swap everything in, per
page), its compr_data_size per page (how alike the two halves were); the
ratios zram_ng / zram of the latencies.
"""
import os

from benchlib import LOWER, NEITHER, Metric, Workload
from benchrun import (add_ratios, die, mmstat, realmem_vm_run, REALMEM_SETS as SETS,
                      vm_results)

SEED = 20261207
LATENCY = ("swapin_p50_us", "swapin_p90_us", "swapin_p99_us", "swapin_max_us",
           "swapin_mean_us")


def parse(run):
    m = {}
    for line in run:
        f = line.split()
        if line.startswith("@@@ MMSTAT "):
            st = mmstat(f[4:])
            p = "%s.%s." % (f[2], f[3])
            if st["orig_data_size"]:
                m[p + "compr_per_page"] = st["compr_data_size"] * 4096 / st["orig_data_size"]
        elif line.startswith("@@@ VAL ") and len(f) == 5:
            m["%s.%s" % (f[2], f[3])] = float(f[4])
    for tag in {k.split(".")[1] for k in m if k.startswith("zram_ng.")}:
        add_ratios(m, tag, LATENCY + ("compr_per_page",))
    return m


def run(tree, runs, tmp):
    sets = os.environ.get("BENCH_SWAPIN_SETS", " ".join(SETS)).split()
    bad = [s for s in sets if s not in SETS]
    if bad or not sets:
        die("BENCH_SWAPIN_SETS: no data set %s (there are: %s)" % (" ".join(bad), " ".join(SETS)))
    try:
        mib = int(os.environ.get("BENCH_SWAPIN_MIB", 48))
        pct = int(os.environ.get("BENCH_SWAPIN_LIMIT_PCT", 50))
    except ValueError:
        die("BENCH_SWAPIN_MIB and BENCH_SWAPIN_LIMIT_PCT are numbers")
    if not 1 <= mib <= 4096 or not 1 <= pct <= 90:
        die("BENCH_SWAPIN_MIB 1..4096, BENCH_SWAPIN_LIMIT_PCT 1..90")
    limit = max(mib * pct // 100, 1)
    lines, manifests = realmem_vm_run(tree, "swapin", [mib, limit, SEED], sets, mib,
                                      min(mib, 48), limit, runs, tmp)
    meta = {"realmem_mib": mib, "memory_max_mib": limit, "seed": SEED, "data_sets": manifests,
            "data": "scripts/mkdatasets' images, repeated to realmem_mib; zero pages dropped",
            "devices": "zram_ng0 and zram0 swapped on at one priority, in the run's order"}
    return vm_results(lines, "swapin", meta, parse)


WORKLOAD = Workload(
    "swapin", run,
    doc="real application memory swapped out to zram_ng0 and zram0 at once (one priority) "
        "and back in in a random order, each swap-in timed and put to its device",
    plot=("swapin_p50_us", "median swap-in, us"),
    metrics=[Metric("pages", NEITHER, "pages"),
             Metric("compr_per_page", NEITHER, "bytes"),
             Metric("swapin_p50_us", LOWER, "us"),
             Metric("swapin_p90_us", LOWER, "us"),
             Metric("swapin_p99_us", LOWER, "us"),
             Metric("swapin_max_us", LOWER, "us"),
             Metric("swapin_mean_us", LOWER, "us")])
