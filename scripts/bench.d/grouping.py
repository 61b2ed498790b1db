# SPDX-License-Identifier: GPL-2.0
"""grouping: issue 30's grouped recompression against per-page zstd
recompression and lz4 pages, on zram_ng0 (guest half:
scripts/vm/guest/bench.d/grouping.sh).

Data: the real application memory of realmem (scripts/mkdatasets' images,
BENCH_GROUPING_MIB MiB of each, 24 by default) and the project's text and
swap data sets (bench-vm's, as recompress). For each run, data set and
configuration (the order of the configurations reversed every other run),
a fresh device: lz4 primary, zstd secondary (priority 1) but for lz4, the
data written with O_DIRECT, `idle all`, then the configuration's pass:

  lz4       none: the pages as written
  zstd      recompress type=idle: every idle page on its own with zstd
  groupN    group_recompress type=idle pages=N (zstd); group4, group8
            and group16 by default
  groupN-L  the same with zstd at level L (algorithm_params priority=1
            level=L; the per-page zstd of "zstd" stays at its default)

BENCH_GROUPING_CONFIGS picks some (lz4 and zstd, the baselines, always).

then mm_stat, `compact` and mm_stat again (mem_packed_compacted and its
ratios compacted_vs_zstd/lz4: without the zspages the pass emptied), the
data read back sequentially (4 KiB O_DIRECT reads,
timed, compared), 2,000 random 4 KiB O_DIRECT reads with fio (clat p50
and p99), 30% of the pages discarded at random (fio randtrim, a fixed
seed), `compact`, mm_stat, and for the groups the same pass again (it
regroups the groups a quarter dead), and mm_stat again: what compaction
alone gives back of a group's dead pages against compaction and the pass.

Metrics per data set and configuration (tag SET.CFG): mem_used_total and
compr_data_size after the pass, mem_packed_compacted after its compaction,
pass_sys_ms_per_mib (system CPU time of the pass's write per MiB written),
seq_read_ms, seq_decompressions (groups the sequential read decompressed:
the groups once each when the CPU's cache serves the rest), rand_p50_us,
rand_p99_us, mem_after_compact (after the frees
and compaction), mem_after_frees (and the second pass); and the ratios the
issue's goals are stated in: SET.groupN.mem_vs_zstd and mem_vs_lz4,
compacted_vs_zstd and compacted_vs_lz4, after_frees_vs_zstd (and
compact_only_vs_zstd: compaction without the second pass), cpu_vs_zstd,
p50_vs_zstd, p99_vs_zstd and seq_vs_zstd.
"""
import os
import re

from benchlib import LOWER, NEITHER, Metric, Workload
from benchrun import (REALMEM_SETS, data_set_files, die, realmem_images,
                      vals_and_mmstats, vm_results, vm_run)

CONFIGS = ("lz4", "zstd", "group4", "group8", "group16")
IMG_MIB = 48


def parse(run, mib):
    vals, mms = vals_and_mmstats(run)
    v, st = vals.get("zram_ng", {}), mms.get("zram_ng", {})
    m = {}
    for tag, s in st.items():
        ds, cfg, when = tag.split(".")
        p = "grouping.%s.%s." % (ds, cfg)
        if when == "packed":
            m[p + "mem_used_total"] = s["mem_used_total"]
            m[p + "compr_data_size"] = s["compr_data_size"]
        elif when == "packed_compacted":
            m[p + "mem_packed_compacted"] = s["mem_used_total"]
        elif when == "compacted":
            m[p + "mem_after_compact"] = s["mem_used_total"]
        elif when == "freed":
            m[p + "mem_after_frees"] = s["mem_used_total"]
    for k, val in v.items():
        ds, cfg, what = k.split(".")
        p = "grouping.%s.%s." % (ds, cfg)
        if what == "pass_sys_ms":
            m[p + "pass_sys_ms_per_mib"] = val / mib
        elif what in ("seq_read_ms", "rand_p50_us", "rand_p99_us", "grouped_pages",
                      "groups", "seq_decompressions"):
            m[p + what] = val
    sets = {k.split(".")[1] for k in m}
    for ds in sets:
        z = "grouping.%s.zstd." % ds
        lz = "grouping.%s.lz4." % ds
        for cfg in sorted({k.split(".")[2] for k in m if k.split(".")[1] == ds}):
            if not cfg.startswith("group"):
                continue
            g = "grouping.%s.%s." % (ds, cfg)
            for key, a, b in (("mem_vs_zstd", g + "mem_used_total", z + "mem_used_total"),
                              ("mem_vs_lz4", g + "mem_used_total", lz + "mem_used_total"),
                              ("compacted_vs_zstd", g + "mem_packed_compacted",
                               z + "mem_packed_compacted"),
                              ("compacted_vs_lz4", g + "mem_packed_compacted",
                               lz + "mem_packed_compacted"),
                              ("after_frees_vs_zstd", g + "mem_after_frees",
                               z + "mem_after_frees"),
                              ("compact_only_vs_zstd", g + "mem_after_compact",
                               z + "mem_after_frees"),
                              ("cpu_vs_zstd", g + "pass_sys_ms_per_mib",
                               z + "pass_sys_ms_per_mib"),
                              ("p50_vs_zstd", g + "rand_p50_us", z + "rand_p50_us"),
                              ("p99_vs_zstd", g + "rand_p99_us", z + "rand_p99_us"),
                              ("seq_vs_zstd", g + "seq_read_ms", z + "seq_read_ms")):
                if a in m and m.get(b):
                    m[g + key] = m[a] / m[b]
    return m


