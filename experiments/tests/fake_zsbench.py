#!/usr/bin/env python3
"""A stand-in for zsbench in the runner's tests: parses zsbench's flags,
writes zsbench-shaped JSON (docs/zsbench.md) at once.

FAKE_ZSBENCH (JSON) steers it: "rates" {scheme: [ops/s for seed 1, 2,
...]} (default 100), "fail" {seed: "exit1" | "missing_phase" |
"short_load"}, "fail_scheme" {scheme: "exit1"} (a call that runs
that scheme exits 1); FAKE_ZSBENCH_CALLS names a file that gets a line per call.
"""
import json
import os
import sys


def phase(name, rate, records):
    load = name.endswith("-load")
    ops = records if load else int(rate * 3)
    dev = lambda ur, rb, cw: {"name": "dev", "total": {"read_ops": ur, "read_bytes": rb,
                                                      "write_ops": 1, "write_bytes": cw},
                               "by_class": {"user_read": {"read_ops": ur, "read_bytes": rb, "write_ops": 0,
                                                          "write_bytes": 0},
                                            "compaction": {"read_ops": 0, "read_bytes": 0, "write_ops": 1,
                                                           "write_bytes": cw},
                                            "wal": {"read_ops": 0, "read_bytes": 0, "write_ops": 1,
                                                    "write_bytes": 1000}},
                               "busy_fraction": 0.5, "read_share": 0.5, "zone_resets": 0, "erases": 0}
    hdd = dev(300, 3 << 20, 4 << 20)
    hdd["busy_by_class"] = {"user_read": 0.6, "compaction": 0.3, "migration": 0.05}
    lat = {"count": ops, "mean_us": 900.0, "min_us": 10.0, "p50_us": 800.0, "p99_us": 5000.0 + rate,
           "p999_us": 9000.0, "p9999_us": 20000.0, "max_us": 30000.0}
    return {"name": name, "ops": ops, "seconds": ops / rate, "ops_per_second": rate,
            "user_bytes_written": ops * 1024, "write_amplification": 2.0, "reads_found": ops,
            "reads_missed": 0, "errors": 0, "errors_by_kind": {}, "background_errors": 0,
            "latency": {"INSERT" if load else "READ": lat},
            "timeline": {"interval_seconds": 1.0, "ops": [ops]},
            "devices": [dev(100, 1 << 20, 2 << 20), hdd],
            "samples": [{"t": 1.0, "space": [{"L0": 1 << 20, "wal": 1 << 19}, {"L1": 2 << 20, "L2": 8 << 20}],
                         "zone_utilization_deciles": [[0] * 10, [0] * 10], "gc_bytes": [0, 0],
                         "migration_bytes": [0, 0], "rocksdb": {}}],
            "zone_utilization": [[], []], "rocksdb": {},
            "scheme": {"name": "x", "cache": {"hits": 7}, "migration": {"files_moved": 2},
                       "ssts": [{"number": 1, "level": 1, "on_ssd": True, "reads": 10, "size": 1000},
                                {"number": 2, "level": 2, "on_ssd": False, "reads": 30, "size": 1000}]}}


def main(argv):
    args = {"--workload": "", "--records": "100000", "--seed": "1", "--json": None}
    schemes = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--quiet":
            i += 1
            continue
        if a == "--scheme":
            schemes.append(argv[i + 1].split("=", 1)[0])
        else:
            args[a] = argv[i + 1]
        i += 2
    spec = json.loads(os.environ.get("FAKE_ZSBENCH", "{}"))
    calls = os.environ.get("FAKE_ZSBENCH_CALLS")
    if calls:
        with open(calls, "a") as f:
            f.write(" ".join(argv) + "\n")
    seed, records = int(args["--seed"]), int(args["--records"])
    fail = spec.get("fail", {}).get(str(seed))
    for s in schemes:
        fail = fail or spec.get("fail_scheme", {}).get(s)
    phases = args["--workload"].split(",")
    out = {"format": "zsbench-results", "version": 1,
           "args": {"workload": args["--workload"], "records": records, "seed": seed,
                    "seconds": float(args.get("--seconds", 0))},
           "errors": {"operations": 0, "by_kind": {}, "background": 0}, "schemes": []}
    for s in schemes:
        rate = spec.get("rates", {}).get(s, [100.0] * 10)[seed - 1]
        ps = [phase(p, rate, records) for p in phases]
        if fail == "missing_phase" and s == schemes[-1]:
            ps = ps[:-1]
        if fail == "short_load":
            ps[0]["ops"] = records - 1
        out["schemes"].append({"name": s, "volume": "", "phases": ps})
    with open(args["--json"], "w") as f:
        json.dump(out, f)
    return 1 if fail == "exit1" else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
