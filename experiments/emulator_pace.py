#!/usr/bin/env python3
"""Does each emulated preset keep its modeled pace? (docs/emulator.md,
"Keeping pace")

For every preset: `zsctl devbench` once on a simulated clock (timing=sim:
the model's own figures, no host work in them), then --runs times in real
time, each a fresh process so every write is a first touch of fresh memory
(unless --memory reserve), and the measured/model ratio of every test.
--beside runs a RocksDB load (zsbench, its own emulated device) in another
process, started 3 s before each devbench and stopped after it.

Run it alone, like any benchmark: it takes the experiment runner's lock and
refuses to start beside a build or another benchmark.

  experiments/emulator_pace.py                   # 3 runs per preset, alone
  experiments/emulator_pace.py --beside          # while a RocksDB load runs
  experiments/emulator_pace.py --memory reserve  # every zone's memory taken at open
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from runner import guard  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Disks get 2000 zones so a second of sequential writing stays near the
# outer diameter, where the published figures were measured; znh2's SLC
# zones are a quarter of a zone, so it needs 1/16 for a second of writing.
PRESETS = {
    "zn540": "zones=64&scale=1/64",
    "st14000nm0007": "zones=2000&scale=1/64",
    "st13125nm007": "zones=2000&scale=1/64",
    "znh2": "zones=128&scale=1/16",
    "splitzns": "zones=160&scale=1/64",
}
LOAD = ["--workload", "ycsb-a-load", "--records", "1200000", "--quiet",
        "--scheme", "x=zonestack://emu:zn540?zones=128&scale=1/64"]
ROW = re.compile(r"^(?P<test>.+?)\s+(?P<value>[\d.]+)\s+(?P<unit>\S+)\s+(?P<published>[\d.]+|-)"
                 r"\s+(?P<ratio>[\d.]+|-)\s+(?P<cpu>[\d.]+|-)\s+(?P<late>\d+)/(?P<commands>\d+)$")


def parse(out):
    """{test: {value, cpu, late, commands}} from devbench's table."""
    rows = {}
    for line in out.splitlines()[1:]:
        m = ROW.match(line.strip())
        if not m:
            continue
        rows[m["test"]] = {"value": float(m["value"]), "unit": m["unit"],
                           "cpu": None if m["cpu"] == "-" else float(m["cpu"]),
                           "late": int(m["late"]), "commands": int(m["commands"])}
    if not rows:
        raise RuntimeError(f"devbench printed no results:\n{out}")
    return rows


def devbench(zsctl, uri, seconds):
    r = subprocess.run([zsctl, "devbench", uri, "--seconds", str(seconds)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"zsctl devbench {uri} exited {r.returncode}: {r.stderr.strip()}")
    return parse(r.stdout)


def real_run(args, uri):
    """One real-time devbench, with the load beside it if asked. Returns
    its rows and whether the load was still running when it ended."""
    load = None
    if args.beside:
        load = subprocess.Popen([args.zsbench, *LOAD], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        time.sleep(3)
    try:
        rows = devbench(args.zsctl, uri, args.seconds)
    finally:
        ran_through = None
        if load:
            ran_through = load.poll() is None
            load.terminate()
            load.wait()
    return rows, ran_through


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=3, help="real-time runs per preset (default 3)")
    p.add_argument("--seconds", type=float, default=1.0, help="devbench's time per test")
    p.add_argument("--presets", default=",".join(PRESETS), help="comma-separated presets")
    p.add_argument("--memory", choices=["lazy", "reserve"], default="lazy",
                   help="the emulator's memory=: lazy (default) or reserve")
    p.add_argument("--beside", action="store_true", help="a RocksDB load in another process")
    p.add_argument("--json", help="write every run's rows here")
    p.add_argument("--build", default=os.path.join(ROOT, "build"), help="build directory")
    args = p.parse_args()
    args.zsctl = os.path.join(args.build, "src/tools/zsctl")
    args.zsbench = os.path.join(args.build, "src/tools/zsbench")
    presets = args.presets.split(",")
    unknown = [x for x in presets if x not in PRESETS]
    if unknown:
        p.error(f"unknown presets {unknown}; known: {', '.join(PRESETS)}")
    try:
        lock = guard.Lock().acquire()
        guard.check_quiet(ignore_busy=False)
    except guard.Refused as e:
        print(e, file=sys.stderr)
        return e.code

    results = {"memory": args.memory, "beside": args.beside, "seconds": args.seconds, "presets": {}}
    mode = f"memory={args.memory}, " + ("beside a RocksDB load" if args.beside else "alone")
    print(f"measured / model (timing=sim), {args.runs} runs, {mode}")
    print(f"{'preset':<14} {'test':<28} {'model':>12} {'ratios':<24} {'cpu/GBps':>14} {'late':>12}")
    try:
        for preset in presets:
            base = f"emu:{preset}?{PRESETS[preset]}&memory={args.memory}"
            model = devbench(args.zsctl, base + "&timing=sim", args.seconds)
            runs = [real_run(args, base) for _ in range(args.runs)]
            results["presets"][preset] = {"model": model, "runs": [r for r, _ in runs],
                                          "load_ran_through": [t for _, t in runs]}
            for test, m in model.items():
                got = [r[test] for r, _ in runs if test in r]
                ratios = " ".join(f"{g['value'] / m['value']:.3f}" for g in got)
                cpus = [g["cpu"] for g in got if g["cpu"] is not None]
                cpu = f"{min(cpus):.2f}-{max(cpus):.2f}" if cpus else "-"
                late = max(g["late"] / g["commands"] for g in got) if got else 0
                print(f"{preset:<14} {test:<28} {m['value']:>10.1f} {m['unit']:<6}"
                      f"{ratios:<24} {cpu:>14} {late:>11.1%}")
            if args.beside and not all(t for _, t in runs):
                print(f"{preset}: the load beside ended before devbench in some runs")
    except RuntimeError as e:
        print(e, file=sys.stderr)
        return 1
    finally:
        lock.release()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