def run(tree, runs, tmp):
    mib = int(os.environ.get("BENCH_GROUPING_MIB", 24))
    if not 1 <= mib <= IMG_MIB:
        die("BENCH_GROUPING_MIB: 1 to %d" % IMG_MIB)
    sets = os.environ.get("BENCH_GROUPING_SETS",
                          " ".join(REALMEM_SETS + ("text", "swap"))).split()
    real = [s for s in sets if s in REALMEM_SETS]
    bad = [s for s in sets if s not in REALMEM_SETS and s not in ("text", "swap")]
    if bad or not sets:
        die("BENCH_GROUPING_SETS: no data set %s" % " ".join(bad))
    configs = os.environ.get("BENCH_GROUPING_CONFIGS", " ".join(CONFIGS)).split()
    for c in configs:
        if c in ("lz4", "zstd"):
            continue
        g = re.fullmatch(r"group([0-9]+)(?:-([0-9]+))?", c)
        if (not g or not 2 <= int(g.group(1)) <= 16 or
                (g.group(2) is not None and not 1 <= int(g.group(2)) <= 22)):
            die("BENCH_GROUPING_CONFIGS: no configuration %s (lz4, zstd, group2..group16, "
                "groupN-L: zstd level L, 1..22, for the groups)" % c)
    if not {"lz4", "zstd"} <= set(configs):
        die("BENCH_GROUPING_CONFIGS: lz4 and zstd are the goals' baselines: keep them")
    # the text and swap data sets' files only when one of them is measured
    # (the kernel text they are cut from has 44 MiB, the images 48)
    adds = data_set_files(tmp, mib) if len(real) < len(sets) else []
    meta_sets = {}
    if real:
        paths, manifests = realmem_images(real, IMG_MIB)
        adds += paths
        meta_sets = manifests
        args = [mib, ",".join(configs)] + ["%s=%s" % (s, os.path.basename(p))
                                           for s, p in zip(real, paths)]
    else:
        args = [mib, ",".join(configs)]
    args += [s for s in sets if s not in REALMEM_SETS]
    per = 60 * len(sets) * len(configs)     # seconds a run, generously
    lines = vm_run(tree, "grouping", args, adds, runs, tmp, 300 + per * runs,
                   mem="%dM" % max(1024, 768 + 4 * mib))
    meta = {"mib_per_data_set": mib, "configs": configs, "data_sets": meta_sets,
            "sets": sets, "primary": "lz4", "secondary": "zstd (priority 1)",
            "frees": "30% of the pages discarded at random (fio randtrim, randrepeat), "
                     "compact, and for the groups the same pass again",
            "reads": "sequential: dd bs=4k O_DIRECT; random: fio randread 4k O_DIRECT, "
                     "2000 I/Os, psync, clat percentiles"}
    return vm_results(lines, "grouping", meta, parse, mib)


WORKLOAD = Workload(
    "grouping", run,
    doc="issue 30: grouped recompression against per-page zstd and lz4 pages, zram_ng0",
    metrics=[Metric("mem_used_total", LOWER, "bytes"),
             Metric("compr_data_size", LOWER, "bytes"),
             Metric("mem_packed_compacted", LOWER, "bytes"),
             Metric("compacted_vs_zstd", LOWER, "ratio"),
             Metric("compacted_vs_lz4", LOWER, "ratio"),
             Metric("mem_after_compact", LOWER, "bytes"),
             Metric("mem_after_frees", LOWER, "bytes"),
             Metric("pass_sys_ms_per_mib", LOWER, "ms/MiB"),
             Metric("seq_read_ms", LOWER, "ms"),
             Metric("rand_p50_us", LOWER, "us"),
             Metric("rand_p99_us", LOWER, "us"),
             Metric("grouped_pages", NEITHER, "pages"),
             Metric("groups", NEITHER, "groups"),
             Metric("seq_decompressions", LOWER, "groups decompressed by the sequential read"),
             Metric("mem_vs_zstd", LOWER, "ratio"),
             Metric("mem_vs_lz4", LOWER, "ratio"),
             Metric("after_frees_vs_zstd", LOWER, "ratio"),
             Metric("compact_only_vs_zstd", LOWER, "ratio"),
             Metric("cpu_vs_zstd", LOWER, "ratio"),
             Metric("p50_vs_zstd", LOWER, "ratio"),
             Metric("p99_vs_zstd", LOWER, "ratio"),
             Metric("seq_vs_zstd", LOWER, "ratio")])
