"""The SplitZNS tables, computed from a summary alone (the compact results
splitzns/compact.py keeps). Every ratio is taken within one zsbench run,
then summarized over repeats (runner/stats.py, runner/summary.py)."""
from runner.summary import field, per_run, ph, ratio, runs, stat, throughput
from runner.tables import Table

from . import paper, setup

MiB = 1 << 20
PCT = {"p50": 0, "p99": 1, "p99.9": 2}
OTHERS = ("ldp", "gear", "llc")
# The headline operation of a phase: its latency is the one compared.
HEADLINE = {"readrandom": "READ", "overwrite": "UPDATE", "fillrandom": "UPDATE", "fillseq": "INSERT",
            "ycsb-a-load": "INSERT", "ycsb-c": "READ", "ycsb-b": "READ", "ycsb-d": "READ",
            "ycsb-e": "SCAN", "ycsb-f": "READ-MODIFY-WRITE"}


def latency(op, q):
    def get(p):
        v = p["lat"].get(op)
        return v[PCT[q]] if v else None
    return get


def gc_at(i):
    """[runs, zones reclaimed, bytes relocated, seconds][i], since mount."""
    return lambda p: p["gc"][i]


def busy(p):
    return p["busy"]


def phases(workload):
    return workload.split(",")


def chip_spread(p, fn):
    """fn (min or max) of the chips' busy fractions; None without timing."""
    return fn(p["chips"]) if p.get("chips") else None


def compaction_throughput(p):
    """Bytes compactions wrote over their summed time (Fig. 15)."""
    c = p.get("comp")
    return c[2] / c[0] if c and c[0] else None


def _cell(v):
    return "-" if v is None else v


def overall_tables(sm):
    out = []
    t = Table("SplitZNS's throughput over each system's (Fig. 9)",
              ["comparison", "phase"] + [x for o in OTHERS for x in (f"/{o}", f"/{o}, paper")],
              ratio_columns=[f"/{o}" for o in OTHERS])
    for key, workload in (("uniform", paper.UNIFORM), ("ycsb", paper.YCSB)):
        if not runs(sm, key):
            continue
        for pn in phases(workload):
            row = [key, pn]
            for o in OTHERS:
                row += [stat(per_run(sm, key, lambda r, o=o: ratio(r, "splitzns", o, pn, throughput))),
                        _cell(paper.PAPER["overall"].get((pn, o)))]
            t.add(*row)
    out.append(t)

    lat = Table("SplitZNS's tail latency over LDP's (Fig. 10)",
                ["comparison", "phase", "operation", "p99", "p99, paper", "p99.9", "p99.9, paper"],
                ratio_columns=["p99", "p99.9"])
    for key, workload in (("uniform", paper.UNIFORM), ("ycsb", paper.YCSB)):
        if not runs(sm, key):
            continue
        for pn in phases(workload):
            ops = ["READ", "UPDATE"] if pn.startswith("ycsb-a") and pn != "ycsb-a-load" else [HEADLINE[pn]]
            for op in ops:
                row = [key, pn, op]
                for q in ("p99", "p99.9"):
                    row += [stat(per_run(sm, key, lambda r, op=op, q=q: ratio(
                                r, "splitzns", "ldp", pn, latency(op, q)))),
                            _cell(paper.PAPER["latency"].get((pn, op, q)))]
                lat.add(*row)
    out.append(lat)

    if runs(sm, "ycsb"):
        w = Table("Writes and GC on YCSB-A, MiB (Fig. 11, 12): -D device, -U RocksDB's flushes and "
                  "compactions, GC relocated during YCSB-A and since the load began",
                  ["system", "-D", "-U", "GC relocated", "GC runs", "GC seconds", "GC relocated, load + A"],
                  note="Paper: -U of LDP and SplitZNS equal, Gear and LLC more; SplitZNS migrates far "
                       "less than LDP.")
        for sys in setup.SYSTEMS:
            def mib(get):
                return stat(per_run(sm, "ycsb", lambda r: field(r, sys, "ycsb-a", get)), 1)

            def during(i, unit=1):
                # zsbench's GC counters run since mount: YCSB-A's share is
                # what they grew by over it.
                def get(r):
                    a, load = field(r, sys, "ycsb-a", gc_at(i)), field(r, sys, "ycsb-a-load", gc_at(i))
                    return None if a is None or load is None else (a - load) / unit
                return stat(per_run(sm, "ycsb", get), 1)
            w.add(sys, mib(lambda p: p["dw"] / MiB), mib(lambda p: p["uw"] / MiB),
                  during(2, MiB), during(0), during(3), mib(lambda p: p["gc"][2] / MiB))
        out.append(w)

    b = Table("Device busy fraction per phase (near 1: the device is the bottleneck; low: RocksDB's "
              "CPU or stalls are)", ["comparison", "phase"] + list(setup.SYSTEMS))
    for key, workload in (("uniform", paper.UNIFORM), ("ycsb", paper.YCSB)):
        if not runs(sm, key):
            continue
        for pn in phases(workload):
            b.add(key, pn, *[stat(per_run(sm, key, lambda r, s=s: field(r, s, pn, busy)), 2)
                             for s in setup.SYSTEMS])
    out.append(b)
    return out


