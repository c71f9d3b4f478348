"""The ZnH2 tables, computed from a summary alone (the compact results
znh2/compact.py keeps). Every ratio is taken within one zsbench run, then
summarized over repeats (runner/stats.py)."""
import statistics

from runner.summary import field, per_run, ph, ratio, runs, stat, throughput
from runner.tables import Table

from . import setup

GiB = 1 << 30
LAT = ("p99", "p99.9", "p99.99")


def qlc_bytes(p):
    return p["nand"][2] + p["nand"][3]


def total_bytes(p):
    return p["nand"][4]


def label(key):
    return key.split("-", 1)[1] if "-" in key else key


def pairs_table(sm, title, keys, pn, cols, note="", digits=3):
    """cols: [(label, a, b, get, paper(key) or None)]: per comparison the
    ratio get(a)/get(b) within each run, the paper's number beside it."""
    header = ["comparison"]
    for name, _, _, _, paper in cols:
        header += [name] + ([f"{name}, paper"] if paper else [])
    t = Table(title, header, ratio_columns=[c[0] for c in cols], note=note)
    for key in keys:
        if not runs(sm, key):
            continue
        row = [label(key)]
        for name, a, b, get, paper in cols:
            row.append(stat(per_run(sm, key, lambda r: ratio(r, a, b, pn(key), get)), digits))
            if paper:
                row.append(paper(key) or "-")
        t.add(*row)
    return t


def values_table(sm, title, keys, pn, systems, get, digits=2, note=""):
    """Per comparison, get(phase) of each system (median, min-max)."""
    t = Table(title, ["comparison"] + systems, note=note, plot=("bar", systems, title))
    for key in keys:
        if not runs(sm, key):
            continue
        t.add(label(key), *[stat(per_run(sm, key, lambda r, s=s: field(r, s, pn(key), get)), digits)
                            for s in systems])
    return t


def latency_table(sm, title, key, pn, op, pairs, paper):
    """Tail latency ratios of one operation type: per (a, b) a row, one
    column per percentile, the paper's number beside where it has one."""
    cols = ["ratio"]
    for q in LAT:
        cols += [q, f"{q}, paper"]
    t = Table(title, cols, ratio_columns=LAT)
    for a, b in pairs:
        row = [f"{a}/{b}"]
        for i, q in enumerate(LAT):
            def get(p, i=i):
                v = p["lat"].get(op)
                return v[i] if v else None
            vals = per_run(sm, key, lambda r: _lat_ratio(r, a, b, pn, get))
            row += [stat(vals), paper.get((a, b, q), "-")]
        t.add(*row)
    return t


def _lat_ratio(run, a, b, pn, get):
    x, y = field(run, a, pn, get), field(run, b, pn, get)
    return x / y if x is not None and y else None


def mean_ratio(sm, key, a, b, phases):
    """Per repeat the mean of a/b's throughput ratios over phases."""
    def one(r):
        rs = [ratio(r, a, b, pn, throughput) for pn in phases]
        return statistics.mean(rs) if rs and None not in rs else None
    return per_run(sm, key, one)


def qlc_sources_table(sm, keys, pn, systems):
    """QLC write volume by its source, GiB: the host's writes into QLC
    zones (HM Hybrid's QLC opens, the QLC device) and migration (HM
    Hybrid's copies, DM Hybrid's firmware moves)."""
    cols = [f"{s} {src}" for s in systems for src in ("host", "migration")]
    t = Table("QLC write volume by source, GiB", ["comparison"] + cols)
    for key in keys:
        if not runs(sm, key):
            continue
        cells = []
        for s in systems:
            for i in (2, 3):
                cells.append(stat(per_run(sm, key, lambda r, s=s, i=i: field(
                    r, s, pn(key), lambda p: p["nand"][i] / GiB)), 2))
        t.add(label(key), *cells)
    return t


def capacity_table(sm, key, system, pn, s):
    """Fig. 4: runtime capacity, used and SLC-used capacity as shares of
    the device (all zones in QLC) at tenths of the load, and at its end
    the share of the written data that is in QLC."""
    full = setup.device_bytes(s)
    t = Table("Fig. 4: HM Hybrid's runtime capacity and usage during the largest load (% of the device; "
              "used: bytes written in zones not yet reset, of which SLC used in SLC zones)",
              ["point of the load", "capacity", "used", "SLC used", "data in QLC"],
              plot=("line", ["capacity", "used", "SLC used"], "% of the device"))
    lines = [tl for tl in per_run(sm, key, lambda r: (ph(r, system, pn) or {}).get("tl")) if tl]
    if not lines:
        return t
    for tenth in range(1, 11):
        vals = {"capacity": [], "used": [], "SLC used": [], "data in QLC": []}
        for tl in lines:
            end = tl[-1][0] or 1.0
            x = min(tl, key=lambda p: abs(p[0] - end * tenth / 10))
            vals["capacity"].append(100.0 * x[1] / full)
            vals["used"].append(100.0 * x[2] / full)
            vals["SLC used"].append(100.0 * x[3] / full)
            vals["data in QLC"].append(100.0 * (x[2] - x[3]) / x[2] if x[2] else 0.0)
        t.add(f"{tenth * 10}%", *[stat(v, 1) for v in vals.values()])
    return t
