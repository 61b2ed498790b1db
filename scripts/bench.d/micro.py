# SPDX-License-Identifier: GPL-2.0
"""micro: zsng_bench (Google Benchmark) on the host, the userspace core
against memcpy. No guest half."""
import json
import os
import re
import subprocess

from benchlib import HIGHER, LOWER, Metric, Workload
from benchrun import die, log

MIN_TIME = 0.2
NAMES = {"BM_MallocWriteFree": "malloc-write-free", "BM_MapReadOnly": "map-ro",
         "BM_Memcpy": "memcpy"}


def build(tree):
    bdir = os.path.join(tree, ".cache", "bench", "build")
    if not os.path.exists(os.path.join(bdir, "CMakeCache.txt")):
        r = subprocess.run(["cmake", "-S", os.path.join(tree, "zsmalloc_ng", "user"), "-B", bdir,
                            "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DZSNG_SANITIZE=OFF"],
                           capture_output=True, text=True)
        if r.returncode:
            die("cmake: " + r.stderr)
    r = subprocess.run(["cmake", "--build", bdir, "-j2", "--target", "zsng_bench"],
                       capture_output=True, text=True)
    exe = os.path.join(bdir, "zsng_bench")
    if r.returncode or not os.path.exists(exe):
        die("building zsng_bench failed:\n" + r.stdout[-2000:] + r.stderr[-2000:])
    return exe


def parse(results):
    """Google Benchmark JSON -> one metrics dict per repetition."""
    per = {}
    for b in results["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        rep = b.get("repetition_index", 0)
        m = per.setdefault(rep, {})
        base, _, arg = b["run_name"].partition("/")
        if base in NAMES:
            m["micro.%s.%s.MBps" % (NAMES[base], arg)] = b["bytes_per_second"] / 1e6
        elif base == "BM_CompactFragmented":
            # The benchmark labels each run with the core's policy name.
            p = "micro.compact.%s." % b["label"]
            unit = {"ns": 1e-3, "us": 1.0, "ms": 1e3}[b.get("time_unit", "ns")]
            m[p + "time_us"] = b["real_time"] * unit
            m[p + "objs_moved"] = b.get("objs_moved", 0)
            m[p + "pages_freed"] = b.get("pages_freed", 0)
    for m in per.values():
        for k in list(m):
            mm = re.match(r"micro\.(malloc-write-free|map-ro)\.(\d+)\.MBps$", k)
            base = m.get("micro.memcpy.%s.MBps" % mm.group(2)) if mm else None
            if base:
                m["micro.%s.%s.frac_memcpy" % mm.groups()] = m[k] / base
    return [per[k] for k in sorted(per)]


def run(tree, runs, tmp):
    exe = build(tree)
    out = os.path.join(tmp, "micro.json")
    log("micro: %s, %d interleaved repetitions" % (exe, runs))
    r = subprocess.run([exe, "--benchmark_format=json", "--benchmark_out=" + out,
                        "--benchmark_out_format=json",
                        "--benchmark_repetitions=%d" % runs,
                        "--benchmark_enable_random_interleaving=true",
                        "--benchmark_min_time=%g" % MIN_TIME],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode:
        die("zsng_bench failed: " + r.stderr[-2000:])
    with open(out) as f:
        res = json.load(f)
    meta = {"kernel": os.uname().release, "algorithm": None, "policy": "ratio (compact: all)",
            "vm_mem_kib": None, "vm_cpus": None,
            "boots": "host process, one invocation; repetitions are the runs (interleaved)",
            "micro": {"binary": os.path.relpath(exe, tree), "min_time_s": MIN_TIME,
                      "context": res.get("context", {})}}
    return parse(res), meta


WORKLOAD = Workload(
    "micro", run, vm=False, doc="zsng_bench on the host: the userspace core against memcpy",
    plot=("frac_memcpy", "fraction of memcpy of the same bytes"),
    metrics=[Metric("MBps", HIGHER, "MB/s"), Metric("frac_memcpy", HIGHER, "fraction"),
             Metric("time_us", LOWER, "us"), Metric("objs_moved", LOWER, "objects"),
             Metric("pages_freed", HIGHER, "pages")])
