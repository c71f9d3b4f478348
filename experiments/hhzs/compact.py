"""What the HHZS tables need of one zsbench result, kept small enough to
commit: per scheme and phase a few numbers (field names below)."""
import random

from runner.zsbench import is_load

HOLDERS = ("L0", "L1", "L2", "L3", "L4", "wal")


def _r(x):
    """Six significant digits: enough for any table, half the bytes."""
    return float(f"{x:.6g}") if isinstance(x, float) else x


def _class(d, cls, field):
    return d.get("by_class", {}).get(cls, {}).get(field, 0)


def best_sst_reads(ssts, reads, zone_bytes, zones):
    """The most of `reads` (one count per SST) that whole SSTs in `zones`
    SSD zones could take: most reads per zone first; an SST takes
    ceil(size / zone) zones, at least one, as HHZS counts them."""
    cost = [max(1, -(-x["size"] // zone_bytes)) for x in ssts]
    best, left = 0, zones
    for i in sorted(range(len(ssts)), key=lambda i: -reads[i] / cost[i]):
        if cost[i] <= left:
            left -= cost[i]
            best += reads[i]
    return best


def sst_ceiling(p, zone_bytes, zones, draws=20):
    """Of the user reads counted on the SSTs live at the end of phase p:
    [their number, the share the SSD's SSTs took, the most whole SSTs in
    `zones` SSD zones could have taken knowing every SST's reads in
    hindsight, and what that pick gets by chance when the same reads fall
    on SSTs in proportion to their size]. None without per-SST reads."""
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
    return [total, on_ssd / total, best / total, chance / draws / total]


def level_sizes(p):
    """Per holder, [max, median] over the phase's samples of its bytes on
    all devices."""
    sizes = {h: [] for h in HOLDERS}
    for smp in p.get("samples", []):
        for h in HOLDERS:
            sizes[h].append(sum(dev.get(h, 0) for dev in smp["space"]))
    return {h: [max(v), sorted(v)[len(v) // 2]] for h, v in sizes.items() if v}


def ssd_share_by_level(p):
    """Fraction of each holder's live bytes on the SSD (device 0) at the end."""
    if not p.get("samples"):
        return {}
    space = p["samples"][-1]["space"]
    out = {}
    for h in sorted({h for dev in space for h in dev}):
        total = sum(dev.get(h, 0) for dev in space)
        if total and space:
            out[h] = _r(space[0].get(h, 0) / total)
    return out


def phase_compact(p, params, zone_bytes, zones):
    """ops_s, ops, s: throughput, operations, seconds. dev: per device
    [user-read ops, read bytes, compaction bytes written, WAL bytes
    written, migration bytes written]. busy: the HDD's busy share by class.
    late: per device [commands the emulator finished after their modeled
    completion, all commands, their lateness in seconds] (docs/emulator.md,
    "Keeping pace"). hits, moved: SSD-cache hits and SSTs migrated since
    mount. ctr: the scheme's rule counters since mount. Optional:
    sst (sst_ceiling), lat (READ p99/p99.9/p99.99 us), levels, ssd_share."""
    devs = p.get("devices", [])
    c = {"ops_s": _r(p["ops_per_second"]), "ops": p["ops"], "s": _r(p["seconds"]),
         "dev": [[_class(d, "user_read", "read_ops"), d.get("total", {}).get("read_bytes", 0),
                  _class(d, "compaction", "write_bytes"), _class(d, "wal", "write_bytes"),
                  _class(d, "migration", "write_bytes")] for d in devs]}
    if devs and "late_commands" in devs[0]:
        c["late"] = [[d.get("late_commands", 0),
                      d.get("total", {}).get("read_ops", 0) + d.get("total", {}).get("write_ops", 0),
                      _r(d.get("late_ns", 0) / 1e9)] for d in devs]
    if devs:
        b = devs[-1].get("busy_by_class", {})
        c["busy"] = {k: _r(b.get(k, 0.0)) for k in ("user_read", "compaction", "migration")}
    state = p.get("scheme") or {}
    if "cache" in state:
        c["hits"] = state["cache"].get("hits", 0)
    if "migration" in state:
        c["moved"] = state["migration"].get("files_moved", 0)
    if state.get("counters"):
        c["ctr"] = state["counters"]
    load = is_load(p["name"])
    if params.get("ceiling") and not load:
        v = sst_ceiling(p, zone_bytes, zones)
        if v:
            c["sst"] = [_r(x) for x in v]
    if params.get("latency") and "READ" in p.get("latency", {}):
        lat = p["latency"]["READ"]
        c["lat"] = [_r(lat.get(k, 0.0)) for k in ("p99_us", "p999_us", "p9999_us")]
    if params.get("levels") and load:
        c["levels"] = level_sizes(p)
    if params.get("ssd_share") and not load:
        c["ssd_share"] = ssd_share_by_level(p)
    return c


def compact(result, zone_bytes, zones, params):
    """{"phases": {scheme: {phase: phase_compact}}} of one zsbench result."""
    out = {}
    for s in result["schemes"]:
        out[s["name"]] = {p["name"]: phase_compact(p, params, zone_bytes, zones)
                          for p in s["phases"] if p["name"] != "settle"}
    return {"phases": out}
