"""SplitZNS (Huang et al., "SplitZNS: Towards an Efficient LSM-Tree on
Zoned Namespace SSDs", ACM TACO 20(3), 2023): the experiments of section
5 (Fig. 9-16), scaled down."""
from runner.core import Comparison, Experiment, Option

from . import compact as compact_mod
from . import setup, tables

NAME = "splitzns"
TITLE = "SplitZNS (split zones and subzones, SubZone Ring, Read Prefetcher, Read Scheduler)"
ABOUT = """
The SplitZNS paper's experiments on the emulator's `splitzns` preset (the
paper's FEMU ZNS SSD of Table 1: 8 channels x 2 chips, 4 planes, 16 KiB
pages, 35/960/3000 us, 160 zones, 24 active and open), every size divided
by K (`experiments/splitzns/setup.py`), under RocksDB 7.8.3. The systems
(`docs/splitzns.md`): **splitzns**, the `splitzns` scheme (SSTs of L4 and
up in subzones, the rest LDP) on the device with SubZone Ring, Read
Prefetcher and Read Scheduler on; **ldp**, lifetime placement with greedy
GC at 20% free and RocksDB's default compaction (MinOverlappingRatio);
**gear**, GearDB's per-level zones and gear compaction (the `geardb`
scheme and driver) with GC on as the paper runs it; **llc**, `ldp` with
RocksDB's round-robin compaction priority. The breakdown: **native**
(every SST in a subzone, no device technique), **+diff** (L4 and up only),
**+szr** (SubZone Ring on), **+rp** (Read Prefetcher on), **+rs** (Read
Scheduler on: the whole of SplitZNS). Each system gets a fresh volume;
the systems of a comparison run one after another in one zsbench process.
"""

OPTIONS = [
    Option("repeats", 3, "runs of every comparison", "three or more"),
    Option("scale", 32, "K: zone, subzone, SST, MemTable and level sizes and the data divided by it",
           "1 (512 MiB zones, 32 MiB subzones and SSTs, 50 GiB loaded, a tree of 42 GiB)"),
    Option("records", 0, "records of every load; 0 = 41.96 GiB / (key + value) / K",
           "about 50 GiB loaded, trees of 41.95-41.97 GiB"),
    Option("ops", 0, "operations of each run phase over all threads; 0 = 4 M / K", "4 x 1 M"),
    Option("phase_seconds", 0.0, "ours: run phases last this long instead of a count of operations "
           "(zsbench --seconds), so RocksDB's compactions and zfs's GC of a write phase happen inside "
           "it; 0 = the paper's count (`ops`)", "4 x 1 M operations"),
    Option("value", setup.VALUE, "value bytes (Fig. 16(a) varies it)",
           "not stated for section 5 (section 3: 1 KiB)"),
    Option("threads", setup.THREADS, "client threads", "4"),
    Option("bg_compactions", setup.BG_COMPACTIONS, "RocksDB max_background_compactions", "16"),
    Option("bg_flushes", 2, "RocksDB max_background_flushes", "not stated"),
    Option("timing", "real", "device timing of the emulator", "FEMU in real time", ["real", "sim", "none"]),
    Option("interval", 1.0, "zsbench sample interval, seconds"),
]
DEFAULTS = {o.name: o.default for o in OPTIONS}

PRESETS = {"smoke": {"_about": "timing=none, 1 repeat, K = 256 and 20,000 operations per phase: a "
                               "check of the module, runner and zsbench end to end, not a measurement",
                     "repeats": 1, "timing": "none", "scale": 256, "ops": 20_000, "interval": 0.2}}

