"""The HHZS paper's setup (section 4.1) scaled down by K: volume configs,
RocksDB options and zsbench flags for a comparison."""
import json

MiB = 1 << 20
GiB = 1 << 30

# Paper setup (4.1).
ZN540_CAP = 1077 * MiB
SST_FRACTION = 0.939          # of an SSD zone (3.2: 1011.2 MiB of 1077 MiB)
DATA = 200 * GiB
OBJECT = 1024                 # 24 B key + 1000 B value
MEMTABLE = 512 * MiB
LEVEL_BASE = 1 * GiB
BLOCK_CACHE = 8 * MiB
WAL_CACHE_ZONES = 2
MIGRATION_RATE = 4 * MiB
# RocksDB's write-stall limits on compaction debt (advanced_options.h
# defaults, which the paper keeps): writes slow above the soft limit and
# stop above the hard one. Sizes, so they scale with the data.
SOFT_PENDING_COMPACTION = 64 * GiB
HARD_PENDING_COMPACTION = 256 * GiB
YCSB_ZIPF_ITEMS = 10 ** 10    # YCSB's scrambled zipfian draws from 10^10 items


def zone_cap(s):
    return (ZN540_CAP // s["scale"]) // 4096 * 4096


def sst_size(s):
    return int(zone_cap(s) * SST_FRACTION) // 4096 * 4096


def records(s):
    return s["records"] or DATA // OBJECT // s["scale"]


def sst_zones(ssd_zones):
    """SSD zones HHZS can give SSTs (C_ssd): less the WAL/cache pool and
    zfs's GC reserve."""
    return ssd_zones - WAL_CACHE_ZONES - 1


def migration_rate(s, paper_rate=MIGRATION_RATE):
    """Bytes/s. Scaled runs are far shorter than the paper's, so the rate
    is scaled too (x 128 / K) for a run to migrate a comparable share of
    the SSTs: 1 MiB/s at K = 512."""
    return paper_rate * 128 / s["scale"]


def block_cache(s):
    """The paper's 8 MiB holds ~2048 blocks; divided by K it would hold 2
    at K = 1024, and RocksDB's LRU then drops released blocks instead of
    evicting them (so nothing reaches the SSD cache). Keep at least 16
    blocks: enough for 8 client threads' pinned blocks, and still far
    below the SSD cache."""
    return s["block_cache"] or max(BLOCK_CACHE // s["scale"], 64 * 1024)


def devices(s, ssd_zones):
    # Available SSD zones + the label zone, 2 metadata zones and the one
    # empty zone zfs keeps for GC.
    k, t = s["scale"], s["timing"]
    return [f"emu:zn540?zones={ssd_zones + 4}&scale=1/{k}&timing={t}",
            f"emu:st14000nm0007?zones={s['hdd_zones']}&scale=1/{k}&timing={t}"
            f"&write_cache={s['hdd_write_cache']}"]


def rocksdb_options(s):
    k = s["scale"]
    opts = {
        "write_buffer_size": MEMTABLE // k,
        "min_write_buffer_number_to_merge": 2,
        "max_write_buffer_number": 4,
        "target_file_size_base": sst_size(s),
        "max_bytes_for_level_base": LEVEL_BASE // k,
        "max_bytes_for_level_multiplier": 10,
        "level0_file_num_compaction_trigger": 2,
        "num_levels": 5,
        "max_total_wal_size": WAL_CACHE_ZONES * zone_cap(s),
        "max_background_jobs": s["bg_jobs"],
        "compression": "kNoCompression",
        # RocksDB's default table options, as the authors' code runs (YCSB's
        # RocksDB binding sets none): the paper's block cache and no Bloom
        # filter, so a Get reads a data block at every level down to its
        # key's; that is what makes the low levels worth the SSD.
        "block_based_table_factory": "{block_cache=%d%s%s}" % (
            block_cache(s),
            f";filter_policy=bloomfilter:{s['bloom_bits']}:false" if s["bloom_bits"] else "",
            ";cache_index_and_filter_blocks=true" if s["index_in_cache"] else ""),
    }
    if s["debt_limits"] == "scaled":
        opts["soft_pending_compaction_bytes_limit"] = SOFT_PENDING_COMPACTION // k
        opts["hard_pending_compaction_bytes_limit"] = HARD_PENDING_COMPACTION // k
    return opts


def volume_config(s, spec, params):
    """A volume config for a scheme spec: a scheme name, optionally
    followed by /KEY:VALUE scheme options (hhzs/spare_placement:true)."""
    name, *extra = spec.split("/")
    opts = {"name": name, "wal_cache_zones": WAL_CACHE_ZONES,
            "migration_mib_per_sec": migration_rate(s) / MiB, "level_threshold": 3}
    if name.startswith("b") and name[1:2].isdigit():
        opts["level_threshold"] = int(name[1])
    for kv in extra:
        key, _, value = kv.partition(":")
        try:
            opts[key] = json.loads(value)
        except json.JSONDecodeError:
            opts[key] = value  # a bare word: read_rate
    return {"devices": devices(s, params.get("ssd_zones", s["ssd_zones"])), "scheme": opts,
            "block_cache_bytes": block_cache(s)}


def workload(s, comp):
    """The paper runs each workload right after its load, with the
    compaction debt the load left; --settle waits for compactions first."""
    phases = comp.workload.split(",")
    if s["settle"]:
        phases = [x for p in phases for x in ([p, "settle"] if p.endswith("-load") else [p])]
    return ",".join(phases)


def zsbench_args(s, comp):
    args = ["--records", str(records(s)), "--zipf-items", str(YCSB_ZIPF_ITEMS // s["scale"]),
            "--threads", str(s["threads"]), "--interval", str(s["interval"]),
            "--seconds", str(s["seconds"])]
    if s["ops"]:
        args += ["--ops", str(s["ops"])]
    if comp.params.get("rate"):
        args += ["--rate", f"{comp.params['rate']:.0f}"]
    for name, value in rocksdb_options(s).items():
        args += ["--rocksdb-option", f"{name}={value}"]
    return args
