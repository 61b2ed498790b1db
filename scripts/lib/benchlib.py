# SPDX-License-Identifier: GPL-2.0
"""
The statistics, the result layout and the workload registry of
scripts/bench, kept apart from the workloads so scripts/tests/test-bench can
check them on fixed inputs. ministat, run metadata and the JSON layout are
lib/measure.py's, shared with scripts/compaction-experiment-report.

A workload is two files: scripts/bench.d/NAME.py, the host side, which
ends with

  WORKLOAD = Workload("NAME", run, [Metric("bw_MBps", HIGHER, "MB/s"), ...])

and scripts/vm/guest/bench.d/NAME.sh, its half in the VM (none for a host
workload). Each Metric names the last dot-separated part of the metric keys
the workload emits (Metric("bw_MBps", ...) covers zram_ng.seq-write-j1.bw_MBps)
and says which way is better: HIGHER, LOWER, or NEITHER (shown, never a
regression). A run that emits a metric its workload does not declare is
refused, and a name means the same in every workload (the registry refuses
two directions for one name), so a metric's direction is known from its
name alone. Directories in $BENCH_WORKLOADS (colon-separated) hold more
workloads, NAME.py beside NAME.sh.

A result directory is OUT/LABEL/WORKLOAD/ with, as the 0-day robot keeps
them:
  matrix.json   metric -> [value of run 0, run 1, ...]
  avg.json      metric -> mean
  stddev.json   metric -> sample standard deviation (n - 1), 0 for one run
  meta.json     commit, kernel, date, CPU, policy, algorithm, VM size, ...

Whether a metric changed between A and B is judged twice:
  non-overlap   LKP's rule: the ranges [min, max] of the runs do not
                overlap (with 6 runs a side, a chance ordering of all 12
                values has probability 2/924)
  ministat      Student's t at 95% (Debian's ministat; needs >= 3 runs)
A regression is a change in the worse direction (the metric's declared
one) that passes non-overlap and, when ministat can judge, ministat too.
"""
import glob
import importlib.util
import math
import os
import statistics

from measure import MinistatError, ministat_values, parse_ministat, read_json, write_json

HIGHER, LOWER, NEITHER = +1, -1, 0
_WORD = {HIGHER: "HIGHER", LOWER: "LOWER", NEITHER: "NEITHER"}
HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOAD_DIR = os.path.join(os.path.dirname(HERE), "bench.d")


class Metric:
    """A metric a workload emits: the last part of its keys, which way is
    better (HIGHER, LOWER or NEITHER: there is no default) and its unit."""

    def __init__(self, name, better, unit=""):
        if better not in (HIGHER, LOWER, NEITHER):
            raise ValueError("metric %s: better must be HIGHER, LOWER or NEITHER, not %r"
                             % (name, better))
        self.name, self.better, self.unit = name, better, unit


class Workload:
    """A workload of scripts/bench.

    run(tree, runs, tmp) -> ([{metric: value} per run], meta): measures it
    in TREE, with TMP for its files (and TMP/vm.log when vm is True).
    pair: the two sides "bench report" puts beside each other; plot: the
    suffix of the metrics "bench report" plots and their axis label."""

    def __init__(self, name, run, metrics, doc="", vm=True, pair=("zram_ng", "zram"),
                 plot=None):
        self.name, self.run, self.doc, self.vm, self.pair, self.plot = (
            name, run, doc, vm, pair, plot)
        self.metrics = {}
        for m in metrics:
            if not isinstance(m, Metric):
                raise TypeError("workload %s: %r is not a Metric" % (name, m))
            if m.name in self.metrics:
                raise ValueError("workload %s declares %s twice" % (name, m.name))
            self.metrics[m.name] = m
        self.module = None

    def undeclared(self, keys):
        """The keys whose last part this workload does not declare."""
        return sorted(k for k in keys if k.rsplit(".", 1)[-1] not in self.metrics)


class RegistryError(Exception):
    """A workload file that cannot be registered."""


