#!/usr/bin/env python3
"""Figures from zsbench results files (schema: docs/zsbench.md).

    plot.py RESULTS.json [RESULTS2.json ...] --out DIR [--baseline SCHEME]
            [--paper-ref CSV] [--dpi N]
    plot.py --selftest

Schemes from several files are plotted together, in the order given; a
scheme name seen twice gets its file's name appended. Phases are matched
across schemes by name (a workload repeated within a run becomes "NAME #2").
Figures written to DIR, each skipped with a line on stderr when no scheme
has its data (posix: schemes have no devices, so no space, zone or device
figures for them):

  throughput.png            ops/s per phase per scheme, grouped bars
                            normalized to the baseline scheme (default: the
                            first), absolute ops/s written in each bar
                            (HHZS Fig. 6 style)
  timeline.png              ops/s over each phase, one line per scheme
  latency.png               p50/p99/p99.9/p99.99 per phase and operation
                            type, one bar per scheme (HHZS Fig. 10 style)
  space_area_SCHEME.png     live bytes per device by holder (wal, L0..L6,
                            sst, manifest, other) over time, stacked
  space_box_SCHEME.png      the same samples as boxplots per holder, per
                            phase (HHZS Fig. 2(a) style)
  zone_utilization.png      CDF of the valid fraction of written data zones
                            per device at the end of each phase
                            (GearDB Fig. 4(b)/17(e-h) style)
  device_io.png             bytes written and read per device per phase,
                            stacked by I/O class

--paper-ref CSV: numbers read off a paper, drawn as hollow black markers on
throughput.png over the bar of the same scheme and phase. Format: one row
per value, `scheme,phase,value`; `value` is the paper's throughput
normalized to the paper's own baseline (so 1.0 for the baseline), i.e. the
same quantity as the bars. Use this run's scheme and phase names (map the
paper's B3/HHZS to what you called them). A header row whose third field
is not a number, blank lines and lines starting with '#' are skipped; rows
naming a scheme or phase absent from the results are reported and ignored.
Example:

    # HHZS §4.2 Exp#2: P is 18.0% above B3 in W1, 1.4% below in W3
    scheme,phase,value
    b3,hhzs-w1,1.0
    p,hhzs-w1,1.180
    p,hhzs-w3,0.986

--selftest renders every figure from synthetic results into a temporary
directory and exits non-zero if any is missing; no zsbench run needed.

Needs only matplotlib (experiments/requirements.txt); no network access.
"""

import argparse
import csv
import json
import math
import os
import re
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MIB = float(1 << 20)
PERCENTILES = [("p50_us", "p50"), ("p99_us", "p99"), ("p999_us", "p99.9"), ("p9999_us", "p99.99")]
HOLDERS = ["wal"] + [f"L{i}" for i in range(7)] + ["sst", "manifest", "other"]
IO_CLASSES = ["wal", "flush", "compaction", "user_read", "migration", "gc", "cache", "metadata",
              "other"]


def warn(msg):
    print(f"plot.py: {msg}", file=sys.stderr)


# ---------------------------------------------------------------- loading

def load_results(paths):
    """Returns the schemes of all files, in order, each a dict as in the JSON
    plus "args" (its file's args); names made unique."""
    schemes, seen = [], set()
    for path in paths:
        with open(path) as f:
            r = json.load(f)
        if r.get("format") != "zsbench-results":
            raise ValueError(f"{path}: not a zsbench results file (format={r.get('format')!r})")
        if r.get("version") != 1:
            warn(f"{path}: version {r.get('version')}, expected 1; plotting anyway")
        stem = os.path.splitext(os.path.basename(path))[0]
        for s in r.get("schemes", []):
            s = dict(s)
            s["args"] = r.get("args", {})
            # A workload may be run twice in one run (ycsb-a,ycsb-a): number
            # the repeats so phases still match across schemes by name.
            count = {}
            for i, p in enumerate(s.get("phases", [])):
                count[p["name"]] = count.get(p["name"], 0) + 1
                if count[p["name"]] > 1:
                    s["phases"][i] = dict(p, name=f"{p['name']} #{count[p['name']]}")
            if s["name"] in seen:
                s["name"] = f"{s['name']} ({stem})"
            seen.add(s["name"])
            schemes.append(s)
    return schemes


