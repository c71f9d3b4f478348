"""What the ZnH2 tables need of one zsbench result, kept small enough to
commit: per system and phase a few numbers (field names below)."""
from runner.zsbench import is_load

OPS = ("INSERT", "READ", "UPDATE", "SCAN", "READ-MODIFY-WRITE")
TIMELINE_POINTS = 60


def _r(x):
    return float(f"{x:.6g}") if isinstance(x, float) else x


def nand(dev):
    """[SLC host, SLC migration, QLC host, QLC migration, total] bytes
    programmed, Simple Copy commands, DM Hybrid zone moves."""
    n = dev.get("nand") or {}
    pr = n.get("programmed", {})
    return [pr.get("slc", {}).get("host", 0), pr.get("slc", {}).get("migration", 0),
            pr.get("qlc", {}).get("host", 0), pr.get("qlc", {}).get("migration", 0),
            n.get("programmed_total", 0), n.get("simple_copies", 0), n.get("slc_zone_migrations", 0)]


def timeline(p):
    """[seconds, capacity, used, SLC used] bytes, at most TIMELINE_POINTS
    samples spread over the phase (Fig. 4)."""
    smp = p.get("samples", [])
    step = max(1, -(-len(smp) // TIMELINE_POINTS))
    keep = smp[::step] + ([smp[-1]] if smp and (len(smp) - 1) % step else [])
    return [[_r(x["t"]), x["capacity_bytes"][0], x["used_bytes"][0], x["slc_used_bytes"][0]]
            for x in keep if x.get("capacity_bytes")]


def phase_compact(p, params):
    """ops_s, ops, s: throughput, operations, seconds. busy: the device's
    busy share (its dies' busy time over the phase). late: [commands the
    emulator finished after their modeled completion, all commands].
    nand: see nand(). moved: [cell migration bytes, extents] in the phase.
    lat: per operation type [p99, p99.9, p99.99] us. tl: Fig. 4's
    timeline, for the loads of comparisons that ask for it."""
    d = p["devices"][0]
    t = d.get("total", {})
    cm = p.get("cell_migration") or {}
    c = {"ops_s": _r(p["ops_per_second"]), "ops": p["ops"], "s": _r(p["seconds"]),
         "busy": _r(d.get("busy_fraction", 0.0)),
         "late": [d.get("late_commands", 0), t.get("read_ops", 0) + t.get("write_ops", 0)],
         "reads": t.get("read_ops", 0),
         "nand": nand(d), "moved": [cm.get("bytes_moved", 0), cm.get("extents_moved", 0)],
         "lat": {op: [_r(h.get(k, 0.0)) for k in ("p99_us", "p999_us", "p9999_us")]
                 for op, h in p.get("latency", {}).items() if op in OPS}}
    pages = (d.get("nand") or {}).get("qlc_page_reads")
    if pages:
        c["qlc_reads"] = sum(pages.values())
    if params.get("timeline") and is_load(p["name"]):
        c["tl"] = timeline(p)
    return c


def compact(result, params):
    """{"phases": {system: {phase: phase_compact}}} of one zsbench result."""
    return {"phases": {s["name"]: {p["name"]: phase_compact(p, params) for p in s["phases"]}
                       for s in result["schemes"]}}