def drained_throughput(run, sys, pn):
    """A phase's operations over its seconds plus its drain's."""
    p, d = ph(run, sys, pn), ph(run, sys, pn + "+drain")
    return p["ops"] / (p["s"] + d["s"]) if p and d and p["s"] + d["s"] > 0 else None


def drained_ratio(run, a, b, pn):
    x, y = drained_throughput(run, a, pn), drained_throughput(run, b, pn)
    return x / y if x is not None and y else None


def gc_over(run, sys, pn, before):
    """GC bytes relocated over a phase and its drain: since mount at the
    drain's end less at the end of the drain before (0 for the first)."""
    end = field(run, sys, pn + "+drain", gc_at(2))
    start = field(run, sys, before + "+drain", gc_at(2)) if before else 0
    return None if end is None or start is None else (end - start) / MiB


def into_levels(p, first):
    """[compaction output MiB, trivial moves] into levels >= first over a
    phase's to_level; None where the summary predates it."""
    lv = p.get("to_level")
    if lv is None:
        return None
    deep = [v for k, v in lv.items() if int(k[1:]) >= first]
    return [sum(v[1] for v in deep) / MiB, sum(v[2] for v in deep)]


def into_levels_drained(run, sys, pn, first, i):
    """into_levels(first)[i] over a phase and its drain."""
    parts = [field(run, sys, n, lambda p: into_levels(p, first)) for n in (pn, pn + "+drain")]
    return None if None in parts else parts[0][i] + parts[1][i]


def drained_tables(sm):
    keys = [(k, w) for k, w in (("uniform", paper.UNIFORM), ("ycsb", paper.YCSB)) if runs(sm, k)]
    t = Table("SplitZNS's throughput over each system's, each phase with its drain (as run: the "
              "phase alone, in the same runs)",
              ["comparison", "phase"] + [x for o in OTHERS for x in (f"/{o}", f"/{o} as run", f"/{o}, paper")],
              ratio_columns=[x for o in OTHERS for x in (f"/{o}", f"/{o} as run")])
    d = Table("Drain seconds after each phase (the flush, compaction and GC it left)",
              ["comparison", "phase"] + list(setup.SYSTEMS))
    g = Table("GC relocated over each phase and its drain, MiB",
              ["comparison", "phase"] + list(setup.SYSTEMS),
              note="Paper: SplitZNS migrates far less than LDP.")
    deep = Table(f"Into L{setup.SUBZONE_MIN_LEVEL} and below over each phase and its drain: compaction "
                 "output MiB / trivial moves (splitzns writes only compaction output there to subzones; "
                 "a trivially moved SST stays in its wide zone)",
                 ["comparison", "phase"] + [x for s in setup.SYSTEMS for x in (f"{s} MiB", f"{s} moves")])
    for key, workload in keys:
        pns = phases(workload)
        for i, pn in enumerate(pns):
            row = [key, pn]
            for o in OTHERS:
                row += [stat(per_run(sm, key, lambda r, o=o: drained_ratio(r, "splitzns", o, pn))),
                        stat(per_run(sm, key, lambda r, o=o: ratio(r, "splitzns", o, pn, throughput))),
                        _cell(paper.PAPER["overall"].get((pn, o)))]
            t.add(*row)
            d.add(key, pn, *[stat(per_run(sm, key, lambda r, s=s: field(r, s, pn + "+drain",
                                                                        lambda p: p["s"])), 2)
                             for s in setup.SYSTEMS])
            before = pns[i - 1] if i else None
            g.add(key, pn, *[stat(per_run(sm, key, lambda r, s=s: gc_over(r, s, pn, before)), 1)
                             for s in setup.SYSTEMS])
            deep.add(key, pn, *[stat(per_run(sm, key, lambda r, s=s, i=i: into_levels_drained(
                                    r, s, pn, setup.SUBZONE_MIN_LEVEL, i)),
                                     1 - i)
                                for s in setup.SYSTEMS for i in (0, 1)])
    return [t, d, g, deep] if keys else []


