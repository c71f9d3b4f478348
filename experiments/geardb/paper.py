"""GearDB (Yao, Zhang, Li, Wu, Wang and Hua, "GearDB: A GC-free Key-Value
Store on HM-SMR Drives with Gear Compaction", FAST 2019): the experiments
of section 5 (Fig. 10, 11, 13-17, the window-size sensitivity of 5.4) and
the GC-threshold trade-off of section 2.3 (Fig. 5), scaled down."""
from runner.core import Comparison, Experiment, Option

from . import compact as compact_mod
from . import setup, tables

NAME = "geardb"
TITLE = "GearDB (per-level zones, compaction windows, gear compaction on HM-SMR)"
ABOUT = """
The GearDB paper's experiments on an emulated Seagate ST13125NM007
HM-SMR drive (the paper's, real-time timing) under RocksDB 7.8.3 with
LevelDB 1.19's defaults, sizes divided by K and a 1/D slice of the drive
and the data (`experiments/geardb/setup.py`). The systems
(`docs/geardb.md`): **geardb**, the `geardb` scheme (per-level zones,
windows by age, gear compaction by the glue's driver,
no GC); **ldb-greedy** and **ldb-cb**, RocksDB's default leveled
compaction on the `log` layout (SSTs of every level share zones) with
zfs's GC at the paper's 20% threshold, greedy or cost-benefit victims;
**llc**, as ldb-greedy with RocksDB's round-robin compaction priority
(SplitZNS's LLC baseline). Each system gets a fresh volume. One repeat
of a comparison outlasts a sitting (the random load's four systems take
about 3.3 hours), so every comparison is separate: each system runs in
its own zsbench process, one after another, with the repeat's seed, and
is kept on its own (`experiments/README.md`, "Separate comparisons").
"""

OPTIONS = [
    Option("repeats", 3, "runs of every comparison"),
    Option("scale", 64, "K: zone, SST, MemTable and level sizes divided by it, and the data",
           "1 (256 MB zones, 4 MB SSTs and MemTable, L1 10 MB)"),
    Option("share", 8, "D: the drive's zones and the data divided by it more (a 1/D slice)",
           "1 (280 zones, 20 M pairs)"),
    Option("records", 0, "records of every load; 0 = 20 M / (K D)", "20,000,000"),
    Option("ops", 0, "operations of each YCSB A-E run phase; 0 = 1 M / (K D)",
           "not stated (its read test: 1 M)"),
    Option("k", 4, "geardb's window: a level's oldest 1/k, ahead of the level above's sweep "
           "(the paper: 1/k of a level's zones in rotation)", "4"),
    Option("gc_threshold", 0.2, "the baselines' GC threshold (free zones' share)", "20%"),
    Option("threads", 1, "client threads", "1 (db_bench's default)"),
    Option("bg_jobs", 2, "RocksDB max_background_jobs (one flush, one compaction)",
           "LevelDB's one background thread"),
    Option("timing", "real", "device timing of the emulator", "the real drive", ["real", "sim", "none"]),
    Option("interval", 1.0, "zsbench sample interval, seconds"),
]
DEFAULTS = {o.name: o.default for o in OPTIONS}

PRESETS = {"smoke": {"_about": "timing=none, 1 repeat: a check of the module, runner and zsbench end "
                               "to end at the default sizes, not a measurement",
                     "repeats": 1, "timing": "none", "interval": 0.2}}

