# SPDX-License-Identifier: GPL-2.0
"""fio: fio jobs in the zram maintainers' style on zram_ng0 and zram0
(guest half: scripts/vm/guest/bench.d/fio.sh)."""
import json
import os

from benchlib import HIGHER, LOWER, NEITHER, Metric, Workload
from benchrun import FOOTPRINT, footprint_metrics, footprint_ratios, mmstat, vm_results, vm_run

# Each run is well under two minutes of TCG time.
# BENCH_FIO_SIZE_MIB / BENCH_FIO_RUNTIME_S shrink it for the smoke test.
SIZE_MIB = int(os.environ.get("BENCH_FIO_SIZE_MIB", 64))
RUNTIME_S = int(os.environ.get("BENCH_FIO_RUNTIME_S", 2))


def parse(run):
    m, cur, buf = {}, None, []
    for line in run:
        if line.startswith("@@@ BEGIN FIO "):
            cur, buf = line.split()[3:5], []
        elif line.startswith("@@@ END FIO"):
            dev, job = cur
            j = json.loads("\n".join(buf))["jobs"][0]
            rd, wr = j["read"], j["write"]
            main = wr if wr["io_bytes"] > rd["io_bytes"] else rd
            pct = main["clat_ns"].get("percentile", {})
            p = "%s.%s." % (dev, job)
            m[p + "bw_MBps"] = (rd["bw"] + wr["bw"]) / 1024.0
            m[p + "iops"] = rd["iops"] + wr["iops"]
            m[p + "clat_p50_us"] = pct.get("50.000000", 0) / 1000.0
            m[p + "clat_p99_us"] = pct.get("99.000000", 0) / 1000.0
            cur = None
        elif cur is not None:
            buf.append(line)
        elif line.startswith("@@@ MMSTAT "):
            f = line.split()
            st = mmstat(f[4:])
            for k in ("orig_data_size", "compr_data_size", "mem_used_total"):
                m["%s.%s.%s" % (f[2], f[3], k)] = st[k]
        elif line.startswith("@@@ FOOT "):
            footprint_metrics(m, line)
    footprint_ratios(m)
    for k in list(m):
        if k.startswith("zram_ng."):
            rest = k[len("zram_ng."):]
            other = m.get("zram." + rest)
            name = rest[:-len("_MBps")] if rest.endswith("bw_MBps") else rest
            if other and (rest.endswith("bw_MBps") or rest.endswith("mem_used_total")
                          or rest.endswith("clat_p99_us")):
                m["ratio." + name] = m[k] / other
    bws = [v for k, v in m.items() if k.startswith("ratio.") and k.endswith(".bw")]
    if bws:
        g = 1.0
        for v in bws:
            g *= v
        m["ratio.fio-geomean.bw"] = g ** (1.0 / len(bws))
    return m


def run(tree, runs, tmp):
    lines = vm_run(tree, "fio", [SIZE_MIB, RUNTIME_S], [], runs, tmp, 300 + 240 * runs,
                   append="slab_nomerge")
    meta = {"size_mib_per_job": SIZE_MIB, "runtime_s": RUNTIME_S,
            "ioengine": "psync", "direct": 1, "buffer_compress_percentage": 33,
            "refill_buffers": 1, "scramble_buffers": 0,
            "jobs": "seq-write/seq-read 128k, rand-read/rand-write/rand-rw(70% read) 4k; numjobs 1 and 2"}
    return vm_results(lines, "fio", meta, parse)


WORKLOAD = Workload(
    "fio", run, doc="fio jobs on zram_ng0 and zram0, the footprint after seq-write",
    plot=("bw_MBps", "MB/s"),
    metrics=[Metric("bw_MBps", HIGHER, "MB/s"), Metric("iops", HIGHER, "1/s"),
             Metric("bw", HIGHER, "ratio"),  # ratio.JOB.bw, ratio.fio-geomean.bw
             Metric("clat_p50_us", LOWER, "us"), Metric("clat_p99_us", LOWER, "us"),
             Metric("orig_data_size", NEITHER, "bytes"),
             Metric("compr_data_size", LOWER, "bytes"),
             Metric("mem_used_total", LOWER, "bytes")]
    + [Metric(k, LOWER, "bytes") for k in FOOTPRINT])
