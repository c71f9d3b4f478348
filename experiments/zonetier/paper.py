"""ZoneTier (Zhang et al., "ZoneTier: A Zone-based Storage Tiering and
Caching Co-Design to Integrate SSDs with Host-Aware SMR Drives"): its
evaluation (Fig. 12-13 and the results it states), on zsreplay with
synthetic MSR-like traces, scaled down."""
from runner.core import Comparison, Experiment, Option

from . import compact as compact_mod
from . import setup, tables

NAME = "zonetier"
TOOL = "zsreplay"
TITLE = "ZoneTier (zone-based SSD tiering and cleaning-friendly caching on host-aware SMR)"
ABOUT = """
ZoneTier's evaluation on ZoneStack's block tier (`docs/zonetier.md`): the
five designs of the paper's Table 3 (**DM-64-LRU**, **DM-128-LRU**:
extent tiering of a quarter and a half zone with LRU write caching on a
device-managed SMR drive; **DM-256-LRU**: zone tiering on it;
**HA-256-LRU**: zone tiering on the host-aware drive, unaware of its
write pointers, with LRU caching; **HA-256-CFC**: ZoneTier) replay the same
trace, one after another in one `zsreplay compare` process, each on fresh
emulated devices: the `st8000as0022` preset (the paper's Table 1 drive)
and a ZN540 SSD of conventional zones, both on one simulated clock, so
the response times are the devices' models' and not this machine's. The
traces are synthetic (no MSR trace can be downloaded here), one per MSR
volume profile, the repeat's number as the generator's seed.
"""
COUNTS = ("A run counts only if zsreplay exited 0 and every scheme replayed every request of the "
          "trace.")

OPTIONS = [
    Option("repeats", 3, "runs of every comparison (repeat r generates its trace with seed r)",
           "not stated"),
    Option("scale", 64, "K: the drive's and the SSD's zone sizes divided by it", "1 (256 MB zones)"),
    Option("zones", 2000, "zones of the drive (a slice of it; the media cache takes the slice's "
           "share of the paper's)", "29,809 (64 CMR + 29,745 SMR)"),
    Option("ssd_tier_pct", 10, "SSD tier size, percent of the drive's capacity", "not stated"),
    Option("cache_pct", 1, "CF-Cache (or LRU cache) size, percent of the drive's capacity", "not stated"),
    Option("requests", 200_000, "requests of each synthetic trace", "whole MSR traces"),
    Option("period", 1000, "requests per placement period (promotion, demotion)", "not stated"),
    Option("timing", "sim", "device timing of the emulator", "real drives", ["sim", "none"]),
]
DEFAULTS = {o.name: o.default for o in OPTIONS}

PRESETS = {"smoke": {"_about": "1 repeat of 20,000 requests: a check of the module, the runner and "
                               "zsreplay end to end, not a measurement",
                     "repeats": 1, "requests": 20_000}}

DEPARTURES = [
    ("Synthetic traces, not the MSR Cambridge traces.", "None can be downloaded here. `zsreplay "
     "gen`'s profiles carry each volume's commonly reported write ratio; request sizes (4-64 KiB), "
     "Zipf skew over zones, the share of writes that are not appends, the footprint and the "
     "inter-arrival times are our choices, not fitted (`docs/zonetier.md`, \"Synthetic traces\")."),
    ("A scaled slice of the drive.", "Zones of 4 MiB (256 MB / K, K = 64) and 2,000 of them (7.8 "
     "GiB), so requests of 4-64 KiB are 0.1-1.6% of a zone (0.002-0.02% in the paper). The media "
     "cache keeps the paper's share of the drive, 25.6 GB of 8 TB = 0.32% (26.8 MB here)."),
    ("The drive's timing is a stand-in.", "The paper publishes no figures for the ST8000AS0022; "
     "the emulator uses the ST14000NM0007's calibrated disk model (`docs/emulator.md`)."),
    ("Sizes the paper does not give are ours.", "SSD tier 10% and CF-Cache 1% of the drive, a "
     "placement period of 1,000 requests, up to 4 moves per period; CAF's formula, weights and "
     "hysteresis (`docs/zonetier.md`)."),
    ("One request at a time on a simulated clock.", "Requests are issued at their trace times; a "
     "request that arrives while the devices are busy starts when they are free and its wait is "
     "not counted (queue depth one). Placement periods run between requests: a migration delays "
     "later requests' start, not the response of the request that ended the period (the paper "
     "migrates in background threads)."),
    ("Drive-served requests (Fig. 13) are those that touched no SSD tier slot.", "Their response "
     "times include the CF-Cache's or LRU cache's hits and the evictions they caused."),
]


def workload(s, comp):
    return comp.params["profile"]


def command(s, comp, r, json_path, tool):
    cmd = setup.command(tool, s, comp.params["profile"], r, json_path, [n for n, _ in comp.schemes])
    return cmd, {"drive": setup.drive_uri(s), "ssd": setup.ssd_uri(s)}


def compact(result, s, comp):
    return compact_mod.compact(result)


problems = compact_mod.problems


def comparisons(s):
    return [Comparison(p, [(n, n) for n in setup.SCHEMES], p, {"profile": p})
            for p in setup.PROFILES]


EXPERIMENTS = {e.name: e for e in [
    Experiment("traces", "Response time, demotion writes, drive-served I/O, SSD tier utilization, "
               "write tails, cleaning and recovery (Fig. 12-13)",
               "Per trace, every design replays the same synthetic trace on fresh devices. From each "
               "run: the mean response time of all requests, ZoneTier's over each baseline's within "
               "the run; the mean and slowest response of the demotions' writes to the drive; the "
               "mean response of reads and of writes that touched no SSD tier slot (served by the "
               "drive's zones); the SSD tier utilization efficiency (mean over placement periods of "
               "the blocks the workload wrote in slot-resident extents over the slot space in use); "
               "the write p99 and p99.9; the drive's cleaning runs, zones rewritten and head time, "
               "and the performance recovery time (summed, from a request during which the drive "
               "began cleaning to the first request served within 2x the median response again).",
               "ZoneTier's average response time up to 28.20% below the fine-grained designs' and "
               "25.51% below HA-unaware zone tiering's; its demotion writes stable where the others' "
               "show latency amplification; SSD tier utilization efficiency +7.33% to +41.9%; "
               "faster recovery from media-cache cleaning; p99.9 write latency up to 15.3x lower "
               "than LRU-based caching's.",
               comparisons, tables.all_tables),
]}