DEPARTURES = [
    ("An emulated drive.", "No ST13125NM007 here; the emulator models its zones, seek curve, rotation "
     "and media rate from the published figures (`docs/emulator.md`), without a write cache (the "
     "drive's is not published)."),
    ("Sizes divided by K = 64.", "Zones of 4 MiB, SSTs and MemTable of 64 KiB, L1 of 160 KiB; a zone "
     "holds as many SSTs as in the paper (64). At 4 KiB values an SST holds 16 pairs; a larger K "
     "would leave SSTs of a few pairs."),
    ("A 1/D slice (D = 8) of the drive and the data.", "The random load puts 20 M / (K D) = 39,062 "
     "pairs on 280 / D = 35 zones (the valid data's share of the disk is the paper's); Fig. 5 uses "
     "440 / D = 55 zones. The emulated disk seeks in real time, so a load's time follows its count of "
     "SSTs and compactions, which K leaves as in the paper (about 53,000 compactions per LevelDB "
     "load); D divides it. The cost: the tree has log10(D) = 0.9 levels fewer than the paper's, and "
     "each level fewer zones, so a window of 1/k holds a zone or two; the zones geardb's levels, the WAL, "
     "the MANIFEST and the info LOG hold apart (about 7) weigh more on 35 zones than on 280 "
     "(experiments/geardb/README.md)."),
    ("Zones for the WAL, MANIFEST and LOG on top of the paper's share.", "The paper keeps them on "
     "a file system apart; its 280 zones hold SSTs only. Here they share the disk, which gets 5 zones "
     "more for them (`setup.NON_SST_ZONES`: the WAL, the MANIFEST and info LOG, each a writing zone "
     "and one with old files not yet deleted, and the small files' zone). Set when the smoke runs "
     "(timing=none) failed the random load for space on 35 zones for every system, before any timed "
     "run had finished."),
    ("RocksDB 7.8.3, not LevelDB 1.19.", "All four systems run unmodified RocksDB with LevelDB's "
     "defaults (4 MB MemTable and SSTs, L1 10 MB, x10, L0 triggers 4/8/12, 7 levels) divided by K. "
     "RocksDB's default compaction priority (kMinOverlappingRatio) picks the file with the least "
     "overlap below, LevelDB's a round-robin pointer: `llc` runs RocksDB's round-robin priority."),
    ("Windows by age, moved by the sweep.", "A level's window is its oldest 1/k of bytes, those "
     "just ahead of the level above's cursor, and moves SST by SST as that cursor does rather than "
     "by groups of zones (`docs/geardb.md`, 2.). Chosen after the key-slice windows of an earlier "
     "version left zones partly dead in untimed and timed smoke loads; no counted run exists of "
     "either."),
    ("Gear compaction as RocksDB allows it.", "`docs/geardb.md`: CompactFiles steps by a driver, "
     "the three-way split at SST granularity with the cascaded SSTs written twice, no zone move by "
     "metadata (a sequential load rewrites what GearDB dumps); LevelDB's write slowdown and stop "
     "kept by the driver (RocksDB drops its own with automatic compactions off), the slowdown's 1 ms "
     "per write paid at each MemTable's seal."),
    ("Disk for the sequential and YCSB loads.", "The paper does not give it; 80 GB of unique pairs "
     "would not fit in 280 zones. They get 280 / (1 - 1/e) = 443 zones / D, so their valid data "
     "fills the disk as the random load's does."),
    ("YCSB A-E run 1 M / (K D) operations each.", "Fig. 13 does not give the count; its read test "
     "reads 1 M pairs. A-E run in that order after one load (D and E insert, so they come last)."),
    ("GC thresholds of Fig. 5 as zfs's free-zone threshold.", "The paper's threshold from 100% to 50% "
     "is read as GC starting when that share of the disk is used: zfs threshold 0.0 to 0.5 (free "
     "zones' share of the data zones); greedy victims, as the paper's two policies behaved alike."),
    ("Cost-benefit's age.", "zfs weighs a zone's age as the time since its last write, not the sum of "
     "its SSTs' levels (the paper's Equation 1)."),
    ("The WAL is written without a Flush per put.", "The paper's log goes through the OS page cache "
     "with sync off, apart from the shingled zones. Here the WAL shares the emulated disk; every "
     "volume has `\"flush\": \"none\"` so a put does not send the head to the WAL's zone, and the WAL "
     "reaches the disk in zfs's buffer-sized writes. The WAL's zones are left out of space efficiency."),
    ("No compression.", "zsbench's values are nearly constant bytes; Snappy (LevelDB's default) would "
     "shrink them to nothing, so compression is off for every system."),
    ("One compaction thread, one client.", "max_background_jobs = 2 (a flush and a compaction), "
     "no subcompactions, as LevelDB's single background thread; the host is 2 shared cores, not 8."),
]


def workload(s, comp):
    return comp.workload


def zsbench_args(s, comp):
    return setup.zsbench_args(s, comp)


def volume_config(s, spec, comp):
    return setup.volume_config(s, spec, comp.params["zones"])


def compact(result, s, comp):
    return compact_mod.compact(result, comp.params)


RANDOM = "fillrandom"
SEQUENTIAL = "fillseq"
YCSB_LOAD = "ycsb-a-load"
YCSB_RUN = ["ycsb-a", "ycsb-b", "ycsb-c", "ycsb-d", "ycsb-e"]
LDB = ["ldb-greedy", "ldb-cb"]
THRESHOLDS = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5]
WINDOWS = [2, 4, 6, 8, 10]


def same(names):
    return [(n, n) for n in names]


def random_zones(s):
    return setup.load_zones(s, setup.RANDOM_UNIQUE)


