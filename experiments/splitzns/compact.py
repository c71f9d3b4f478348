"""What the SplitZNS tables need of one zsbench result, small enough to
commit: per system and phase a few numbers (names in phase_compact)."""

# Latency percentiles kept per operation type (Fig. 10, 13, 14).
LAT = ("p50_us", "p99_us", "p999_us")
COUNTERS = ("wide_zone_files", "subzone_requests", "split_limit_reached")


def _r(x):
    return float(f"{x:.6g}") if isinstance(x, float) else x


def phase_compact(p):
    """ops_s, ops, s: throughput, operations, seconds. lat: per operation
    type [p50, p99, p99.9] in us. wa: device bytes written over user bytes.
    dw: device bytes written (-D of Fig. 11); uw: RocksDB's flush and
    compaction bytes written (-U); gc: [runs, zones reclaimed, bytes
    relocated, seconds] since mount (Fig. 12); stall_us: RocksDB's write
    stall time; comp: [compaction seconds, input bytes, output bytes]
    (Fig. 15's compaction throughput); busy: the device's mean chip busy
    fraction (is the device the bottleneck?); chips: each chip's busy
    fraction (5.4's chip utilization; absent without timing); late:
    commands the emulator finished after their modeled time; errors;
    counters: the splitzns scheme's; to_level: per output level "L<n>"
    [compactions into it, their output bytes, trivial moves into it]
    (where a level's new SSTs come from: a trivial move leaves an SST in
    the zone it was written to)."""
    d = (p.get("devices") or [{}])[0]
    rdb = p.get("rocksdb") or {}
    gc = p.get("gc") or {}
    c = {"ops_s": _r(p.get("ops_per_second", 0.0)), "ops": p.get("ops", 0),
         "s": _r(p.get("seconds", 0.0)),
         "lat": {op: [_r(float(h.get(q, 0.0))) for q in LAT] for op, h in (p.get("latency") or {}).items()},
         "wa": _r(p.get("write_amplification") or 0.0),
         "dw": (d.get("total") or {}).get("write_bytes", 0),
         "uw": rdb.get("flush_write_bytes", 0) + rdb.get("compact_write_bytes", 0),
         "gc": [gc.get("runs", 0), gc.get("zones_reclaimed", 0), gc.get("bytes_relocated", 0),
                _r(gc.get("seconds", 0.0))],
         "stall_us": rdb.get("stall_micros", 0),
         "busy": _r(d.get("busy_fraction", 0.0)),
         "late": d.get("late_commands", 0),
         "errors": p.get("errors", 0)}
    if d.get("busy_by_chip"):
        c["chips"] = [_r(float(x)) for x in d["busy_by_chip"]]
    comp = p.get("compactions")
    if comp:
        c["comp"] = [_r(comp.get("seconds", 0.0)), comp.get("input_bytes", 0), comp.get("output_bytes", 0)]
        if "by_output_level" in comp:  # empty: nothing completed
            c["to_level"] = {lv: [v["count"], v["output_bytes"], v["trivial_moves"]]
                             for lv, v in comp["by_output_level"].items()}
    counters = (p.get("scheme") or {}).get("counters") or {}
    if any(k in counters for k in COUNTERS):
        c["counters"] = [counters.get(k, 0) for k in COUNTERS]
    return c


def phase_names(phases):
    """Each phase's name, a `drain` named after the phase it drains
    ("overwrite+drain"): a drained workload repeats it."""
    names, prev = [], ""
    for p in phases:
        names.append(f"{prev}+drain" if p["name"] == "drain" else p["name"])
        if p["name"] != "drain":
            prev = p["name"]
    return names


def compact(result):
    """{"phases": {system: {phase: phase_compact}}} of one zsbench result."""
    return {"phases": {s["name"]: {n: phase_compact(p) for n, p in zip(phase_names(s["phases"]), s["phases"])}
                       for s in result["schemes"]}}
