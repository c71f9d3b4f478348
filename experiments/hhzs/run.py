#!/usr/bin/env python3
"""HHZS experiments (HHZS paper §2.3 O1-O4 and §4 Exp#1-Exp#6), scaled down.

    run.py EXPERIMENT [--scale K] [--records N] [--ops N] [--threads N]
           [--repeat N] [--out DIR] [--zsbench PATH] [--timing real|sim|none]

EXPERIMENT: exp1 .. exp6, o1 .. o4, or all. Each experiment runs zsbench
once per workload with every scheme of the experiment side by side (each
scheme on a fresh volume, load then run, as the paper clears the storage
and reloads before every workload), writes the zsbench JSON, a results
table (table.md) and figures into OUT/EXPERIMENT/. --repeat N runs each
comparison N times (exp1-exp5, o4, quick): every ratio is taken within one
run and the tables give their mean and range over the N runs.

Scaling (--scale K, default 512): every size of the paper's setup is
divided by K together: data (200 GiB -> 400 MiB of 1 KiB objects at K =
512), zone capacities (the emulator's scale=1/K: ZN540 1077 MiB -> 2154
KiB, ST14000NM0007 256 MiB -> 512 KiB), the SST (93.9% of an SSD zone),
MemTables (512 MiB), level targets (1 GiB for L0 and L1, x10 above), the
WAL/cache pool (2 SSD zones), the block cache (8 MiB) and RocksDB's
compaction-debt stall limits (64 and 256 GiB; --debt-limits). Zone counts
stay: 20 SSD zones for WAL, cache and SSTs (Exp#5: 20-80). Device speeds
stay the presets' (real-time emulation). YCSB's zipfian item space (10^10
items hashed onto the keys) is divided by K too: kept at 10^10 over 10^5
keys, its flat tail would give the hottest 1% of keys 12% of the draws
instead of the 37% they get in the paper's setup (29% when divided). Operation counts are cut for
time (--ops; the paper ran 1 M for A-F and 5 M for W1-W4), and so is the
migration rate: 4 MiB/s * 128 / K (1 MiB/s at K = 512), so that a run
migrates a share of the SSTs comparable to the paper's runs.

The defaults (K = 512, 16,000 operations in Exp#1 and Exp#2) are the
setup of the K = 512 runs in experiments/README.md; K = 2048 with --ops
4000 is the smaller setup most earlier runs used: a quarter of the data,
each load about two thirds as long. Other experiments keep their own
--ops defaults.
"""
import argparse
import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MiB = 1 << 20
GiB = 1 << 30

# Paper setup (§4.1).
ZN540_CAP = 1077 * MiB
HDD_CAP = 256 * MiB
SST_FRACTION = 0.939          # of an SSD zone (§3.2: 1011.2 MiB of 1077 MiB)
DATA = 200 * GiB
OBJECT = 1024                 # 24 B key + 1000 B value
MEMTABLE = 512 * MiB
LEVEL_BASE = 1 * GiB
BLOCK_CACHE = 8 * MiB
WAL_CACHE_ZONES = 2
SSD_ZONES = 20                # available SSD zones (4.1; Exp#5 varies it)
MIGRATION_RATE = 4 * MiB
# RocksDB's write-stall limits on compaction debt (advanced_options.h
# defaults; the paper keeps them): writes slow above the soft limit and
# stop above the hard one. Sizes, so they scale with the data.
SOFT_PENDING_COMPACTION = 64 * GiB
HARD_PENDING_COMPACTION = 256 * GiB
YCSB_ZIPF_ITEMS = 10 ** 10     # YCSB's scrambled zipfian draws from 10^10 items

# Paper numbers quoted in the text, for the tables (throughput of the scheme
# over the baseline, as a ratio; ranges where the text gives ranges).
PAPER = {
    "quick": "HHZS over B3: load 1.078, A 1.210-1.564 (A-F range)",
    "exp1": "HHZS over B3: load 1.078, A-F 1.210-1.564; over AUTO: load 1.183, A-F 1.280-1.693",
    "exp2": "over B3: P load 1.055, W1 1.180, W2 1.188, W3 0.986, W4 0.941; "
            "P+M over B3+M: W1 1.145, W2 1.088, W3 1.094, W4 1.059; "
            "P+M+C over P+M: W1 1.053, W2 1.068, W3 1.074, W4 2.737",
    "exp3": "HHZS over B3 1.273-1.433, over AUTO 1.516-1.771 (alpha 0.8-1.2)",
    "exp4": "HHZS over B3: 10% 1.404, 30% 1.424, >=50% 1.425-1.600; over AUTO 1.677, 1.684, 1.541-1.653",
    "exp5": "load: P over the best of B1-B4/AUTO 1.055, 1.011, 1.079, 1.066 (20/40/60/80 zones); "
            "run: P 1.188, 1.026, 1.125, 1.062; HHZS 1.348, 1.155, 1.285, 1.136",
    "exp6": "p99 within 10% for all rates; p99.9 lowest at 2-4 MiB/s, +23-25% at 64 MiB/s; "
            "p99.99 +104% from 1 to 64 MiB/s",
    "o1": "B4 load: max L0 40.3x, L1 29.7x, L2 4.9x their targets; medians 4.0x, 5.2x, 1.4x",
    "o2": "B3 fastest load; B4 11.3% below B3; B3 sends 68.2% of WAL writes to the HDD",
    "o3": "throttled to 6000 OPS: max L0 10.0x, L1 10.7x, L2 2.4x target",
    "o4": "alpha 0.9: 79.7-98.2% of reads on the HDD; alpha 1.2: 35.8-49.5%",
}


