"""What the GearDB tables need of one zsbench result, small enough to
commit: per system and phase a few numbers (names in phase_compact)."""

# zsbench's ZoneUse groups under the geardb and log layouts
# (docs/geardb.md): 0 the WAL, 1 the MANIFEST and other files, 2 + n the
# SSTs of level n (geardb; log puts every SST in 2).
FIRST_SST_GROUP = 2
BUCKETS = 20          # zone utilization histogram: 5% wide
TIMELINE_POINTS = 80  # the paper's 1/80 of the load (Fig. 11)
CLASSES = ("wal", "flush", "compaction", "gc", "metadata", "user_read", "other")
STEPS = ("active", "window", "dump", "out_of_window", "passive")


def _r(x):
    return float(f"{x:.6g}") if isinstance(x, float) else x


def utilization(zones, sst_only=True):
    """[space efficiency, allocated zones, histogram of BUCKETS] of the
    written data zones [group, valid, written, capacity] (of SSTs only:
    the paper keeps its log and metadata off the shingled zones).
    Space efficiency is the paper's: valid data over allocated zones."""
    picked = [z for z in zones if not sst_only or z[0] >= FIRST_SST_GROUP]
    hist = [0] * BUCKETS
    valid = capacity = 0
    for _, v, _, c in picked:
        valid += v
        capacity += c
        hist[min(BUCKETS - 1, int(BUCKETS * v / c))] += 1
    return [_r(valid / capacity) if capacity else 0.0, len(picked), hist]


def checkpoints_compact(p):
    """tl: per checkpoint [ops, seconds, device bytes written, GC seconds];
    zones: per zone checkpoint [ops share, SST zones' utilization(), all
    zones' utilization()]."""
    cps = p.get("checkpoints") or []
    tl = [[c["ops"], _r(c["t"]), c["device_write_bytes"], _r(c.get("gc_seconds", 0.0))] for c in cps]
    last = cps[-1]["ops"] if cps else 0
    zones = []
    for c in cps:
        if "zones" in c:
            z = c["zones"][0]["zones"]
            zones.append([_r(c["ops"] / last) if last else 0.0, utilization(z), utilization(z, False)])
    return tl, zones


def compactions_compact(p):
    """[count, seconds, mean us, p50 us, p99 us, max us, gear compactions
    (chains), their mean us, trivial moves, input bytes, output bytes]."""
    c = p.get("compactions")
    if not c:
        return None
    lat, ch = c["latency"], c["chains"]
    return [c["count"], _r(c["seconds"]), _r(float(lat["mean_us"])), lat["p50_us"], lat["p99_us"],
            lat["max_us"], ch["count"], _r(float(ch["latency"]["mean_us"])), c["trivial_moves"],
            c["input_bytes"], c["output_bytes"]]


def phase_compact(p, params=None):
    """ops_s, ops, s: throughput, operations, seconds. wa: device bytes
    written over user bytes. gc: [runs, zones reclaimed, bytes relocated,
    seconds, runs a writer out of room started] since mount (the last
    absent in results from before zsbench reported it). busy: the head's busy seconds per I/O class.
    wb: device bytes written per class. comp: compactions_compact(). tl,
    zones: checkpoints_compact() (tl only if params["timeline"]). steps: geardb's steps by kind and its
    cascaded and out-of-window bytes. ml: zfs's metadata log since mount, [records, bytes, flushes,
    rolls, snapshot bytes] (absent in results from before zsbench reported it)."""
    d = (p.get("devices") or [{}])[0]
    gc = p.get("gc") or {}
    c = {"ops_s": _r(p.get("ops_per_second", 0.0)), "ops": p.get("ops", 0), "s": _r(p["seconds"]),
         "wa": _r(p.get("write_amplification") or 0.0),
         "gc": [gc.get("runs", 0), gc.get("zones_reclaimed", 0), gc.get("bytes_relocated", 0),
                _r(gc.get("seconds", 0.0))] + ([gc["writer_runs"]] if "writer_runs" in gc else []),
         "busy": {k: _r(v * p["seconds"]) for k, v in d.get("busy_by_class", {}).items() if k in CLASSES},
         "wb": {k: v["write_bytes"] for k, v in d.get("by_class", {}).items() if v.get("write_bytes")},
         "busy_all": _r(d.get("busy_fraction", 0.0))}
    ml = p.get("metadata_log")
    if ml:
        c["ml"] = [ml.get(k, 0) for k in ("records", "bytes", "flushes", "rolls", "snapshot_bytes")]
    comp = compactions_compact(p)
    if comp:
        c["comp"] = comp
    tl, zones = checkpoints_compact(p)
    if tl and (params or {}).get("timeline"):
        c["tl"] = tl
    if zones:
        c["zones"] = zones
    counters = (p.get("scheme") or {}).get("counters") or {}
    if any(k.startswith("steps.") for k in counters):
        c["steps"] = [counters.get(f"steps.{k}", 0) for k in STEPS] + [
            counters.get("cascaded_bytes", 0), counters.get("out_of_window_bytes", 0)]
    return c


def compact(result, params=None):
    """{"phases": {system: {phase: phase_compact}}} of one zsbench result;
    the timeline only for comparisons whose params ask for it."""
    return {"phases": {s["name"]: {p["name"]: phase_compact(p, params) for p in s["phases"]}
                       for s in result["schemes"]}}
