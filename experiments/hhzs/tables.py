"""The HHZS experiments' tables, computed from a summary alone (the
compact results hhzs/compact.py keeps). Every ratio is taken within one
zsbench run, then summarized over repeats (runner/stats.py)."""
from runner.stats import Stat
from runner.tables import Table
from runner.zsbench import is_load

from . import setup

MiB = 1 << 20


def runs(summary, key):
    return summary["comparisons"].get(key, {}).get("runs", [])


def phase_names(summary, key):
    return summary["comparisons"][key]["spec"]["workload"].split(",")


def ph(run, scheme, pn):
    return run["phases"].get(scheme, {}).get(pn)


def ops_s(run, scheme, pn):
    """Throughput; `scheme` a tuple means the best of those schemes."""
    if isinstance(scheme, tuple):
        vals = [ops_s(run, s, pn) for s in scheme]
        return max(vals) if None not in vals else None
    p = ph(run, scheme, pn)
    return p["ops_s"] if p else None


def ratios(rs, scheme, over, pn):
    out = []
    for run in rs:
        a, b = ops_s(run, scheme, pn), ops_s(run, over, pn)
        if a is not None and b:
            out.append(a / b)
    return out


def stat(values, digits=3):
    return Stat(values, digits) if values else "-"


def name(s):
    return "best of " + ",".join(s) if isinstance(s, tuple) else s


def ratio_table(summary, title, pairs, keys=None, paper=None, show=None, row_label=None,
                pool_loads=True):
    """pairs: [(column label, scheme, over)]; a row per comparison phase
    (`show(key, phase)` filters), the paper's number beside ours where
    `paper(label, key, phase)` gives one, the base's ops/s, and a row of
    every load pooled (every load phase loads the same objects the same
    way, so they are repeats of one measurement) unless `pool_loads` is
    off: comparisons that change the volume (Exp#5's SSD sizes) load
    different setups."""
    keys = keys or list(summary["comparisons"])
    paper = paper or (lambda label, key, pn: None)
    has_paper = {label for label, _, _ in pairs
                 if any(paper(label, k, pn) for k in keys for pn in phase_names(summary, k))}
    base = pairs[0][2]
    cols = ["workload"]
    for label, _, _ in pairs:
        cols += [label] + ([f"{label}, paper"] if label in has_paper else [])
    cols.append(f"{name(base)} ops/s")
    t = Table(title, cols, ratio_columns=[label for label, _, _ in pairs])
    pooled = {label: [] for label, _, _ in pairs}
    pooled_base, loads = [], 0
    for key in keys:
        rs = runs(summary, key)
        for pn in phase_names(summary, key):
            cells = []
            for label, s, over in pairs:
                rr = ratios(rs, s, over, pn)
                if is_load(pn):
                    pooled[label] += rr
                cells.append(stat(rr))
                if label in has_paper:
                    cells.append(paper(label, key, pn) or "-")
            bases = [b for b in (ops_s(r, base, pn) for r in rs) if b]
            if is_load(pn):
                loads += 1
                pooled_base += bases
            if show is None or show(key, pn):
                t.add(row_label(key, pn) if row_label else pn, *cells, stat(bases, 0))
    if pool_loads and loads > 1:
        cells = []
        for label, _, _ in pairs:
            cells.append(stat(pooled[label]))
            if label in has_paper:
                cells.append("-")
        t.add(f"all {loads} loads", *cells, stat(pooled_base, 0))
    return t


def best_table(summary, title, schemes, row_label=None):
    """Which of `schemes` was fastest in each repeat of each phase: the
    base of a "best of" ratio changes from run to run."""
    t = Table(title, ["workload", "fastest, by repeat"])
    for key in summary["comparisons"]:
        for pn in phase_names(summary, key):
            names = []
            for run in runs(summary, key):
                vals = {s: ops_s(run, s, pn) for s in schemes}
                names.append("-" if None in vals.values() else max(vals, key=vals.get))
            t.add(row_label(key, pn) if row_label else pn, ", ".join(names) or "-")
    return t


