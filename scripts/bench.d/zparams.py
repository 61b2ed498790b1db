# SPDX-License-Identifier: GPL-2.0
"""zparams: compression levels and zstd dictionaries (algorithm_params) on
real application memory (guest half: scripts/vm/guest/bench.d/zparams.sh).

Each data set is one of scripts/mkdatasets' images (realmem's), cut into
4 KiB pages: every fourth page (0, 4, 8, ...) is the test data, 12 MiB of a
48 MiB image, written to the device with O_DIRECT, its mm_stat read, read
back and compared; pages 1, 5, 9, ... are the training samples of the
dictionaries (`zstd --train`, 64 KiB, pages 4 KiB as zram compresses them):
"all" is trained on the samples of every data set, "others" for each data
set on those of the other three (a program the dictionary never saw).
Neither is trained on a test page. Each configuration runs on zram_ng0 and
then on the stock zram0 where the stock takes it (6.1's zram has no
algorithm_params; 6.1's zstd takes no dictionary, on either), alternating
between runs.

  BENCH_ZPARAMS_SETS     data sets (default: all four of realmem)
  BENCH_ZPARAMS_CONFIGS  configurations, ALGO[:LEVEL[:DICT]] with DICT all
                         or others (default: lz4 zstd zstd:1 zstd:9
                         zstd:3:all zstd:3:others); a bare ALGO is its
                         default level, with no algorithm_params written

Metrics per data set and configuration (tag SET-ALGO[-LEVEL[-DICT]]):
compr_data_size and mem_used_total, compr_vs_lz4 (the compressed bytes
against the same device's lz4 on the same pages), write_ms and read_ms (the
12 MiB written and read back with O_DIRECT, 4 KiB at a time), and the
ratios zram_ng / zram where both ran.
"""
import os
import shutil
import subprocess

from benchlib import LOWER, NEITHER, Metric, Workload
from benchrun import (REALMEM_SETS, TOP, add_ratios, die, log, realmem_images,
                      vals_and_mmstats, vm_results, vm_run)

CONFIGS = "lz4 zstd zstd:1 zstd:9 zstd:3:all zstd:3:others"
IMG_MIB = 48
PAGE = 4096
DICT_BYTES = 65536
RATIOS = ("compr_data_size", "mem_used_total", "write_ms", "read_ms")


def tag_of(ds, cfg):
    return ds + "-" + cfg.replace(":", "-")


def parse(run):
    vals, mms = vals_and_mmstats(run)
    m = {}
    for dev, tags in mms.items():
        for tag, st in tags.items():
            p = "%s.%s." % (dev, tag)
            m[p + "orig_data_size"] = st["orig_data_size"]
            m[p + "compr_data_size"] = st["compr_data_size"]
            m[p + "mem_used_total"] = st["mem_used_total"]
            for k in ("write_ms", "read_ms"):
                if tag + "." + k in vals.get(dev, {}):
                    m[p + k] = vals[dev][tag + "." + k]
    for k in list(m):
        dev, tag, what = k.split(".")
        if what != "compr_data_size" or "-" not in tag:
            continue
        for ds in REALMEM_SETS:
            if tag.startswith(ds + "-"):
                lz4 = m.get("%s.%s-lz4.compr_data_size" % (dev, ds))
                if lz4:
                    m["%s.%s.compr_vs_lz4" % (dev, tag)] = m[k] / lz4
    for tag in {k.split(".")[1] for k in m if k.startswith("zram_ng.")}:
        add_ratios(m, tag, RATIOS)
    return m


