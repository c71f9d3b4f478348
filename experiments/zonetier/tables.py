"""The ZoneTier tables, computed from a summary alone (the compact results
zonetier/compact.py keeps). Every ratio is taken within one zsreplay run
(one trace, every scheme), then summarized over repeats."""
from runner.summary import per_run, stat
from runner.tables import Table

from . import setup

Z = setup.ZONETIER
BASELINES = [s for s in setup.SCHEMES if s != Z]


def value(name, get):
    def fn(run):
        s = run["schemes"].get(name)
        return get(s) if s else None
    return fn


def over(a, b, get):
    """a's value over b's within one run."""
    def fn(run):
        x, y = run["schemes"].get(a), run["schemes"].get(b)
        if not x or not y or not get(y):
            return None
        return get(x) / get(y)
    return fn


def per_scheme(sm, title, get, digits=2, note=""):
    t = Table(title, ["trace"] + setup.SCHEMES, note=note,
              plot=("bar", setup.SCHEMES, title.split(" (")[0]))
    for key in sm["comparisons"]:
        t.add(key, *[stat(per_run(sm, key, value(s, get)), digits) for s in setup.SCHEMES])
    return t


def zonetier_over(sm, title, get, paper="", note="", invert=False):
    """ZoneTier's value over each baseline's (invert: the baseline's over
    ZoneTier's), per trace."""
    cols = [f"{b} / ZoneTier" if invert else f"ZoneTier / {b}" for b in BASELINES]
    t = Table(title, ["trace"] + cols + (["the paper"] if paper else []), ratio_columns=cols,
              note=note)
    for key in sm["comparisons"]:
        cells = [stat(per_run(sm, key, over(b, Z, get) if invert else over(Z, b, get)))
                 for b in BASELINES]
        t.add(key, *cells, *([paper] if paper else []))
    return t


def ms(us_get):
    return lambda s: us_get(s) / 1000.0


def response_tables(sm):
    avg_all = lambda s: s["avg"]["all"]
    return [
        zonetier_over(sm, "Average response time of all requests: ZoneTier over each baseline "
                      "(Fig. 12; below 1 is ZoneTier faster)", avg_all,
                      paper="up to 28.20% lower than fine-grained, 25.51% lower than HA-unaware"),
        per_scheme(sm, "Average response time of all requests, ms", ms(avg_all)),
        zonetier_over(sm, "Average response time with the placement periods' time charged to the "
                      "requests: ZoneTier over each baseline", lambda s: s["avg"]["all_with_periods"],
                      note="Promotion, demotion and the cleaning they cause run between requests "
                           "and are in no request's response above; here their time is added to "
                           "the requests' total before dividing (the paper migrates in the "
                           "background, where that time delays the requests it overlaps)."),
        per_scheme(sm, "Time in placement periods (promotion, demotion), s",
                   lambda s: s["period_ms"] / 1000.0, 1),
        per_scheme(sm, "Average response time of the demotions' writes, ms (Fig. 12)",
                   ms(lambda s: s["avg"]["demotion_writes"]), 2,
                   note="0: the scheme demoted nothing (the DM schemes' drives take demotions "
                        "as ordinary writes; see the analysis)."),
        per_scheme(sm, "Slowest demotion write, ms", ms(lambda s: s["demo_max"]), 1),
        zonetier_over(sm, "Reads served by the drive's zones: each baseline over ZoneTier "
                      "(Fig. 13; above 1 is ZoneTier faster)", lambda s: s["avg"]["drive_reads"],
                      invert=True),
        zonetier_over(sm, "Writes served by the drive's zones: each baseline over ZoneTier "
                      "(Fig. 13)", lambda s: s["avg"]["drive_writes"], invert=True),
    ]


def utilization_tables(sm):
    util = lambda s: s["util"]
    return [
        per_scheme(sm, "SSD tier utilization efficiency", util, 3),
        zonetier_over(sm, "SSD tier utilization efficiency: ZoneTier over each baseline "
                      "(above 1 is ZoneTier better)", util, paper="+7.33% to +41.9%"),
    ]


def tail_tables(sm):
    p999 = lambda s: s["p999"]
    return [
        zonetier_over(sm, "Write p99.9 latency: each baseline over ZoneTier (above 1 is ZoneTier "
                      "lower)", p999, invert=True, paper="up to 15.3x (against LRU caching)"),
        per_scheme(sm, "Write p99.9 latency, ms", ms(p999), 1),
        per_scheme(sm, "Write p99 latency, ms", ms(lambda s: s["p99"]), 1),
    ]


def cleaning_tables(sm):
    return [
        per_scheme(sm, "Media-cache cleaning runs", lambda s: s["clean"][0], 0),
        per_scheme(sm, "Zones the drive cleaned (read-modify-write)", lambda s: s["clean"][1], 0),
        per_scheme(sm, "Drive head time in cleaning, s", lambda s: s["clean"][2] / 1000.0, 1),
        per_scheme(sm, "Performance recovery time, s (summed over episodes)",
                   lambda s: s["prt"][0] / 1000.0, 1),
        per_scheme(sm, "NSWs the drive took", lambda s: s["nsw"], 0),
        per_scheme(sm, "Replay time over the trace's span (above 1: the replay fell behind the "
                   "trace; the late start of its requests is not in their response times)",
                   lambda s: s.get("behind"), 2),
        per_scheme(sm, "Promotions", lambda s: s["moves"][0], 0),
        per_scheme(sm, "Demotions", lambda s: s["moves"][1], 0),
    ]


def all_tables(sm):
    return response_tables(sm) + utilization_tables(sm) + tail_tables(sm) + cleaning_tables(sm)