def unique_zones(s):
    return setup.load_zones(s, 1.0)


# ---- Load (Fig. 10, 11, 14-17) ----------------------------------------------

def load_comparisons(s):
    n = setup.records(s)
    return [Comparison("random", same(setup.SYSTEMS), RANDOM,
                       {"zones": random_zones(s), "ops": n, "timeline": True}, separate=True),
            Comparison("sequential", same(setup.SYSTEMS), SEQUENTIAL, {"zones": unique_zones(s)},
                       separate=True)]


# ---- YCSB (Fig. 13) ------------------------------------------------------------

def ycsb_comparisons(s):
    return [Comparison("ycsb", same(["geardb"] + LDB), ",".join([YCSB_LOAD] + YCSB_RUN),
                       {"zones": unique_zones(s)}, separate=True)]


# ---- Window size (5.4) ---------------------------------------------------------

def window_name(k):
    return f"geardb-k{k}"


def window_comparisons(s):
    return [Comparison("window", [(window_name(k), f"geardb/k:{k}") for k in WINDOWS], RANDOM,
                       {"zones": random_zones(s), "ops": setup.records(s)}, separate=True)]


# ---- GC threshold trade-off (Fig. 5) -------------------------------------------

def threshold_name(t):
    return f"ldb-greedy-t{round(100 * t)}"


def threshold_comparisons(s):
    zones = setup.load_zones(s, setup.RANDOM_UNIQUE, setup.THRESHOLD_ZONES)
    schemes = [(threshold_name(t), f"ldb-greedy/threshold:{t}") for t in THRESHOLDS]
    return [Comparison("threshold", [("geardb", "geardb")] + schemes, RANDOM,
                       {"zones": zones, "ops": setup.records(s)}, separate=True)]


EXPERIMENTS = {e.name: e for e in [
    Experiment("load", "Random and sequential load: throughput, time, compactions, WA, zones "
                       "(Fig. 10, 11, 14, 15, 16, 17)",
               "A random load (zsbench fillrandom: 20 M / (K D) puts of uniform random keys among as "
               "many, so about 63% unique) on 280 / D zones, and a sequential load (fillseq) of as "
               "many pairs on 443 / D zones, into a fresh volume per system. From the random load, as "
               "in the paper: throughput every 1/80 of it, the disk head's time by I/O class and zfs's "
               "GC time, every compaction's latency (RocksDB's own from its listener, the gear "
               "driver's CompactFiles steps timed by the driver; a gear compaction is a step and the "
               "passive steps after it), write amplification at 1/8 steps, and every zone's valid "
               "share at 1/4, 1/2, 3/4 and the end (SST zones: the WAL and MANIFEST zones are left "
               "out, as the paper keeps them off the shingled zones).",
               "Random load: GearDB 1.71x Ldb-Greedy and 1.73x Ldb-CB, no GC; the baselines spend "
               "23% of the load in GC and migrate 25% of their disk writes; GearDB runs 53,000 fewer "
               "compactions, each longer, 1.80x less compaction time in all; lower WA; space "
               "efficiency 89.9% at the end with a bimodal zone utilization (Ldb about 60%). "
               "Sequential load: 1.37x and 1.39x.",
               load_comparisons, tables.load_tables),
    Experiment("ycsb", "YCSB load and A-E (Fig. 13)",
               "One YCSB load of 20 M / (K D) pairs per system on 443 / D zones, then A, B, C, D and E "
               "of 1 M / (K D) operations each; throughput ratios per workload.",
               "GearDB loads 1.64x Ldb-Greedy and 1.56x Ldb-CB; A-E 1.44x, 1.24x, 1.22x, 1.25x and "
               "1.23x LevelDB's.",
               ycsb_comparisons, tables.ycsb_tables),
    Experiment("window", "Window size k = 2-10 (5.4)",
               "The random load of `load` on geardb with k = 2, 4, 6, 8 and 10.",
               "1,314 to 1,470 ops/s and 86% to 91% space efficiency: k matters little.",
               window_comparisons, tables.window_tables),
    Experiment("threshold", "Throughput against space efficiency at GC thresholds (Fig. 5)",
               "The random load on 440 / D zones: ldb-greedy with zfs's GC threshold 0.0 to 0.5, and "
               "geardb; throughput and space efficiency at the end of the load.",
               "LevelDB's throughput falls as its space utilization rises (thresholds 100% to 50%); "
               "GearDB: 89.9% and 1,489 ops/s, above that curve.",
               threshold_comparisons, tables.threshold_tables),
]}
