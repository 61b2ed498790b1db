# SPDX-License-Identifier: GPL-2.0
"""
What the project's measuring tools share (scripts/compaction-experiment-report
and scripts/bench through lib/benchlib.py): Student's t through Debian's
ministat, the metadata of a run, and how result JSON is written. Stdlib only.

ministat is the one judge of "is B different from A": its "-A" summary says
either "No difference proven at C% confidence" or "Difference at C%
confidence" followed by the difference, its error, and the same two as a
percentage of A's mean. Nothing here recomputes a t-test.
"""
import datetime
import json
import os
import re
import subprocess
import tempfile

CONFIDENCE = 95


def stat_columns(name, top=None):
    """The columns of zram_ng's stat file NAME (mm_stat, io_stat, bd_stat),
    as tools/lib/stat-columns writes them, once for every tool."""
    top = top or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(top, "tools", "lib", "stat-columns")) as f:
        for line in f:
            words = line.split()
            if words and words[0] == name:
                return tuple(words[1:])
    raise KeyError("tools/lib/stat-columns has no %s" % name)


class MinistatError(Exception):
    """ministat is missing or refused its input."""


def ministat_files(a, b, cwd=None, confidence=CONFIDENCE):
    """ministat -A's text for the number files a (x) and b (+), run in cwd
    (so its legend shows the names as given)."""
    try:
        r = subprocess.run(["ministat", "-A", "-c", str(confidence), a, b], cwd=cwd,
                           capture_output=True, text=True)
    except FileNotFoundError:
        raise MinistatError("ministat not found: apt-get install ministat")
    if r.returncode:
        raise MinistatError("ministat %s %s failed: %s" % (a, b, r.stderr.strip()))
    return r.stdout


def ministat_values(a, b, confidence=CONFIDENCE):
    """ministat -A's text for two lists of numbers (as files A and B)."""
    with tempfile.TemporaryDirectory() as d:
        for name, vals in (("A", a), ("B", b)):
            with open(os.path.join(d, name), "w") as f:
                f.write("".join("%r\n" % float(v) for v in vals))
        return ministat_files("A", "B", cwd=d, confidence=confidence)


_DIFF = re.compile(r"^Difference at ([\d.]+)% confidence\s*\n\s*\S+ \+/- \S+\s*\n"
                   r"\s*(-?[\d.]+)% \+/- ([\d.]+)%", re.M)


def parse_ministat(text):
    """ministat -A text -> ("diff", pct, pct_err), ("diff", None, None) when
    the figures cannot be read, ("same", None, None), or ("n/a", None, None)
    when the text is neither."""
    m = _DIFF.search(text)
    if m:
        return ("diff", float(m.group(2)), float(m.group(3)))
    if re.search(r"^Difference at", text, re.M):
        return ("diff", None, None)
    if re.search(r"^No difference proven", text, re.M):
        return ("same", None, None)
    return ("n/a", None, None)


def verdict_text(text, confidence=CONFIDENCE):
    """One line for a report: '-34.0% +/- 6.9%' or 'no difference proven at
    95%'."""
    kind, pct, err = parse_ministat(text)
    if kind == "same":
        return "no difference proven at %d%%" % confidence
    if pct is None:
        return "(unparsed ministat output)"
    return "%+.1f%% +/- %.1f%%" % (pct, err)


def _git(tree, *args):
    r = subprocess.run(["git", "-C", tree] + list(args), capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else ""


def _host_cpu():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def run_meta(tree):
    """Where and on what a measurement ran: the commit of tree (with
    "describe" and whether the tree had uncommitted changes), the UTC time,
    and the host. "unknown" where git cannot tell."""
    status = _git(tree, "status", "--porcelain", "--untracked-files=no")
    commit = _git(tree, "rev-parse", "HEAD")
    return {
        "commit": commit or "unknown",
        "describe": _git(tree, "describe", "--always", "--dirty") or "unknown",
        "dirty": bool(status) if commit else None,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "host_cpu_model": _host_cpu(),
        "host_kernel": os.uname().release,
        "host_nproc": os.cpu_count(),
    }


def write_json(path, obj, sort_keys=False):
    """The one JSON layout of results: indented, a final newline."""
    with open(path, "w") as f:
        json.dump(obj, f, indent=2, sort_keys=sort_keys)
        f.write("\n")


def read_json(path):
    with open(path) as f:
        return json.load(f)
