# SPDX-License-Identifier: GPL-2.0
"""
What the workloads of scripts/bench.d/ share to run: one VM boot of
scripts/vm/guest/bench-vm with the workload's guest half
(scripts/vm/guest/bench.d/NAME.sh), its output split by run, the lines most
workloads print (MMSTAT, VAL, FOOT, META), the static guest tools and the
data sets of recompress and writeback.

bench-vm's output, everything else is commentary:
  @@@ META key value
  @@@ RUN i
  @@@ MMSTAT dev tag <mm_stat line>
  @@@ FOOT dev tag slab_bytes slab_object_bytes table_bytes
  @@@ VAL dev key value
  @@@ ERROR text
  @@@ DONE
and lines of a workload's own (fio's JSON, zsng_ab's results, ...).
"""
import json
import os
import shutil
import subprocess
import sys

from measure import stat_columns

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
GUEST = os.path.join(TOP, "scripts", "vm", "guest")

# recompress and writeback: MiB per data set (text, fio, swap).
# BENCH_RECOMPRESS_MIB shrinks both for the smoke test.
DATA_SET_MIB = int(os.environ.get("BENCH_RECOMPRESS_MIB", 24))
DATA_SETS_DOC = ("text: the kernel's Documentation/ and mm/ sources (linux-source-6.1); "
                 "fio: the fio workload's buffers (33% compressible, refilled); "
                 "swap: the swap workload's pages (half xorshift, half pattern)")


def log(msg):
    print("bench: " + msg, file=sys.stderr, flush=True)


def die(msg, status=1):
    log(msg)
    sys.exit(status)


def guest_file(name):
    """The guest half of workload NAME: vm/guest/bench.d/NAME.sh, else
    NAME.sh beside NAME.py in a $BENCH_WORKLOADS directory."""
    dirs = [os.path.join(GUEST, "bench.d")]
    dirs += [d for d in os.environ.get("BENCH_WORKLOADS", "").split(":") if d]
    for d in dirs:
        path = os.path.join(d, name + ".sh")
        if os.path.exists(path):
            return path
    die("%s: no guest half (%s.sh) in %s" % (name, name, " ".join(dirs)))


def vm_run(tree, mode, args, adds, runs, tmp, timeout, mem=None, append=None):
    """Run bench-vm MODE (its guest half bench.d/MODE.sh) in one VM boot;
    stream progress; return the "@@@" lines. bench-vm, lib.sh and the guest
    half are this tree's, whichever tree's vm-run boots the VM (a bisection
    measures every commit with one harness): bench-vm goes as a copy
    outside the tree, so vm-run runs it from /vmrun, the rest to /work,
    where bench-vm finds them. BENCH_VM_RUN replaces the tree's vm-run
    (scripts/tests/test-bench)."""
    script = os.path.join(tmp, "bench-vm")
    shutil.copy2(os.path.join(GUEST, "bench-vm"), script)
    half = os.path.join(tmp, "bench.d")
    shutil.rmtree(half, ignore_errors=True)
    os.makedirs(half)
    shutil.copy2(guest_file(mode), half)
    cmd = [os.environ.get("BENCH_VM_RUN") or os.path.join(tree, "scripts", "vm-run"),
           "--timeout", str(timeout)]
    if mem:
        cmd += ["--mem", mem]
    if append:
        cmd += ["--append", append]
    if os.environ.get("KSERIES"):
        cmd += ["--kernel", os.environ["KSERIES"]]
    for a in [os.path.join(GUEST, "lib.sh"), half] + adds:
        cmd += ["--add", a]
    cmd += [script, mode, str(runs)] + [str(a) for a in args]
    logpath = os.path.join(tmp, "vm.log")
    lines = []
    log("%s: one VM boot for %d run(s) (waits if another VM holds the lock)" % (mode, runs))
    with open(logpath, "w") as lf:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, errors="replace")
        for line in p.stdout:
            line = line.replace("\r", "").rstrip("\n")
            lf.write(line + "\n")
            if line.startswith("@@@ RUN "):
                log("%s: run %d/%d" % (mode, int(line.split()[2]) + 1, runs))
            elif line.startswith("@@@ ERROR") or line.startswith("vm-run:"):
                log(line)
            lines.append(line)
        rc = p.wait()
    if rc != 0 or "@@@ DONE" not in lines:
        keep = os.path.join(tree, ".cache", "bench", "failed-%s.log" % mode)
        os.makedirs(os.path.dirname(keep), exist_ok=True)
        shutil.copy2(logpath, keep)
        die("%s: the VM run failed (status %d); log in %s" % (mode, rc, keep))
    return lines


