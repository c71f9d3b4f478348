"""HHZS (Li, Wang and Lee, "Efficient LSM-Tree Key-Value Data Management
on Hybrid SSD/HDD Zoned Storage", arXiv 2205.11753): the experiments of
section 2.3 (O1-O4) and 4 (Exp#1-Exp#6), scaled down by K, plus `noise`
(the spread of identical comparisons) and `refinements` (our scheme
options against the paper's HHZS)."""
from runner.core import Comparison, Experiment, Option
from runner.stats import Stat
from runner.tables import Table

from . import compact as compact_mod
from . import setup, tables
from .tables import per_repeat, ratio_table, runs, ph, stat

NAME = "hhzs"
TITLE = "HHZS (hybrid SSD/HDD zoned storage)"
ABOUT = """
The HHZS paper's experiments on emulated devices (a ZN540 ZNS SSD and an
ST14000NM0007 HM-SMR HDD, real-time timing) under RocksDB 7.8.3, every
size divided by the scale K. Each workload gets a fresh volume per scheme
(load, then run, as the paper reloads before each workload); the schemes
of a comparison run one after another in one zsbench process. Schemes:
`docs/hhzs.md`.
"""

# Defaults are the paper's setup (4.1) where the machine allows it, fixed
# before measuring; every other value writes to a custom results folder.
OPTIONS = [
    Option("repeats", 3, "runs of every comparison"),
    Option("scale", 512, "K: every size divided by it (data, zones, SST, MemTable, levels, caches)",
           "1 (200 GiB of data)"),
    Option("records", 0, "records loaded; 0 = 200 GiB / 1 KiB / K", "209,715,200"),
    Option("threads", 8, "client threads"),
    Option("bg_jobs", 12, "RocksDB max_background_jobs", "12 flush/compaction threads"),
    Option("bloom_bits", 0, "Bloom filter bits per key; 0 = none", "none (RocksDB's default table options)"),
    Option("index_in_cache", False, "index and filter blocks in the block cache", "no (RocksDB's default)"),
    Option("block_cache", 0, "block cache bytes; 0 = max(8 MiB / K, 64 KiB)", "8 MiB"),
    Option("hdd_zones", 52156, "the HDD's zone count", "52,156 (the drive's)"),
    Option("hdd_write_cache", 256 << 20, "the HDD's write-back cache, bytes (unscaled)", "256 MB (the drive's)"),
    Option("debt_limits", "scaled", "RocksDB's pending-compaction stall limits (64/256 GiB) divided by K or not",
           "64 GiB / 256 GiB", ["scaled", "unscaled"]),
    Option("ssd_zones", 20, "SSD zones available (Exp#5 sweeps 20-80)", "20"),
    Option("seconds", 30.0, "wall-time limit of each run phase (zsbench --seconds)",
           "1 M ops (A-F), 5 M (W1-W4)"),
    Option("ops", 0, "operation limit of each run phase; 0 = --records (the time limit ends it)"),
    Option("settle", False, "wait for compactions between load and run (zsbench phase settle)",
           "no: run right after the load"),
    Option("timing", "real", "device timing of the emulator", "real drives", ["real", "sim", "none"]),
    Option("interval", 1.0, "zsbench sample interval, seconds"),
]
DEFAULTS = {o.name: o.default for o in OPTIONS}

# A tiny end-to-end check of the runner and zsbench, and the main job's
# few-minute look at the schemes (scripts/demo.sh); neither a measurement.
PRESETS = {"smoke": {"_about": "timing=none, 4000 records, 3 s run phases, 1 repeat (not a measurement)",
                     "repeats": 1, "scale": 16384, "records": 4000, "timing": "none",
                     "seconds": 3.0, "interval": 0.5, "hdd_zones": 3000},
           "quick": {"_about": "K = 2048 (100 MiB loads), 20 s run phases, 1 repeat: a few minutes "
                               "for a look, not a measurement",
                     "repeats": 1, "scale": 2048, "seconds": 20.0}}

