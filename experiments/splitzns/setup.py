"""The SplitZNS paper's setup (section 5.1, Table 1) scaled down: the
emulated FEMU ZNS SSD (the emulator's `splitzns` preset), the systems'
volume configs, RocksDB's options, and zsbench's flags.

One factor K (scale) divides every size together, as the issue asks:
zones (512 MiB), subzones and SSTs (32 MiB), MemTables, level sizes and
the loaded data (the paper's tree, 41.96 GiB). The zone count (160), the active and open
limits (24), the chips (8 x 2), pages and latencies are the paper's, so
a split zone still has 16 subzones, one per chip, and the tree has the
paper's levels (SSTs of L4 exist, so "+diff" matters).
"""
import json

MiB = 1 << 20
GiB = 1 << 30

# The paper (5.1.1, 5.1.2, 5.1.4).
ZONE = 512 * MiB
ZONES = 160
SUBZONES = 16
SST = 32 * MiB                # "set equal to the subzone size"
# The paper loads "approximately 50 GiB data" (5.1.4) and its trees then
# hold 41.95 GiB (LDP) and 41.97 GiB (SplitZNS) after YCSB-L (5.3): 52% of
# its 80 GiB. Our YCSB load writes each key once and compresses nothing,
# so its tree is as large as the data loaded; loading the tree's size
# keeps the paper's share of the device (63% at 50 GiB).
LOAD_BYTES = int(41.96 * GiB)
THREADS = 4
OPS_PER_THREAD = 1_000_000
BG_COMPACTIONS = 16           # "maximum number of concurrent background compactions"
GC_THRESHOLD = 0.2            # LDP's greedy GC "falls under the threshold (20%)"
# Section 5 gives no key or value size for its main runs; section 3's
# motivation runs 16 B keys and 1 KiB values, which we keep.
KEY = 16
VALUE = 1024
# RocksDB 7.8's defaults, which the paper does not change (5.1.2): 64 MiB
# MemTables, L1 of 256 MiB, levels x10.
MEMTABLE = 64 * MiB
LEVEL_BASE = 256 * MiB
MULTIPLIER = 10
# YCSB's zipfian item space (zsbench's --zipf-items default); divided by K
# with the keys (docs/zsbench.md).
ZIPF_ITEMS = 10_000_000_000

# The comparison (5.1.3) and the breakdown (5.4), each one config away
# (docs/splitzns.md, "Baselines and breakdown").
SYSTEMS = ("splitzns", "ldp", "gear", "llc")
# The splitzns scheme's default: SSTs of L4 and below go to subzones
# (the paper's "+diff", level > 3).
SUBZONE_MIN_LEVEL = 4
BREAKDOWN = ("native", "+diff", "+szr", "+rp", "+rs")
# Device switches of the breakdown: SubZone Ring, Read Prefetcher, Read
# Scheduler (the emulator's ring=, prefetch=, read_sched=).
SWITCHES = {"native": (False, False, False), "+diff": (False, False, False),
            "+szr": (True, False, False), "+rp": (True, True, False),
            "+rs": (True, True, True)}
# RocksDB's compaction priorities of Fig. 16(d).
PRIORITIES = {"mor": "kMinOverlappingRatio", "cs": "kByCompensatedSize",
              "ols": "kOldestLargestSeqFirst", "oss": "kOldestSmallestSeqFirst"}


def zone_bytes(s):
    return ZONE // s["scale"]


def subzone_bytes(s, chips=None):
    """A split zone has a subzone per chip (section 4.3): the zone over the
    chips, 16 unless Fig. 16(b)'s `chips` says otherwise."""
    return zone_bytes(s) // (chips or SUBZONES)


def sst_target(s, chips=None):
    """RocksDB's target SST size: the subzone less 1/16, what the glue sets
    on a splitzns volume (docs/splitzns.md, "SST size"); every system gets
    the same, so SSTs are alike across the comparison. With other chip
    counts (Fig. 16(b)) the subzone, and so the SST, changes with them:
    the paper sets the SST "equal to the subzone size"."""
    sz = subzone_bytes(s, chips)
    return sz - sz // 16


def records(s, value=None):
    """Records of a load: pairs as large as the paper's tree (41.96 GiB),
    divided by K."""
    if s["records"]:
        return s["records"]
    return LOAD_BYTES // (KEY + (value or s["value"])) // s["scale"]


# Faster than any run phase here goes (readrandom without device timing,
# about 1.2 M ops/s, is the fastest seen).
MAX_OPS_PER_SECOND = 2_000_000


def max_ops(s):
    return int(s["phase_seconds"] * MAX_OPS_PER_SECOND)


