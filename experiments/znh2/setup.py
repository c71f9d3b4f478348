"""The ZnH2 paper's setup (section 4.1) scaled down by K: the three
devices, volume configs, RocksDB options and zsbench flags."""

MiB = 1 << 20
GiB = 1 << 30

# The paper's FEMU device (Table 2): 128 zones of 1 GiB (256 MiB in SLC).
ZONES = 128
ZONE = 1 * GiB
OBJECT = 1024                 # YCSB with 1 KiB key-value pairs
# RocksDB's defaults (7.8.3), which the paper keeps but for the SST size
# of its sensitivity study.
MEMTABLE = 64 * MiB
SST = 64 * MiB
LEVEL_BASE = 256 * MiB
BLOCK_CACHE = 8 * MiB         # the cache RocksDB creates when given none
MIGRATION_PERIOD_MS = 5000    # the authors' GC worker period
YCSB_ZIPF_ITEMS = 10 ** 10    # YCSB's scrambled zipfian draws from 10^10 items

# The three systems (docs/znh2.md): HM Hybrid is the znh2 scheme on an
# HZNS device; DM Hybrid and QLC run ZenFS's lifetime placement unchanged
# on a device whose firmware keeps a hidden SLC cache, or has none.
SYSTEMS = {
    "hm": ("", {"name": "znh2"}),
    "hm-nosc": ("", {"name": "znh2", "simple_copy": False}),
    "dm": ("&slc=device", {"name": "lifetime"}),
    "qlc": ("&slc=none", {"name": "lifetime"}),
}


def records(s, pairs):
    """The paper's `pairs` key-value pairs divided by K."""
    return pairs // s["scale"]


def ops(s):
    """Operations of a YCSB A-F run phase: the paper's 5 M divided by K."""
    return s["ops"] or 5_000_000 // s["scale"]


def period_ms(s):
    """The migration check period. Sizes are divided by K and the device's
    speed is not, so a scaled load fills the SLC cache K times sooner; the
    period is divided by K too, or a scaled load would see a handful of
    checks where the paper's sees hundreds."""
    return s["period_ms"] or max(1, round(MIGRATION_PERIOD_MS / s["scale"]))


def device_bytes(s):
    """The device's capacity with every zone in QLC: 100 % in Fig. 4."""
    return ZONES * (ZONE // s["scale"])


def volume_config(s, spec):
    """spec: a system name, optionally followed by /sst:BYTES (read by
    rocksdb_options, not here)."""
    name = spec.split("/")[0]
    mode, scheme = SYSTEMS[name]
    scheme = dict(scheme)
    if scheme["name"] == "znh2":
        scheme["period_ms"] = period_ms(s)
    dev = f"emu:znh2?zones={ZONES}&scale=1/{s['scale']}&timing={s['timing']}{mode}"
    return {"devices": [dev], "scheme": scheme}


def rocksdb_options(s, sst=SST):
    k = s["scale"]
    opts = {
        "write_buffer_size": MEMTABLE // k,
        "target_file_size_base": sst // k,
        "max_bytes_for_level_base": LEVEL_BASE // k,
        "max_background_jobs": s["bg_jobs"],
        "compression": "kNoCompression",
        "block_based_table_factory": "{block_cache=%d}" % (BLOCK_CACHE // k),
    }
    if s["direct_io"]:
        # The paper: "We use direct I/O to bypass the effect of the kernel
        # page cache."
        opts["use_direct_reads"] = "true"
        opts["use_direct_io_for_flush_and_compaction"] = "true"
    return opts


def zsbench_args(s, comp):
    p = comp.params
    args = ["--records", str(records(s, p["pairs"])), "--ops", str(ops(s)),
            "--zipf-items", str(YCSB_ZIPF_ITEMS // s["scale"]),
            "--threads", str(s["threads"]), "--interval", str(s["interval"])]
    for name, value in rocksdb_options(s, p.get("sst", SST)).items():
        args += ["--rocksdb-option", f"{name}={value}"]
    return args
