"""The GearDB tables, computed from a summary alone (the compact results
geardb/compact.py keeps). Every ratio is taken within one zsbench run, then
summarized over repeats (runner/stats.py)."""
import statistics

from runner.summary import field, per_run, ph, ratio, runs, stat, throughput
from runner.tables import Table

from . import compact as compact_mod

GiB = 1 << 30
SYSTEMS = ["geardb", "ldb-greedy", "ldb-cb", "llc"]
RANDOM, SEQUENTIAL = "fillrandom", "fillseq"
YCSB_LOAD = "ycsb-a-load"
YCSB_RUN = ["ycsb-a", "ycsb-b", "ycsb-c", "ycsb-d", "ycsb-e"]
BUSY_CLASSES = ["wal", "flush", "compaction", "gc", "metadata", "user_read"]


def present(sm, key, systems, pn):
    """The systems that ran `pn` in some repeat of the comparison."""
    return [x for x in systems if per_run(sm, key, lambda r: ph(r, x, pn))]


def ratios_table(sm, title, key, pn, pairs, paper):
    """Per (a, b) the ratio get(a)/get(b) of throughput within each run,
    the paper's number beside it."""
    t = Table(title, ["ratio", "ours", "paper"], ratio_columns=["ours"])
    for a, b in pairs:
        t.add(f"{a}/{b}", stat(per_run(sm, key, lambda r: ratio(r, a, b, pn, throughput))),
              paper.get((a, b), "-"))
    return t


def values_table(sm, title, key, pn, systems, rows, note="", plot=True):
    """rows: [(label, get(phase), digits)]; one column per system."""
    t = Table(title, ["quantity"] + systems, note=note,
              plot=("bar", systems, title) if plot else None)
    for name, get, digits in rows:
        t.add(name, *[stat(per_run(sm, key, lambda r, x=x: field(r, x, pn, get)), digits)
                      for x in systems])
    return t


# ---- load -------------------------------------------------------------------

LOAD_PAPER = {("geardb", "ldb-greedy"): "1.71", ("geardb", "ldb-cb"): "1.73"}
SEQ_PAPER = {("geardb", "ldb-greedy"): "1.37", ("geardb", "ldb-cb"): "1.39"}


def busy_total(p):
    return sum(p["busy"].values())


def comp(i):
    return lambda p: p["comp"][i] if p.get("comp") else None


def zones_at(i, which=1, part=0):
    """The zone checkpoint i's utilization (which: 1 SST zones, 2 all);
    part: 0 space efficiency, 1 zones allocated."""
    def get(p):
        z = p.get("zones") or []
        return z[i][which][part] if i < len(z) else None
    return get


def throughput_timeline(sm, key, systems):
    """Fig. 11: throughput over each 1/8 of the load (10 of its 80
    checkpoints), ops/s."""
    t = Table("Fig. 11: random load throughput over each eighth of the load, ops/s",
              ["share of the load"] + systems, plot=("line", systems, "ops/s"))
    for eighth in range(1, 9):
        def get(p, e=eighth):
            tl = p.get("tl") or []
            if len(tl) < 80:
                return None
            a, b = tl[10 * (e - 1) - 1] if e > 1 else [0, 0.0, 0, 0.0], tl[10 * e - 1]
            return (b[0] - a[0]) / (b[1] - a[1]) if b[1] > a[1] else None
        t.add(f"{eighth}/8", *[stat(per_run(sm, key, lambda r, x=x: field(r, x, RANDOM, get)), 0)
                               for x in systems])
    return t


def wa_timeline(sm, key, systems, s):
    """Fig. 16: write amplification after each 1/8 of the load: device
    bytes written over the user bytes put so far."""
    from . import setup
    t = Table("Fig. 16: write amplification after each eighth of the random load",
              ["share of the load"] + systems, plot=("line", systems, "write amplification"))
    for eighth in range(1, 9):
        def get(p, e=eighth):
            tl = p.get("tl") or []
            if len(tl) < 80:
                return None
            ops, _, wb, _ = tl[10 * e - 1]
            return wb / (ops * (setup.KEY + setup.VALUE)) if ops else None
        t.add(f"{eighth}/8", *[stat(per_run(sm, key, lambda r, x=x: field(r, x, RANDOM, get)), 2)
                               for x in systems])
    return t


