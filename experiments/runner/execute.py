"""Runs an experiment's comparisons, each repeat once, resumably.

Layout under the results root (ignored by git):
  PAPER/EXP/KEY-rR.json          zsbench's result of repeat R
  PAPER/EXP/KEY-rR.stamp.json    its provenance and settings
  PAPER/EXP/KEY-rR.compact.json  what the tables need of it
  PAPER/EXP/KEY-rR.log           zsbench's output
  PAPER/EXP/configs/KEY/*.json   the volume configs
  PAPER/EXP/KEY-rR-NAME.*        a separate comparison's part: scheme NAME
                                 of repeat R alone (its .json, .stamp.json,
                                 .compact.json, .log); KEY-rR.* then hold
                                 the joined repeat (no raw .json)
Settings other than the module's defaults go under PAPER/custom/NAME/
instead, with their own summaries and report.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import time

from . import guard, stamps
from .core import Comparison
from .zsbench import problems

EXIT_SETTINGS = 5
SUMMARY_FORMAT = "zonestack-experiment-summary"
# Per-run stamp fields too large to repeat in the committed summary; the
# raw stamps keep them.
BULKY = {"command", "configs", "tools.zsctl_schemes", "git.diff_stat"}
# A rejected run's stamp, kept beside the counted ones: `{key}-r{repeat}`
# or `{key}-r{repeat}-{part}`, then `.rejected{n}.stamp.json`.
REJECTED_STAMP = re.compile(r"^(?P<key>.+?)-r(?P<repeat>\d+)(?:-(?P<part>.+))?\.rejected\d+\.stamp\.json$")


class SettingsMismatch(guard.Refused):
    def __init__(self, message):
        super().__init__(EXIT_SETTINGS, message)


def custom_name(changed):
    """A folder name for non-default settings: readable and unique."""
    text = ",".join(f"{k}={changed[k]}" for k in sorted(changed))
    digest = hashlib.sha256(text.encode()).hexdigest()[:8]
    # The path ends up in zonestack:// URIs: letters, digits, . _ - only.
    short = "".join(c if c.isalnum() or c in "._-" else "_" for c in text)[:60]
    return f"{short}-{digest}"


class Place:
    """Where an experiment's files go for given settings."""

    def __init__(self, paper, settings, results_root, docs_dir):
        self.changed = {k: v for k, v in settings.items() if v != paper.DEFAULTS[k]}
        base = os.path.join(results_root, paper.NAME)
        if self.changed:
            base = os.path.join(base, "custom", custom_name(self.changed))
            self.docs = base
        else:
            self.docs = docs_dir
        self.raw = base
        self.figures = os.path.join(base, "figures")

    def run_dir(self, exp):
        return os.path.join(self.raw, exp)

    def summary(self, exp):
        return os.path.join(self.docs, "summary", f"{exp}.json")

    def report(self):
        return os.path.join(self.docs, "RESULTS.md")