DEPARTURES = [
    ("An emulated device, not FEMU.", "The emulator's `splitzns` preset models Table 1's SSD; split "
     "zones, the chip allocator, the SubZone Ring, Read Prefetcher and Read Scheduler are the "
     "emulator's (`docs/emulator.md`, \"Split zones\")."),
    ("Sizes divided by K = 32.", "16 MiB zones, 1 MiB subzones, SSTs of 960 KiB (the subzone less "
     "1/16, `docs/splitzns.md`), 2 MiB MemTables, L1 of 8 MiB, 1.3 GiB loaded (1.35 M pairs). The "
     "zone count, active limit, chips and latencies are the paper's, so the tree has its levels and "
     "a split zone its 16 subzones; run phases do 4 M / K operations."),
    ("A load as large as the paper's tree, not its 50 GiB.", "The paper loads about 50 GiB (5.1.4) "
     "and its trees then hold 41.95-41.97 GiB (5.3), 52% of the SSD; our load writes each key once, "
     "uncompressed, so it loads 41.96 GiB / K of pairs to leave the same share. (The question was "
     "raised by uncounted timing=none runs at 50 GiB / K that failed writes for space; the setting "
     "follows the paper's numbers and was set before the first counted run.)"),
    ("16 B keys, 1 KiB values.", "Section 5 does not give them; section 3's runs use these."),
    ("RocksDB 7.8.3, not 7.6.0 with ZenFS.", "Unmodified Debian RocksDB on zfs; no compression "
     "(zsbench's values are nearly constant bytes); the info LOG and MANIFEST share the volume, "
     "capped at a quarter zone each."),
    ("The SST size of every system is the subzone's less 1/16.", "The paper sets it to the subzone "
     "size for SplitZNS; the same size for all keeps the comparison about placement."),
    ("Gear is GearDB's mapping onto RocksDB.", "`docs/geardb.md`: gear compaction as CompactFiles "
     "steps of a driver; with zfs's greedy GC at 20% (the geardb scheme's option `gc`), as the "
     "paper's 5.1.3 runs it."),
    ("LLC is RocksDB's round-robin compaction priority.", "It walks each level in key order, as LLC "
     "picks SSTs; on ldp's lifetime placement with its GC (the paper: \"We also enable GC for it\")."),
    ("Every load is YCSB's load.", "Each key once, in YCSB's hashed order, so the keys arrive "
     "unsorted and L4's SSTs are written by compactions (into subzones under splitzns). A fillseq "
     "load writes sorted keys that RocksDB moves down trivially: in the smoke run +diff's load put no "
     "SST in a subzone. The db_bench phases (readrandom, overwrite, fillrandom) use the load's key "
     "names (zsbench's `--dbbench-keys ycsb`), uniformly. The paper loads \"with the corresponding skewness\" for Fig. 16(c), which "
     "zsbench's loads cannot."),
    ("Phases follow one load.", "readrandom, overwrite and fillrandom run in that order after one "
     "YCSB load (readrandom right after it, as the paper's reads \"after the write bursts\"); YCSB A, B, "
     "C, F, D, E after one YCSB load (D and E insert). The breakdown runs overwrite, then readrandom, "
     "so queries meet the compactions overwrite left."),
    ("YCSB-A of Fig. 16(c) is zsbench's mix.", "`mix:0.5:C`: 50% reads and 50% updates, zipfian "
     "constant C, which is YCSB-A with C; `mix:0.5:uniform` draws keys uniformly."),
    ("Chips with the SST size following the subzone (Fig. 16(b)).", "The device's `chips=N` gives "
     "the 8 channels N / 8 chips each and a split zone N subzones, the zone size kept (the paper "
     "scales the erase block, 5.5.2), so a subzone is the zone / N. The paper sets the SST size "
     "equal to the subzone size and does not say what it did at other chip counts; here every "
     "system's SST follows the subzone (the subzone less 1/16), from 1.9 MiB at 8 chips to 240 KiB "
     "at 64."),
    ("Compactions on 2 cores.", "The paper's 16 background compactions are kept; this host has 2 "
     "shared cores, so runs may be CPU-bound: every table of throughput has the device's busy "
     "fraction beside it."),
]