def breakdown_tables(sm):
    key = "breakdown"
    if not runs(sm, key):
        return []
    steps = list(setup.BREAKDOWN)
    metrics = [("overwrite", "ops", throughput), ("overwrite", "p99", latency("UPDATE", "p99")),
               ("overwrite", "p99.9", latency("UPDATE", "p99.9")),
               ("readrandom", "ops", throughput), ("readrandom", "p50", latency("READ", "p50")),
               ("readrandom", "p99", latency("READ", "p99")),
               ("readrandom", "p99.9", latency("READ", "p99.9"))]
    cols = [f"{pn} {m}" for pn, m, _ in metrics]
    step = Table("Each step over the step before it (Fig. 13, 14; throughput and latency ratios)",
                 ["step"] + [x for c in cols for x in (c, f"{c}, paper")], ratio_columns=cols)
    for prev, cur in zip(steps, steps[1:]):
        row = [f"{cur}/{prev}"]
        for pn, m, get in metrics:
            row += [stat(per_run(sm, key, lambda r, pn=pn, get=get: ratio(r, cur, prev, pn, get))),
                    _cell(paper.PAPER["breakdown"].get((cur, pn, m)))]
        step.add(*row)
    native = Table("Each step over native (Fig. 13, 14)", ["step"] + cols, ratio_columns=cols)
    for cur in steps[1:]:
        native.add(cur, *[stat(per_run(sm, key, lambda r, pn=pn, get=get: ratio(r, cur, "native", pn, get)))
                          for pn, _, get in metrics])
    internal = Table("Write stalls, compaction throughput and chip utilization on overwrite (Fig. 15, "
                     "5.4)", ["step", "stall s", "compaction MiB/s", "device busy", "least busy chip",
                              "busiest chip"])
    for cur in steps:
        def get(fn):
            return stat(per_run(sm, key, lambda r: field(r, cur, "overwrite", fn)), 2)
        internal.add(cur, get(lambda p: p["stall_us"] / 1e6),
                     get(lambda p: (compaction_throughput(p) or 0) / MiB), get(busy),
                     get(lambda p: chip_spread(p, min)), get(lambda p: chip_spread(p, max)))
    return [step, native, internal]


def _over(sm, keys, label, systems, pn_of, paper_of=None):
    cols = [f"/{o}" for o in systems]
    header = ["comparison"] + cols + (["paper"] if paper_of else []) + ["busy splitzns", "busy " + systems[0]]
    t = Table(label, header, ratio_columns=cols)
    for key in keys:
        if not runs(sm, key):
            continue
        pn = pn_of(key)
        row = [key] + [stat(per_run(sm, key, lambda r, o=o: ratio(r, "splitzns", o, pn, throughput)))
                       for o in systems]
        if paper_of:
            row.append(_cell(paper_of(key)))
        row += [stat(per_run(sm, key, lambda r, s=s: field(r, s, pn, busy)), 2)
                for s in ("splitzns", systems[0])]
        t.add(*row)
    return t


def value_tables(sm):
    return [_over(sm, [f"value-{v}" for v in paper.VALUES],
                  f"SplitZNS over LDP on YCSB-A by value size (Fig. 16(a)); paper: {paper.PAPER['value']}",
                  ["ldp"], lambda key: "ycsb-a")]


def chips_tables(sm):
    return [_over(sm, [f"chips-{n}" for n in paper.CHIPS],
                  "SplitZNS over LDP on YCSB-A by the SSD's chips (Fig. 16(b))", ["ldp"],
                  lambda key: "ycsb-a", lambda key: paper.PAPER["chips"][int(key.split("-", 1)[1])])]


def skew_tables(sm):
    phase = {paper.skew_key(z): paper.skew_phase(z) for z in paper.SKEWS}
    return [_over(sm, list(phase), f"SplitZNS over each system by skew (Fig. 16(c)); paper: "
                  f"{paper.PAPER['skew']}", list(OTHERS), phase.get)]


def policy_tables(sm):
    return [_over(sm, [f"pri-{p}" for p in setup.PRIORITIES],
                  "SplitZNS over LDP by RocksDB's compaction priority (Fig. 16(d))", ["ldp"],
                  lambda key: "ycsb-a", lambda key: paper.PAPER["policy"][key.split("-", 1)[1]])]


def level_tables(sm):
    """The `level` experiment: splitzns and splitzns-l3 over ldp, each
    phase with its drain; GC relocated; what reaches the subzone levels."""
    key = "level-uniform"
    if not runs(sm, key):
        return []
    systems = ("splitzns", "splitzns-l3", "ldp")
    t = Table("splitzns (subzones from L4, the paper's) and splitzns-l3 (from L3, ours) over ldp, each "
              "phase with its drain",
              ["phase", "splitzns/ldp", "splitzns-l3/ldp", "splitzns-l3/splitzns"],
              ratio_columns=["splitzns/ldp", "splitzns-l3/ldp", "splitzns-l3/splitzns"])
    g = Table("GC relocated over each phase and its drain, MiB", ["phase"] + list(systems))
    deep = Table("Compaction output into L3 and below and into L4 and below over each phase and its "
                 "drain, MiB", ["phase"] + [f"{s} {lv}" for s in systems for lv in ("L3+", "L4+")])
    pns = phases(paper.UNIFORM)
    for i, pn in enumerate(pns):
        t.add(pn, *[stat(per_run(sm, key, lambda r, a=a, b=b: drained_ratio(r, a, b, pn)))
                    for a, b in (("splitzns", "ldp"), ("splitzns-l3", "ldp"), ("splitzns-l3", "splitzns"))])
        before = pns[i - 1] if i else None
        g.add(pn, *[stat(per_run(sm, key, lambda r, s=s: gc_over(r, s, pn, before)), 1) for s in systems])
        deep.add(pn, *[stat(per_run(sm, key, lambda r, s=s, lv=lv: into_levels_drained(r, s, pn, lv, 0)), 1)
                       for s in systems for lv in (3, 4)])
    return [t, g, deep]