def step_table(summary, title, steps):
    """Each breakdown step (label, scheme, over): the ratio over repeats and
    in how many runs the step added throughput."""
    t = Table(title, ["workload"] + [label for label, _, _ in steps])
    for key in summary["comparisons"]:
        rs = runs(summary, key)
        for pn in phase_names(summary, key):
            cells = []
            for _, s, over in steps:
                rr = ratios(rs, s, over, pn)
                cells.append(f"{Stat(rr).cell(ratio=True)}, up {sum(r > 1 for r in rr)}/{len(rr)}"
                             if rr else "-")
            t.add(pn, *cells)
    return t


def ahead_counts(summary, title, scheme, others):
    """In how many runs `scheme` beat each of `others`, and all at once."""
    t = Table(title, ["workload"] + [f"ahead of {o}" for o in others] + ["ahead of all"])
    for key in summary["comparisons"]:
        rs = runs(summary, key)
        for pn in phase_names(summary, key):
            ahead = [[(ops_s(r, scheme, pn) or 0) > (ops_s(r, o, pn) or 0) for o in others] for r in rs]
            n = len(rs)
            t.add(pn, *[f"{sum(a[i] for a in ahead)}/{n}" for i in range(len(others))],
                  f"{sum(all(a) for a in ahead)}/{n}")
    return t


def run_phases(summary, schemes):
    """(phase, scheme, [that phase's compact in each repeat]) for every run
    (not load) phase."""
    for key in summary["comparisons"]:
        rs = runs(summary, key)
        for pn in phase_names(summary, key):
            if is_load(pn):
                continue
            for s in schemes:
                ps = [p for p in (ph(r, s, pn) for r in rs) if p]
                if ps:
                    yield pn, s, ps


def read_sources(summary, title, schemes):
    """Where user reads were served: the HDD's share of device user reads,
    HDD user reads per operation (the HDD is busy through every run phase,
    so this sets throughput), SSD-cache hits and SSTs migrated (since
    mount)."""
    t = Table(title, ["workload", "scheme", "ops/s", "HDD share of user reads", "HDD reads per op",
                      "SSD-cache hits", "SSTs migrated"])
    for pn, s, ps in run_phases(summary, schemes):
        ps = [p for p in ps if p["dev"]]
        if not ps:
            continue
        share = [p["dev"][-1][0] / sum(d[0] for d in p["dev"]) for p in ps if sum(d[0] for d in p["dev"])]
        per_op = [p["dev"][-1][0] / p["ops"] for p in ps if p["ops"]]
        hits = [p["hits"] for p in ps if "hits" in p]
        moved = [p["moved"] for p in ps if "moved" in p]
        t.add(pn, s, stat([p["ops_s"] for p in ps], 0), stat(share), stat(per_op),
              stat(hits, 0), stat(moved, 0))
    return t


def hdd_time(summary, title, schemes):
    """What the HDD spent each run phase on (shares of the phase's time by
    I/O class) beside how much the LSM-tree compacted and where it wrote
    that: HDD time on compaction and migration is time user reads wait."""
    t = Table(title, ["workload", "scheme", "ops/s", "HDD on user reads", "on compaction",
                      "on migration", "compaction written MiB", "of it on the SSD"])
    for pn, s, ps in run_phases(summary, schemes):
        ps = [p for p in ps if p["dev"]]
        if not ps:
            continue
        written = [sum(d[2] for d in p["dev"]) for p in ps]
        on_ssd = [p["dev"][0][2] / w for p, w in zip(ps, written) if w]
        t.add(pn, s, stat([p["ops_s"] for p in ps], 0),
              *[stat([p["busy"][c] for p in ps]) for c in ("user_read", "compaction", "migration")],
              stat([w / MiB for w in written], 0), stat(on_ssd))
    return t


def sst_ceiling(summary, title, schemes):
    """How much of the HDD's read load any SST placement could take off it:
    the hindsight best against what each scheme's SSD SSTs took."""
    zones = setup.sst_zones(summary["settings"]["ssd_zones"])
    t = Table(title, ["workload", "scheme", "reads on live SSTs", "SSD SSTs took",
                      f"best in {zones} zones (hindsight)", "same, by chance"])
    for pn, s, ps in run_phases(summary, schemes):
        v = [p["sst"] for p in ps if "sst" in p]
        if v:
            t.add(pn, s, stat([x[0] for x in v], 0), *[stat([x[i] for x in v]) for i in (1, 2, 3)])
    return t