def workload(s, comp):
    return comp.workload


def zsbench_args(s, comp):
    return setup.zsbench_args(s, comp)


def volume_config(s, spec, comp):
    return setup.volume_config(s, spec, comp.params.get("chips"))


def compact(result, s, comp):
    return compact_mod.compact(result)


def preflight(exp, zsctl_schemes):
    """Every scheme option the experiment's configs name (geardb's gc,
    splitzns's subzone_min_level) must be one `zsctl schemes` lists: a
    zsctl built before them would fail only when the system runs."""
    s = DEFAULTS
    options = set()
    for comp in exp.comparisons(s):
        for _, spec in comp.schemes:
            scheme = setup.volume_config(s, spec)["scheme"]
            if isinstance(scheme, dict):
                options |= {k for k in scheme if k != "name"}
    return [f"{exp.name}: scheme option {o} is not one `zsctl schemes` lists (rebuild zsctl)"
            for o in sorted(options) if f" {o} " not in zsctl_schemes]


UNIFORM = "ycsb-a-load,readrandom,overwrite,fillrandom"
YCSB = "ycsb-a-load,ycsb-a,ycsb-b,ycsb-c,ycsb-f,ycsb-d,ycsb-e"
BREAKDOWN = "ycsb-a-load,overwrite,readrandom"
YCSB_A = "ycsb-a-load,ycsb-a"
VALUES = [128, 256, 512, 1024, 2048, 4096]
SKEWS = [0, 0.8, 0.9, 0.95, 0.99]
CHIPS = [8, 16, 32, 64]


def same(names):
    return [(n, n) for n in names]


def skew_phase(z):
    return "mix:0.5:uniform" if z == 0 else f"mix:0.5:{z}"


def skew_key(z):
    return "skew-uniform" if z == 0 else f"skew-{z}"


def overall_comparisons(s):
    return [Comparison("uniform", same(setup.SYSTEMS), UNIFORM),
            Comparison("ycsb", same(setup.SYSTEMS), YCSB)]


def drained(workload):
    """Every phase followed by zsbench's `drain` (flush, compactions, GC)."""
    return ",".join(f"{pn},drain" for pn in workload.split(","))


def drained_comparisons(s):
    return [Comparison("uniform", same(setup.SYSTEMS), drained(UNIFORM)),
            Comparison("ycsb", same(setup.SYSTEMS), drained(YCSB))]


# Ours: the subzones from L3 (RocksDB's compactions write L3 all the
# time; L4 of this tree grows by trivial moves) against the paper's L4.
LEVEL_SYSTEMS = [("splitzns", "splitzns"), ("splitzns-l3", "splitzns/min_level:3"), ("ldp", "ldp")]


def level_comparisons(s):
    return [Comparison("level-uniform", LEVEL_SYSTEMS, drained(UNIFORM))]


def breakdown_comparisons(s):
    return [Comparison("breakdown", same(setup.BREAKDOWN), BREAKDOWN)]


def value_comparisons(s):
    return [Comparison(f"value-{v}", same(["splitzns", "ldp"]), YCSB_A, {"value": v}) for v in VALUES]


def chips_comparisons(s):
    return [Comparison(f"chips-{n}", same(["splitzns", "ldp"]), YCSB_A, {"chips": n}) for n in CHIPS]


def skew_comparisons(s):
    return [Comparison(skew_key(z), same(setup.SYSTEMS), f"ycsb-a-load,{skew_phase(z)}")
            for z in SKEWS]


def policy_comparisons(s):
    return [Comparison(f"pri-{p}", [(n, f'{n}/pri:"{pri}"') for n in ("splitzns", "ldp")], YCSB_A)
            for p, pri in setup.PRIORITIES.items()]