def split_runs(lines):
    """'@@@' lines -> (meta dict, [lines of run 0, run 1, ...])."""
    meta, runs = {}, []
    for line in lines:
        if line.startswith("@@@ META "):
            _, _, k, v = line.split(" ", 3)
            meta[k] = v
        elif line.startswith("@@@ RUN "):
            runs.append([])
        elif runs:
            runs[-1].append(line)
    return meta, runs


MMSTAT_FIELDS = stat_columns("mm_stat")


def mmstat(fields):
    return {k: int(v) for k, v in zip(MMSTAT_FIELDS, fields)}


def vm_meta(meta, vm):
    meta.update({"kernel": vm.get("kernel"), "algorithm": vm.get("algorithm"),
                 "policy": vm.get("policy"), "vm_mem_kib": int(vm.get("vm_mem_kib", 0)),
                 "vm_cpus": int(vm.get("vm_cpus", 0)),
                 "boots": "one VM boot for all runs; zram_ng and zram alternate order per run"})


def vm_results(lines, workload, meta, parse, *args):
    """A VM workload's output -> ([parse(run, *args) for each run], its
    metadata: {workload: meta} and the VM's (vm_meta))."""
    vm, rl = split_runs(lines)
    meta = {workload: meta}
    vm_meta(meta, vm)
    return [parse(r, *args) for r in rl], meta


def add_ratios(m, workload, keys):
    """ratio.WORKLOAD.KEY = zram_ng's value / zram's, for each KEY both have."""
    for k in keys:
        a = m.get("zram_ng.%s.%s" % (workload, k))
        b = m.get("zram.%s.%s" % (workload, k))
        if a is not None and b:
            m["ratio.%s.%s" % (workload, k)] = a / b


def vals_and_mmstats(run):
    """'@@@ VAL dev key value' and '@@@ MMSTAT dev tag ...' lines ->
    ({dev: {key: value}}, {dev: {tag: mm_stat dict}})."""
    vals, mms = {}, {}
    for line in run:
        f = line.split()
        if line.startswith("@@@ VAL ") and len(f) == 5:
            vals.setdefault(f[2], {})[f[3]] = int(f[4])
        elif line.startswith("@@@ MMSTAT "):
            mms.setdefault(f[2], {})[f[3]] = mmstat(f[4:])
    return vals, mms


# The whole footprint (fio and swap): its metrics, for their declarations.
FOOTPRINT = ("footprint", "pool_footprint", "meta_bytes", "meta_object_bytes", "table_bytes")


def footprint_metrics(m, line):
    """'@@@ FOOT dev tag slab_bytes slab_object_bytes table_bytes' (after
    the MMSTAT line of the same dev and tag) -> the whole footprint:
    mem_used_total + the stack's slab caches + the driver's table."""
    f = line.split()
    dev, tag = f[2], f[3]
    p = "%s.%s." % (dev, tag)
    slab, objs, table = int(f[4]), int(f[5]), int(f[6])
    m[p + "meta_bytes"] = slab
    m[p + "meta_object_bytes"] = objs
    m[p + "table_bytes"] = table
    used = m.get(p + "mem_used_total")
    if used is not None:
        m[p + "pool_footprint"] = used + slab
        m[p + "footprint"] = used + slab + table


def footprint_ratios(m):
    for k in list(m):
        for what in ("footprint", "pool_footprint", "meta_bytes"):
            if k.startswith("zram_ng.") and k.endswith("." + what):
                other = m.get("zram." + k[len("zram_ng."):])
                if other:
                    m["ratio." + k[len("zram_ng."):]] = m[k] / other


