"""Ratios of the peer benchmark (experiments/peer/zenfs_peer.sh): from each
round's db_bench outputs, ZoneStack/ZenFS (ZoneStack as it is, and with
ZenFS's no-op Flush: zsnoflush), ZoneStack/ext4 and ZenFS/ext4 throughput
per workload, as median (min-max) over the rounds, printed and
written as JSON with what produced them. `report.py --markdown JSON`
prints a written JSON's ratios and cache flushes as the Markdown tables
the README shows."""
import argparse
import json
import re
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

RUN = re.compile(r"v(\d+)\.(\w+)\.(\w+)\.(\d+)\.(\w+)\.txt$")
OPS = re.compile(r"^(\w+)\s+:\s+[\d.]+ micros/op (\d+) ops/sec", re.M)
RATIOS = (("zonestack", "zenfs"), ("zsnoflush", "zenfs"), ("zonestack", "ext4"),
          ("zenfs", "ext4"))


def load(runs):
    """{(value_size, setting, ns): {round: {system: {benchmark: ops/s}}}}"""
    table = defaultdict(lambda: defaultdict(dict))
    io = defaultdict(lambda: defaultdict(dict))
    for path in sorted(Path(runs).glob("*.txt")):
        m = RUN.match(path.name)
        if not m:
            continue
        vsize, setting, ns, rnd, system = m.groups()
        found = {name: float(ops) for name, ops in OPS.findall(path.read_text())}
        table[(int(vsize), setting, ns)][int(rnd)][system] = found
        io[(int(vsize), setting, ns)][int(rnd)][system] = block_io(path.with_name(path.name + ".stat"))
    return table, io


# /sys/block/NS/stat's fields (Documentation/block/stat.rst) kept per run.
STAT_FIELDS = {"reads": 0, "read_sectors": 2, "writes": 4, "write_sectors": 6,
               "io_ms": 9, "flushes": 15, "flush_ms": 16}


def block_io(path):
    """The namespace's block-layer counters over a run (guest.sh's RUN.stat:
    the counters before and after), or None."""
    if not path.exists():
        return None
    lines = [list(map(int, line.split())) for line in path.read_text().splitlines() if line.strip()]
    if len(lines) != 2 or len(lines[0]) < 17:
        return None
    return {name: lines[1][i] - lines[0][i] for name, i in STAT_FIELDS.items()}


def spread(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "n": len(values)}


def fmt(cell):
    return f"{cell['median']:.2f} ({cell['min']:.2f}-{cell['max']:.2f})" if cell else "-"


# What the table header says of each SETTLE setting (zenfs_peer.sh).
SETTLE_NOTE = {"1": ", waitforcompaction before reads", "compact": ", a full compaction before reads"}


def markdown(path):
    """The ratio table of each cell (value size, setting, namespace) and the
    block-layer counters per round, from a JSON report.py wrote."""
    result = json.loads(Path(path).read_text())
    s = result["settings"]
    print(f"commit {result['commit'][:7]}{' (dirty tree)' if result['dirty'] else ''}, "
          f"{result['build_type']}, QEMU {result['accel'].upper()}, ZenFS {result['zenfs']}, "
          f"write cache {s.get('WRITE_CACHE', 'back')}, {s['PAIRS']} rounds, --num={s['NUM']}"
          f"{SETTLE_NOTE.get(s.get('SETTLE', '0'), '')}")
    cells = defaultdict(list)
    for row in result["ratios"]:
        cells[(row["value_size"], row["setting"], row["namespace"])].append(row)
    names = [f"{a}/{b}" for a, b in RATIOS]
    for (vsize, setting, ns), rows in sorted(cells.items()):
        print(f"\n{vsize} B values, {setting} I/O, {ns}: throughput ratio, median (min-max)\n")
        print("| workload | " + " | ".join(names) + " |")
        print("|---" * (len(names) + 1) + "|")
        for row in rows:
            print(f"| {row['benchmark']} | " + " | ".join(fmt(row.get(n)) for n in names) + " |")
        print("\ncache flushes (device busy, s) per round of the workloads\n")
        runs = [r for r in result["runs"]
                if (r["value_size"], r["setting"], r["namespace"]) == (vsize, setting, ns)]
        systems = sorted({name for r in runs for name in (r["block_io"] or {})})
        print("| round | " + " | ".join(systems) + " |")
        print("|---" * (len(systems) + 1) + "|")
        for r in runs:
            io = r["block_io"] or {}
            print(f"| {r['round']} | " + " | ".join(
                f"{io[name]['flushes']:,} ({io[name]['io_ms'] / 1000:.1f})" if io.get(name) else "-"
                for name in systems) + " |")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--markdown":
        markdown(sys.argv[2])
        return
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", help="the VM's results directory (peer.env, runs/)")
    p.add_argument("json")
    p.add_argument("--accel", required=True)
    p.add_argument("--build_type", required=True)
    p.add_argument("--zenfs", required=True)
    args = p.parse_args()
    env = dict(line.split("=", 1) for line in
               Path(args.out, "peer.env").read_text().splitlines() if "=" in line)
    benchmarks = env["BENCHMARKS"].split(",")
    git = lambda *a: subprocess.run(["git", *a], capture_output=True, text=True).stdout.strip()
    result = {
        "what": "db_bench ops/sec through LD_PRELOAD of each plugin on the same kernel "
                "ZNS namespace, and on ext4 on a conventional namespace",
        # As the run started (zenfs_peer.sh); an older peer.env has neither.
        "commit": env.get("COMMIT") or git("rev-parse", "HEAD"),
        "dirty": env["DIRTY"] == "1" if "DIRTY" in env
                 else bool(git("status", "--porcelain", "--untracked-files=no")),
        "build_type": args.build_type,
        "accel": args.accel,
        "zenfs": args.zenfs,
        "settings": {k: env[k].strip('"') for k in ("NUM", "PAIRS", "VALUE_SIZES", "BENCHMARKS", "SETTINGS", "NAMESPACES",
                                                       "WRITE_CACHE", "SETTLE")
                     if k in env},
        "runs": [],
        "ratios": [],
    }
    print(f"throughput ratios, median (min-max) over rounds; QEMU {args.accel.upper()}, "
          f"write cache {env.get('WRITE_CACHE', 'back')}")
    table, io = load(Path(args.out, "runs"))
    for (vsize, setting, ns), rounds in sorted(table.items()):
        for rnd, systems in sorted(rounds.items()):
            result["runs"].append({"value_size": vsize, "setting": setting, "namespace": ns,
                                   "round": rnd, "ops": systems,
                                   "block_io": io[(vsize, setting, ns)][rnd]})
            for system, counts in sorted(io[(vsize, setting, ns)][rnd].items()):
                if counts:
                    print(f"  v{vsize} {setting:<7} {ns} round {rnd} {system:<10} block I/O: " +
                          " ".join(f"{k}={v}" for k, v in counts.items()))
        for bench in benchmarks:
            row = {"value_size": vsize, "setting": setting, "namespace": ns, "benchmark": bench}
            cells = []
            for a, b in RATIOS:
                r = [s[a][bench] / s[b][bench] for s in rounds.values()
                     if bench in s.get(a, {}) and s.get(b, {}).get(bench)]
                if r:
                    row[f"{a}/{b}"] = spread(r)
                    cells.append(f"{a}/{b} {statistics.median(r):.2f} ({min(r):.2f}-{max(r):.2f})")
                else:
                    cells.append(f"{a}/{b} -")
            result["ratios"].append(row)
            print(f"  v{vsize} {setting:<7} {ns} {bench:<16} " + "  ".join(cells))
    Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
