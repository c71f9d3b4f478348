"""What the ZoneTier tables need of one zsreplay compare result, small
enough to commit: per scheme a few numbers (names in scheme_compact)."""


def _r(x):
    return float(f"{x:.6g}") if isinstance(x, float) else x


def scheme_compact(j):
    """avg: mean response time in us of all requests, of all requests with
    the placement periods' time (period_ms, between requests) charged to
    them too, of reads, writes, reads
    and writes served by the drive's zones (touching no SSD tier slot; Fig.
    13) and the demotions' chunk writes (Fig. 12). p99, p999: of writes, in
    us. demo_max: the slowest demotion write, us. util: SSD tier
    utilization efficiency. clean: [cleaning runs, zones cleaned, head ms
    cleaning]. prt: [performance recovery ms, episodes]. moves: [promotions,
    demotions, evictions]. nsw: NSWs the drive took. ms: simulated time of
    the replay; behind: it over the trace's span (above 1: the replay fell
    behind the trace, and requests that started late do not count the
    wait). n: requests; nd: [drive-served reads, drive-served writes]."""
    a = j["avg_response_us"]
    t = j["tier"]
    return {"avg": {k: _r(a[k]) for k in ("all", "all_with_periods", "reads", "writes",
                                           "drive_reads", "drive_writes", "demotion_writes")},
            "period_ms": _r(j["period_ms"]),
            "p99": _r(j["write_p99_us"]), "p999": _r(j["write_p999_us"]),
            "demo_max": _r(j["demotion_write_max_us"]),
            "util": _r(j["ssd_tier_utilization"]),
            "clean": [j["media_cache_cleanings"], j["media_cache_cleaned_zones"],
                      _r(j["media_cache_cleaning_ms"])],
            "prt": [_r(j["performance_recovery_ms"]), j["performance_recovery_episodes"]],
            "moves": [t["promotions"], t["demotions"], t["evictions"]],
            "nsw": j["drive_nsw_writes"], "ms": _r(j["simulated_ms"]),
            "behind": _r(j["simulated_ms"] / j["trace_ms"]) if j.get("trace_ms") else None,
            "n": j["requests"], "nd": [j["drive_reads"], j["drive_writes"]]}


def compact(result):
    """{"schemes": {name: scheme_compact}} of one zsreplay compare result."""
    return {"schemes": {s["scheme"]: scheme_compact(s) for s in result["schemes"]
                        if "error" not in s}}


def problems(result, exit_code, schemes, workload):
    """Why a compare run does not count: zsreplay failed, a scheme is
    missing or failed, or a scheme replayed fewer requests than another."""
    out = []
    if exit_code != 0:
        out.append(f"zsreplay exited {exit_code}")
    if result is None:
        return out + ["no JSON result"]
    got = {s.get("scheme"): s for s in result.get("schemes", [])}
    for name in schemes:
        s = got.get(name)
        if s is None:
            out.append(f"scheme {name} missing")
        elif "error" in s:
            out.append(f"{name}: {s['error']}")
        elif s.get("requests") != result.get("trace", {}).get("requests"):
            out.append(f"{name} replayed {s.get('requests')} of "
                       f"{result.get('trace', {}).get('requests')} requests")
    return out
