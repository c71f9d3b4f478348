"""ZnH2 (Wang, Chow, Nie, Liang and Yang, "ZnH2: Augmenting ZNS-based
Storage System with Host-Managed Heterogeneous Zones", ICCAD 2024): the
experiments of section 4 (Fig. 4-8), scaled down by K."""
import statistics

from runner.core import Comparison, Experiment, Option
from runner.tables import Table

from . import compact as compact_mod
from . import setup
from .tables import (capacity_table, field, latency_table, mean_ratio, pairs_table, per_run, qlc_bytes,
                     qlc_sources_table, ratio, stat, throughput, total_bytes, values_table)

NAME = "znh2"
TITLE = "ZnH2 (host-managed SLC/QLC zones)"
ABOUT = """
The ZnH2 paper's experiments on the emulated HZNS SSD of its Table 2 (the
`znh2` preset: 128 zones, SLC/QLC zone modes, QLC page types, Simple Copy;
real-time timing), under RocksDB 7.8.3 with its default options, every
size divided by the scale K. The three systems (`docs/znh2.md`): **hm**,
HM Hybrid, the `znh2` scheme on an HZNS device; **hm-nosc**, the same
with Simple Copy off (migration through the host); **dm**, DM Hybrid, a
ZNS device whose firmware keeps a hidden SLC cache, under the `lifetime`
scheme (ZenFS's placement); **qlc**, a pure-QLC ZNS device under the
`lifetime` scheme. Each gets a fresh volume; the systems of a comparison
run one after another in one zsbench process.
"""

OPTIONS = [
    Option("repeats", 3, "runs of every comparison"),
    Option("scale", 32, "K: every size divided by it (zones, data, MemTable, SST, level base, block cache)",
           "1 (128 zones of 1 GiB, up to 30 M pairs)"),
    Option("threads", 1, "YCSB client threads", "not stated (YCSB's default is 1)"),
    Option("bg_jobs", 2, "RocksDB max_background_jobs", "2 (RocksDB's default)"),
    Option("direct_io", True, "RocksDB direct reads and direct flush/compaction I/O", "yes"),
    Option("ops", 0, "operations of each YCSB A-F run phase; 0 = 5 M / K", "5 M"),
    Option("period_ms", 0, "HM Hybrid's migration check period; 0 = 5000 ms / K", "5 s (the authors' code)"),
    Option("timing", "real", "device timing of the emulator", "FEMU's", ["real", "sim", "none"]),
    Option("interval", 0.5, "zsbench sample interval, seconds"),
]
DEFAULTS = {o.name: o.default for o in OPTIONS}

PRESETS = {"smoke": {"_about": "K = 1024, timing=none, 1 repeat: a check of the runner, not a measurement",
                     "repeats": 1, "scale": 1024, "timing": "none", "interval": 0.2}}

DEPARTURES = [
    ("An emulated HZNS SSD.", "The paper's FEMU device (Table 2) is modeled by ZoneStack's emulator: "
     "SLC and QLC latencies per page type, 8 x 8 dies, Simple Copy as SLC reads plus QLC programs "
     "(`docs/emulator.md`). DM Hybrid's victim is the least recently used SLC zone, not FEMU's first "
     "zone with a clear accessed bit."),
    ("Sizes divided by K = 32.", "Zones of 32 MiB (8 MiB in SLC), loads of 10/20/30 M pairs / K "
     "(312,500 to 937,500 records of 1 KiB), MemTable, SST, level base and block cache of RocksDB's "
     "defaults / K (2 MiB, 2 MiB, 8 MiB, 256 KiB); zone count, the SLC cap table and the device's "
     "speed are the paper's."),
    ("Migration checked every 5 s / K.", "The device's speed is not scaled, so a scaled load fills the "
     "SLC cache K times sooner; at 5 s a load would see a few checks where the paper's sees hundreds."),
    ("YCSB's zipfian item space divided by K.", "As in the HHZS experiments: over a scaled key count "
     "the items beyond it would flatten the skew."),
    ("One load before YCSB A-F.", "The paper runs 5 M operations of each workload after loading 20 M "
     "pairs; here one load is followed by A, B, C, F, D and E in that order (D and E insert, so they "
     "run last), each 5 M / K operations, not a reload per workload."),
    ("No compression.", "RocksDB's default is Snappy; zsbench's values are random bytes, which "
     "Snappy cannot shrink, so compression is off rather than measured as pure CPU cost."),
    ("SST sizes of Fig. 8(b) chosen here.", "The text does not list them; 16, 64 (the default) and "
     "256 MiB (an SLC zone) span the range, each / K."),
    ("A 2-core machine.", "The paper's host has 16 cores for the VM. Here RocksDB and the emulator "
     "share 2, so a run may be bound by CPU rather than the device; every table of throughput has "
     "the device's busy share beside it."),
]


def workload(s, comp):
    return comp.workload


def zsbench_args(s, comp):
    return setup.zsbench_args(s, comp)


def volume_config(s, spec, comp):
    return setup.volume_config(s, spec)


def compact(result, s, comp):
    return compact_mod.compact(result, comp.params)