def breakdown_table(sm, key, systems):
    t = Table("Fig. 14: where the random load's time went (seconds; the disk head's busy time by I/O "
              "class, zfs's GC runs, compactions)", ["quantity"] + systems,
              note="Head time by class is the emulated disk's busy time serving each class; GC and "
                   "compaction time are wall time of zfs's GC runs and of the compactions (these run "
                   "beside the clients, so shares of the load time may add to more than 1).")
    rows = [("load time", lambda p: p["s"], 1)]
    rows += [(f"head: {c}", lambda p, c=c: p["busy"].get(c, 0.0), 1) for c in BUSY_CLASSES]
    rows += [("head: all classes", busy_total, 1),
             ("GC time", lambda p: p["gc"][3], 1),
             ("GC time / load time", lambda p: p["gc"][3] / p["s"], 3),
             ("compaction time", comp(1), 1),
             ("GC bytes / device bytes written", lambda p: p["gc"][2] / max(1, sum(p["wb"].values())), 3),
             ("zfs metadata log records", lambda p: p["ml"][0] if p.get("ml") else None, 0),
             ("zfs metadata log MiB written", lambda p: p["ml"][1] / 2**20 if p.get("ml") else None, 1),
             ("metadata bytes / device bytes written",
              lambda p: p["wb"].get("metadata", 0) / max(1, sum(p["wb"].values())), 3)]
    for name, get, digits in rows:
        t.add(name, *[stat(per_run(sm, key, lambda r, x=x: field(r, x, RANDOM, get)), digits)
                      for x in systems])
    return t


def compaction_table(sm, key, systems):
    t = Table("Fig. 15: compactions during the random load", ["quantity"] + systems,
              note="A compaction is a RocksDB compaction job or one gear driver CompactFiles step; a "
                   "gear compaction is GearDB's unit (a step and the passive steps cascading from "
                   "it), and each RocksDB compaction is one of its own. Trivial moves are counted "
                   "apart and not in the latencies.")
    rows = [("compactions", comp(0), 0), ("gear compactions", comp(6), 0),
            ("trivial moves", comp(8), 0), ("mean latency, ms", lambda p: comp(2)(p) and comp(2)(p) / 1e3, 2),
            ("p99 latency, ms", lambda p: comp(4)(p) and comp(4)(p) / 1e3, 2),
            ("gear compaction mean latency, ms", lambda p: comp(7)(p) and comp(7)(p) / 1e3, 2),
            ("total compaction time, s", comp(1), 1),
            ("compaction bytes written, GiB", lambda p: comp(10)(p) and comp(10)(p) / GiB, 3)]
    for name, get, digits in rows:
        t.add(name, *[stat(per_run(sm, key, lambda r, x=x: field(r, x, RANDOM, get)), digits)
                      for x in systems])
    ratios = Table("Fig. 15: compaction ratios within each run", ["ratio", "ours", "paper"],
                   ratio_columns=["ours"])
    for b in systems[1:]:
        ratios.add(f"{b}/geardb total compaction time",
                   stat(per_run(sm, key, lambda r, b=b: ratio(r, b, "geardb", RANDOM, comp(1)))),
                   "1.80" if b in ("ldb-greedy", "ldb-cb") else "-")
        ratios.add(f"{b} - geardb compactions",
                   stat(per_run(sm, key, lambda r, b=b: _diff(r, b, "geardb", comp(0))), 0),
                   "53,311 / 53,203" if b in ("ldb-greedy", "ldb-cb") else "-")
    return [t, ratios]


def _diff(run, a, b, get):
    x, y = field(run, a, RANDOM, get), field(run, b, RANDOM, get)
    return x - y if x is not None and y is not None else None


QUARTERS = ["1/4", "1/2", "3/4", "end"]