def pages_and_dicts(sets, paths, out):
    """OUT/SET.pages (the test pages of each image), OUT/all.dict and
    OUT/SET.others.dict, made once per set of images (OUT is named by
    their digests)."""
    done = os.path.join(out, "done")
    if os.path.exists(done):
        return
    if not shutil.which("zstd"):
        die("zparams: no zstd program (scripts/deps.sh installs it)")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    for ds, path in zip(sets, paths):
        samples = os.path.join(out, "samples", ds)
        os.makedirs(samples)
        with open(path, "rb") as img, open(os.path.join(out, ds + ".pages"), "wb") as test:
            i = 0
            while True:
                page = img.read(PAGE)
                if len(page) < PAGE:
                    break
                if i % 4 == 0:
                    test.write(page)
                elif i % 4 == 1:
                    with open(os.path.join(samples, "%05d" % i), "wb") as f:
                        f.write(page)
                i += 1

    def train(dst, dirs):
        r = subprocess.run(["zstd", "-q", "--train", "-r"] + dirs +
                           ["--maxdict=%d" % DICT_BYTES, "-o", dst],
                           capture_output=True, text=True)
        if r.returncode:
            die("zparams: zstd --train: %s" % r.stderr.strip())

    sdir = os.path.join(out, "samples")
    train(os.path.join(out, "all.dict"), [os.path.join(sdir, ds) for ds in sets])
    for ds in sets:
        others = [os.path.join(sdir, o) for o in sets if o != ds]
        if others:
            train(os.path.join(out, ds + ".others.dict"), others)
    shutil.rmtree(sdir)
    open(done, "w").close()


def run(tree, runs, tmp):
    sets = os.environ.get("BENCH_ZPARAMS_SETS", " ".join(REALMEM_SETS)).split()
    bad = [s for s in sets if s not in REALMEM_SETS]
    if bad or not sets:
        die("BENCH_ZPARAMS_SETS: no data set %s (there are: %s)"
            % (" ".join(bad), " ".join(REALMEM_SETS)))
    configs = os.environ.get("BENCH_ZPARAMS_CONFIGS", CONFIGS).split()
    for c in configs:
        f = c.split(":")
        if (not f[0].replace("-", "").isalnum() or len(f) > 3 or
                (len(f) > 1 and not f[1].lstrip("-").isdigit()) or
                (len(f) > 2 and f[2] not in ("all", "others"))):
            die("BENCH_ZPARAMS_CONFIGS: %s is not ALGO[:LEVEL[:all|others]]" % c)
    if "lz4" not in configs:
        configs.insert(0, "lz4")    # compr_vs_lz4's reference
    paths, manifests = realmem_images(sets, IMG_MIB)
    digest = "-".join(manifests[s]["sha256"][:8] for s in sets)
    out = os.path.join(TOP, ".cache", "bench", "zparams", digest)
    pages_and_dicts(sets, paths, out)
    log("zparams: test pages and dictionaries in %s" % out)
    adds = [os.path.join(out, s + ".pages") for s in sets] + [os.path.join(out, "all.dict")]
    adds += [os.path.join(out, s + ".others.dict") for s in sets
             if os.path.exists(os.path.join(out, s + ".others.dict"))]
    test_mib = sum(os.path.getsize(os.path.join(out, s + ".pages")) for s in sets) >> 20
    per = 20 * len(configs) * len(sets)     # seconds a run, generously
    lines = vm_run(tree, "zparams", [",".join(configs)] + sets, adds, runs, tmp,
                   300 + 2 * per * runs, mem="%dM" % max(1024, 640 + 2 * test_mib))
    meta = {"configs": configs, "data_sets": manifests, "test_pages": "every 4th page (i % 4 == 0)",
            "dictionaries": "zstd --train --maxdict=%d on pages i %% 4 == 1: all = every data "
                            "set's, others = the other data sets'" % DICT_BYTES,
            "io": "dd bs=4k, O_DIRECT, the test pages written then read back and compared"}
    return vm_results(lines, "zparams", meta, parse)


WORKLOAD = Workload(
    "zparams", run,
    doc="compression levels and zstd dictionaries on real application memory, "
        "zram_ng0 and zram0",
    metrics=[Metric("orig_data_size", NEITHER, "bytes"),
             Metric("compr_data_size", LOWER, "bytes"),
             Metric("mem_used_total", LOWER, "bytes"),
             Metric("compr_vs_lz4", LOWER, "ratio"),
             Metric("write_ms", LOWER, "ms"),
             Metric("read_ms", LOWER, "ms")])