def phase_names(schemes):
    """Phase names in order of first appearance."""
    names = []
    for s in schemes:
        for p in s["phases"]:
            if p["name"] not in names:
                names.append(p["name"])
    return names


def find_phase(scheme, name):
    for p in scheme["phases"]:
        if p["name"] == name:
            return p
    return None


def device_labels(phase):
    """Device labels by index: the name, with [i] when a name repeats."""
    names = [d["name"] for d in phase.get("devices", [])]
    return [f"{n}[{i}]" if names.count(n) > 1 else n for i, n in enumerate(names)]


def has_devices(scheme):
    return any(p.get("devices") for p in scheme["phases"])


def phase_end(phase):
    """Seconds from the phase's start to its last sample (its end)."""
    if phase.get("samples"):
        return phase["samples"][-1]["t"]
    tl = phase.get("timeline", {})
    return len(tl.get("ops", [])) * tl.get("interval_seconds", 0) or phase.get("seconds", 0)


def timeline_edges(phase):
    """Interval edges (seconds since phase start) for timeline.ops. Samples are
    taken when each interval closes, so their t are the exact right edges
    (the last interval is usually shorter); otherwise nominal intervals."""
    ops = phase["timeline"]["ops"]
    samples = phase.get("samples", [])
    if len(samples) == len(ops):
        return [0.0] + [s["t"] for s in samples]
    dt = phase["timeline"]["interval_seconds"]
    return [i * dt for i in range(len(ops) + 1)]


def fmt_rate(x):
    if x >= 1e6:
        return f"{x / 1e6:.2f}M"
    if x >= 1e3:
        return f"{x / 1e3:.1f}k"
    return f"{x:.0f}"


def no_devices_note(schemes):
    names = [s["name"] for s in schemes if not has_devices(s)]
    return f"\n(no devices: {', '.join(names)})" if names else ""


def safe(name):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def grid(n, ncols):
    ncols = max(1, min(n, ncols))
    return math.ceil(n / ncols), ncols


def finish(fig, out, name, dpi, written):
    path = os.path.join(out, name)
    fig.savefig(path, dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    written.append(path)


def color_of(i):
    return plt.get_cmap("tab10")(i % 10)


def holder_colors():
    # Distinct hues, so neighbouring levels in a stack are told apart.
    cmap = plt.get_cmap("tab10")
    order = {"wal": 3, "L0": 0, "L1": 1, "L2": 2, "L3": 4, "L4": 5, "L5": 6, "L6": 8, "sst": 7,
             "manifest": 9}
    colors = {h: cmap(i) for h, i in order.items()}
    colors["other"] = "#333333"
    return colors


# ---------------------------------------------------------------- paper reference

def load_paper_ref(path):
    """Returns {(scheme, phase): value} from a scheme,phase,value CSV."""
    ref = {}
    with open(path, newline="") as f:
        for lineno, row in enumerate(csv.reader(f), 1):
            if not row or not "".join(row).strip() or row[0].lstrip().startswith("#"):
                continue
            if len(row) < 3:
                raise ValueError(f"{path}:{lineno}: expected scheme,phase,value")
            try:
                value = float(row[2])
            except ValueError:
                if lineno == 1 or not ref:
                    continue  # header
                raise ValueError(f"{path}:{lineno}: value {row[2]!r} is not a number")
            ref[(row[0].strip(), row[1].strip())] = value
    return ref


# ---------------------------------------------------------------- (a) throughput

def plot_throughput(schemes, out, dpi, written, baseline=None, paper_ref=None):
    phases = phase_names(schemes)
    base = next((s for s in schemes if s["name"] == baseline), None) if baseline else schemes[0]
    if base is None:
        raise ValueError(f"--baseline {baseline}: no such scheme")
    ref_used = set()
    cols = []  # phases plotted
    for ph in phases:
        b = find_phase(base, ph)
        if b is None or b["ops_per_second"] <= 0:
            warn(f"throughput: phase {ph} has no {base['name']} throughput to normalize to; "
                 "skipped")
            continue
        cols.append(ph)
    if not cols:
        warn("throughput: nothing to plot; skipped")
        return
    n = len(schemes)
    width = 0.8 / n
    fig, ax = plt.subplots(figsize=(max(6, 1.2 + len(cols) * (0.6 + 0.5 * n)), 4.5))
    top, labeled = 1.0, set()
    for i, s in enumerate(schemes):
        for x, ph in enumerate(cols):
            p = find_phase(s, ph)
            if p is None:
                continue
            norm = p["ops_per_second"] / find_phase(base, ph)["ops_per_second"]
            xpos = x - 0.4 + width * (i + 0.5)
            ax.bar(xpos, norm, width, color=color_of(i),
                   label=None if s["name"] in labeled else s["name"])
            labeled.add(s["name"])
            # Absolute ops/s inside the bar's foot, clear of the paper's markers.
            ax.annotate(f"{fmt_rate(p['ops_per_second'])} ops/s", (xpos, 0),
                        textcoords="offset points", xytext=(0, 3), ha="center", va="bottom",
                        fontsize=7, rotation=90,
                        bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.7))
            top = max(top, norm)
            if paper_ref and (s["name"], ph) in paper_ref:
                v = paper_ref[(s["name"], ph)]
                ref_used.add((s["name"], ph))
                ax.plot(xpos, v, marker="D", markersize=8, markerfacecolor="none",
                        markeredgecolor="black", markeredgewidth=1.5, linestyle="none",
                        label="paper" if len(ref_used) == 1 else None, zorder=5)
                top = max(top, v)
    if paper_ref:
        for key in sorted(set(paper_ref) - ref_used):
            warn(f"--paper-ref: no bar for scheme {key[0]!r} phase {key[1]!r}; ignored")
    ax.axhline(1.0, color="gray", linewidth=0.8, linestyle="--")
    ax.set_xticks(range(len(cols)))
    tilt = len(cols) > 4
    ax.set_xticklabels(cols, rotation=20 if tilt else 0, ha="right" if tilt else "center")
    ax.set_ylim(0, top * 1.25)
    ax.set_ylabel(f"throughput normalized to {base['name']}")
    ax.set_xlabel("phase (in each bar: absolute throughput)")
    ax.set_title(f"Throughput per phase, relative to {base['name']}")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    finish(fig, out, "throughput.png", dpi, written)