# The paper's numbers (section 5), for the tables.
PAPER = {
    # Fig. 9: SplitZNS's throughput over each system's.
    "overall": {("overwrite", "ldp"): 2.77, ("overwrite", "gear"): 3.55, ("overwrite", "llc"): 2.68,
                ("ycsb-a", "ldp"): 1.79, ("ycsb-a", "gear"): 1.63, ("ycsb-a", "llc"): 1.23,
                ("readrandom", "ldp"): 1.16, ("readrandom", "gear"): 2.05, ("readrandom", "llc"): 1.11,
                ("ycsb-c", "ldp"): 1.29, ("ycsb-c", "gear"): 1.21, ("ycsb-c", "llc"): 1.07},
    # Fig. 10, 5.2 (5): SplitZNS's latency over LDP's, 1 - the reduction.
    "latency": {("overwrite", "UPDATE", "p99"): 0.428, ("overwrite", "UPDATE", "p99.9"): 0.472,
                ("readrandom", "READ", "p99"): 0.569, ("readrandom", "READ", "p99.9"): 0.57,
                ("ycsb-c", "READ", "p99"): 0.608, ("ycsb-a", "UPDATE", "p99"): 0.604,
                ("ycsb-a", "READ", "p99"): 0.751},
    # 5.4.1: each step over the one before it (throughput; latency 1 -
    # the reduction, or 1 + the increase).
    "breakdown": {("+diff", "overwrite", "ops"): 1.43, ("+diff", "overwrite", "p99.9"): 0.46,
                  ("+diff", "readrandom", "p99.9"): 0.61,
                  ("+szr", "overwrite", "ops"): 1.88, ("+szr", "overwrite", "p99"): 0.71,
                  ("+szr", "overwrite", "p99.9"): 0.47, ("+szr", "readrandom", "ops"): 1.427,
                  ("+szr", "readrandom", "p50"): 0.61, ("+szr", "readrandom", "p99"): 0.70,
                  ("+szr", "readrandom", "p99.9"): 0.25,
                  ("+rp", "overwrite", "ops"): 1.11, ("+rp", "readrandom", "p99"): 1.29,
                  ("+rp", "readrandom", "p99.9"): 1.295,
                  ("+rs", "readrandom", "p99"): 0.67, ("+rs", "readrandom", "p99.9"): 0.73},
    # Fig. 16: SplitZNS over LDP.
    "value": "1.13x to 2.03x over LDP, more with larger values",
    "skew": "uniform: 1.55x to 1.9x over the three others; skewed: up to 1.66x (LDP), 1.51x (Gear), "
            "1.34x (LLC)",
    "policy": {"cs": 1.50, "mor": 1.72, "ols": 1.37, "oss": 1.91},
    # 5.5.2: SplitZNS over LDP on YCSB-A by the SSD's chips.
    "chips": {8: 1.79, 16: 1.75, 32: 1.50, 64: 1.20},
}

