# SPDX-License-Identifier: GPL-2.0
"""pageblocks: issue 12's scenario, free 2 MiB blocks after the kernel's
compaction, one VM boot per stack per run (guest half:
scripts/vm/guest/bench.d/pageblocks.sh)."""
import os

from benchlib import HIGHER, LOWER, Metric, Workload
from benchrun import add_ratios, build_guest_tool, mmstat, split_runs, vm_meta, vm_run

# 400 MiB swapped out of a 96 MiB cgroup, half freed.
# BENCH_PAGEBLOCKS_MIB / _LIMIT_MIB shrink it for the smoke test.
MIB = int(os.environ.get("BENCH_PAGEBLOCKS_MIB", 400))
LIMIT_MIB = int(os.environ.get("BENCH_PAGEBLOCKS_LIMIT_MIB", 96))


def parse(run):
    """Per stack (zram_ng, zram, zram_ng-unmovable): free 2 MiB blocks and
    Unmovable pageblocks after compact_memory, pgmigrate_success during it,
    pages_migrated (zram_ng), mem_used_total after the device's compaction;
    ratios zram_ng / zram."""
    m = {}
    for line in run:
        f = line.split()
        if line.startswith("@@@ VAL "):
            m["%s.pageblocks.%s" % (f[2], f[3])] = int(f[4])
        elif line.startswith("@@@ MMSTAT "):
            m[f[2] + ".pageblocks.mem_used_total"] = mmstat(f[4:])["mem_used_total"]
    add_ratios(m, "pageblocks", ("free_2m_blocks", "unmovable_pageblocks", "mem_used_total"))
    return m


def run(tree, runs, tmp):
    exe = build_guest_tool("fragmenter")
    # A pageblock's type outlives the work that set it: one boot per stack
    # per run, zram_ng and zram alternating, zram_ng with movable=0 last.
    out, vm, logs = [], {}, []
    for i in range(runs):
        order = ["zram_ng0", "zram0"] if i % 2 == 0 else ["zram0", "zram_ng0"]
        one = []
        for spec in order + ["zram_ng0:unmovable"]:
            lines = vm_run(tree, "pageblocks", [MIB, LIMIT_MIB, i + 1, spec], [exe], 1, tmp, 400)
            with open(os.path.join(tmp, "vm.log")) as f:
                logs.append(f.read())
            vm, rl = split_runs(lines)
            one += rl[0]
        out.append(parse(one))
    with open(os.path.join(tmp, "vm.log"), "w") as f:
        f.write("".join(logs))
    meta = {"pageblocks": {"written_mib": MIB, "memory_max_mib": LIMIT_MIB,
                           "data": "per page 256..3840 random bytes, the rest a pattern; "
                                   "MADV_NOHUGEPAGE; a random half freed; the rest verified",
                           "order": "one VM boot per stack per run: zram_ng and zram "
                                    "alternate, zram_ng movable=0 last; seed = run + 1"}}
    vm_meta(meta, vm)
    meta["boots"] = "one VM boot per stack per run (pageblock types persist within a boot)"
    return out, meta


WORKLOAD = Workload(
    "pageblocks", run,
    doc="issue 12: mixed data swapped out and half freed, free 2 MiB blocks after compaction",
    plot=("free_2m_blocks", "free 2 MiB blocks after compact_memory"),
    metrics=[Metric("free_2m_blocks", HIGHER, "2 MiB blocks"),
             Metric("unmovable_pageblocks", LOWER, "pageblocks"),
             Metric("pgmigrate_success", HIGHER, "pages"),
             Metric("pages_migrated", HIGHER, "pages"),
             Metric("mem_used_total", LOWER, "bytes")])