def flatten(d, prefix=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict) and k not in ("settings", "spec", "configs"):
            out.update(flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def differing(old, new):
    keys = sorted(set(old) | set(new))
    return [f"{k}: {old.get(k, '(unset)')!r} then, {new.get(k, '(unset)')!r} now"
            for k in keys if old.get(k) != new.get(k)]


def file_name(name):
    """A scheme's name as a file name, also inside zonestack:// URIs."""
    return "".join(c if c.isalnum() or c in "._-+" else "_" for c in name)


def join(parts):
    """The compact results of a repeat's parts joined into one: dicts
    merged key by key (a module's compact result keyed by scheme gets every
    scheme's entry), anything else the first part's."""
    if all(isinstance(p, dict) for p in parts):
        out = {}
        for p in parts:
            for k in p:
                if k not in out:
                    out[k] = join([q[k] for q in parts if k in q])
        return out
    return parts[0]


def joined_stamp(spec, stamps):
    """The stamp of a separate comparison's repeat from its parts' stamps
    {name: stamp}: the fields all parts share, those that differ joined
    with " + " (a repeat measured over two commits says so), the span from
    the first start to the last end, every command, config and process
    seen, and per part its own start, end, loads, exit status and
    differing fields."""
    flat = {n: flatten(st) for n, st in stamps.items()}
    order = sorted(flat, key=lambda n: flat[n].get("start", ""))
    first, last = flat[order[0]], flat[order[-1]]
    own = ("start", "end", "load_start", "load_end", "exit_code", "restored")
    out, parts = {}, {n: {} for n in order}
    keys = sorted({k for st in flat.values() for k in st} - {"spec", "command", "configs", "busy_seen"})
    for k in keys:
        vals = [flat[n].get(k) for n in order]
        if k in own or any(v != vals[0] for v in vals):
            for n in order:
                if k in flat[n]:
                    parts[n][k] = flat[n][k]
        if k in own:
            continue
        distinct = []
        for v in vals:
            if v not in distinct:
                distinct.append(v)
        out[k] = vals[0] if len(distinct) == 1 else " + ".join(str(v) for v in distinct)
    out.update(start=first.get("start"), load_start=first.get("load_start"),
               end=last.get("end"), load_end=last.get("load_end"),
               exit_code=max(flat[n].get("exit_code") or 0 for n in order),
               spec=spec, command=[flat[n].get("command") for n in order],
               configs=join([flat[n].get("configs") or {} for n in order]),
               busy_seen=sorted({b for n in order for b in flat[n].get("busy_seen") or []}),
               parts=parts)
    return out


def read_json(path):
    with open(path) as f:
        return json.load(f)


def write_json(path, data, indent=1):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=indent, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


class Runner:
    def __init__(self, paper, exp, settings, place, zsbench, zsctl, ignore_busy=False,
                 log=print):
        self.paper, self.exp, self.settings, self.place = paper, exp, settings, place
        self.zsbench, self.zsctl, self.ignore_busy, self.log = zsbench, zsctl, ignore_busy, log
        self.dir = place.run_dir(exp.name)
        self.repeats = settings["repeats"]
        # A repeat is the same measurement however many there are.
        self.run_settings = {k: v for k, v in settings.items() if k != "repeats"}
        self.static = None
        self.rejected = []
        self.earlier_rejections = []  # the restored summary's

    def stem(self, key, r):
        return os.path.join(self.dir, f"{key}-r{r}")

    def part_stem(self, key, r, name):
        return f"{self.stem(key, r)}-{file_name(name)}"

    @staticmethod
    def parts_order(comp, r):
        """The schemes of repeat r in the order their parts run: rotated by
        one per repeat, so a drift of the machine over the hours of a
        repeat does not always favor the same scheme."""
        n = (r - 1) % len(comp.schemes)
        return comp.schemes[n:] + comp.schemes[:n]

    def check_settings(self):
        """Exit 5 before measuring anything if runs already here were made
        under other settings: they would be mixed with the new ones."""
        if not os.path.isdir(self.dir):
            return
        for name in sorted(os.listdir(self.dir)):
            if name.endswith(".stamp.json"):
                old = read_json(os.path.join(self.dir, name)).get("settings", {})
                diff = differing(old, self.run_settings)
                if diff:
                    raise SettingsMismatch(
                        f"{os.path.join(self.dir, name)} was measured under other settings:\n  "
                        + "\n  ".join(diff) + "\nrun with --fresh to discard those runs")

    def restore(self):
        """Seeds the run folder with the counted repeats the summary holds
        and the folder lacks. The raw results stay out of git, so on a
        fresh clone or machine the committed summary is all that is left of
        the repeats measured so far; an experiment longer than one sitting
        then resumes where the summary ends instead of starting over. A
        restored stamp is the summary's (its common and per-run fields, the
        comparison's command and configs; the bulky fields only the raw
        stamps keep are gone) and says `restored`. Summaries made under other
        settings restore nothing (they are overwritten as before)."""
        path = self.place.summary(self.exp.name)
        if not os.path.exists(path):
            return
        sm = read_json(path)
        settings = {k: v for k, v in (sm.get("settings") or {}).items() if k != "repeats"}
        if sm.get("format") != SUMMARY_FORMAT or settings != self.run_settings:
            return
        self.earlier_rejections = [e for e in sm.get("rejected", []) if e.get("end")]
        common = sm.get("stamps", {}).get("common", {})
        per_run = {(r.get("comparison"), r.get("repeat")): r
                   for r in sm.get("stamps", {}).get("runs", [])}
        for key, comp in sm.get("comparisons", {}).items():
            for compact in comp.get("runs", []):
                r = compact.get("repeat")
                stem = self.stem(key, r)
                if r is None or os.path.exists(stem + ".stamp.json"):
                    continue
                stamp = dict(common, **per_run.get((key, r), {}))
                stamp.pop("comparison", None)
                stamp.update(settings=self.run_settings, spec=comp.get("spec"),
                             command=comp.get("command"), configs=comp.get("configs"),
                             restored=f"from {os.path.relpath(path)}")
                write_json(stem + ".compact.json", compact, indent=None)
                write_json(stem + ".stamp.json", stamp)
                self.log(f"{self.exp.name} {key} repeat {r}: restored from the summary "
                         f"(commit {stamp.get('git.commit', 'unknown')})")
            # A separate comparison's parts of repeats not yet complete.
            for part in comp.get("parts", []):
                r, name = part.get("repeat"), part.get("part")
                stem = self.part_stem(key, r, name)
                if os.path.exists(stem + ".stamp.json"):
                    continue
                whole = comp.get("spec") or {}
                spec = Comparison(key, [tuple(x) for x in whole.get("schemes", [])],
                                  whole.get("workload"), whole.get("params") or {}).part(name).spec()
                stamp = dict(common, **part.get("stamp", {}))
                stamp.update(settings=self.run_settings, spec=spec,
                             restored=f"from {os.path.relpath(path)}")
                write_json(stem + ".compact.json", part["compact"], indent=None)
                write_json(stem + ".stamp.json", stamp)
                self.log(f"{self.exp.name} {key} repeat {r} {name}: restored from the summary "
                         f"(commit {stamp.get('git.commit', 'unknown')})")

    def run(self, fresh=False):
        if fresh:
            shutil.rmtree(self.dir, ignore_errors=True)
            if os.path.exists(self.place.summary(self.exp.name)):
                os.remove(self.place.summary(self.exp.name))
        os.makedirs(self.dir, exist_ok=True)
        self.restore()
        self.check_settings()
        done = self.done = {}
        for comp in self.exp.comparisons(self.settings):
            if comp.derive:
                try:
                    comp.params.update(comp.derive(self.summary(done)))
                except LookupError as e:
                    # What it depends on did not count: nothing to run.
                    self.rejected.append((comp.key, 0, [f"not run: {e}"]))
                    self.log(f"{self.exp.name} {comp.key} not run: {e}")
                    continue
            done[comp.key] = (comp, [])
            for r in range(1, self.repeats + 1):
                compact = self.repeat(comp, r)
                if compact is not None:
                    done[comp.key][1].append(compact)
                write_json(self.place.summary(self.exp.name), self.summary(done), indent=None)
        return self.summary(done)

    def repeat(self, comp, r):
        """One repeat: reused if measured under these settings, else run."""
        stem = self.stem(comp.key, r)
        # A separate repeat restored whole from the summary has no parts.
        if comp.separate and (not os.path.exists(stem + ".stamp.json") or any(
                os.path.exists(self.part_stem(comp.key, r, n) + ".stamp.json")
                for n, _ in comp.schemes)):
            return self.repeat_in_parts(comp, r, stem)
        return self.single(comp, r, stem)

    def repeat_in_parts(self, comp, r, stem):
        """A separate comparison's repeat: each scheme's part reused or run
        (and the summary written after each, so it can be committed part by
        part), then joined. A part that does not count leaves the repeat
        uncounted; the others are kept, and a rerun runs only what is
        missing."""
        compacts, stamps = {}, {}
        for name, _ in self.parts_order(comp, r):
            pstem = self.part_stem(comp.key, r, name)
            compact = self.single(comp.part(name), r, pstem)
            if compact is None:
                continue
            compacts[name] = compact
            stamps[name] = read_json(pstem + ".stamp.json")
            write_json(self.place.summary(self.exp.name), self.summary(self.done), indent=None)
        if len(compacts) < len(comp.schemes):
            return None
        compact = dict(join([compacts[n] for n, _ in comp.schemes]), repeat=r)
        write_json(stem + ".compact.json", compact, indent=None)
        write_json(stem + ".stamp.json", joined_stamp(comp.spec(), stamps))
        return compact

    def single(self, comp, r, stem):
        """One zsbench run (a repeat, or a part of one): reused if measured
        under these settings, else run."""
        if os.path.exists(stem + ".stamp.json"):
            old = read_json(stem + ".stamp.json")
            diff = differing(old.get("spec", {}), json.loads(json.dumps(comp.spec())))
            if diff:
                raise SettingsMismatch(f"{stem}.stamp.json measured another comparison:\n  "
                                       + "\n  ".join(diff) + "\nrun with --fresh to discard it")
            self.log(f"{self.exp.name} {comp.key} repeat {r}: done before, kept")
            if os.path.exists(stem + ".json"):
                # Compacted again from the raw result, so a table added since
                # the run reads what it needs without measuring again.
                compact = dict(self.paper.compact(read_json(stem + ".json"), self.settings, comp),
                               repeat=r)
                write_json(stem + ".compact.json", compact, indent=None)
                return compact
            return read_json(stem + ".compact.json")
        return self.measure(comp, r, stem)

    def command(self, comp, r, stem):
        # A module whose tool is not zsbench (its TOOL) builds the command
        # line itself: (argv, what it ran on, for the stamp).
        own = getattr(self.paper, "command", None)
        if own:
            return own(self.settings, comp, r, stem + ".json", self.zsbench)
        cfg_dir = os.path.join(self.dir, "configs", comp.key)
        os.makedirs(cfg_dir, exist_ok=True)
        cmd = [self.zsbench, "--quiet", "--seed", str(r), "--json", stem + ".json",
               "--workload", self.paper.workload(self.settings, comp)]
        cmd += self.paper.zsbench_args(self.settings, comp)
        configs = {}
        for name, spec in comp.schemes:
            cfg = self.paper.volume_config(self.settings, spec, comp)
            path = os.path.join(cfg_dir, f"{file_name(name)}.json")
            write_json(path, cfg)
            configs[name] = cfg
            cmd += ["--scheme", f"{name}=zonestack://{path}"]
        return cmd, configs

    def measure(self, comp, r, stem):
        if self.static is None:
            self.static = stamps.static_stamp(self.zsbench, self.zsctl)
        cmd, configs = self.command(comp, r, stem)
        workload = self.paper.workload(self.settings, comp)
        stamp = dict(self.static, settings=self.run_settings, spec=comp.spec(), repeat=r, seed=r,
                     command=cmd, configs=configs, ignore_busy=self.ignore_busy,
                     start=stamps.now(), load_start=stamps.load_average())
        self.log(f"{self.exp.name} {comp.key} repeat {r}: " + " ".join(cmd))
        if os.path.exists(stem + ".json"):
            os.remove(stem + ".json")
        seen = {pid: c for pid, c in guard.busy_processes()}
        with open(stem + ".log", "w") as log:
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
            while proc.poll() is None:
                for pid, c in guard.busy_processes(exclude=[proc.pid]):
                    seen.setdefault(pid, c)
                try:
                    proc.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    pass
        seen.update(dict(guard.busy_processes()))
        stamp.update(end=stamps.now(), load_end=stamps.load_average(), exit_code=proc.returncode,
                     busy_seen=[f"pid {p}: {c}" for p, c in sorted(seen.items())])
        try:
            result = read_json(stem + ".json")
        except (OSError, ValueError):
            result = None
        check = getattr(self.paper, "problems", problems)
        why = check(result, proc.returncode, [n for n, _ in comp.schemes], workload)
        if why:
            # Kept for inspection under another name; the repeat runs again
            # on resume.
            n = len([f for f in os.listdir(self.dir) if f.startswith(os.path.basename(stem) + ".rejected")])
            stamp["rejected"] = why
            write_json(f"{stem}.rejected{n + 1}.stamp.json", stamp)
            self.rejected.append((comp.key, r, why))
            self.log(f"{self.exp.name} {comp.key} repeat {r} does not count: " + "; ".join(why))
            return None
        compact = dict(self.paper.compact(result, self.settings, comp), repeat=r)
        write_json(stem + ".compact.json", compact, indent=None)
        write_json(stem + ".stamp.json", stamp)
        return compact

    def open_parts(self, comp, counted):
        """The parts measured of a separate comparison's repeats not yet
        complete, each with its compact result and its stamp (flat, less
        what the summary keeps once), so a fresh machine resumes at the
        next part. A part keeps its command and configs: no complete
        repeat may hold them yet."""
        out = []
        for r in range(1, self.repeats + 1):
            if r in counted:
                continue
            for name, _ in comp.schemes:
                pstem = self.part_stem(comp.key, r, name)
                if os.path.exists(pstem + ".stamp.json") and os.path.exists(pstem + ".compact.json"):
                    st = flatten(read_json(pstem + ".stamp.json"))
                    out.append({"repeat": r, "part": name, "compact": read_json(pstem + ".compact.json"),
                                "stamp": {k: v for k, v in st.items()
                                          if k not in ("settings", "spec", "tools.zsctl_schemes")}})
        return out

    def rejections(self):
        """Every run of this experiment that did not count, whichever
        invocation made it: those whose stamps the run folder keeps, those
        an earlier summary listed (a fresh machine has only the summary),
        and this invocation's comparisons not run for want of a base."""
        out, seen = [], set()

        def add(entry):
            ident = (entry["comparison"], entry["repeat"], entry.get("part"), entry.get("end"))
            if ident not in seen:
                seen.add(ident)
                out.append(entry)

        for entry in self.earlier_rejections:
            add(entry)
        for name in sorted(os.listdir(self.dir)) if os.path.isdir(self.dir) else []:
            m = REJECTED_STAMP.match(name)
            if m:
                st = read_json(os.path.join(self.dir, name))
                add({"comparison": m["key"], "repeat": st.get("repeat", int(m["repeat"])),
                     "part": m["part"], "commit": (st.get("git") or {}).get("commit"),
                     "end": st.get("end"), "why": st.get("rejected", [])})
        for key, r, why in self.rejected:
            if r == 0:
                add({"comparison": key, "repeat": r, "why": why})
        return sorted(out, key=lambda e: (e["comparison"], e["repeat"], e.get("end") or ""))

    def summary(self, done):
        """What the committed summary holds: settings, per comparison its
        spec, command and configs once and each counted repeat's compact
        result, and the stamps (fields equal in every run once)."""
        comps, runs = {}, []
        for key, (comp, compacts) in done.items():
            first = None
            for c in compacts:
                path = self.stem(key, c["repeat"]) + ".stamp.json"
                if os.path.exists(path):
                    st = read_json(path)
                    first = first or st
                    runs.append(dict(flatten(st), comparison=key))
            comps[key] = {"spec": comp.spec(), "runs": compacts,
                          "command": first and first["command"],
                          "configs": first and first["configs"]}
            if comp.separate:
                comps[key]["parts"] = self.open_parts(comp, {c["repeat"] for c in compacts})
        common = {}
        if runs:
            common = {k: v for k, v in runs[0].items()
                      if k not in ("settings", "spec") and all(r.get(k) == v for r in runs)
                      and k not in ("repeat", "seed", "comparison")}
            common.pop("command", None)
            common.pop("configs", None)
        per_run = [{k: v for k, v in r.items()
                    if k not in common and k not in BULKY and k not in ("settings", "spec")}
                   for r in runs]
        return {"format": SUMMARY_FORMAT, "version": 1, "paper": self.paper.NAME,
                "experiment": self.exp.name, "settings": self.settings,
                "repeats": self.repeats, "comparisons": comps,
                "rejected": self.rejections(),
                "stamps": {"common": common, "runs": per_run}}
