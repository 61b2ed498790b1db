# SPDX-License-Identifier: GPL-2.0
"""kernel-ab: zsng_ab.ko, the stock zsmalloc and zsmalloc_ng operation by
operation in the kernel, in one boot (guest half:
scripts/vm/guest/bench.d/kernel-ab.sh)."""
import os

from benchlib import HIGHER, LOWER, NEITHER, Metric, Workload
from benchrun import split_runs, vm_meta, vm_run

# Objects per thread and the data sets (fio's pages: what fio writes with
# the fio workload's buffer options, 4 KiB per object up to zsng_ab's 8192
# distinct pages). BENCH_KAB_OBJS / BENCH_KAB_DATA shrink it for the smoke
# test.
OBJS = int(os.environ.get("BENCH_KAB_OBJS", 16384))
DATA = os.environ.get("BENCH_KAB_DATA",
                      "swap mixed fio fixed:256 fixed:1024 fixed:2048 fixed:3072").split()
ALLOCS = ("zsmalloc_ng", "zsmalloc")   # A / B: ratios are A's over B's
PHASES = ("fill", "read", "churn", "free", "compact", "destroy")


def parse(run):
    """zsng_ab's lines ('@@@ AB ALLOC LABEL THREADS PHASE key=value...')
    -> per allocator, data set, thread count and phase: ns_per_op and MBps
    (compact: time_us, pages before/after, pages_freed, objs_displaced, and
    zsmalloc_ng's objs_moved (copies); fill: pages_used);
    ratio.LABEL-tN.PHASE.speed = zsmalloc's time / zsmalloc_ng's (above 1:
    zsmalloc_ng faster), ratio.*.pages_used / pages_after / pages_freed /
    objs_displaced = zsmalloc_ng's / zsmalloc's, and
    ratio.geomean-tN.PHASE.speed over the data sets."""
    m, ns = {}, {}
    for line in run:
        if not line.startswith("@@@ AB "):
            continue
        f = line.split()[2:]
        kv = dict(x.split("=", 1) for x in f if "=" in x)
        if f[0] == "data":
            if int(kv.get("sources", 0)):
                m["data.%s.mean_size" % f[1]] = int(kv["bytes"]) / int(kv["sources"])
            continue
        if len(f) < 4 or f[0] not in ALLOCS or f[3] not in PHASES:
            continue
        alloc, case, phase = f[0], "%s-t%s" % (f[1], f[2]), f[3]
        v = {k: int(x) for k, x in kv.items()}
        p = "%s.%s.%s." % (alloc, case, phase)
        ns[(alloc, case, phase)] = v["ns"]
        if phase == "compact":
            m[p + "time_us"] = v["ns"] / 1000.0
            for k in ("pages_before", "pages_after", "pages_freed", "objs_displaced",
                      "objs_moved"):
                if k in v:
                    m[p + k] = v[k]
            continue
        if v.get("ops"):
            m[p + "ns_per_op"] = v["ns"] / v["ops"]
        if v.get("bytes") and v["ns"]:
            m[p + "MBps"] = v["bytes"] * 1000.0 / v["ns"]
        if phase == "fill":
            m[p + "pages_used"] = v["pages"]
    a, b = ALLOCS
    speeds = {}
    for (alloc, case, phase), t in ns.items():
        tb = ns.get((b, case, phase))
        if alloc != a or not t or not tb:
            continue
        r = "ratio.%s.%s." % (case, phase)
        m[r + "speed"] = tb / t
        speeds.setdefault((case.rsplit("-", 1)[1], phase), []).append(tb / t)
        for k in ("pages_used", "pages_after", "pages_freed", "objs_displaced"):
            x, y = m.get("%s.%s.%s.%s" % (a, case, phase, k)), m.get(
                "%s.%s.%s.%s" % (b, case, phase, k))
            if x is not None and y:
                m[r + k] = x / y
    for (threads, phase), v in speeds.items():
        g = 1.0
        for x in v:
            g *= x
        m["ratio.geomean-%s.%s.speed" % (threads, phase)] = g ** (1.0 / len(v))
    return m


def run(tree, runs, tmp):
    objs = OBJS
    fio_mib = max(1, min(32, objs * 4096 >> 20))
    lines = vm_run(tree, "kernel-ab", [objs, fio_mib] + DATA, [], runs, tmp,
                   300 + 150 * runs)
    vm, rl = split_runs(lines)
    meta = {"kernel-ab": {
        "module": "zsng_ab.ko (zsmalloc_ng/bench/kernel-ab), test only",
        "objs_per_thread": objs, "data": DATA, "fio_mib": fio_mib,
        "threads": "1, then one kernel thread per online CPU, bound, started together",
        "phases": "fill (zs_malloc + map WO + copy + unmap / zsng_store), read (random "
                  "order, map RO + copy), churn (random half freed and stored again), "
                  "free (random 60%), compact (one call), destroy (free the rest + "
                  "destroy the pool); every live object verified between phases",
        "sizes": "lz4 (crypto API) of swapper.c's / fragmenter.c's pages or fio's, "
                 "or fixed; up to 8192 distinct pages, objects go round them",
        "gfp": "zram's: non-sleeping first, then GFP_NOIO",
        "objs_displaced": "objects whose handle word (zsmalloc) or slot (zsmalloc_ng) "
                          "changed across the compaction; objs_moved: zsmalloc_ng's "
                          "count of copies",
        "order": "both allocators per data set and thread count; zsmalloc_ng first "
                 "in even runs; seed = run + 1"}}
    vm_meta(meta, vm)
    meta["boots"] = "one VM boot for all runs; zsmalloc and zsmalloc_ng alternate order per run"
    return [parse(r) for r in rl], meta


WORKLOAD = Workload(
    "kernel-ab", run, pair=ALLOCS,
    doc="zsng_ab.ko: the stock zsmalloc and zsmalloc_ng operation by operation, one boot",
    metrics=[Metric("ns_per_op", LOWER, "ns"), Metric("MBps", HIGHER, "MB/s"),
             Metric("speed", HIGHER, "zsmalloc's time / zsmalloc_ng's"),
             Metric("time_us", LOWER, "us"), Metric("pages_used", LOWER, "pages"),
             Metric("pages_before", LOWER, "pages"), Metric("pages_after", LOWER, "pages"),
             Metric("pages_freed", HIGHER, "pages"),
             Metric("objs_displaced", LOWER, "objects"),
             Metric("objs_moved", LOWER, "objects"),
             Metric("mean_size", NEITHER, "bytes")])