DEPARTURES = [
    ("Emulated drives.", "No ZN540 or ST14000NM0007 here; the emulator models each drive's zones, "
     "timing and (HDD) write cache from published figures (`docs/emulator.md`)."),
    ("Sizes divided by K = 512.", "200 GiB loads take hours per scheme; every size is divided together "
     "(data 400 MiB, zones 2154 KiB SSD / 512 KiB HDD, SST 93.9% of an SSD zone, MemTable, level "
     "targets, WAL/cache pool of 2 SSD zones), zone counts and device speeds stay the drives'."),
    ("Run phases limited by wall time.", "The paper runs 1 M operations (A-F) and 5 M (W1-W4); at this "
     "scale each run phase runs 30 s (`--seconds`), a load always inserts every record."),
    ("Migration rate scaled by 128 / K.", "Runs last seconds, not hours; 4 MiB/s x 128 / K (1 MiB/s at "
     "K = 512) lets a run migrate a share of the SSTs comparable to the paper's runs."),
    ("YCSB's zipfian item space divided by K.", "YCSB hashes 10^10 items onto the keys; over 4 x 10^5 "
     "keys the items beyond the key count form a flat floor that would give the hottest 1% of keys "
     "12% of the draws instead of the 37% they get at the paper's 2 x 10^8 keys."),
    ("Block cache floor of 64 KiB.", "8 MiB / K would hold 2 blocks at K = 1024; RocksDB's LRU then "
     "drops released blocks instead of evicting them, so nothing would reach the SSD cache."),
    ("Compaction-debt stall limits divided by K.", "RocksDB's 64/256 GiB limits are sizes; unscaled, a "
     "scaled load never slows for its debt and L0 grows far beyond what the paper's O1 shows."),
    ("HDD write cache unscaled (256 MB).", "The drive's cache; it absorbs a larger share of the scaled "
     "data than of the paper's."),
    ("Decisions every 1 s, HDD read window 2 s.", "The authors' code uses 16 s and 30 s; scaled runs last "
     "tens of seconds (Exp#6 decides as often as one SST takes at its highest rate)."),
    ("Device speeds not divided by K.", "Sizes are scaled, the drives' speeds are not, so a scaled "
     "load keeps the SSD busy a few percent of the time. AUTO's rule on the SSD's write throughput "
     "(raise m below 40% of its sequential rate, lower it above 65%) then never lowers m: AUTO keeps "
     "SpanDB's m = 4 and sends SSTs of every level to the SSD first, its free-space cap aside "
     "(Exp#1's analysis measures both)."),
    ("O3 throttles to 80% of B3's measured load rate.", "The paper's 6000 OPS is below every basic "
     "scheme's load rate there; the scaled load rates differ, so the throttle is relative."),
]


def compact(result, s, comp):
    zones = setup.sst_zones(comp.params.get("ssd_zones", s["ssd_zones"]))
    return compact_mod.compact(result, setup.zone_cap(s), zones, comp.params)


workload = setup.workload
zsbench_args = setup.zsbench_args


def volume_config(s, spec, comp):
    return setup.volume_config(s, spec, comp.params)


def same(schemes):
    return [(x, x) for x in schemes]


# ---- Exp#1: YCSB A-F ------------------------------------------------------

EXP1 = ["b3", "auto", "tiered", "hhzs"]
DEMO = ["b3", "tiered", "hhzs"]


def exp1_paper(label, key, pn):
    load = pn.endswith("-load")
    return {"hhzs/b3": "1.078" if load else "1.210-1.564 (A-F)",
            "hhzs/auto": "1.183" if load else "1.280-1.693 (A-F)"}.get(label)


def exp1_tables(sm):
    return [ratio_table(sm, "Exp#1 throughput ratios", [("hhzs/b3", "hhzs", "b3"), ("auto/b3", "auto", "b3"),
                        ("tiered/b3", "tiered", "b3"), ("hhzs/auto", "hhzs", "auto")], paper=exp1_paper),
            tables.ahead_counts(sm, "Exp#1 runs in which HHZS was ahead", "hhzs", ["b3", "auto", "tiered"]),
            tables.read_sources(sm, "Exp#1 where user reads went (run phases)", EXP1),
            tables.hdd_time(sm, "Exp#1 where the HDD's time went (run phases)", EXP1),
            tables.sst_ceiling(sm, "Exp#1 share of user reads whole SSTs on the SSD could take", EXP1),
            tables.ssd_share(sm, "Exp#1 share of each level on the SSD at the end of workload A",
                             "a", "hhzs-a", EXP1)]