def ssd_share(summary, title, key, pn, schemes):
    t = Table(title, ["scheme", "holder", "SSD share"])
    for s in schemes:
        shares = {}
        for r in runs(summary, key):
            for h, v in ((ph(r, s, pn) or {}).get("ssd_share") or {}).items():
                shares.setdefault(h, []).append(v)
        for h in sorted(shares):
            t.add(s, h, stat(shares[h]))
    return t


def level_box(summary, title, key, scheme, pn, paper):
    """Level sizes during a load: max and median over the samples, over
    the level's target (L0 and L1: max_bytes_for_level_base, x10 above)."""
    base = setup.LEVEL_BASE // summary["settings"]["scale"]
    targets = {"L0": base, "L1": base, "L2": 10 * base, "L3": 100 * base, "L4": 1000 * base}
    t = Table(title, ["holder", "max MiB", "median MiB", "max/target", "max/target, paper",
                      "median/target", "median/target, paper"],
              plot=("bar", ["max/target", "median/target"], "level size / target"))
    rs = [(ph(r, scheme, pn) or {}).get("levels") for r in runs(summary, key)]
    rs = [r for r in rs if r]
    for h in ("L0", "L1", "L2", "L3", "L4", "wal"):
        v = [r[h] for r in rs if h in r]
        if not v:
            continue
        tgt = targets.get(h)
        mx, med = [x[0] for x in v], [x[1] for x in v]
        t.add(h, stat([x / MiB for x in mx], 2), stat([x / MiB for x in med], 2),
              stat([x / tgt for x in mx], 2) if tgt else "-", paper.get((h, "max"), "-"),
              stat([x / tgt for x in med], 2) if tgt else "-", paper.get((h, "median"), "-"))
    return t


def load_table(summary, title, key, schemes, pn, paper):
    """Load throughput over B3 and the share of WAL bytes on the SSD."""
    t = Table(title, ["scheme", "ops/s", "x b3", "x b3, paper", "WAL bytes on the SSD",
                      "WAL on the SSD, paper"], ratio_columns=["x b3"])
    rs = runs(summary, key)
    for s in schemes:
        ps = [p for p in (ph(r, s, pn) for r in rs) if p]
        wal = [p["dev"][0][3] / sum(d[3] for d in p["dev"]) for p in ps if p["dev"] and sum(d[3] for d in p["dev"])]
        t.add(s, stat([p["ops_s"] for p in ps], 0), stat(ratios(rs, s, "b3", pn)),
              paper.get((s, "x"), "-"), stat(wal), paper.get((s, "wal"), "-"))
    return t


def per_repeat(summary, title, schemes):
    """Every repeat of every run phase on its own row: throughput beside
    what set it (the HDD is busy through every run phase, so throughput is
    its read rate over its user reads per operation) and how many commands
    the emulator finished after their modeled completion."""
    t = Table(title, ["workload", "repeat", "scheme", "ops/s", "HDD reads per op",
                      "HDD on user reads", "on compaction", "SSD late", "HDD late",
                      "late s (SSD, HDD)"])
    for key in summary["comparisons"]:
        for pn in phase_names(summary, key):
            if is_load(pn):
                continue
            for run in runs(summary, key):
                for s in schemes:
                    p = ph(run, s, pn)
                    if not p or not p["dev"]:
                        continue
                    late = p.get("late")
                    share = (lambda d: f"{d[0] / d[1]:.2f}" if d[1] else "-")
                    t.add(pn, str(run["repeat"]), s, f"{p['ops_s']:.0f}",
                          f"{p['dev'][-1][0] / p['ops']:.2f}" if p["ops"] else "-",
                          f"{p['busy']['user_read']:.2f}", f"{p['busy']['compaction']:.2f}",
                          share(late[0]) if late else "-", share(late[-1]) if late else "-",
                          f"{late[0][2]:.1f}, {late[-1][2]:.1f}" if late else "-")
    return t