def run_ops(s):
    """Operations of a run phase over all threads: 4 x 1 M, divided by K."""
    return s["ops"] or max(1, THREADS * OPS_PER_THREAD // s["scale"])


def parse_spec(spec):
    """'splitzns/pri:"kByCompensatedSize"' -> ('splitzns', {'pri': ...})."""
    name, *extra = spec.split("/")
    if name not in SYSTEMS + BREAKDOWN:
        raise ValueError(f"unknown system {name!r}; systems: {', '.join(SYSTEMS + BREAKDOWN)}")
    opts = {}
    for kv in extra:
        key, _, value = kv.partition(":")
        opts[key] = json.loads(value)
    return name, opts


def device(s, ring=True, prefetch=True, read_sched=True, chips=None):
    def on(x):
        return "on" if x else "off"
    return (f"emu:splitzns?zones={ZONES}&scale=1/{s['scale']}&timing={s['timing']}"
            f"&ring={on(ring)}&prefetch={on(prefetch)}&read_sched={on(read_sched)}"
            + (f"&chips={chips}" if chips else ""))


def volume_config(s, spec, chips=None):
    """A system's volume config (docs/splitzns.md, "Baselines and
    breakdown"): splitzns, ldp, gear (geardb with GC), llc (ldp with
    RocksDB's round-robin compaction), and the breakdown. A spec's "pri"
    sets RocksDB's compaction priority (Fig. 16(d)), its "min_level" the
    splitzns scheme's first subzone level (ours, the `level` experiment:
    the paper's is SUBZONE_MIN_LEVEL); `chips` the SSD's chip count
    (Fig. 16(b))."""
    name, opts = parse_spec(spec)
    cfg = {"devices": [device(s, *SWITCHES.get(name, (True, True, True)), chips=chips)]}
    if name == "splitzns" or name in BREAKDOWN:
        scheme = {"name": "splitzns"}
        if name == "native":
            scheme["subzone_min_level"] = 0
        if "min_level" in opts:
            scheme["subzone_min_level"] = opts["min_level"]
        cfg["scheme"] = scheme
    elif name == "ldp":
        cfg["scheme"] = "ldp"
    elif name == "gear":
        # Key-slice windows with a zone group per level and slice, as the
        # committed Gear results were measured (geardb's defaults are now
        # windows by age and one group per level, as the GearDB paper;
        # docs/splitzns.md, "Baselines").
        cfg["scheme"] = {"name": "geardb", "gc": True, "windows": "key_slices", "window_zones": True}
    elif name == "llc":
        cfg["scheme"] = "ldp"
        cfg["rocksdb"] = {"compaction_pri": "kRoundRobin"}
    if "pri" in opts:
        cfg["rocksdb"] = {"compaction_pri": opts["pri"]}
    return cfg


def rocksdb_options(s, chips=None):
    """RocksDB's defaults divided by K, the paper's SST size and
    compaction threads, for every system alike."""
    k = s["scale"]
    return {
        "write_buffer_size": MEMTABLE // k,
        "target_file_size_base": sst_target(s, chips),
        "target_file_size_multiplier": 1,
        "max_bytes_for_level_base": LEVEL_BASE // k,
        "max_bytes_for_level_multiplier": MULTIPLIER,
        "max_background_compactions": s["bg_compactions"],
        "max_background_flushes": s["bg_flushes"],
        "max_subcompactions": 1,
        "compression": "kNoCompression",
        # RocksDB's info LOG and MANIFEST share the volume: capped at a
        # quarter zone each, as experiments/geardb does.
        "max_log_file_size": zone_bytes(s) // 4,
        "keep_log_file_num": 2,
        "max_manifest_file_size": zone_bytes(s) // 4,
    }


def zsbench_args(s, comp):
    """A comparison's params may set the value size ("value"), the
    zipfian constant ("zipf") and the SSD's chips ("chips")."""
    value = comp.params.get("value") or s["value"]
    # With phase_seconds a run phase is bounded by time; its operation
    # count only needs to be out of reach, and no larger: YCSB sizes its
    # key generators by it (E's zipfian spans the inserts it expects).
    ops = max_ops(s) if s.get("phase_seconds") else run_ops(s)
    args = ["--records", str(records(s, value)), "--ops", str(ops),
            "--key-size", str(KEY), "--value-size", str(value),
            "--threads", str(s["threads"]), "--interval", str(s["interval"]),
            "--zipf-items", str(max(1, ZIPF_ITEMS // s["scale"])),
            # readrandom, overwrite and fillrandom follow a YCSB load: they
            # must name its keys (YCSB's hashed names), or they read and
            # write a key space of their own.
            "--dbbench-keys", "ycsb"]
    if s.get("phase_seconds"):
        args += ["--seconds", str(s["phase_seconds"])]
    for name, v in rocksdb_options(s, comp.params.get("chips")).items():
        args += ["--rocksdb-option", f"{name}={v}"]
    return args