M = 1_000_000
LOAD = "ycsb-a-load"
RUN = ["ycsb-a", "ycsb-b", "ycsb-c", "ycsb-f", "ycsb-d", "ycsb-e"]
ALL = ["hm", "hm-nosc", "dm", "qlc"]
THREE = ["hm", "dm", "qlc"]


def same(names):
    return [(n, n) for n in names]


# ---- Load: Fig. 4, 5, 7 (load) and 8(a) -----------------------------------

SIZES = [10, 20, 30]


def load_key(m):
    return f"load-{m}M"


def load_comparisons(s):
    return [Comparison(load_key(m), same(ALL), LOAD, {"pairs": m * M, "timeline": True}) for m in SIZES]


def load_tables(sm):
    keys = [load_key(m) for m in SIZES]
    pn = lambda key: LOAD  # noqa: E731
    sc_paper = {load_key(10): "0.962", load_key(20): "0.910", load_key(30): "0.851"}
    out = [
        pairs_table(sm, "Fig. 5(a): load throughput ratios", keys, pn,
                    [("hm/dm", "hm", "dm", throughput, lambda k: "1.180-1.289 (10-30 M)"),
                     ("hm/qlc", "hm", "qlc", throughput, lambda k: "1.212-1.733 (10-30 M)")]),
        values_table(sm, "Load throughput, ops/s", keys, pn, ALL, throughput, 0),
        pairs_table(sm, "Fig. 5(b): QLC write volume ratios (QLC bytes programmed, host and migration)",
                    keys, pn,
                    [("hm/dm", "hm", "dm", qlc_bytes, lambda k: "0.389-0.735 (10-30 M)"),
                     ("hm/qlc", "hm", "qlc", qlc_bytes, lambda k: "0.197-0.648 (10-30 M)")]),
        values_table(sm, "QLC write volume, GiB", keys, pn, ALL, lambda p: qlc_bytes(p) / (1 << 30)),
        qlc_sources_table(sm, keys, pn, ["hm", "dm"]),
        pairs_table(sm, "Fig. 5(c): total write volume ratios (every byte programmed)", keys, pn,
                    [("hm/dm", "hm", "dm", total_bytes, None),
                     ("hm/qlc", "hm", "qlc", total_bytes, lambda k: "above 1 (the SLC cache)")]),
        pairs_table(sm, "Fig. 8(a): throughput without Simple Copy over with it", keys, pn,
                    [("hm-nosc/hm", "hm-nosc", "hm", throughput, lambda k: sc_paper.get(k))]),
        values_table(sm, "Device busy share during the load (1 = a die always busy)", keys, pn, ALL,
                     lambda p: p["busy"], 2,
                     note="The mean of the 64 dies' busy time over the phase. Well below 1 the device had "
                          "room: the run was bound by the CPU or by the latency of the few requests in "
                          "flight, not by the device's bandwidth."),
        values_table(sm, "Device commands the emulator finished after their modeled time (share)", keys, pn,
                     ALL, lambda p: p["late"][0] / p["late"][1] if p["late"][1] else 0.0, 3,
                     note="The emulator's own work (copies, fresh memory) on 2 shared cores makes some "
                          "commands late; a late command slows the system it belongs to."),
        capacity_table(sm, load_key(30), "hm", LOAD, sm["settings"]),
        latency_table(sm, "Fig. 7: load (INSERT) tail latency ratios, 20 M", load_key(20), LOAD, "INSERT",
                      [("hm", "dm"), ("hm", "qlc")],
                      {("hm", "qlc", "p99.9"): "0.539", ("hm", "qlc", "p99.99"): "0.683",
                       ("hm", "dm", "p99.9"): "0.954", ("hm", "dm", "p99.99"): "0.940"}),
    ]
    return out


# ---- YCSB A-F: Fig. 6 and 7 (C) -------------------------------------------

YCSB_KEY = "ycsb-20M"


def ycsb_comparisons(s):
    return [Comparison(YCSB_KEY, same(THREE), ",".join([LOAD] + RUN), {"pairs": 20 * M})]