def load_workloads(dirs):
    """{name: Workload} of every NAME.py in DIRS; each must define WORKLOAD
    named NAME, and a metric name declared by two workloads must have the
    same direction in both."""
    found, better = {}, {}
    for d in dirs:
        for path in sorted(glob.glob(os.path.join(d, "*.py"))):
            name = os.path.basename(path)[:-3]
            spec = importlib.util.spec_from_file_location("bench_d." + name, path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            wl = getattr(mod, "WORKLOAD", None)
            if not isinstance(wl, Workload) or wl.name != name:
                raise RegistryError("%s defines no WORKLOAD = Workload(\"%s\", ...)" % (path, name))
            if name in found:
                raise RegistryError("%s: workload %s is also in %s"
                                    % (path, name, found[name].module.__file__))
            wl.module = mod
            found[name] = wl
            for m in wl.metrics.values():
                other = better.setdefault(m.name, (m.better, name))
                if other[0] != m.better:
                    raise RegistryError("%s: %s is %s there and %s in workload %s" % (
                        path, m.name, _WORD[m.better], _WORD[other[0]], other[1]))
    return found


def workload_dirs():
    """Where workloads are found: scripts/bench.d, then $BENCH_WORKLOADS."""
    extra = os.environ.get("BENCH_WORKLOADS", "")
    return [WORKLOAD_DIR] + [d for d in extra.split(":") if d]


_registry = None


def workloads():
    """The registered workloads, {name: Workload}, loaded once."""
    global _registry
    if _registry is None:
        _registry = load_workloads(workload_dirs())
    return _registry


def declared(metric):
    """The Metric that declares METRIC's last part, or None."""
    last = metric.rsplit(".", 1)[-1]
    for wl in workloads().values():
        if last in wl.metrics:
            return wl.metrics[last]
    return None


def direction(metric):
    """+1 when bigger is better, -1 when smaller is better, 0 when neither
    or when no workload declares it."""
    m = declared(metric)
    return m.better if m else 0


def mean(values):
    return statistics.fmean(values)


def stddev(values):
    """Sample standard deviation (n - 1), as ministat; 0 for one value."""
    return statistics.stdev(values) if len(values) > 1 else 0.0


def pct_stddev(values):
    m = mean(values)
    return 100.0 * stddev(values) / abs(m) if m else 0.0


# Student's t, two-sided 95%, by degrees of freedom (1..30); 1.96 beyond
# (Python's statistics has the normal distribution only).
T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
       2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
       2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def ci95(values):
    """The 95% confidence interval of the mean (Student's t), as (low,
    high); None below 2 values."""
    n = len(values)
    if n < 2:
        return None
    t = T95[n - 2] if n - 1 <= len(T95) else 1.96
    h = t * stddev(values) / math.sqrt(n)
    return (mean(values) - h, mean(values) + h)


def fmt_ci(values):
    ci = ci95(values)
    return "[%s, %s]" % (fmt_num(ci[0]), fmt_num(ci[1])) if ci else ""


def pct_change(a, b):
    """%change of B's mean against A's; None when A's mean is 0."""
    ma, mb = mean(a), mean(b)
    if ma == 0:
        return None
    return 100.0 * (mb - ma) / abs(ma)


def non_overlap(a, b):
    """LKP's rule: the runs of A and of B occupy disjoint ranges."""
    return max(a) < min(b) or max(b) < min(a)


def ministat(a, b):
    """ministat's verdict on the per-run values (see measure.parse_ministat);
    ("n/a", ...) below 3 runs or without ministat."""
    if len(a) < 3 or len(b) < 3:
        return ("n/a", None, None)
    try:
        return parse_ministat(ministat_values(a, b))
    except MinistatError:
        return ("n/a", None, None)


def judge(metric, a, b):
    """Everything compare prints about one metric, as a dict."""
    verdict = ministat(a, b)
    changed = non_overlap(a, b)
    change = pct_change(a, b)
    sign = direction(metric)
    significant = changed and verdict[0] != "same"
    worse = sign != 0 and change is not None and change * sign < 0
    return {
        "metric": metric,
        "mean_a": mean(a), "pct_stddev_a": pct_stddev(a),
        "mean_b": mean(b), "pct_stddev_b": pct_stddev(b),
        "pct_change": change, "changed": changed, "ministat": verdict[0],
        "direction": sign,
        "regression": significant and worse,
        "improvement": significant and sign != 0 and not worse and change != 0,
    }


def summarise(runs):
    """[{metric: value} per run] -> matrix (metric -> values), avg, stddev.

    A metric missing from some run keeps the runs that have it."""
    matrix = {}
    for run in runs:
        for k, v in run.items():
            matrix.setdefault(k, []).append(v)
    matrix = dict(sorted(matrix.items()))
    avg = {k: mean(v) for k, v in matrix.items()}
    sd = {k: stddev(v) for k, v in matrix.items()}
    return matrix, avg, sd


def write_result(wdir, runs, meta):
    os.makedirs(wdir, exist_ok=True)
    matrix, avg, sd = summarise(runs)
    for name, obj in (("matrix", matrix), ("avg", avg), ("stddev", sd), ("meta", meta)):
        write_json(os.path.join(wdir, name + ".json"), obj, sort_keys=True)
    return matrix


def load(wdir, name="matrix"):
    return read_json(os.path.join(wdir, name + ".json"))


def fmt_num(v):
    if v is None:
        return "n/a"
    a = abs(v)
    if a >= 1e6:
        return "%.4g" % v if a < 1e9 else "%.3e" % v
    if a >= 100:
        return "%.0f" % v
    if a >= 1:
        return "%.2f" % v
    return "%.4f" % v


def fmt_sd(p):
    return "± %2.0f%%" % p if p >= 0.5 else "      "


def lkp_table(rows):
    """rows of judge() -> the 0-day robot's table, verdict columns added."""
    out = ["%18s %10s %18s" % ("%stddev", "%change", "%stddev"),
           "%18s %10s %18s" % ("\\", "|", "\\")]
    for r in rows:
        ch = "%+.1f%%" % r["pct_change"] if r["pct_change"] is not None else "n/a"
        flag = ("REGRESSION" if r["regression"] else
                "improved" if r["improvement"] else
                "changed" if r["changed"] else "")
        out.append("%11s %6s %10s %11s %6s  %-7s %-4s %-10s %s" % (
            fmt_num(r["mean_a"]), fmt_sd(r["pct_stddev_a"]), ch,
            fmt_num(r["mean_b"]), fmt_sd(r["pct_stddev_b"]),
            "overlap" if not r["changed"] else "apart",
            r["ministat"], flag, r["metric"]))
    return "\n".join(out)