def space_table(sm, key, systems):
    t = Table("Fig. 17: space efficiency (valid data / allocated SST zones) during the random load",
              ["point of the load"] + systems, plot=("line", systems, "space efficiency"),
              note="Paper: GearDB 89.9% at the end; Ldb about 60% after 10 M pairs (Fig. 4), "
                   "higher once GC runs.")
    for i, q in enumerate(QUARTERS):
        t.add(q, *[stat(per_run(sm, key, lambda r, x=x: field(r, x, RANDOM, zones_at(i))), 3)
                   for x in systems])
    z = Table("Fig. 17: SST zones allocated (and all data zones, WAL and MANIFEST included)",
              ["point of the load"] + [f"{x} SST" for x in systems] + [f"{x} all" for x in systems])
    for i, q in enumerate(QUARTERS):
        z.add(q, *[stat(per_run(sm, key, lambda r, x=x: field(r, x, RANDOM, zones_at(i, 1, 1))), 0)
                   for x in systems],
              *[stat(per_run(sm, key, lambda r, x=x: field(r, x, RANDOM, zones_at(i, 2, 1))), 0)
                for x in systems])
    return [t, z, cdf_table(sm, key, systems)]


def cdf_table(sm, key, systems):
    """Fig. 17(e-h) at the end: the share of SST zones by valid share, in
    five bands, pooled over repeats (a bimodal CDF has its mass at both
    ends)."""
    bands = [(0, 4, "< 20%"), (4, 8, "20-40%"), (8, 12, "40-60%"), (12, 16, "60-80%"), (16, 20, ">= 80%")]
    t = Table("Fig. 17(h): SST zones by valid share at the end of the random load (share of zones, "
              "all repeats pooled)", ["valid share"] + systems, plot=("bar", systems, "share of zones"))
    pooled = {}
    for x in systems:
        hist = [0] * compact_mod.BUCKETS
        for r in runs(sm, key):
            z = (ph(r, x, RANDOM) or {}).get("zones") or []
            if len(z) == len(QUARTERS):
                hist = [a + b for a, b in zip(hist, z[-1][1][2])]
        pooled[x] = hist
    for lo, hi, name in bands:
        t.add(name, *[stat([sum(pooled[x][lo:hi]) / sum(pooled[x])], 3) if sum(pooled[x]) else "-"
                      for x in systems])
    return t


def load_tables(sm):
    systems = present(sm, "random", SYSTEMS, RANDOM) or SYSTEMS
    pairs = [("geardb", b) for b in systems if b != "geardb"]
    out = [ratios_table(sm, "Fig. 10(a): random load throughput ratios", "random", RANDOM, pairs, LOAD_PAPER),
           ratios_table(sm, "Fig. 10(b): sequential load throughput ratios", "sequential", SEQUENTIAL,
                        pairs, SEQ_PAPER),
           values_table(sm, "Load throughput, ops/s, and GC", "random", RANDOM, systems,
                        [("random load ops/s", throughput, 0),
                         ("GC runs", lambda p: p["gc"][0], 0),
                         ("of them started by a writer out of room",
                          lambda p: p["gc"][4] if len(p["gc"]) > 4 else None, 0),
                         ("GC bytes relocated, GiB", lambda p: p["gc"][2] / GiB, 3),
                         ("write amplification", lambda p: p["wa"], 2)], plot=False),
           values_table(sm, "Sequential load ops/s, compactions and GC", "sequential", SEQUENTIAL, systems,
                        [("ops/s", throughput, 0), ("compactions", comp(0), 0), ("trivial moves", comp(8), 0),
                         ("GC bytes relocated, GiB", lambda p: p["gc"][2] / GiB, 3)], plot=False),
           throughput_timeline(sm, "random", systems),
           breakdown_table(sm, "random", systems)]
    out += compaction_table(sm, "random", systems)
    out.append(wa_timeline(sm, "random", systems, sm["settings"]))
    out += space_table(sm, "random", systems)
    out.append(values_table(sm, "GearDB's driver steps in the random load", "random", RANDOM, ["geardb"],
                            [(f"steps: {k}", lambda p, i=i: p["steps"][i] if p.get("steps") else None, 0)
                             for i, k in enumerate(compact_mod.STEPS)] +
                            [("cascaded bytes (written twice), GiB",
                              lambda p: p["steps"][5] / GiB if p.get("steps") else None, 3),
                             ("out-of-window bytes, GiB",
                              lambda p: p["steps"][6] / GiB if p.get("steps") else None, 3)], plot=False))
    return out


# ---- YCSB --------------------------------------------------------------------

YCSB_PAPER = {"ycsb-a": "1.44", "ycsb-b": "1.24", "ycsb-c": "1.22", "ycsb-d": "1.25", "ycsb-e": "1.23"}