def build_guest_tool(name):
    """vm/guest/NAME.c built static on the host (the VM has no compiler) by
    scripts/vm/build-guest-tool, cached in .cache/guest; returns its path."""
    r = subprocess.run([os.path.join(TOP, "scripts", "vm", "build-guest-tool"), name],
                       capture_output=True, text=True)
    if r.returncode:
        die("building %s: %s" % (name, r.stderr))
    return r.stdout.strip()


def data_set_files(tmp, mib):
    """The files bench-vm's make_data_sets needs from the host: ./text
    (MIB MiB of the kernel's text, from Debian's linux-source-6.1, cached
    in .cache/bench) and ./swapper."""
    src = "/usr/src/linux-source-6.1.tar.xz"
    cache = os.path.join(TOP, ".cache", "bench", "text-%dM" % mib)
    if not os.path.exists(cache):
        if not os.path.exists(src):
            die("%s missing (scripts/deps.sh installs linux-source-6.1)" % src)
        os.makedirs(os.path.dirname(cache), exist_ok=True)
        with open(cache + ".tmp", "wb") as f:
            tar = subprocess.Popen(["tar", "-xOJf", src, "linux-source-6.1/Documentation",
                                    "linux-source-6.1/mm"], stdout=subprocess.PIPE)
            left = mib << 20
            while left:
                b = tar.stdout.read(min(left, 1 << 20))
                if not b:
                    break
                f.write(b)
                left -= len(b)
            tar.kill()
            tar.wait()
        if left:
            die("the kernel's text is shorter than %d MiB" % mib)
        os.rename(cache + ".tmp", cache)
    text = os.path.join(tmp, "text")
    shutil.copy(cache, text)
    exe = build_guest_tool("swapper")
    return [text, exe]


REALMEM_SETS = ("python-index", "cc1plus", "node-objects", "sqlite-cache")


def realmem_images(sets, img_mib):
    """The images of real application memory SETS (of REALMEM_SETS), made
    by scripts/mkdatasets when missing (it keeps what it made before); their
    paths and manifests (realmem, zparams)."""
    d = os.environ.get("BENCH_REALMEM_DIR")
    cmd = [os.path.join(TOP, "scripts", "mkdatasets"), "--mib", str(img_mib)]
    if d:
        cmd += ["--dir", d]
    else:
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
        d = os.path.join(cache, "zsmalloc_ng", "datasets")
    r = subprocess.run(cmd + list(sets), capture_output=True, text=True)
    log("mkdatasets: " + " ".join(r.stdout.split("\n")).strip())
    if r.returncode:
        die("mkdatasets failed: %s" % r.stderr.strip())
    paths, manifests = [], {}
    for s in sets:
        path = os.path.join(d, s + ".img")
        with open(path + ".json") as f:
            man = json.load(f)
        paths.append(path)
        manifests[s] = {k: man.get(k) for k in ("bytes", "sha256", "zero_pages_dropped",
                                               "inputs", "recipe")}
    return paths, manifests


def realmem_vm_run(tree, mode, args, sets, mib, img_mib, limit, runs, tmp):
    """One VM boot of MODE (realmem, swapin) on the images of SETS: the
    images made when missing (realmem_images), ./realmem built, the VM
    given memory for the images (in the initramfs, then in its rootfs),
    the cgroup's LIMIT, the pool (at most MIB: lz4 keeps about half) and
    512 MiB for the kernel and the rest; bench-vm MODE ARGS SETS. Returns
    its "@@@" lines and the images' manifests."""
    paths, manifests = realmem_images(sets, img_mib)
    exe = build_guest_tool("realmem")
    images = sum(os.path.getsize(p) for p in paths) >> 20
    mem = max(1024, 512 + 2 * images + limit + mib)
    per = 30 + mib * 3 // 4	# seconds per data set and stack under TCG, generously
    lines = vm_run(tree, mode, list(args) + list(sets), paths + [exe], runs, tmp,
                   300 + 2 * per * len(sets) * runs, mem="%dM" % mem, append="slab_nomerge")
    return lines, manifests
