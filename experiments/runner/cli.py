"""experiments/run.sh PAPER EXPERIMENT [options]: the command line.

EXPERIMENT is one the paper module declares, `all` (each in turn),
`report` (RESULTS.md and figures from the committed summaries, runs
nothing) or `list`. Exit status: 0 done; 1 some repeat did not count
(zsbench failed, a phase or records missing; rerun to retry it); 2 bad
usage or a failed preflight check; 3 another runner holds the lock; 4 a build or benchmark is
running; 5 results already there were measured under other settings.
"""
import argparse
import importlib
import os
import subprocess
import sys

from . import guard, report
from .execute import Place, Runner

EXPERIMENTS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(EXPERIMENTS_DIR)


def flag(name):
    return "--" + name.replace("_", "-")


def parse_bool(text):
    if text.lower() in ("1", "true", "yes", "on"):
        return True
    if text.lower() in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"not a boolean: {text}")


def arg_parser(paper):
    ap = argparse.ArgumentParser(prog=f"experiments/run.sh {paper.NAME}", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("experiment", choices=list(paper.EXPERIMENTS) + ["all", "report", "list"])
    ap.add_argument("--fresh", action="store_true", help="discard this experiment's runs first")
    ap.add_argument("--ignore-busy", action="store_true",
                    help="run beside a build or benchmark (stamped in every result)")
    tool = getattr(paper, "TOOL", "zsbench")
    ap.add_argument("--zsbench", default=os.path.join(ROOT, "build", "src", "tools", tool),
                    help=f"the benchmark the module runs (default build/src/tools/{tool})")
    ap.add_argument("--zsctl", default=None, help="default: zsctl beside zsbench")
    ap.add_argument("--results", default=os.path.join(EXPERIMENTS_DIR, "results"),
                    help="root of raw results, stamps, logs and figures (not committed)")
    ap.add_argument("--docs", default=os.path.join(EXPERIMENTS_DIR, paper.NAME),
                    help="where summary/ and RESULTS.md of default-settings runs go")
    for name in getattr(paper, "PRESETS", {}):
        ap.add_argument(flag(name), action="store_true",
                        help=f"preset: {paper.PRESETS[name]['_about']}")
    for o in paper.OPTIONS:
        kind = type(o.default)
        ap.add_argument(flag(o.name), default=None, choices=o.choices,
                        type=parse_bool if kind is bool else kind,
                        help=f"{o.help} (default {o.default})")
    return ap


def settings_from(paper, a):
    settings = dict(paper.DEFAULTS)
    for name, preset in getattr(paper, "PRESETS", {}).items():
        if getattr(a, name):
            settings.update({k: v for k, v in preset.items() if not k.startswith("_")})
    for o in paper.OPTIONS:
        v = getattr(a, o.name)
        if v is not None:
            settings[o.name] = v
    return settings


def preflight(paper, names, zsctl):
    """The module's checks against `zsctl schemes` (scheme options it
    names exist), so a misspelt option fails now, not after a long run."""
    check = getattr(paper, "preflight", None)
    if not check or not os.access(zsctl, os.X_OK):
        return
    listed = subprocess.run([zsctl, "schemes"], capture_output=True, text=True).stdout
    errors = [e for n in names for e in check(paper.EXPERIMENTS[n], listed)]
    if errors:
        raise guard.Refused(2, "\n".join(errors))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0].startswith("-"):
        print("usage: experiments/run.sh PAPER EXPERIMENT [options]", file=sys.stderr)
        return 2
    try:
        paper = importlib.import_module(f"{argv[0]}.paper")
    except ModuleNotFoundError as e:
        print(f"no paper module {argv[0]} ({e})", file=sys.stderr)
        return 2
    a = arg_parser(paper).parse_args(argv[1:])
    settings = settings_from(paper, a)
    place = Place(paper, settings, a.results, a.docs)
    if a.experiment == "list":
        for e in paper.EXPERIMENTS.values():
            print(f"{e.name:12} {e.title}")
        return 0
    if a.experiment == "report":
        report.generate(paper, settings, place.docs, place.figures, place.report())
        print(f"wrote {place.report()}")
        return 0
    names = list(paper.EXPERIMENTS) if a.experiment == "all" else [a.experiment]
    zsctl = a.zsctl or os.path.join(os.path.dirname(a.zsbench), "zsctl")
    if place.changed:
        print("settings other than the paper module's defaults ("
              + ", ".join(f"{k}={v}" for k, v in sorted(place.changed.items()))
              + f"): results go to {place.raw}", file=sys.stderr)
    try:
        with guard.Lock():
            guard.check_quiet(a.ignore_busy)
            preflight(paper, names, zsctl)
            failed = False
            for name in names:
                r = Runner(paper, paper.EXPERIMENTS[name], settings, place, a.zsbench, zsctl,
                           a.ignore_busy, log=lambda m: print(m, file=sys.stderr, flush=True))
                r.run(fresh=a.fresh)
                failed |= bool(r.rejected)
    except guard.Refused as e:
        print(f"experiments: {e}", file=sys.stderr)
        return e.code
    report.generate(paper, settings, place.docs, place.figures, place.report())
    print(f"wrote {place.report()}")
    return 1 if failed else 0