def ycsb_tables(sm):
    t = Table("Fig. 6: YCSB A-F throughput ratios after a 20 M load",
              ["workload", "hm/dm", "hm/qlc", "hm ops/s", "busy hm", "busy dm", "busy qlc"],
              ratio_columns=["hm/dm", "hm/qlc"])
    for pn in RUN:
        t.add(pn, *[stat(per_run(sm, YCSB_KEY, lambda r, b=b: ratio(r, "hm", b, pn, throughput)))
                    for b in ("dm", "qlc")],
              stat(per_run(sm, YCSB_KEY, lambda r: field(r, "hm", pn, throughput)), 0),
              *[stat(per_run(sm, YCSB_KEY, lambda r, x=x: field(r, x, pn, lambda p: p["busy"])), 2)
                for x in THREE])
    t.add("mean of A-F", stat(mean_ratio(sm, YCSB_KEY, "hm", "dm", RUN)),
          stat(mean_ratio(sm, YCSB_KEY, "hm", "qlc", RUN)), "-", "-", "-", "-")
    paper = Table("The paper's Fig. 6 averages", ["ratio", "paper"])
    paper.add("hm/dm, mean of A-F", "1.095")
    paper.add("hm/qlc, mean of A-F", "1.18")
    reads = Table("Device reads per operation (RocksDB's reads that missed its block cache)",
                  ["workload"] + THREE, plot=("bar", THREE, "device reads per operation"))
    for pn in RUN:
        reads.add(pn, *[stat(per_run(sm, YCSB_KEY, lambda r, x=x: field(
            r, x, pn, lambda p: p["reads"] / p["ops"] if "reads" in p and p["ops"] else None)), 2)
            for x in THREE])
    qlc = Table("QLC page reads per device read (where the reads were served)",
                ["workload"] + THREE, plot=("bar", THREE, "QLC page reads per device read"))
    for pn in RUN:
        qlc.add(pn, *[stat(per_run(sm, YCSB_KEY, lambda r, x=x: field(
            r, x, pn, lambda p: p["qlc_reads"] / p["reads"] if "qlc_reads" in p and p.get("reads") else None)),
            2) for x in THREE])
    return [t, paper, reads, qlc,
            latency_table(sm, "Fig. 7: YCSB C (READ) tail latency ratios", YCSB_KEY, "ycsb-c", "READ",
                          [("hm", "dm"), ("hm", "qlc")],
                          {("hm", "qlc", "p99.9"): "0.406", ("hm", "qlc", "p99.99"): "0.732",
                           ("hm", "dm", "p99.9"): "0.694", ("hm", "dm", "p99.99"): "0.957"})]


# ---- SST sizes: Fig. 8(b) -------------------------------------------------

SST_MIB = [16, 64, 256]


def sst_key(mib):
    return f"sst-{mib}MiB"


def sst_comparisons(s):
    return [Comparison(sst_key(m), same(THREE), LOAD, {"pairs": 20 * M, "sst": m << 20}) for m in SST_MIB]


def sst_tables(sm):
    keys = [sst_key(m) for m in SST_MIB]
    pn = lambda key: LOAD  # noqa: E731
    t = pairs_table(sm, "Fig. 8(b): 20 M load throughput ratios by SST size (before / K)", keys, pn,
                    [("hm/dm", "hm", "dm", throughput, None), ("hm/qlc", "hm", "qlc", throughput, None)])
    means = {b: [] for b in ("dm", "qlc")}
    counted = [k for k in keys if per_run(sm, k, lambda r: r)]
    if counted:
        reps = min(len(per_run(sm, k, lambda r: r)) for k in counted)
        for b in means:
            for i in range(reps):
                vals = [ratio(sm["comparisons"][k]["runs"][i], "hm", b, LOAD, throughput) for k in counted]
                if None not in vals:
                    means[b].append(statistics.mean(vals))
        t.add("mean over sizes", stat(means["dm"]), stat(means["qlc"]))
    paper = Table("The paper's Fig. 8(b) averages", ["ratio", "paper"])
    paper.add("hm/dm, mean over sizes", "1.257")
    paper.add("hm/qlc, mean over sizes", "1.321")
    return [t, paper, values_table(sm, "Device busy share during the load", keys, pn, THREE,
                                   lambda p: p["busy"], 2)]


EXPERIMENTS = {e.name: e for e in [
    Experiment("load", "YCSB load: throughput, write volumes, capacity, Simple Copy (Fig. 4, 5, 7, 8a)",
               "YCSB load of 10, 20 and 30 M pairs / K into a fresh volume per system; throughput, "
               "bytes the NAND programmed per cell mode (QLC write volume: host writes plus migration "
               "into QLC; total: every program), HM Hybrid's runtime capacity sampled during the "
               "30 M load, insert tail latency of the 20 M load, and HM Hybrid without Simple Copy.",
               "HM Hybrid loads 18.0-28.9% faster than DM Hybrid and 21.2-73.3% faster than QLC, writes "
               "26.5-61.1% and 35.2-80.3% less to QLC, and more in total than QLC; without Simple Copy "
               "it loses 3.8%, 9.0% and 14.9% at 10, 20 and 30 M. After 30 M the runtime capacity is "
               "79.6% of the device, 74.0% is used, 97.3% of the data in QLC.",
               load_comparisons, load_tables),
    Experiment("ycsb", "YCSB A-F after a 20 M load (Fig. 6, 7)",
               "One 20 M / K load per system, then YCSB A, B, C, F, D, E of 5 M / K operations each; "
               "throughput per workload and its mean, read tail latency of C.",
               "HM Hybrid's throughput is 9.5% above DM Hybrid's and 18% above QLC's on average; in C, "
               "its p99.9 read latency is 30.6% below DM Hybrid's and 59.4% below QLC's.",
               ycsb_comparisons, ycsb_tables),
    Experiment("sst", "Load throughput by SST size (Fig. 8b)",
               "A 20 M / K load per system with target SST sizes of 16, 64 and 256 MiB / K.",
               "HM Hybrid loads 25.7% faster than DM Hybrid and 32.1% faster than QLC on average over "
               "the sizes.",
               sst_comparisons, sst_tables),
]}