# ---- Exp#2: breakdown ----------------------------------------------------

EXP2 = ["b3", "b3+m", "p", "p+m", "hhzs"]
EXP2_PAPER = {"p/b3": {"load": "1.055", "w1": "1.180", "w2": "1.188", "w3": "0.986", "w4": "0.941"},
              "p+m/b3+m": {"w1": "1.145", "w2": "1.088", "w3": "1.094", "w4": "1.059"},
              "hhzs/p+m": {"w1": "1.053", "w2": "1.068", "w3": "1.074", "w4": "2.737"}}


def exp2_paper(label, key, pn):
    return EXP2_PAPER.get(label, {}).get("load" if pn.endswith("-load") else key)


def exp2_tables(sm):
    steps = [("P over B3", "p", "b3"), ("M: B3+M over B3", "b3+m", "b3"), ("M: P+M over P", "p+m", "p"),
             ("P+M over B3+M", "p+m", "b3+m"), ("C: P+M+C over P+M", "hhzs", "p+m")]
    return [ratio_table(sm, "Exp#2 breakdown, throughput ratios",
                        [("p/b3", "p", "b3"), ("b3+m/b3", "b3+m", "b3"), ("p+m/b3+m", "p+m", "b3+m"),
                         ("hhzs/p+m", "hhzs", "p+m"), ("hhzs/b3", "hhzs", "b3")], paper=exp2_paper),
            tables.step_table(sm, "Exp#2 what each technique adds", steps),
            tables.read_sources(sm, "Exp#2 where user reads went (run phases)", EXP2),
            tables.hdd_time(sm, "Exp#2 where the HDD's time went (run phases)", EXP2),
            tables.sst_ceiling(sm, "Exp#2 share of user reads whole SSTs on the SSD could take",
                               ["p+m", "hhzs"])]


# ---- Exp#3 and Exp#4: skew and read ratio sweeps ----------------------------

SWEEP = ["b3", "auto", "hhzs"]
EXP4_PAPER = {"hhzs/b3": {"0.1": "1.404", "0.3": "1.424"}, "hhzs/auto": {"0.1": "1.677", "0.3": "1.684"}}


def sweep_comparisons(mixes):
    return lambda s: [Comparison(m.replace(":", "_"), same(SWEEP), f"hhzs-w2-load,{m}") for m in mixes]


def sweep_table(sm, title, paper):
    return [ratio_table(sm, title, [("hhzs/b3", "hhzs", "b3"), ("auto/b3", "auto", "b3"),
                                    ("hhzs/auto", "hhzs", "auto")],
                        paper=paper, show=lambda key, pn: not pn.endswith("-load"))]


def exp3_paper(label, key, pn):
    return {"hhzs/b3": "1.273-1.433 (range)", "hhzs/auto": "1.516-1.771 (range)"}.get(label)


def exp4_paper(label, key, pn):
    if pn.endswith("-load") or label not in EXP4_PAPER:
        return None
    ratio = pn.split(":")[1]
    rest = {"hhzs/b3": "1.425-1.600 (>= 50%)", "hhzs/auto": "1.541-1.653 (>= 50%)"}[label]
    return EXP4_PAPER[label].get(ratio, rest)


# ---- Exp#5: SSD size -------------------------------------------------------

EXP5 = ["b1", "b2", "b3", "b4", "auto", "p", "hhzs"]
BASELINES = ("b1", "b2", "b3", "b4", "auto")
EXP5_PAPER = {"p/best": {20: ("1.055", "1.188"), 40: ("1.011", "1.026"), 60: ("1.079", "1.125"),
                         80: ("1.066", "1.062")},
              "hhzs/best": {20: (None, "1.348"), 40: (None, "1.155"), 60: (None, "1.285"), 80: (None, "1.136")},
              "hhzs/p": {20: ("1.022", None), 40: ("1.053", None), 60: ("1.077", None), 80: ("1.108", None)}}


