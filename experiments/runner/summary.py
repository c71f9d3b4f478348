"""Reading a paper module's compact summary: the counted repeats of a
comparison, one phase of one system in a repeat, and per-repeat values
and ratios as Stats (median with min-max) for its tables."""
from .stats import Stat


def runs(sm, key):
    return sm["comparisons"].get(key, {}).get("runs", [])


def ph(run, system, pn):
    return run["phases"].get(system, {}).get(pn)


def per_run(sm, key, fn):
    """fn(run) for every counted repeat of a comparison, Nones dropped."""
    return [v for v in (fn(r) for r in runs(sm, key)) if v is not None]


def stat(values, digits=3):
    return Stat(values, digits) if values else "-"


def field(run, system, pn, get):
    p = ph(run, system, pn)
    return get(p) if p else None


def ratio(run, a, b, pn, get):
    x, y = field(run, a, pn, get), field(run, b, pn, get)
    return x / y if x is not None and y else None


def throughput(p):
    return p["ops_s"]