def ycsb_tables(sm):
    t = Table("Fig. 13: YCSB throughput ratios", ["workload", "geardb/ldb-greedy", "geardb/ldb-cb", "paper",
                                                   "geardb ops/s"],
              ratio_columns=["geardb/ldb-greedy", "geardb/ldb-cb"])
    for pn in [YCSB_LOAD] + YCSB_RUN:
        paper = "1.64 / 1.56" if pn == YCSB_LOAD else YCSB_PAPER[pn] + " (vs LevelDB)"
        t.add(pn, *[stat(per_run(sm, "ycsb", lambda r, b=b: ratio(r, "geardb", b, pn, throughput)))
                    for b in ("ldb-greedy", "ldb-cb")], paper,
              stat(per_run(sm, "ycsb", lambda r: field(r, "geardb", pn, throughput)), 0))
    mean = Table("Mean of the A-E ratios per repeat", ["ratio", "ours", "paper"], ratio_columns=["ours"])
    for b in ("ldb-greedy", "ldb-cb"):
        def one(r, b=b):
            rs = [ratio(r, "geardb", b, pn, throughput) for pn in YCSB_RUN]
            return statistics.mean(rs) if None not in rs else None
        mean.add(f"geardb/{b}", stat(per_run(sm, "ycsb", one)), "1.22-1.44 (each)")
    gc = values_table(sm, "YCSB load: GC and write amplification", "ycsb", YCSB_LOAD,
                      ["geardb", "ldb-greedy", "ldb-cb"],
                      [("ops/s", throughput, 0), ("GC bytes relocated, GiB", lambda p: p["gc"][2] / GiB, 3),
                       ("write amplification", lambda p: p["wa"], 2),
                       ("space efficiency at the end", zones_at(3), 3)], plot=False)
    return [t, mean, gc]


# ---- window ------------------------------------------------------------------

def window_tables(sm):
    from .paper import WINDOWS, window_name
    names = [window_name(k) for k in WINDOWS]
    t = Table("5.4: geardb's random load by window size k", ["k", "ops/s", "space efficiency at the end",
                                                             "ratio to k = 4", "out-of-window steps"],
              ratio_columns=["ratio to k = 4"])
    for k, n in zip(WINDOWS, names):
        t.add(str(k), stat(per_run(sm, "window", lambda r: field(r, n, RANDOM, throughput)), 0),
              stat(per_run(sm, "window", lambda r: field(r, n, RANDOM, zones_at(3))), 3),
              stat(per_run(sm, "window", lambda r: ratio(r, n, window_name(4), RANDOM, throughput))),
              stat(per_run(sm, "window", lambda r: field(
                  r, n, RANDOM, lambda p: p["steps"][3] if p.get("steps") else None)), 0))
    paper = Table("The paper's 5.4", ["quantity", "paper"])
    paper.add("random load, k = 2-10", "1,314-1,470 ops/s")
    paper.add("space efficiency, k = 2-10", "86%-91%")
    return [t, paper]


# ---- threshold ---------------------------------------------------------------

def threshold_tables(sm):
    from .paper import THRESHOLDS, threshold_name
    names = ["geardb"] + [threshold_name(x) for x in THRESHOLDS]
    t = Table("Fig. 5: random load throughput and space efficiency (440 / D zones)",
              ["system", "GC threshold", "ops/s", "space efficiency at the end", "ratio to geardb",
               "GC bytes relocated, GiB"], ratio_columns=["ratio to geardb"])
    for n, thr in zip(names, ["none (no GC)"] + [f"{x:.1f}" for x in THRESHOLDS]):
        t.add(n, thr, stat(per_run(sm, "threshold", lambda r: field(r, n, RANDOM, throughput)), 0),
              stat(per_run(sm, "threshold", lambda r: field(r, n, RANDOM, zones_at(3))), 3),
              stat(per_run(sm, "threshold", lambda r: ratio(r, n, "geardb", RANDOM, throughput))),
              stat(per_run(sm, "threshold", lambda r: field(r, n, RANDOM, lambda p: p["gc"][2] / GiB)), 3))
    paper = Table("The paper's Fig. 5", ["quantity", "paper"])
    paper.add("LevelDB, thresholds 100% to 50%", "throughput falls as space utilization rises")
    paper.add("GearDB", "89.9% space efficiency, 1,489 ops/s")
    return [t, paper]
