"""The ZoneTier paper's setup scaled down for zsreplay: the drive, the SSD,
the tier's sizes and the traces, as zsreplay compare's arguments.

The paper (Table 1): a Seagate ST8000AS0022 HA-SMR drive, 256 MB zones,
64 CMR + 29,745 SMR zones, a 25.6 GB media cache. It does not give the
SSD's size, the CF-Cache's, the placement period or the traces' lengths;
those are ours, fixed here before anything was measured."""

MiB = 1 << 20
PAPER_ZONE = 256 * MiB
PAPER_ZONES = 64 + 29745
PAPER_MEDIA_CACHE = 25_600_000_000
BLOCK = 4096

# The paper's Table 3, in its order; ZoneTier is HA-256-CFC.
SCHEMES = ["DM-64-LRU", "DM-128-LRU", "DM-256-LRU", "HA-256-LRU", "HA-256-CFC"]
ZONETIER = "HA-256-CFC"
# MSR Cambridge volumes the synthetic traces imitate (docs/zonetier.md).
PROFILES = ["hm_0", "prxy_0", "src1_2", "stg_0", "web_0"]


def zone_bytes(s):
    return PAPER_ZONE // s["scale"]


def drive_bytes(s):
    return s["zones"] * zone_bytes(s)


def media_cache_bytes(s):
    """The paper's media cache as a share of its drive (0.32%), of ours: a
    slice of the drive takes its share of the cache, as of the zones."""
    share = PAPER_MEDIA_CACHE / (PAPER_ZONES * PAPER_ZONE)
    return max(BLOCK, int(drive_bytes(s) * share) // BLOCK * BLOCK)


def drive_uri(s):
    return (f"emu:st8000as0022?zones={s['zones']}&scale=1/{s['scale']}"
            f"&mc={media_cache_bytes(s)}&timing={s['timing']}")


def ssd_uri(s):
    """A ZN540 of conventional zones (docs/zonetier.md: the tier and the
    cache update blocks in place), large enough for the tier and cache."""
    need = drive_bytes(s) * (s["ssd_tier_pct"] + s["cache_pct"]) / 100 + 4 * MiB
    zone = (1077 * MiB) // s["scale"]  # the ZN540 zone capacity, scaled
    zones = max(4, -(-int(need) // zone) + 1)
    return f"emu:zn540?zones={zones}&conv={zones}&scale=1/{s['scale']}&timing={s['timing']}"


def ssd_tier_bytes(s):
    return drive_bytes(s) * s["ssd_tier_pct"] // 100 // zone_bytes(s) * zone_bytes(s)


def cache_bytes(s):
    return drive_bytes(s) * s["cache_pct"] // 100 // BLOCK * BLOCK


def command(tool, s, profile, seed, json_path, schemes):
    """zsreplay compare: one synthetic trace, every scheme in turn."""
    cmd = [tool, "compare", "--profile", profile, "--requests", str(s["requests"]),
           "--seed", str(seed), "--json", json_path, "--drive", drive_uri(s), "--ssd", ssd_uri(s),
           "--ssd-tier-bytes", str(ssd_tier_bytes(s)), "--cache-bytes", str(cache_bytes(s)),
           "--period", str(s["period"])]
    for name in schemes:
        cmd += ["--scheme", name]
    return cmd