class Setup:
    def __init__(self, a):
        self.k = a.scale
        self.timing = a.timing
        self.zone_cap = (ZN540_CAP // self.k) // 4096 * 4096
        self.sst = int(self.zone_cap * SST_FRACTION) // 4096 * 4096
        self.records = a.records or DATA // OBJECT // self.k
        self.threads = a.threads
        self.ops = a.ops
        self.hdd_zones = a.hdd_zones
        self.block_cache_bytes = a.block_cache
        self.index_in_cache = a.index_in_cache
        self.bloom_bits = a.bloom_bits
        self.zipf_items = YCSB_ZIPF_ITEMS // self.k
        self.bg_jobs = a.bg_jobs
        self.hdd_write_cache = a.hdd_write_cache
        self.debt_limits = a.debt_limits

    def devices(self, ssd_zones):
        # Available SSD zones + the label zone, 2 metadata zones and the one
        # empty zone zfs keeps for GC.
        t = self.timing
        return [f"emu:zn540?zones={ssd_zones + 4}&scale=1/{self.k}&timing={t}",
                f"emu:st14000nm0007?zones={self.hdd_zones}&scale=1/{self.k}&timing={t}"
                f"&write_cache={self.hdd_write_cache}"]

    def rocksdb_options(self):
        k = self.k
        opts = {
            "write_buffer_size": MEMTABLE // k,
            "min_write_buffer_number_to_merge": 2,
            "max_write_buffer_number": 4,
            "target_file_size_base": self.sst,
            "max_bytes_for_level_base": LEVEL_BASE // k,
            "max_bytes_for_level_multiplier": 10,
            "level0_file_num_compaction_trigger": 2,
            "num_levels": 5,
            "max_total_wal_size": WAL_CACHE_ZONES * self.zone_cap,
            "max_background_jobs": self.bg_jobs,
            "compression": "kNoCompression",
            # RocksDB's default table options, as the authors' code runs
            # (YCSB's RocksDB binding sets none): the 8 MiB block cache the
            # paper names and no Bloom filter, so a Get reads a data block
            # at every level down to its key's. That is what makes L0-L2
            # and the hot L3 SSTs worth the SSD. --bloom-bits 10 gives the
            # setup of sessions 4-17.
            "block_based_table_factory": "{block_cache=%d%s%s}" % (
                self.block_cache(),
                f";filter_policy=bloomfilter:{self.bloom_bits}:false" if self.bloom_bits else "",
                ";cache_index_and_filter_blocks=true" if self.index_in_cache else ""),
        }
        if self.debt_limits == "scaled":
            opts["soft_pending_compaction_bytes_limit"] = SOFT_PENDING_COMPACTION // k
            opts["hard_pending_compaction_bytes_limit"] = HARD_PENDING_COMPACTION // k
        return opts

    def block_cache(self):
        # The paper's 8 MiB holds ~2048 blocks; divided by K it would hold 2
        # at K = 1024, and RocksDB's LRU then drops released blocks instead
        # of evicting them (so nothing reaches the SSD cache). Keep 16
        # blocks: enough for 8 client threads' pinned blocks, and still far
        # below the SSD cache (256 blocks at K = 2048), as 8 MiB is far below
        # the paper's 2 GiB of cache zones.
        return self.block_cache_bytes or max(BLOCK_CACHE // self.k, 64 * 1024)

    @staticmethod
    def sst_zones(ssd_zones):
        """SSD zones HHZS can give SSTs: less the WAL/cache pool and zfs's
        GC reserve (C_ssd)."""
        return ssd_zones - WAL_CACHE_ZONES - 1

    def migration_rate(self, paper_rate=MIGRATION_RATE):
        return paper_rate * 128 / self.k

    def config(self, out_dir, tag, scheme, ssd_zones=SSD_ZONES, migration_rate=None):
        """A volume config for `scheme`: a scheme name, optionally followed by
        /KEY:VALUE scheme options (quick --schemes hhzs,hhzs/priority:read_rate)."""
        scheme, *extra = scheme.split("/")
        scheme_opts = {
            "name": scheme,
            "wal_cache_zones": WAL_CACHE_ZONES,
            "migration_mib_per_sec": (migration_rate or self.migration_rate()) / MiB,
            "level_threshold": 3,
        }
        if scheme.startswith("b") and scheme[1:2].isdigit():
            scheme_opts["level_threshold"] = int(scheme[1])
        for kv in extra:
            key, _, value = kv.partition(":")
            try:
                scheme_opts[key] = json.loads(value)
            except json.JSONDecodeError:
                scheme_opts[key] = value  # a bare word: read_rate
        cfg = {"devices": self.devices(ssd_zones), "scheme": scheme_opts,
               "block_cache_bytes": self.block_cache()}
        path = os.path.join(out_dir, tag.replace("/", "+").replace(":", "_") + ".json")
        with open(path, "w") as f:
            json.dump(cfg, f, indent=1)
        return path


def zsbench(a, setup, schemes, workload, out_json, ops=None, rate=0, extra=()):
    """schemes: list of (name, config path). Runs one zsbench comparison,
    or with --reuse reads the one already in out_json."""
    if a.reuse and os.path.exists(out_json):
        with open(out_json) as f:
            return json.load(f)
    cmd = [a.zsbench, "--quiet", "--records", str(setup.records), "--zipf-items", str(setup.zipf_items),
           "--threads", str(setup.threads), "--workload", workload,
           "--interval", str(a.interval), "--json", out_json]
    if ops:
        cmd += ["--ops", str(ops)]
    if rate:
        cmd += ["--rate", str(rate)]
    for name, value in setup.rocksdb_options().items():
        cmd += ["--rocksdb-option", f"{name}={value}"]
    for name, cfg in schemes:
        cmd += ["--scheme", f"{name}=zonestack://{cfg}"]
    cmd += list(extra)
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True)
    with open(out_json) as f:
        return json.load(f)


def phase(result, scheme, name):
    for s in result["schemes"]:
        if s["name"] == scheme:
            for p in s["phases"]:
                if p["name"] == name:
                    return p
    return None


def ssd_share_by_level(p):
    """Fraction of each holder's live bytes on the SSD (device 0) at the end."""
    if not p or not p["samples"]:
        return {}
    space = p["samples"][-1]["space"]
    holders = sorted({h for dev in space for h in dev})
    out = {}
    for h in holders:
        total = sum(dev.get(h, 0) for dev in space)
        if total:
            out[h] = space[0].get(h, 0) / total
    return out


class Table:
    def __init__(self, title, columns, plot=None):
        """plot: how tables without ratio columns are drawn, (kind, columns,
        y label, label columns, divisor): kind "line" or "bar", the columns
        drawn, the first `label columns` columns naming each row, and a
        divisor for the values (1000: us to ms)."""
        self.title, self.columns, self.rows, self.plot = title, columns, [], plot

    def add(self, *cells):
        self.rows.append([c if isinstance(c, str) else f"{c:.3f}" if isinstance(c, float) else str(c)
                          for c in cells])

    def markdown(self):
        lines = [f"**{self.title}**", "", "| " + " | ".join(self.columns) + " |",
                 "|" + "---|" * len(self.columns)]
        lines += ["| " + " | ".join(r) + " |" for r in self.rows]
        return "\n".join(lines) + "\n"


def spread(values):
    """One table cell for a value measured once per repeat: the mean, and
    the lowest and highest in brackets when there was more than one run."""
    m = sum(values) / len(values)
    return f"{m:.3f}" if len(values) == 1 else f"{m:.3f} ({min(values):.3f}-{max(values):.3f})"


def ratios_within_runs(runs, scheme, base, phase_name):
    """`scheme`'s throughput over `base`'s in phase `phase_name`, one ratio
    per run that has both (same process, same machine state)."""
    pairs = [(phase(res, scheme, phase_name), phase(res, base, phase_name)) for res in runs]
    return [p["ops_per_second"] / b["ops_per_second"] for p, b in pairs
            if p and b and b["ops_per_second"]]


def throughput_tables(results, schemes, base, title, phase_names):
    """Throughput of each scheme over the base, each ratio taken within one
    zsbench run (same process, same machine state) and then over repeats."""
    t = Table(title, ["workload"] + [f"{s} (x{base})" for s in schemes] + [f"{base} ops/s"])
    # Every "-load" phase loads the same objects the same way, so the loads
    # of one run are repeats of one measurement: pooled in a last row.
    load_ratios = {s: [] for s in schemes}
    load_bases, load_phases = [], 0
    for wl, runs in results:
        for pn in phase_names(wl):
            bases = [phase(res, base, pn) for res in runs]
            if not all(b and b["ops_per_second"] for b in bases):
                continue
            cells = []
            for s in schemes:
                ratios = ratios_within_runs(runs, s, base, pn)
                cells.append(spread(ratios) if ratios else "-")
                if pn.endswith("-load"):
                    load_ratios[s] += ratios
            t.add(pn, *cells, f"{sum(b['ops_per_second'] for b in bases) / len(bases):.0f}")
            if pn.endswith("-load"):
                load_phases += 1
                load_bases += [b["ops_per_second"] for b in bases]
    if load_phases > 1:
        t.add(f"all {len(load_bases)} loads", *[spread(load_ratios[s]) if load_ratios[s] else "-"
                                                for s in schemes],
              f"{sum(load_bases) / len(load_bases):.0f}")
    return t


def step_table(results, steps, title, phase_names):
    """Each breakdown step (label, scheme, over): `scheme`'s throughput over
    `over`'s, taken within each run, then its mean (range) over the runs and
    in how many runs the step added throughput."""
    t = Table(title, ["workload"] + [label for label, _, _ in steps])
    for wl, runs in results:
        for pn in phase_names(wl):
            cells = []
            for _, scheme, over in steps:
                ratios = ratios_within_runs(runs, scheme, over, pn)
                cells.append(f"{spread(ratios)}, up {sum(r > 1 for r in ratios)}/{len(ratios)}"
                             if ratios else "-")
            t.add(pn, *cells)
    return t


def ahead_counts(results, scheme, others, title, phase_names):
    """In how many runs `scheme` beat each of `others`, and all of them at once."""
    t = Table(title, ["workload"] + [f"ahead of {o}" for o in others] + ["ahead of all"])
    for wl, runs in results:
        for pn in phase_names(wl):
            rates = [{s: (phase(res, s, pn) or {}).get("ops_per_second", 0) for s in [scheme] + others}
                     for res in runs]
            ahead = [[r[scheme] > r[o] for o in others] for r in rates]
            n = len(runs)
            t.add(pn, *[f"{sum(a[i] for a in ahead)}/{n}" for i in range(len(others))],
                  f"{sum(all(a) for a in ahead)}/{n}")
    return t


def user_read_ops(device):
    return device.get("by_class", {}).get("user_read", {}).get("read_ops", 0)


def share(values, i):
    """values[i] over their sum, one table cell ("-" when all are zero)."""
    return values[i] / sum(values) if sum(values) else "-"


def run_phases(results, schemes, phase_names):
    """(phase name, scheme, [that phase of each repeat]) for every run (not
    load) phase and scheme that has one."""
    for wl, runs in results:
        for pn in phase_names(wl):
            if pn.endswith("-load"):
                continue
            for s in schemes:
                ps = [p for p in (phase(res, s, pn) for res in runs) if p]
                if ps:
                    yield pn, s, ps


def read_sources(results, schemes, title, phase_names):
    """Where user reads were served: HDD share of device reads, HDD reads per
    operation (the HDD is busy through every run phase, so this sets the
    throughput), SSD-cache hits (summed over repeats for the share and the
    per-operation count, averaged for the counts)."""
    t = Table(title, ["workload", "scheme", "ops/s", "HDD share of user reads",
                      "HDD reads per op", "SSD-cache hits", "SSTs migrated"])
    for pn, s, ps in run_phases(results, schemes, phase_names):
        reads = [user_read_ops(p["devices"][-1]) for p in ps if p["devices"]]
        total = [sum(user_read_ops(d) for d in p["devices"]) for p in ps]
        states = [p.get("scheme") or {} for p in ps]
        hits = [st.get("cache", {}).get("hits") for st in states]
        moved = [st.get("migration", {}).get("files_moved") for st in states]
        mean = lambda v: "-" if None in v else f"{sum(v) / len(v):.0f}"
        ops = sum(p.get("ops", 0) for p in ps if p["devices"])  # the phases `reads` counts
        t.add(pn, s, f"{sum(p['ops_per_second'] for p in ps) / len(ps):.0f}",
              sum(reads) / sum(total) if sum(total) else "-", sum(reads) / ops if ops else "-",
              mean(hits), mean(moved))
    return t


def hdd_time(results, schemes, title, phase_names):
    """What the HDD spent its time on in each run phase (shares of the
    phase's wall time, by I/O class) beside how much the LSM-tree compacted
    and where it wrote that: the HDD is the bottleneck of every run phase,
    so time it spends on compaction and migration is time user reads wait.
    Means over repeats."""
    t = Table(title, ["workload", "scheme", "ops/s", "HDD on user reads", "on compaction",
                      "on migration", "compaction written MiB", "of it on the SSD"])
    for pn, s, ps in run_phases(results, schemes, phase_names):
        ps = [p for p in ps if p["devices"]]
        if not ps:
            continue
        mean = lambda v: sum(v) / len(v)
        busy = lambda c: mean([p["devices"][-1].get("busy_by_class", {}).get(c, 0) for p in ps])
        written = [sum(d.get("by_class", {}).get("compaction", {}).get("write_bytes", 0)
                       for d in p["devices"]) for p in ps]
        on_ssd = [p["devices"][0].get("by_class", {}).get("compaction", {}).get("write_bytes", 0)
                  for p in ps]
        t.add(pn, s, f"{mean([p['ops_per_second'] for p in ps]):.0f}", busy("user_read"),
              busy("compaction"), busy("migration"), f"{mean(written) / MiB:.0f}",
              sum(on_ssd) / sum(written) if sum(written) else "-")
    return t


def best_sst_reads(ssts, reads, zone_bytes, zones):
    """The most of `reads` (one count per SST) that whole SSTs in `zones` SSD
    zones of `zone_bytes` could take: most reads per zone first; an SST takes
    ceil(size / zone) zones, at least one, as HHZS counts them."""
    cost = [max(1, -(-x["size"] // zone_bytes)) for x in ssts]
    best, left = 0, zones
    for i in sorted(range(len(ssts)), key=lambda i: -reads[i] / cost[i]):
        if cost[i] <= left:
            left -= cost[i]
            best += reads[i]
    return best


def sst_oracle_share(p, zone_bytes, zones, draws=20):
    """Of the user reads counted on the SSTs live at the end of phase `p`:
    (their number, the share SSD-resident SSTs took, the most whole SSTs in `zones` SSD
    zones could have taken knowing every SST's reads in hindsight, and what
    that hindsight pick gets by chance when the same reads fall on SSTs in
    proportion to their size, as with no skew: with ~10 reads per SST the
    luckiest SSTs stand out even then). None without per-SST reads."""
    ssts = (p.get("scheme") or {}).get("ssts") or []
    reads = [x["reads"] for x in ssts]
    total = sum(reads)
    if not total:
        return None
    on_ssd = sum(x["reads"] for x in ssts if x["on_ssd"])
    best = best_sst_reads(ssts, reads, zone_bytes, zones)
    rng = random.Random(1)
    sizes = [max(1, x["size"]) for x in ssts]
    chance = 0
    for _ in range(draws):
        counts = [0] * len(ssts)
        for i in rng.choices(range(len(ssts)), weights=sizes, k=total):
            counts[i] += 1
        chance += best_sst_reads(ssts, counts, zone_bytes, zones)
    return total, on_ssd / total, best / total, chance / draws / total


def sst_ceiling(results, schemes, title, phase_names, zone_bytes, zones):
    """How much of the HDD's read load any SST placement could take off it:
    the hindsight best against what each scheme's SSD SSTs took."""
    t = Table(title, ["workload", "scheme", "reads on live SSTs", "SSD SSTs took",
                      f"best in {zones} zones (hindsight)", "same, by chance"])
    for pn, s, ps in run_phases(results, schemes, phase_names):
        shares = [v for v in (sst_oracle_share(p, zone_bytes, zones) for p in ps) if v]
        if not shares:
            continue
        t.add(pn, s, f"{sum(v[0] for v in shares) / len(shares):.0f}",
              *[spread([v[i] for v in shares]) for i in range(1, 4)])
    return t


def run_workloads(a, setup, out, schemes, workloads, ops, ssd_zones=SSD_ZONES, migration_rate=None,
                  rate=0):
    """Runs every workload --repeat times; returns [(workload, [zsbench result per repeat])]."""
    cfgs = [(s, setup.config(out, f"{s}-{ssd_zones}z", s, ssd_zones, migration_rate)) for s in schemes]
    results = []
    for wl in workloads:
        # The paper runs each workload right after its load, with the
        # compaction debt the load left (O1; Exp#2 explains P's gain by it).
        # --settle waits for compaction to finish first instead.
        if a.settle:
            wl = wl.replace("-load,", "-load,settle,")
        safe = wl.replace(":", "_").replace(",", "+")
        # A scan costs a block read per sorted run it spans (~20 HDD reads
        # here against ~1 for a get), so E runs a tenth of the ops.
        n = max(ops // 10, 100) if ops and wl.endswith("hhzs-e") else ops
        if getattr(a, "pool", None):
            results.append((wl.replace("settle,", ""),
                            pooled_runs(a.pool, os.path.basename(out), f"{safe}-{ssd_zones}z")))
            continue
        runs = []
        for r in range(a.repeat):
            # The first repeat keeps the single-run file name, so --reuse
            # picks up results measured before --repeat existed.
            path = os.path.join(out, f"{safe}-{ssd_zones}z" + (f"-r{r + 1}" if r else "") + ".json")
            runs.append(zsbench(a, setup, cfgs, wl, path, n, rate))
        results.append((wl.replace("settle,", ""), runs))
    return results


def pooled_runs(dirs, experiment, stem):
    """Every repeat's zsbench JSON (STEM.json, STEM-r2.json, ...) in the
    EXPERIMENT folder of each of `dirs`, in that order."""
    runs = []
    for d in dirs:
        for r in range(1, 1000):
            path = os.path.join(d, experiment, stem + (f"-r{r}" if r > 1 else "") + ".json")
            if not os.path.exists(path):
                break
            with open(path) as f:
                runs.append(json.load(f))
    if not runs:
        sys.exit(f"--pool: no {stem}.json under {experiment}/ of {', '.join(dirs)}")
    return runs


def ycsb_phases(wl):
    return [n for n in wl.split(",") if n != "settle"]


def exp1(a, setup, out):
    schemes = ["b3", "auto", "tiered", "hhzs"]
    wls = [f"hhzs-{c}-load,hhzs-{c}" for c in "abcdef"]
    results = run_workloads(a, setup, out, schemes, wls, a.ops or 16000)
    t = throughput_tables(results, schemes, "b3", "Exp#1 throughput over B3", ycsb_phases)
    ahead = ahead_counts(results, "hhzs", ["b3", "auto", "tiered"], "Exp#1 runs in which HHZS was ahead",
                         ycsb_phases)
    sources = read_sources(results, schemes, "Exp#1 where reads went (run phases; cache hits and "
                           "migrations are counted from mount)", ycsb_phases)
    time = hdd_time(results, schemes, "Exp#1 where the HDD's time went (run phases)", ycsb_phases)
    ceiling = sst_ceiling(results, schemes, "Exp#1 share of user reads whole SSTs on the SSD could "
                          "take (SSTs live at the phase's end)", ycsb_phases, setup.zone_cap,
                          setup.sst_zones(SSD_ZONES))
    share = Table("Exp#1 share of each level's data on the SSD at the end of workload A",
                  ["scheme", "holder", "SSD share"])
    for s in schemes:
        for h, v in ssd_share_by_level(phase(results[0][1][0], s, "hhzs-a")).items():
            share.add(s, h, v)
    return [t, ahead, sources, time, ceiling, share]


def quick(a, setup, out):
    """B3 against HHZS (or --schemes) on load and workload A (or --workload) only: a fast probe."""
    schemes = a.schemes.split(",") if a.schemes else ["b3", "hhzs"]
    wl = a.workload or "hhzs-a-load,hhzs-a"
    results = run_workloads(a, setup, out, schemes, [wl], a.ops or 2000, ssd_zones=a.ssd_zones)
    return [throughput_tables(results, schemes, schemes[0], f"quick: throughput over {schemes[0]}",
                              ycsb_phases),
            read_sources(results, schemes, "quick: where reads went", ycsb_phases),
            hdd_time(results, schemes, "quick: where the HDD's time went", ycsb_phases),
            sst_ceiling(results, schemes, "quick: share of user reads whole SSTs on the SSD could "
                        "take", ycsb_phases, setup.zone_cap, setup.sst_zones(a.ssd_zones))]


def exp2(a, setup, out):
    schemes = ["b3", "b3+m", "p", "p+m", "hhzs"]
    wls = [f"hhzs-w{i}-load,hhzs-w{i}" for i in range(1, 5)]
    results = run_workloads(a, setup, out, schemes, wls, a.ops or 16000)
    steps = [("P over B3", "p", "b3"), ("M: B3+M over B3", "b3+m", "b3"), ("M: P+M over P", "p+m", "p"),
             ("P+M over B3+M", "p+m", "b3+m"), ("C: P+M+C over P+M", "hhzs", "p+m")]
    return [throughput_tables(results, schemes, "b3", "Exp#2 breakdown, throughput over B3", ycsb_phases),
            step_table(results, steps, "Exp#2 what each technique adds (ratio within each run)",
                       ycsb_phases),
            read_sources(results, schemes, "Exp#2 where reads went (run phases; cache hits and "
                         "migrations are counted from mount)", ycsb_phases),
            hdd_time(results, schemes, "Exp#2 where the HDD's time went (run phases)", ycsb_phases),
            sst_ceiling(results, ["p+m", "hhzs"], "Exp#2 share of user reads whole SSTs on the SSD "
                        "could take", ycsb_phases, setup.zone_cap, setup.sst_zones(SSD_ZONES))]


def sweep(a, setup, out, title, mixes):
    schemes = ["b3", "auto", "hhzs"]
    wls = [f"hhzs-w2-load,{m}" for m in mixes]
    results = run_workloads(a, setup, out, schemes, wls, a.ops or 20000)
    return [throughput_tables(results, schemes, "b3", title, lambda wl: wl.split(",")[1:])]


def exp3(a, setup, out):
    return sweep(a, setup, out, "Exp#3 skew (50% reads), throughput over B3",
                 [f"mix:0.5:{z}" for z in (0.8, 0.9, 1.0, 1.1, 1.2)])


def exp4(a, setup, out):
    return sweep(a, setup, out, "Exp#4 read ratio (alpha 0.9), throughput over B3",
                 [f"mix:{r}:0.9" for r in (0.1, 0.3, 0.5, 0.7, 0.9)])


def exp5(a, setup, out):
    schemes = ["b1", "b2", "b3", "b4", "auto", "p", "hhzs"]
    tables = []
    for zones in (20, 40, 60, 80):
        results = run_workloads(a, setup, out, schemes, ["hhzs-w2-load,mix:0.5:0.9"],
                                a.ops or 10000, ssd_zones=zones)
        tables.append(throughput_tables(results, schemes, "b3",
                                        f"Exp#5 {zones} SSD zones, throughput over B3", ycsb_phases))
    return tables


EXP6_RATES = (1, 2, 4, 8, 16, 32, 64)


def exp6_decision_ms(setup):
    """The authors' code decides at most once per 16 s, about the time one
    1011 MiB SST takes at the highest rate (64 MiB/s), so no rate is bound
    by the decisions. The scheme's default 1 s would bind every scaled rate
    from 8 MiB/s on (an SST takes 2 MiB / 2 MiB/s = 1 s at K = 512), so
    Exp#6 decides as often as one SST takes at its highest rate."""
    return max(1, int(1000 * setup.sst / setup.migration_rate(max(EXP6_RATES) * MiB)))


def exp6(a, setup, out):
    decision_ms = exp6_decision_ms(setup)
    t = Table("Exp#6 P+M read latency (us) by migration rate (paper rate; scaled rate in brackets; "
              f"a decision at most every {decision_ms} ms)",
              ["paper rate MiB/s", "scaled KiB/s", "ops/s", "p99", "p99.9", "p99.99", "migrated MiB"],
              plot=("line", ["p99", "p99.9", "p99.99"], "read latency (ms)", 1, 1000))
    for r in EXP6_RATES:
        rate = setup.migration_rate(r * MiB)
        cfg = setup.config(out, f"p+m-{r}mib", f"p+m/decision_interval_ms:{decision_ms}", 20, rate)
        res = zsbench(a, setup, [(f"p+m@{r}", cfg)], "hhzs-w2-load," + ("settle," if a.settle else "") + "mix:0.5:0.9",
                      os.path.join(out, f"rate-{r}.json"), a.ops or 20000)
        p = phase(res, f"p+m@{r}", "mix:0.5:0.9")
        lat = p["latency"].get("READ", {})
        migrated = sum(d["by_class"].get("migration", {}).get("write_bytes", 0)
                       for d in p["devices"] if "by_class" in d)
        t.add(str(r), f"{rate / 1024:.0f}", f"{p['ops_per_second']:.0f}", f"{lat.get('p99_us', 0):.0f}",
              f"{lat.get('p999_us', 0):.0f}", f"{lat.get('p9999_us', 0):.0f}", f"{migrated / MiB:.1f}")
    return [t]


def level_box(p, level_targets):
    """Per holder: max and median of the summed (all devices) sizes over samples, over target."""
    sizes = {}
    for s in p["samples"]:
        for h in ("L0", "L1", "L2", "L3", "L4", "wal"):
            sizes.setdefault(h, []).append(sum(dev.get(h, 0) for dev in s["space"]))
    out = {}
    for h, v in sizes.items():
        v = sorted(v)
        tgt = level_targets.get(h)
        out[h] = (v[-1], v[len(v) // 2], tgt)
    return out


def basic_load(a, setup, out, rate, tag):
    schemes = ["b1", "b2", "b3", "b4"]
    cfgs = [(s, setup.config(out, f"{s}-{tag}", s)) for s in schemes]
    res = zsbench(a, setup, cfgs, "hhzs-a-load", os.path.join(out, f"load-{tag}.json"), rate=rate)
    base = LEVEL_BASE // setup.k
    targets = {"L0": base, "L1": base, "L2": 10 * base, "L3": 100 * base, "L4": 1000 * base}
    box = Table(f"Level sizes during the B4 load ({tag}): max and median over target",
                ["holder", "max MiB", "median MiB", "max/target", "median/target"],
                plot=("bar", ["max/target", "median/target"], "level size / target", 1, 1))
    for h, (mx, med, tgt) in level_box(phase(res, "b4", "hhzs-a-load"), targets).items():
        box.add(h, f"{mx / MiB:.2f}", f"{med / MiB:.2f}", mx / tgt if tgt else "-",
                med / tgt if tgt else "-")
    thr = Table(f"Load throughput of B1-B4 ({tag}), over B3, and WAL writes on the SSD",
                ["scheme", "ops/s", "x B3", "WAL bytes on SSD"],
                plot=("bar", ["x B3", "WAL bytes on SSD"], "load over B3; WAL share on the SSD", 1, 1))
    b3 = phase(res, "b3", "hhzs-a-load")["ops_per_second"]
    for s in schemes:
        p = phase(res, s, "hhzs-a-load")
        wal = [d.get("by_class", {}).get("wal", {}).get("write_bytes", 0) for d in p["devices"]]
        thr.add(s, f"{p['ops_per_second']:.0f}", p["ops_per_second"] / b3,
                share(wal, 0))
    return [box, thr], b3


def o1o2(a, setup, out):
    tables, _ = basic_load(a, setup, out, 0, "unthrottled")
    return tables


def o3(a, setup, out):
    # The paper throttles to 6000 OPS, below every basic scheme's load rate;
    # here: 80% of B3's unthrottled rate, measured first.
    _, b3 = basic_load(a, setup, out, 0, "unthrottled")
    tables, _ = basic_load(a, setup, out, 0.8 * b3, "throttled")
    return tables


def o4(a, setup, out):
    schemes = ["b1", "b2", "b3", "b4"]
    # The paper's "read traffic" is not defined further; the second share
    # also counts compaction reads, which right after the load can outweigh
    # the user's once the block cache absorbs the skewed reads.
    t = Table("O4 reads after load (100% reads): HDD share of user reads and throughput",
              ["alpha", "scheme", "ops/s", "HDD read share", "HDD share of all read bytes"],
              plot=("bar", ["HDD read share", "HDD share of all read bytes"], "share on the HDD", 2, 1))
    for alpha in (0.9, 1.2):
        results = run_workloads(a, setup, out, schemes, [f"hhzs-a-load,mix:1.0:{alpha}"], a.ops or 10000)
        res = results[0][1][0]
        for s in schemes:
            p = phase(res, s, f"mix:1.0:{alpha}")
            reads = [user_read_ops(d) for d in p["devices"]]
            read_bytes = [d.get("total", {}).get("read_bytes", 0) for d in p["devices"]]
            t.add(str(alpha), s, f"{p['ops_per_second']:.0f}",
                  share(reads, 1),
                  share(read_bytes, 1))
    return [t]


def plot_table(t, path):
    """A table's figure: the columns its `plot` names, or else grouped bars
    of a throughput table's ratio columns (one group per row)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"matplotlib missing: no {path} (pip install -r experiments/requirements.txt)",
              file=sys.stderr)
        return
    plot, baseline = t.plot, None
    if not plot:
        ratios = [c for c in t.columns if c.endswith(")") and "(x" in c]
        if not ratios:
            return
        plot, baseline = ("bar", ratios, "throughput / baseline", 1, 1), 1.0
    if t.rows:
        plot_columns(plt, t, path, plot, baseline)


def plot_columns(plt, t, path, plot, baseline):
    """Lines or grouped bars of the named columns, one point or group per
    row; a legend entry is a column's name without its " (x..." suffix."""
    kind, names, ylabel, label_cols, divisor = plot
    cols = [t.columns.index(n) for n in names]
    xs = range(len(t.rows))
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(t.rows)), 3.5))
    width = 0.8 / len(cols)
    for k, c in enumerate(cols):
        ys = [float(r[c].split()[0]) / divisor if r[c] not in ("-", "") else 0 for r in t.rows]
        label = names[k].split(" (x")[0]
        if kind == "line":
            ax.plot(list(xs), ys, marker="o", label=label)
        else:
            ax.bar([i + k * width for i in xs], ys, width, label=label)
    offset = 0 if kind == "line" else width * (len(cols) - 1) / 2
    ax.set_xticks([i + offset for i in xs])
    ax.set_xticklabels([" ".join(r[:label_cols]) for r in t.rows], rotation=20, fontsize=8)
    if baseline is not None:
        ax.axhline(baseline, color="black", linewidth=0.5)
    ax.set_ylabel(ylabel)
    ax.set_title(t.title, fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1, 1))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# The experiments whose comparisons all go through run_workloads.
POOLABLE = {"exp1", "exp2", "exp3", "exp4", "exp5", "o4", "quick"}
EXPERIMENTS = {"quick": quick, "exp1": exp1, "exp2": exp2, "exp3": exp3, "exp4": exp4, "exp5": exp5, "exp6": exp6,
               "o1": o1o2, "o2": o1o2, "o3": o3, "o4": o4}


def arg_parser():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("experiment", choices=sorted(EXPERIMENTS) + ["all"])
    ap.add_argument("--scale", type=int, default=512, help="divide every size by this")
    ap.add_argument("--records", type=int, default=0, help="default: 200 GiB / 1 KiB / scale")
    ap.add_argument("--ops", type=int, default=0, help="operations per run phase (default per experiment)")
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--bloom-bits", type=int, default=0,
                    help="Bloom filter bits per key (default 0: no filter, RocksDB's default "
                         "table options, which the authors' code runs with; 10 before session 18)")
    ap.add_argument("--index-in-cache", action="store_true",
                    help="keep index and filter blocks in the block cache (RocksDB's "
                         "cache_index_and_filter_blocks) instead of in the table readers")
    ap.add_argument("--block-cache", type=int, default=0,
                    help="block cache bytes (default: max(8 MiB / scale, 64 KiB))")
    ap.add_argument("--bg-jobs", type=int, default=4,
                    help="RocksDB max_background_jobs (the paper: 12 flush/compaction threads)")
    # The drive's own zone count: the scaled data then covers the same share
    # of the stroke as 200 GiB does on the 14 TB drive, so seeks stay short
    # as in the paper (3000 zones spread it over a quarter of the stroke).
    ap.add_argument("--hdd-zones", type=int, default=52156)
    ap.add_argument("--hdd-write-cache", type=int, default=256 << 20,
                    help="the HDD's write-back cache in bytes, the drive's 256 MB unscaled "
                         "(0: write-through, as before session 9)")
    ap.add_argument("--debt-limits", default="scaled", choices=["scaled", "unscaled"],
                    help="RocksDB's pending-compaction-bytes stall limits (64/256 GiB): divided by "
                         "the scale (default) or left at 64/256 GiB (before session 11)")
    ap.add_argument("--schemes", default="",
                    help="quick: comma-separated schemes (first is the base), each NAME[/KEY:VALUE...] "
                         "with scheme options, e.g. hhzs/priority:read_rate")
    ap.add_argument("--ssd-zones", type=int, default=SSD_ZONES,
                    help="quick: available SSD zones (the paper's 20; Exp#5 sweeps 20-80 itself)")
    ap.add_argument("--workload", default="", help="quick: zsbench phases (default hhzs-a-load,hhzs-a)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run every comparison this many times; tables give the mean (min-max) of ratios")
    ap.add_argument("--interval", type=float, default=1.0)
    ap.add_argument("--reuse", action="store_true",
                    help="keep the zsbench results already in OUT (resume an interrupted experiment)")
    ap.add_argument("--pool", type=lambda v: v.split(","), default=None, metavar="DIR,DIR...",
                    help="run nothing: tables from every repeat's JSON already in these result "
                         "folders, pooled (experiments run through run_workloads: exp1-exp5, o4, "
                         "quick)")
    ap.add_argument("--settle", action="store_true",
                    help="wait for compactions between load and run (the paper does not)")
    ap.add_argument("--timing", default="real", choices=["real", "sim", "none"])
    ap.add_argument("--out", default=os.path.join(ROOT, "experiments", "hhzs", "results"))
    ap.add_argument("--zsbench", default=os.path.join(ROOT, "build", "src", "tools", "zsbench"))
    return ap


def main():
    ap = arg_parser()
    a = ap.parse_args()
    setup = Setup(a)
    names = sorted(set(EXPERIMENTS) - {"o2", "quick"}) if a.experiment == "all" else [a.experiment]
    if a.pool and not set(names) <= POOLABLE:
        ap.error(f"--pool works for {', '.join(sorted(POOLABLE))}")
    for name in names:
        out = os.path.join(a.out, name)
        os.makedirs(out, exist_ok=True)
        tables = EXPERIMENTS[name](a, setup, out)
        text = f"## {name} (scale 1/{setup.k}, {setup.records} records, {setup.threads} threads)\n\n"
        if a.pool:
            text += f"Every run under {', '.join(a.pool)}, pooled.\n\n"
        text += "".join(t.markdown() + "\n" for t in tables)
        text += f"Paper: {PAPER[name]}\n"
        for i, t in enumerate(tables):
            plot_table(t, os.path.join(out, f"figure{i + 1}.png"))
        with open(os.path.join(out, "table.md"), "w") as f:
            f.write(text)
        print(text)


if __name__ == "__main__":
    main()