def exp5_comparisons(s):
    return [Comparison(f"z{z}", same(EXP5), "hhzs-w2-load,mix:0.5:0.9", {"ssd_zones": z})
            for z in (20, 40, 60, 80)]


def exp5_paper(label, key, pn):
    v = EXP5_PAPER.get(label, {}).get(int(key[1:]))
    return v and v[0 if pn.endswith("-load") else 1]


def exp5_label(key, pn):
    return f"{key[1:]} zones, {pn}"


def exp5_tables(sm):
    return [ratio_table(sm, "Exp#5 SSD size: throughput over the best of B1-B4 and AUTO, and over B3",
                        [("p/best", "p", BASELINES), ("hhzs/best", "hhzs", BASELINES),
                         ("hhzs/p", "hhzs", "p"), ("p/b3", "p", "b3"), ("hhzs/b3", "hhzs", "b3")],
                        paper=exp5_paper, row_label=exp5_label, pool_loads=False),
            tables.best_table(sm, "Exp#5: the fastest of B1-B4 and AUTO in each repeat", BASELINES,
                              row_label=exp5_label)]


# ---- Exp#6: migration rate -------------------------------------------------

EXP6_RATES = (1, 2, 4, 8, 16, 32, 64)


def exp6_decision_ms(s):
    """The authors' code decides at most once per 16 s, about the time one
    1011 MiB SST takes at the highest rate (64 MiB/s), so no rate is bound
    by decisions; here as often as one SST takes at the highest rate."""
    return max(1, int(1000 * setup.sst_size(s) / setup.migration_rate(s, max(EXP6_RATES) * setup.MiB)))


def exp6_comparisons(s):
    ms = exp6_decision_ms(s)
    schemes = [(f"p+m@{r}", f"p+m/decision_interval_ms:{ms}/migration_mib_per_sec:"
                f"{setup.migration_rate(s, r * setup.MiB) / setup.MiB:g}") for r in EXP6_RATES]
    return [Comparison("rates", schemes, "hhzs-w2-load,mix:0.5:0.9", {"latency": True})]


def exp6_tables(sm):
    s = sm["settings"]
    t = Table(f"Exp#6 P+M read latency (us) by migration rate (paper rate; scaled rate; a decision at "
              f"most every {exp6_decision_ms(s)} ms)",
              ["paper rate MiB/s", "scaled KiB/s", "ops/s", "p99", "p99.9", "p99.99", "p99.9 / at 1 MiB/s",
               "migrated MiB"],
              ratio_columns=["p99.9 / at 1 MiB/s"], plot=("line", ["p99", "p99.9", "p99.99"], "read latency (us)"))
    rs = runs(sm, "rates")
    for r in EXP6_RATES:
        ps = [p for p in (ph(x, f"p+m@{r}", "mix:0.5:0.9") for x in rs) if p and "lat" in p]
        base = [ph(x, "p+m@1", "mix:0.5:0.9") for x in rs]
        rel = [p["lat"][1] / b["lat"][1] for p, b in zip(ps, base) if b and "lat" in b and b["lat"][1]]
        t.add(str(r), f"{setup.migration_rate(s, r * setup.MiB) / 1024:.0f}", stat([p["ops_s"] for p in ps], 0),
              *[stat([p["lat"][i] for p in ps], 0) for i in range(3)], stat(rel),
              stat([sum(d[4] for d in p["dev"]) / setup.MiB for p in ps], 1))
    return [t]


# ---- O1-O4: the basic schemes ----------------------------------------------

BASIC = ["b1", "b2", "b3", "b4"]
O1_PAPER = {("L0", "max"): "40.3", ("L1", "max"): "29.7", ("L2", "max"): "4.9",
            ("L0", "median"): "4.0", ("L1", "median"): "5.2", ("L2", "median"): "1.4"}
