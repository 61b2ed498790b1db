# SPDX-License-Identifier: GPL-2.0
"""compaction: the compaction experiment's block run, zram_ng0 under each
policy, then zram0 (guest half: scripts/vm/guest/bench.d/compaction.sh)."""
import os
import subprocess
import sys

from benchlib import HIGHER, LOWER, Metric, Workload
from benchrun import GUEST, TOP, add_ratios, die, mmstat, split_runs, vm_meta, vm_run

# 32 zspages: 4096 pages and ~660 discards (one blkdiscard each) per device.
ZSPAGES = 32


def parse(run, default_policy):
    m, res = {}, {}
    for line in run:
        f = line.split()
        if line.startswith("@@@ RESULT "):
            res.setdefault(f[2], {})["compact_us"] = int(f[3].split("=")[1])
        elif line.startswith("@@@ BEFORE ") or line.startswith("@@@ AFTER "):
            res.setdefault(f[2], {})[f[1]] = mmstat(f[3:])
    for label, r in res.items():
        dev, policy = label.split(":")
        name = "zram" if dev == "zram" else (
            "zram_ng" if policy == default_policy else "zram_ng-" + policy)
        b, a = r["BEFORE"], r["AFTER"]
        p = name + ".compaction."
        m[p + "compact_us"] = r["compact_us"]
        m[p + "pages_freed"] = a["pages_compacted"] - b["pages_compacted"]
        m[p + "mem_used_before"] = b["mem_used_total"]
        m[p + "mem_used_total"] = a["mem_used_total"]
        if "objs_moved" in a:
            m[p + "objs_moved"] = a["objs_moved"] - b.get("objs_moved", 0)
    add_ratios(m, "compaction", ("mem_used_total", "compact_us", "pages_freed"))
    return m


def run(tree, runs, tmp):
    pages = 128 * ZSPAGES
    inp = os.path.join(tmp, "in")
    os.makedirs(inp)
    r = subprocess.run([sys.executable, os.path.join(TOP, "scripts", "compaction-experiment-report"),
                        "--make-block-input", "--dir", inp, "--mode", "block", "--seed", "1",
                        "--zspages", str(ZSPAGES), "--pages", str(pages)],
                       capture_output=True, text=True)
    if r.returncode:
        die("generating the compaction input: " + r.stderr)
    adds = [os.path.join(inp, "pages.bin"), os.path.join(inp, "discards"),
            os.path.join(GUEST, "compaction-experiment-vm")]
    lines = vm_run(tree, "compaction", [pages, "discards"], adds, runs, tmp, 300 + 150 * runs)
    vm, rl = split_runs(lines)
    meta = {"compaction": {"pages": pages, "zspages": ZSPAGES, "seed": 1,
                           "source": "scripts/vm/guest/compaction-experiment-vm block (published-like discards)",
                           "order": "zram_ng under each policy, then zram, in every run"}}
    vm_meta(meta, vm)
    return [parse(r, vm.get("policy", "ratio")) for r in rl], meta


WORKLOAD = Workload(
    "compaction", run,
    doc="the compaction experiment's block run: zram_ng0 under each policy, then zram0",
    plot=("mem_used_total", "bytes after compaction"),
    metrics=[Metric("compact_us", LOWER, "us"), Metric("pages_freed", HIGHER, "pages"),
             Metric("objs_moved", LOWER, "objects"),
             Metric("mem_used_before", LOWER, "bytes"),
             Metric("mem_used_total", LOWER, "bytes")])