EXPERIMENTS = {e.name: e for e in [
    Experiment("overall", "Throughput, latency, device and user writes, GC migration (Fig. 9-12)",
               "Per system a fresh volume loaded with YCSB's load (the paper's tree, 41.96 GiB / K of pairs), then "
               "readrandom, overwrite and fillrandom; and one loaded the same way (YCSB-L), then YCSB A, B, C, "
               "F, D and E; 4 M / K operations per phase on 4 threads. SplitZNS's throughput over each "
               "other system's within each run; tail latencies over LDP's; device bytes written (-D), "
               "RocksDB's flush and compaction bytes (-U) and GC's bytes relocated on YCSB-A "
               "(Fig. 11, 12); the device's busy fraction per phase, to tell device-bound phases from "
               "CPU-bound ones.",
               "SplitZNS 2.77x LDP on overwrite and 1.79x on YCSB-A, 3.55x / 2.68x Gear / LLC on "
               "overwrite and 1.63x / 1.23x on YCSB-A; readrandom 1.16x, 2.05x, 1.11x; YCSB-C 1.29x, "
               "1.21x, 1.07x. LDP and SplitZNS write the same user bytes, Gear and LLC more; SplitZNS "
               "migrates far less than LDP. Overwrite p99 -57.2% and p99.9 -52.8% against LDP, "
               "readrandom -43.1% and -43%.",
               overall_comparisons, tables.overall_tables),
    Experiment("drained", "Ours: each phase charged with the flush, compaction and GC it leaves",
               "`overall`'s two comparisons with zsbench's `drain` after every phase: it flushes the "
               "MemTables, waits for the compactions, then runs GC while a device is below its "
               "threshold. A phase's drained throughput is its operations over its seconds plus its "
               "drain's, so the write phases (about 2 s here, minutes in the paper) carry the "
               "compaction and GC they cause instead of leaving it to the next phase; the next "
               "phase starts with no debt. GC relocated is counted over the phase and its drain.",
               "SplitZNS 2.77x LDP on overwrite and 1.79x on YCSB-A, 3.55x / 2.68x Gear / LLC on "
               "overwrite and 1.63x / 1.23x on YCSB-A; SplitZNS migrates far less than LDP.",
               drained_comparisons, tables.drained_tables),
    Experiment("level", "Ours: subzones from L3, a named option against the paper's L4",
               "`drained`'s uniform comparison with splitzns as the paper sets it (subzones for SSTs "
               "of L4 and below), splitzns-l3 (`subzone_min_level` 3: L3's SSTs too) and ldp; each "
               "phase with its drain. A test of why splitzns ties ldp here: whether SSTs that "
               "compactions write into the subzone levels are what it lacks.",
               "+diff puts SSTs of level > 3 in subzones; no other threshold is measured.",
               level_comparisons, tables.level_tables),
    Experiment("breakdown", "Breakdown: native, +diff, +SZR, +RP, +RS (Fig. 13-15)",
               "A YCSB load, overwrite, then readrandom on each step of the breakdown; each step's "
               "throughput and latency over the step before it and over native; RocksDB's write "
               "stall time and compaction throughput (bytes written by compactions over their time).",
               "+diff 1.43x the overwrite throughput, +SZR 1.88x and +42.7% on readrandom, +RP 1.11x "
               "on overwrite with worse read tails (+29%), +RS cuts them again (p99 -33%, p99.9 -27%).",
               breakdown_comparisons, tables.breakdown_tables),
    Experiment("value", "Value size 128 B to 4 KiB on YCSB-A (Fig. 16(a))",
               "A YCSB load of 41.96 GiB / K of pairs and YCSB-A, values of 128 B to 4 KiB; splitzns "
               "over ldp.",
               PAPER["value"], value_comparisons, tables.value_tables),
    Experiment("chips", "The SSD's chip count, 8 to 64, on YCSB-A (Fig. 16(b))",
               "A YCSB load and YCSB-A on the SSD with 8, 16, 32 and 64 chips, the zone size kept "
               "(a split zone has a subzone per chip; the SST follows the subzone); splitzns over ldp.",
               "SplitZNS 1.79x LDP with 8 chips, 1.75x with 16, 1.50x with 32, 1.20x with 64.",
               chips_comparisons, tables.chips_tables),
    Experiment("skew", "Skew on YCSB-A: uniform, 0.8, 0.9, 0.95, 0.99 (Fig. 16(c))",
               "A YCSB load and 50% reads / 50% updates uniform and at each zipfian constant; "
               "splitzns over each other system.",
               PAPER["skew"], skew_comparisons, tables.skew_tables),
    Experiment("policy", "RocksDB's compaction priority: MOR, CS, OLS, OSS (Fig. 16(d))",
               "A YCSB load and YCSB-A with each of RocksDB's compaction priorities, splitzns and ldp "
               "alike; splitzns over ldp.",
               "SplitZNS 1.50x LDP with CS, 1.72x with MOR, 1.37x with OLS, 1.91x with OSS.",
               policy_comparisons, tables.policy_tables),
]}