O2_PAPER = {("b3", "x"): "1 (fastest)", ("b4", "x"): "0.887", ("b3", "wal"): "0.318"}
O3_PAPER = {("L0", "max"): "10.0", ("L1", "max"): "10.7", ("L2", "max"): "2.4"}
LOAD = "hhzs-a-load"


def basic_load(key="unthrottled", params=None):
    return Comparison(key, same(BASIC), LOAD, dict({"levels": True}, **(params or {})))


def o3_comparisons(s):
    def throttle(summary):
        b3 = [ph(r, "b3", LOAD)["ops_s"] for r in runs(summary, "unthrottled")]
        if not b3:
            raise LookupError("no unthrottled B3 load counted, nothing to throttle to")
        return {"rate": 0.8 * Stat(b3).median}
    return [basic_load(), Comparison("throttled", same(BASIC), LOAD, {"levels": True}, derive=throttle)]


def o4_comparisons(s):
    return [Comparison(f"alpha{a}", same(BASIC), f"hhzs-a-load,mix:1.0:{a}") for a in (0.9, 1.2)]


def o4_tables(sm):
    """The paper's "read traffic" is not defined further; the second share
    also counts compaction reads, which right after the load can outweigh
    the user's once the block cache absorbs the skewed reads."""
    t = Table("O4 reads after the load (100% reads): the HDD's share of user reads",
              ["alpha", "scheme", "ops/s", "HDD share of user reads", "HDD share of all read bytes",
               "HDD share, paper (B1-B4)"], plot=("bar", ["HDD share of user reads"], "share on the HDD"))
    paper = {"0.9": "0.797-0.982", "1.2": "0.358-0.495"}
    for key in sm["comparisons"]:
        alpha = key[len("alpha"):]
        for s in BASIC:
            ps = [p for p in (ph(r, s, f"mix:1.0:{alpha}") for r in runs(sm, key)) if p and p["dev"]]
            user = [p["dev"][-1][0] / sum(d[0] for d in p["dev"]) for p in ps if sum(d[0] for d in p["dev"])]
            allb = [p["dev"][-1][1] / sum(d[1] for d in p["dev"]) for p in ps if sum(d[1] for d in p["dev"])]
            t.add(alpha, s, stat([p["ops_s"] for p in ps], 0), stat(user), stat(allb), paper[alpha])
    return [t]


# ---- noise and refinements (ours) ---------------------------------------------

# Our refinements, each a scheme option (`zsctl schemes` lists them, with
# the paper's value as default), compared against the scheme as the paper
# describes it: (scheme, option, our value).
REFINEMENTS = [
    ("hhzs", "min_tiering_level", 0),
    ("hhzs", "exclude_hdd_inputs", True),
    ("hhzs", "spare_migration", True),
    ("hhzs", "spare_placement", True),
    ("hhzs", "cache_second_chance", True),
    ("hhzs", "cache_refresh", True),
    ("auto", "initial_max_level", 1),
]


def refinement_name(scheme, opt, value):
    # zsbench scheme names may not hold ':' or '/'.
    return f"{scheme}+{opt}" if value is True else f"{scheme}+{opt}.{value}"


def refinements_comparisons(s):
    bases = list(dict.fromkeys(b for b, _, _ in REFINEMENTS))
    schemes = same(bases) + [(refinement_name(b, o, v), f"{b}/{o}:{str(v).lower()}")
                             for b, o, v in REFINEMENTS]
    return [Comparison("w2", schemes, "hhzs-w2-load,mix:0.5:0.9")]


def preflight(exp, zsctl_schemes):
    """Every refinement option must be one `zsctl schemes` lists."""
    if exp.name != "refinements":
        return []
    return [f"refinements: {o} is not an option `zsctl schemes` lists (edit REFINEMENTS in hhzs/paper.py)"
            for _, o, _ in REFINEMENTS if f" {o} " not in zsctl_schemes]


def refinements_tables(sm):
    pairs = [(f"{refinement_name(b, o, v)}/{b}", refinement_name(b, o, v), b) for b, o, v in REFINEMENTS]
    return [ratio_table(sm, "Our refinements over the schemes as the paper describes them "
                            "(one option each)", pairs)]


