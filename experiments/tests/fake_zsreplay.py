#!/usr/bin/env python3
"""A stand-in for `zsreplay compare` in the runner's tests: writes a
compare-shaped result (docs/zonetier.md) to --json at once. ZoneTier's mean
response is half the baselines' times the seed."""
import json
import sys

args = sys.argv[1:]
assert args[0] == "compare", args
get = lambda flag: args[args.index(flag) + 1]
seed = int(get("--seed"))
schemes = [args[i + 1] for i, a in enumerate(args) if a == "--scheme"]
out = {"trace": {"requests": 10, "seed": seed, "profile": get("--profile")}, "schemes": []}
for s in schemes:
    avg = (50.0 if s == "HA-256-CFC" else 100.0) * seed
    out["schemes"].append({
        "scheme": s, "requests": 10, "drive_reads": 1, "drive_writes": 1,
        "avg_response_us": {"all": avg, "all_with_periods": avg, "reads": avg, "writes": avg, "drive_reads": avg,
                            "drive_writes": avg, "demotion_writes": 0.0},
        "write_p99_us": avg, "write_p999_us": avg, "demotion_write_max_us": 0.0,
        "ssd_tier_utilization": 0.5, "media_cache_cleanings": 0, "media_cache_cleaned_zones": 0,
        "media_cache_cleaning_ms": 0.0, "performance_recovery_ms": 0.0,
        "performance_recovery_episodes": 0, "drive_nsw_writes": 0, "simulated_ms": 1.0,
        "trace_ms": 1.0, "period_ms": 0.0, "tier": {"promotions": 0, "demotions": 0, "evictions": 0}})
with open(get("--json"), "w") as f:
    json.dump(out, f)
