"""The GearDB paper's setup (section 5, Table 1) scaled down: the
emulated ST13125NM007, the four systems' volume configs, LevelDB's
defaults as RocksDB options, and zsbench's flags.

Two factors scale it, each keeping the paper's proportions:
  K (scale): zone, SST, MemTable and level sizes are divided by K, and so
     is the data, so a zone holds as many SSTs and the disk as many zones
     as in the paper;
  D (share): the data and the disk's zones are divided by D more, a 1/D
     slice of the paper's drive and database. It keeps the valid data's
     share of the disk, the SSTs per zone and the level multiplier, and
     loses log10(D) levels: a disk emulated in real time seeks as the
     real one does, so the time of a load follows its number of SSTs and
     compactions, which K does not reduce (experiments/geardb/README.md).
"""
import json
import math

MiB = 1 << 20

# The paper (5): 20 M KV pairs of 16 B keys and 4 KB values, 4 MB SSTs,
# 256 MB zones, the random load on the first 280 zones (70 GB), Fig. 5 on
# 440 zones (110 GB).
RECORDS = 20_000_000
KEY = 16
VALUE = 4096
SST = 4 * MiB
ZONE = 256 * MiB
RANDOM_ZONES = 280
THRESHOLD_ZONES = 440
# LevelDB 1.19's defaults, which GearDB and the baselines keep: a 4 MB
# MemTable, L1 of 10 MB, levels x10, L0 compacted at 4 files, writes slowed
# at 8 and stopped at 12, 7 levels.
MEMTABLE = 4 * MiB
LEVEL_BASE = 10 * MiB
MULTIPLIER = 10
L0_TRIGGER, L0_SLOWDOWN, L0_STOP = 4, 8, 12
LEVELS = 7
GC_THRESHOLD = 0.2            # 2.3: GC when free space falls under 20%
# zfs's own zones on the disk: the label and two metadata zones.
OVERHEAD_ZONES = 3
# Zones for what the paper keeps off the shingled zones (its WAL, MANIFEST
# and info LOG live on a file system of their own; its 280 zones hold
# SSTs only): here they share the disk, so it gets their zones on top of
# the paper's share. The WAL's writing zone and one whose old logs are not
# yet all deleted, the same for the MANIFEST and info LOG (each capped at
# a quarter zone), and the small files' zone (docs/geardb.md, "1.").
NON_SST_ZONES = 5
# Unique keys of n uniform random draws from n keys (db_bench's fillrandom,
# the paper's random load): 1 - 1/e of n. YCSB's load and fillseq write
# every key once.
RANDOM_UNIQUE = 1 - math.exp(-1)

# The paper's systems (5, 2.3) and LLC (SplitZNS's baseline), each one
# config away (docs/geardb.md, "Baselines").
SYSTEMS = ("geardb", "ldb-greedy", "ldb-cb", "llc")


def records(s):
    return s["records"] or RECORDS // (s["scale"] * s["share"])


def zone_bytes(s):
    return ZONE // s["scale"]


def load_zones(s, unique_fraction, paper_zones=RANDOM_ZONES):
    """Data zones for a load whose unique keys are `unique_fraction` of
    its records: the paper's 280 for the random load, as many more for a
    load of unique keys as keep the valid data's share of the disk (the
    paper does not give the disk of its sequential and YCSB loads, and 80
    GB of unique pairs would not fit in 280 zones), divided by D."""
    return max(1, round(paper_zones * unique_fraction / RANDOM_UNIQUE / s["share"]))


def valid_share(s, zones, unique_fraction):
    """The load's unique user data over the data zones' capacity."""
    return records(s) * unique_fraction * (KEY + VALUE) / (zones * zone_bytes(s))


def parse_spec(spec):
    """'ldb-greedy/threshold:0.3' -> ('ldb-greedy', {'threshold': 0.3})."""
    name, *extra = spec.split("/")
    if name not in SYSTEMS:
        raise ValueError(f"unknown system {name!r}; systems: {', '.join(SYSTEMS)}")
    opts = {}
    for kv in extra:
        key, _, value = kv.partition(":")
        opts[key] = json.loads(value)
    return name, opts


def device(s, zones):
    return (f"emu:st13125nm007?zones={zones + NON_SST_ZONES + OVERHEAD_ZONES}&scale=1/{s['scale']}"
            f"&timing={s['timing']}")


def volume_config(s, spec, zones):
    """A system's volume config. geardb: the scheme, window 1/k. ldb-*:
    the log layout with zfs's GC at the threshold, greedy or cost-benefit
    victims. llc: as ldb-greedy with RocksDB's round-robin compaction."""
    name, opts = parse_spec(spec)
    # LevelDB's log goes through the OS page cache (the paper writes with
    # sync off, on a file system apart from the shingled zones): a put
    # must not cost the disk head a trip to the WAL's zone, so zfs's
    # Flush is a no-op and the WAL reaches the disk in buffer-sized writes.
    cfg = {"devices": [device(s, zones)], "flush": "none"}
    if name == "geardb":
        cfg["scheme"] = {"name": "geardb", "k": opts.get("k", s["k"])}
        return cfg
    cfg["scheme"] = "log"
    cfg["gc"] = {"threshold": opts.get("threshold", s["gc_threshold"]),
                 "victims": "cost-benefit" if name == "ldb-cb" else "greedy"}
    if name == "llc":
        cfg["rocksdb"] = {"compaction_pri": "kRoundRobin"}
    return cfg


def rocksdb_options(s):
    """LevelDB's defaults divided by K, for every system alike."""
    k = s["scale"]
    return {
        "write_buffer_size": MEMTABLE // k,
        "target_file_size_base": SST // k,
        "max_bytes_for_level_base": LEVEL_BASE // k,
        "max_bytes_for_level_multiplier": MULTIPLIER,
        "level0_file_num_compaction_trigger": L0_TRIGGER,
        "level0_slowdown_writes_trigger": L0_SLOWDOWN,
        "level0_stop_writes_trigger": L0_STOP,
        "num_levels": LEVELS,
        "max_background_jobs": s["bg_jobs"],
        "max_subcompactions": 1,
        "compression": "kNoCompression",
        # The paper keeps LevelDB's info LOG and metadata off the shingled
        # zones; here they share the disk, so they are capped at a quarter
        # zone each (RocksDB's LOG otherwise grows without bound, and its
        # MANIFEST up to 1 GB, each sync padded to a block).
        "max_log_file_size": zone_bytes(s) // 4,
        "keep_log_file_num": 2,
        "max_manifest_file_size": zone_bytes(s) // 4,
    }


def run_ops(s):
    """Operations of a YCSB A-E run phase: the paper's read benchmark's 1 M
    (5.1.2; Fig. 13 does not say), divided as the data is."""
    return s["ops"] or max(1, 1_000_000 // (s["scale"] * s["share"]))


def zsbench_args(s, comp):
    """A random load (fillrandom) puts --ops keys: the comparison's params
    set it to the records; YCSB's run phases take run_ops."""
    ops = comp.params.get("ops") or run_ops(s)
    args = ["--records", str(records(s)), "--ops", str(ops),
            "--key-size", str(KEY), "--value-size", str(VALUE),
            "--threads", str(s["threads"]), "--interval", str(s["interval"])]
    for name, value in rocksdb_options(s).items():
        args += ["--rocksdb-option", f"{name}={value}"]
    return args