# ---------------------------------------------------------------- (b) timeline

def plot_timeline(schemes, out, dpi, written):
    phases = [ph for ph in phase_names(schemes)
              if any((p := find_phase(s, ph)) and p.get("timeline", {}).get("ops")
                     for s in schemes)]
    if not phases:
        warn("timeline: no timeline data; skipped")
        return
    nr, nc = grid(len(phases), 2)
    fig, axes = plt.subplots(nr, nc, figsize=(6.5 * nc, 3.2 * nr), squeeze=False)
    for k, ph in enumerate(phases):
        ax = axes[k // nc][k % nc]
        for i, s in enumerate(schemes):
            p = find_phase(s, ph)
            if not p or not p.get("timeline", {}).get("ops"):
                continue
            edges = timeline_edges(p)
            ops = p["timeline"]["ops"]
            rates = [o / (b - a) if b > a else 0 for o, a, b in zip(ops, edges, edges[1:])]
            ax.stairs(rates, edges, color=color_of(i), linewidth=1.5, label=s["name"])
        # The timeline counts warm-up operations too; shade the warm-up.
        warmup = max((s["args"].get("warmup") or 0) for s in schemes)
        if warmup > 0:
            ax.axvspan(0, warmup, color="gray", alpha=0.15, label="warm-up (not measured)")
        ax.set_title(ph)
        ax.set_xlabel("seconds since phase start")
        ax.set_ylabel("ops/s")
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=8)
    for k in range(len(phases), nr * nc):
        axes[k // nc][k % nc].set_visible(False)
    fig.suptitle("Throughput over time (operations finished per sample interval)")
    fig.tight_layout()
    finish(fig, out, "timeline.png", dpi, written)


# ---------------------------------------------------------------- (c) latency

def plot_latency(schemes, out, dpi, written):
    panels = []  # (phase, op type)
    for ph in phase_names(schemes):
        for s in schemes:
            p = find_phase(s, ph)
            for t in (p or {}).get("latency", {}):
                if (ph, t) not in panels and p["latency"][t]["count"] > 0:
                    panels.append((ph, t))
    if not panels:
        warn("latency: no latency histograms; skipped")
        return
    nr, nc = grid(len(panels), 3)
    fig, axes = plt.subplots(nr, nc, figsize=(4.8 * nc, 3.4 * nr), squeeze=False)
    n = len(schemes)
    width = 0.8 / n
    for k, (ph, t) in enumerate(panels):
        ax = axes[k // nc][k % nc]
        for i, s in enumerate(schemes):
            p = find_phase(s, ph)
            h = (p or {}).get("latency", {}).get(t)
            if not h or h["count"] == 0:
                continue
            xs = [x - 0.4 + width * (i + 0.5) for x in range(len(PERCENTILES))]
            ax.bar(xs, [max(h[key], 1e-3) for key, _ in PERCENTILES], width, color=color_of(i),
                   label=f"{s['name']} (n={h['count']})")
        ax.set_yscale("log")
        ax.set_xticks(range(len(PERCENTILES)))
        ax.set_xticklabels([label for _, label in PERCENTILES])
        ax.set_ylabel("latency (µs, log)")
        ax.set_title(f"{ph}: {t}")
        ax.legend(fontsize=7)
    for k in range(len(panels), nr * nc):
        axes[k // nc][k % nc].set_visible(False)
    fig.suptitle("Latency percentiles per phase and operation type")
    fig.tight_layout()
    finish(fig, out, "latency.png", dpi, written)


# ---------------------------------------------------------------- (d) space

def ordered_holders(found):
    return [h for h in HOLDERS if h in found] + sorted(set(found) - set(HOLDERS))


def plot_space(schemes, out, dpi, written):
    colors = holder_colors()
    any_plotted = False
    for s in schemes:
        phases = [p for p in s["phases"] if p.get("devices") and
                  any(smp.get("space") for smp in p.get("samples", []))]
        if not phases:
            warn(f"space: scheme {s['name']} has no device space samples; skipped")
            continue
        any_plotted = True
        labels = device_labels(phases[0])
        ndev = len(labels)
        # Stacked areas over a time axis through all phases.
        fig, axes = plt.subplots(ndev, 1, figsize=(9, 2.8 * ndev), squeeze=False, sharex=True)
        offset = 0.0
        xs, per_dev = [], [dict() for _ in range(ndev)]
        bounds = []
        for p in phases:
            for smp in p["samples"]:
                xs.append(offset + smp["t"])
                for d in range(ndev):
                    space = smp["space"][d] if d < len(smp["space"]) else {}
                    for h in space:
                        per_dev[d].setdefault(h, None)
            bounds.append((p["name"], offset, offset + phase_end(p)))
            offset += phase_end(p)
        for d in range(ndev):
            ax = axes[d][0]
            holders = ordered_holders(per_dev[d])
            ys = []
            for h in holders:
                ys.append([smp["space"][d].get(h, 0) / MIB if d < len(smp["space"]) else 0
                           for p in phases for smp in p["samples"]])
            if holders and len(xs) >= 2:
                ax.stackplot(xs, ys, labels=holders, colors=[colors.get(h) for h in holders],
                             alpha=0.9)
            elif holders:
                bottom = 0
                for h, y in zip(holders, ys):
                    # One sample: a bar ending at its time.
                    ax.bar(xs, y, bottom=bottom, width=-0.05 * max(offset, 1e-3), align="edge",
                           color=colors.get(h), label=h)
                    bottom += y[0]
            else:
                ax.text(0.5, 0.5, "no live data", transform=ax.transAxes, ha="center")
            # Sample times: the areas are interpolated between them.
            ax.plot(xs, [0] * len(xs), "|", color="black", markersize=6, clip_on=False)
            for name, a, b in bounds:
                ax.axvline(a, color="black", linewidth=0.6, linestyle=":")
                ax.text((a + b) / 2, 1.01, name, transform=ax.get_xaxis_transform(),
                        ha="center", va="bottom", fontsize=8)
            ax.set_xlim(0, max(offset, 1e-9))
            ax.set_ylabel(f"{labels[d]}\nlive data (MiB)")
            if holders:
                ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        axes[-1][0].set_xlabel("seconds since the first phase started (phases back to back; "
                               "ticks: samples)")
        fig.suptitle(f"{s['name']}: space per device by holder over time", y=1.0)
        fig.tight_layout()
        finish(fig, out, f"space_area_{safe(s['name'])}.png", dpi, written)

        # Boxplots per holder, one panel per device and phase.
        fig, axes = plt.subplots(ndev, len(phases), figsize=(max(4.5, 0.45 * len(HOLDERS)) *
                                 len(phases), 3.0 * ndev), squeeze=False)
        for d in range(ndev):
            holders = ordered_holders(per_dev[d])
            for c, p in enumerate(phases):
                ax = axes[d][c]
                data = [[(smp["space"][d].get(h, 0) if d < len(smp["space"]) else 0) / MIB
                         for smp in p["samples"]] for h in holders]
                if holders:
                    ax.boxplot(data, whis=(0, 100), widths=0.6)  # whiskers: min and max
                    ax.set_xticks(range(1, len(holders) + 1))
                    ax.set_xticklabels(holders, fontsize=8)
                else:
                    ax.text(0.5, 0.5, "no live data", transform=ax.transAxes, ha="center")
                ax.set_title(f"{labels[d]}, {p['name']} ({len(p['samples'])} samples)", fontsize=9)
                ax.set_ylabel("live data (MiB)")
        fig.suptitle(f"{s['name']}: space per holder across samples "
                     "(box: quartiles and median; whiskers: min, max)")
        fig.tight_layout()
        finish(fig, out, f"space_box_{safe(s['name'])}.png", dpi, written)
    if not any_plotted:
        warn("space: no scheme has devices; skipped")


# ---------------------------------------------------------------- (e) zone utilization

def plot_zone_utilization(schemes, out, dpi, written):
    phases = phase_names(schemes)
    devs = []  # device labels, in order of first appearance
    for s in schemes:
        for p in s["phases"]:
            for lab, zu in zip(device_labels(p), p.get("zone_utilization", [])):
                if zu and lab not in devs:
                    devs.append(lab)
    cells = [(d, ph) for d in devs for ph in phases
             if any((p := find_phase(s, ph)) and d in device_labels(p) and
                    p["zone_utilization"][device_labels(p).index(d)] for s in schemes)]
    if not cells:
        warn("zone_utilization: no written data zones in any scheme; skipped")
        return
    nc = len(phases)
    fig, axes = plt.subplots(len(devs), nc, figsize=(4.2 * nc, 3.2 * len(devs)), squeeze=False)
    for r, dev in enumerate(devs):
        for c, ph in enumerate(phases):
            ax = axes[r][c]
            if (dev, ph) not in cells:
                ax.set_visible(False)
                continue
            for i, s in enumerate(schemes):
                p = find_phase(s, ph)
                if not p or dev not in device_labels(p):
                    continue
                zu = sorted(p["zone_utilization"][device_labels(p).index(dev)])
                if not zu:
                    continue
                n = len(zu)
                ax.step([0.0] + [100 * u for u in zu] + [100.0],
                        [0.0] + [(k + 1) / n for k in range(n)] + [1.0],
                        where="post", color=color_of(i), linewidth=1.5,
                        label=f"{s['name']} ({n} zones, mean {100 * sum(zu) / n:.0f}%)")
            ax.set_xlim(-2, 102)
            ax.set_ylim(0, 1.02)
            ax.set_xlabel("zone valid data (% of zone capacity)")
            ax.set_ylabel("fraction of zones (CDF)")
            ax.set_title(f"{dev}, end of {ph}", fontsize=10)
            ax.legend(fontsize=7, loc="upper left")
    fig.suptitle("Zone space utilization of written data zones (CDF)" + no_devices_note(schemes))
    fig.tight_layout()
    finish(fig, out, "zone_utilization.png", dpi, written)


# ---------------------------------------------------------------- (f) device I/O

def plot_device_io(schemes, out, dpi, written):
    phases = [ph for ph in phase_names(schemes)
              if any((p := find_phase(s, ph)) and p.get("devices") for s in schemes)]
    if not phases:
        warn("device_io: no scheme has devices; skipped")
        return
    classes = []
    for s in schemes:
        for p in s["phases"]:
            for d in p.get("devices", []):
                classes += [c for c in d.get("by_class", {}) if c not in classes]
    classes = [c for c in IO_CLASSES if c in classes] + sorted(set(classes) - set(IO_CLASSES))
    cmap = plt.get_cmap("tab10")
    colors = {c: cmap(IO_CLASSES.index(c) if c in IO_CLASSES else 9) for c in classes}
    nbars = max(sum(len((find_phase(s, ph) or {}).get("devices", [])) for s in schemes)
                for ph in phases)
    fig, axes = plt.subplots(2, len(phases), figsize=(max(4.0, 0.9 * nbars + 1.5) * len(phases), 7),
                             squeeze=False)
    for c, ph in enumerate(phases):
        bars = []  # (label, device dict)
        for s in schemes:
            p = find_phase(s, ph)
            for lab, d in zip(device_labels(p) if p else [], (p or {}).get("devices", [])):
                bars.append((f"{s['name']}\n{lab}", d))
        for r, (key, what) in enumerate((("write_bytes", "written"), ("read_bytes", "read"))):
            ax = axes[r][c]
            bottom = [0.0] * len(bars)
            for cls in classes:
                ys = [d.get("by_class", {}).get(cls, {}).get(key, 0) / MIB for _, d in bars]
                if any(ys):
                    ax.bar(range(len(bars)), ys, 0.7, bottom=bottom, color=colors[cls], label=cls)
                    bottom = [b + y for b, y in zip(bottom, ys)]
            ax.set_xticks(range(len(bars)))
            ax.set_xticklabels([b[0] for b in bars], fontsize=7)
            ax.set_ylim(0, max(bottom + [1e-3]) * 1.12)
            ax.set_ylabel(f"MiB {what}")
            ax.set_title(f"{ph}: bytes {what}", fontsize=10)
            if any(bottom):
                ax.legend(fontsize=7)
            else:
                ax.text(0.5, 0.5, f"nothing {what}", transform=ax.transAxes, ha="center")
    fig.suptitle("Device traffic per phase by I/O class" + no_devices_note(schemes))
    fig.tight_layout()
    finish(fig, out, "device_io.png", dpi, written)


# ---------------------------------------------------------------- driver

def plot_all(schemes, out, dpi=120, baseline=None, paper_ref=None):
    os.makedirs(out, exist_ok=True)
    written = []
    if not schemes:
        warn("no schemes in the results")
        return written
    plot_throughput(schemes, out, dpi, written, baseline, paper_ref)
    plot_timeline(schemes, out, dpi, written)
    plot_latency(schemes, out, dpi, written)
    plot_space(schemes, out, dpi, written)
    plot_zone_utilization(schemes, out, dpi, written)
    plot_device_io(schemes, out, dpi, written)
    return written


def synthetic_results():
    """A results dict shaped like ToJson's: one single-device zoned scheme,
    one two-device hybrid scheme with levels, one posix scheme."""
    def hist(base):
        return {"count": 1000, "mean_us": base * 1.3, "min_us": base / 3, "p50_us": base,
                "p99_us": base * 5, "p999_us": base * 40, "p9999_us": base * 200,
                "max_us": base * 300}

    def counters(w, r):
        return {"read_ops": r // 4096, "read_bytes": r, "write_ops": w // 65536, "write_bytes": w}

    def phase(name, scale, devices):
        n = 8
        types = {"INSERT": hist(9 * scale)} if name.endswith("load") else \
            {"READ": hist(14 * scale), "UPDATE": hist(10 * scale)}
        samples = []
        for k in range(n):
            space = []
            for d in range(devices):
                grow = (k + 1) * (1 << 20)
                space.append({"wal": 1 << 20, "L0": grow * 2, "L1": grow * 3, "L2": grow * 5,
                              "manifest": 4096} if d == 0 else {"L2": grow, "L3": grow * 8})
            samples.append({"t": 0.25 * (k + 1) - (0.1 if k == n - 1 else 0), "space": space,
                            "zone_utilization_deciles": [[1, 0, 2, 0, 0, 0, 1, 0, 3, 4]] * devices,
                            "gc_bytes": [0] * devices, "migration_bytes": [0] * devices,
                            "rocksdb": {"stall_micros": 0}})
        dev = []
        for d in range(devices):
            dev.append({"name": "zn540" if d == 0 else "st14000nm0007",
                        "total": counters(60 << 20, 20 << 20), "busy_fraction": 0.3,
                        "read_share": 1.0 / devices, "zone_resets": 3, "erases": 0,
                        "by_class": {"wal": counters(20 << 20, 0),
                                     "flush": counters(15 << 20, 0),
                                     "compaction": counters(25 << 20, 0),
                                     "user_read": counters(0, 20 << 20)}})
        return {"name": name, "ops": 10000, "seconds": 1.9, "ops_per_second": 10000 / 1.9 / scale,
                "user_bytes_written": 10 << 20, "write_amplification": 6.0 * devices,
                "reads_found": 0, "reads_missed": 0, "errors": 0, "latency": types,
                "timeline": {"interval_seconds": 0.25, "ops": [1000 + 100 * k for k in range(n)]},
                "devices": dev,
                "samples": samples if devices else [
                    {"t": x["t"], "space": [], "zone_utilization_deciles": [], "gc_bytes": [],
                     "migration_bytes": [], "rocksdb": {}} for x in samples],
                "zone_utilization": [[0.0, 0.05, 0.5, 0.9, 0.97, 1.0, 1.0][: 4 + d]
                                     for d in range(devices)],
                "rocksdb": {"stall_micros": 0, "compact_write_bytes": 1 << 20}}

    schemes = [("zns", 1.0, 1), ("hybrid", 0.8, 2), ("posix", 0.7, 0)]
    return {"format": "zsbench-results", "version": 1,
            "args": {"workload": "ycsb-a-load,ycsb-a", "warmup": 0.0},
            "schemes": [{"name": n, "volume": "synthetic",
                         "phases": [phase("ycsb-a-load", sc, d), phase("ycsb-a", sc, d)]}
                        for n, sc, d in schemes]}


def selftest():
    try:
        return run_selftest()
    except Exception:  # a figure that crashes is a failure, not a traceback
        import traceback
        traceback.print_exc()
        print("selftest FAILED: exception above", file=sys.stderr)
        return 1


def run_selftest():
    expected = ["throughput.png", "timeline.png", "latency.png", "space_area_zns.png",
                "space_box_zns.png", "space_area_hybrid.png", "space_box_hybrid.png",
                "zone_utilization.png", "device_io.png"]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "r.json")
        with open(path, "w") as f:
            json.dump(synthetic_results(), f)
        ref = os.path.join(tmp, "ref.csv")
        with open(ref, "w") as f:
            f.write("# test\nscheme,phase,value\nzns,ycsb-a,1.0\nhybrid,ycsb-a,1.3\n")
        paper = load_paper_ref(ref)
        if paper != {("zns", "ycsb-a"): 1.0, ("hybrid", "ycsb-a"): 1.3}:
            failures.append(f"paper-ref parse: {paper}")
        out = os.path.join(tmp, "out")
        written = plot_all(load_results([path]), out, dpi=60, paper_ref=paper)
        for name in expected:
            p = os.path.join(out, name)
            if not os.path.isfile(p) or os.path.getsize(p) == 0:
                failures.append(f"missing {name}")
        extra = sorted(set(map(os.path.basename, written)) - set(expected))
        if extra:
            failures.append(f"unexpected figures {extra}")
        # A posix-only run: device figures are skipped, the rest still drawn.
        posix = synthetic_results()
        posix["schemes"] = posix["schemes"][2:]
        with open(path, "w") as f:
            json.dump(posix, f)
        out2 = os.path.join(tmp, "out2")
        got = sorted(map(os.path.basename, plot_all(load_results([path]), out2, dpi=60)))
        if got != ["latency.png", "throughput.png", "timeline.png"]:
            failures.append(f"posix-only figures: {got}")
    for f in failures:
        print(f"selftest FAILED: {f}", file=sys.stderr)
    if not failures:
        print(f"selftest ok: {len(expected)} figures, posix-only skips devices")
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description="Figures from zsbench --json results "
                                 "(see docs/zsbench.md and this script's docstring).")
    ap.add_argument("results", nargs="*", help="zsbench results JSON files")
    ap.add_argument("--out", help="directory for the PNGs (created if missing)")
    ap.add_argument("--baseline", help="scheme to normalize throughput to (default: the first)")
    ap.add_argument("--paper-ref", help="CSV of scheme,phase,normalized throughput from a paper")
    ap.add_argument("--dpi", type=int, default=120, help="PNG resolution (default 120)")
    ap.add_argument("--selftest", action="store_true",
                    help="render every figure from synthetic data into a temp dir; "
                    "exit 1 on failure")
    a = ap.parse_args()
    if a.selftest:
        return selftest()
    if not a.results or not a.out:
        ap.error("give RESULTS.json ... and --out DIR (or --selftest)")
    try:
        schemes = load_results(a.results)
        ref = load_paper_ref(a.paper_ref) if a.paper_ref else None
        written = plot_all(schemes, a.out, a.dpi, a.baseline, ref)
    except (OSError, ValueError, KeyError) as e:
        print(f"plot.py: {e!r}" if isinstance(e, KeyError) else f"plot.py: {e}", file=sys.stderr)
        return 2
    for p in written:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