def noise_tables(sm):
    return [ratio_table(sm, "The same comparison twice in one run: identical schemes' ratios",
                        [("b3#2/b3", "b3#2", "b3"), ("hhzs#2/hhzs", "hhzs#2", "hhzs"),
                         ("hhzs/b3", "hhzs", "b3"), ("hhzs#2/b3#2", "hhzs#2", "b3#2")]),
            per_repeat(sm, "Each repeat's run phase: throughput and what set it",
                       ["b3", "hhzs", "b3#2", "hhzs#2"])]


EXPERIMENTS = {e.name: e for e in [
    Experiment("exp1", "Exp#1: YCSB A-F",
               "B3, AUTO, RocksDB's tiered storage and HHZS, each workload's load then 30 s of the "
               "workload (A-F as the paper ran them: zipf 0.9, D latest).",
               "HHZS over B3: load 1.078, A-F 1.210-1.564; over AUTO: load 1.183, A-F 1.280-1.693.",
               lambda s: [Comparison(c, same(EXP1), f"hhzs-{c}-load,hhzs-{c}",
                                     {"ceiling": True, "ssd_share": c == "a"}) for c in "abcdef"],
               exp1_tables),
    Experiment("exp2", "Exp#2: breakdown (P, M, C)",
               "B3, B3+M, P, P+M and P+M+C (HHZS) on W1-W4 (W1 10% reads and W2 50%, zipf 0.9; "
               "W3 50% and W4 100%, zipf 1.2; the rest updates), each after its load.",
               "over B3: P load 1.055, W1 1.180, W2 1.188, W3 0.986, W4 0.941; P+M over B3+M: W1 1.145, "
               "W2 1.088, W3 1.094, W4 1.059; P+M+C over P+M: W1 1.053, W2 1.068, W3 1.074, W4 2.737.",
               lambda s: [Comparison(f"w{i}", same(EXP2), f"hhzs-w{i}-load,hhzs-w{i}", {"ceiling": True})
                          for i in range(1, 5)],
               exp2_tables),
    Experiment("exp3", "Exp#3: skew",
               "B3, AUTO and HHZS, W2's load then 30 s of 50% reads at zipf alpha 0.8-1.2.",
               "HHZS over B3 1.273-1.433, over AUTO 1.516-1.771 (alpha 0.8-1.2).",
               sweep_comparisons([f"mix:0.5:{z}" for z in (0.8, 0.9, 1.0, 1.1, 1.2)]),
               lambda sm: sweep_table(sm, "Exp#3 skew (50% reads), throughput ratios", exp3_paper)),
    Experiment("exp4", "Exp#4: read ratio",
               "B3, AUTO and HHZS, W2's load then 30 s of 10-90% reads at zipf alpha 0.9.",
               "HHZS over B3: 10% 1.404, 30% 1.424, >=50% 1.425-1.600; over AUTO 1.677, 1.684, 1.541-1.653.",
               sweep_comparisons([f"mix:{r}:0.9" for r in (0.1, 0.3, 0.5, 0.7, 0.9)]),
               lambda sm: sweep_table(sm, "Exp#4 read ratio (alpha 0.9), throughput ratios", exp4_paper)),
    Experiment("exp5", "Exp#5: SSD size",
               "B1-B4, AUTO, P and HHZS with 20, 40, 60 and 80 SSD zones, W2's load then 30 s of 50% "
               "reads at alpha 0.9.",
               "load: P over the best of B1-B4/AUTO 1.055, 1.011, 1.079, 1.066 (20/40/60/80 zones); run: "
               "P 1.188, 1.026, 1.125, 1.062; HHZS 1.348, 1.155, 1.285, 1.136; HHZS over P in the "
               "load 1.022, 1.053, 1.077, 1.108.",
               exp5_comparisons, exp5_tables),
    Experiment("exp6", "Exp#6: migration rate and read tail latency",
               "P+M at the paper's 1-64 MiB/s (scaled by 128 / K), one scheme per rate in one zsbench "
               "run, W2's load then 30 s of 50% reads at alpha 0.9; read latency percentiles.",
               "p99 within 10% for all rates; p99.9 lowest at 2-4 MiB/s, +23-25% at 64 MiB/s; "
               "p99.99 +104% from 1 to 64 MiB/s.",
               exp6_comparisons, exp6_tables),
    Experiment("o1", "O1: level sizes during a load",
               "B1-B4 load A's records unthrottled; the level sizes of B4's load sampled every interval.",
               "B4 load: max L0 40.3x, L1 29.7x, L2 4.9x their targets; medians 4.0x, 5.2x, 1.4x.",
               lambda s: [basic_load()],
               lambda sm: [tables.level_box(sm, "O1 level sizes during the B4 load, over target",
                                            "unthrottled", "b4", LOAD, O1_PAPER)]),
    Experiment("o2", "O2: load throughput of the basic schemes",
               "B1-B4 load A's records unthrottled; throughput and where the WAL went.",
               "B3 fastest load; B4 11.3% below B3; B3 sends 68.2% of WAL writes to the HDD.",
               lambda s: [basic_load()],
               lambda sm: [tables.load_table(sm, "O2 load throughput and WAL bytes on the SSD",
                                             "unthrottled", BASIC, LOAD, O2_PAPER)]),
    Experiment("o3", "O3: level sizes under a throttled load",
               "B1-B4 load unthrottled, then throttled to 80% of B3's median unthrottled rate.",
               "throttled to 6000 OPS: max L0 10.0x, L1 10.7x, L2 2.4x target.",
               o3_comparisons,
               lambda sm: [tables.level_box(sm, "O3 level sizes during the throttled B4 load, over target",
                                            "throttled", "b4", LOAD, O3_PAPER),
                           tables.load_table(sm, "O3 throttled load throughput", "throttled", BASIC, LOAD, {})]),
    Experiment("o4", "O4: where reads go after a load",
               "B1-B4, A's load then 30 s of 100% reads at alpha 0.9 and 1.2.",
               "alpha 0.9: 79.7-98.2% of reads on the HDD; alpha 1.2: 35.8-49.5%.",
               o4_comparisons, o4_tables),
    Experiment("noise", "Noise: identical comparisons",
               "B3, HHZS and second copies of both (same configs, other names) in one zsbench run, A's "
               "load then 30 s of A: the ratio of identical schemes is 1 but for run-to-run noise.",
               "no such experiment (ours).",
               lambda s: [Comparison("a", [("b3", "b3"), ("hhzs", "hhzs"), ("b3#2", "b3"), ("hhzs#2", "hhzs")],
                                     "hhzs-a-load,hhzs-a")],
               noise_tables),
    Experiment("demo", "Demo: HHZS, B3 and RocksDB's tiered storage on YCSB A",
               "B3, RocksDB's tiered storage and HHZS in one zsbench run: A's load then `seconds` of A, as "
               "Exp#1 runs it. The main job (`scripts/demo.sh`) runs it with `--quick`.",
               "HHZS over B3: load 1.078, A-F 1.210-1.564 (Exp#1; the paper has no tiered storage).",
               lambda s: [Comparison("a", same(DEMO), "hhzs-a-load,hhzs-a")],
               lambda sm: [ratio_table(sm, "Demo throughput ratios", [("hhzs/b3", "hhzs", "b3"),
                                       ("tiered/b3", "tiered", "b3"), ("hhzs/tiered", "hhzs", "tiered")],
                                       paper=exp1_paper),
                           tables.read_sources(sm, "Demo: where user reads went (run phase)", DEMO),
                           tables.hdd_time(sm, "Demo: where the HDD's time went (run phase)", DEMO)],
               report=False),
    Experiment("refinements", "Our refinements against the paper's HHZS",
               "HHZS (and AUTO) as the paper describes them against the same scheme with one of our "
               "options each (`docs/hhzs.md`), all in one zsbench run: W2's load then 30 s of 50% reads "
               "at alpha 0.9.",
               "no such experiment (ours; the paper's HHZS is the default).",
               refinements_comparisons, refinements_tables),
]}
