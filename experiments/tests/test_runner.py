"""The experiment runner against a fake zsbench (fake_zsbench.py): lock,
busy refusal, resume, settings mismatch, statistics, rejected runs,
summaries to RESULTS.md, the custom settings folder."""
import fcntl
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from runner import cli, guard, report
from runner.stats import DAGGER, Stat, ratio_cell
from runner.zsbench import problems

def read(path):
    with open(path) as f:
        return f.read()


def load(path):
    return json.loads(read(path))


HERE = os.path.dirname(os.path.abspath(__file__))
EXPERIMENTS = os.path.dirname(HERE)
FAKE = os.path.join(HERE, "fake_zsbench.py")


class StampLinesTest(unittest.TestCase):
    def summary(self, **common):
        return {"stamps": {"common": dict({"git.commit": "abc"}, **common), "runs": [{}]},
                "comparisons": {"a": {"runs": [{}]}}, "repeats": 1}

    def test_dirty_tree_names_its_changed_files(self):
        text = report.stamp_lines(self.summary(**{
            "git.dirty": True,
            "git.diff_stat": " src/a.cc | 2 +-\n docs/b.md | 1 +\n 2 files changed"}))
        self.assertIn("dirty tree: True (changed: docs/b.md, src/a.cc)", text)

    def test_clean_tree_names_nothing(self):
        text = report.stamp_lines(self.summary(**{"git.dirty": False, "git.diff_stat": ""}))
        self.assertIn("dirty tree: False\n", text)


class InterruptedExperimentTest(unittest.TestCase):
    def test_section_names_the_declared_comparisons_not_run(self):
        from runner.core import Comparison, Experiment
        exp = Experiment("e", "E", "how", "paper",
                         lambda s: [Comparison(k, [], "w") for k in ("a", "b", "c")],
                         lambda sm: [])
        summary = {"stamps": {"common": {"git.commit": "abc"}, "runs": [{}]},
                   "comparisons": {"a": {"runs": [{}]}, "b": {"runs": []}},
                   "repeats": 1, "settings": {}}
        paper = type("P", (), {"NAME": "p"})
        with tempfile.TemporaryDirectory() as d:
            text = report.experiment_section(paper, exp, summary, d, d, {})
        self.assertIn("**Not yet run:** b, c", text)


class StatsTest(unittest.TestCase):
    def test_median_min_max(self):
        s = Stat([1.10, 1.00, 1.30])
        self.assertEqual((s.median, s.min, s.max), (1.10, 1.00, 1.30))
        self.assertEqual(s.cell(ratio=True), f"1.100 (1.000-1.300){DAGGER} tie")

    def test_tie_only_when_range_includes_one(self):
        self.assertFalse(Stat([1.02, 1.03, 1.04]).tie())
        self.assertTrue(Stat([0.99, 1.01, 1.02]).tie())
        self.assertEqual(ratio_cell([1.02, 1.03, 1.04]), "1.030 (1.020-1.040)")

    def test_dagger_above_noise_budget(self):
        self.assertFalse(Stat([1.20, 1.22, 1.25]).noisy)      # 4.1%
        self.assertTrue(Stat([1.20, 1.22, 1.29]).noisy)       # 7.4%
        self.assertIn(DAGGER, ratio_cell([1.20, 1.22, 1.29]))

    def test_single_value_and_empty(self):
        self.assertEqual(ratio_cell([1.5]), "1.500")
        self.assertEqual(ratio_cell([]), "-")


def result(phases_by_scheme, records=10):
    return {"args": {"records": records},
            "schemes": [{"name": s, "phases": [{"name": n, "ops": o, "errors": 0, "background_errors": 0}
                                               for n, o in ps]} for s, ps in phases_by_scheme.items()]}


class ProblemsTest(unittest.TestCase):
    def test_complete_run_counts(self):
        r = result({"a": [("x-load", 10), ("x", 5)], "b": [("x-load", 10), ("x", 7)]})
        self.assertEqual(problems(r, 0, ["a", "b"], "x-load,x"), [])

    def test_nonzero_exit(self):
        r = result({"a": [("x-load", 10), ("x", 5)]})
        self.assertIn("zsbench exited 1", problems(r, 1, ["a"], "x-load,x"))

    def test_missing_phase_and_scheme(self):
        r = result({"a": [("x-load", 10)]})
        why = problems(r, 0, ["a", "b"], "x-load,x")
        self.assertIn("a did not run x", why)
        self.assertIn("scheme b missing", why)

    def test_short_load(self):
        r = result({"a": [("x-load", 9), ("x", 5)]})
        self.assertIn("a x-load inserted 9 of 10 records", problems(r, 0, ["a"], "x-load,x"))

    def test_reads_that_all_missed(self):
        r = result({"a": [("x-load", 10), ("x", 5)]})
        r["schemes"][0]["phases"][1].update(reads_found=0, reads_missed=5)
        self.assertIn("a x: all 5 reads missed (keys no load wrote)", problems(r, 0, ["a"], "x-load,x"))
        r["schemes"][0]["phases"][1].update(reads_found=1, reads_missed=4)
        self.assertEqual(problems(r, 0, ["a"], "x-load,x"), [])

    def test_a_repeated_phase_is_checked_at_each_place(self):
        r = result({"a": [("x-load", 10), ("drain", 0), ("x", 5), ("drain", 0)]})
        self.assertEqual(problems(r, 0, ["a"], "x-load,drain,x,drain"), [])
        r["schemes"][0]["phases"][3]["errors"] = 1
        self.assertIn("a drain: 1 failed operations, 0 background errors",
                      problems(r, 0, ["a"], "x-load,drain,x,drain"))
        r["schemes"][0]["phases"].pop()
        self.assertIn("a did not run drain", problems(r, 0, ["a"], "x-load,drain,x,drain"))


class RunnerTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="runner-test-")
        self.results = os.path.join(self.tmp, "results")
        self.docs = os.path.join(self.tmp, "docs")
        self.calls = os.path.join(self.tmp, "calls")
        self.env = {"FAKE_ZSBENCH_CALLS": self.calls, "FAKE_ZSBENCH": json.dumps(
            {"rates": {"b3": [100, 100, 100], "hhzs": [120, 110, 130], "b3#2": [101, 99, 100],
                       "hhzs#2": [121, 110, 129]}})}
        self.saved = {k: os.environ.get(k) for k in self.env}
        os.environ.update(self.env)
        self.lock_path = os.path.join(self.tmp, "lock")
        self.patch = (guard.LOCK_PATH, guard.BUSY_NAMES, guard.BUSY_WITH_ARG)
        # Real builds on this machine must not make the tests refuse.
        guard.LOCK_PATH, guard.BUSY_NAMES = self.lock_path, ("zsfakebusy",)
        guard.BUSY_WITH_ARG = {}

    def tearDown(self):
        guard.LOCK_PATH, guard.BUSY_NAMES, guard.BUSY_WITH_ARG = self.patch
        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(self.tmp, ignore_errors=True)

    def argv(self, exp="noise", *extra):
        return ["hhzs", exp, "--zsbench", FAKE, "--results", self.results, "--docs", self.docs,
                "--timing", "real", *extra]

    def main(self, *argv):
        import contextlib
        import io
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = cli.main(list(argv))
        return code, err.getvalue()

    def subprocess(self, argv, **env):
        e = dict(os.environ, PYTHONPATH=EXPERIMENTS, ZONESTACK_EXPERIMENTS_LOCK=self.lock_path,
                 ZONESTACK_BUSY_NAMES="zsfakebusy", **env)
        return subprocess.run([sys.executable, "-m", "runner", *argv], env=e, capture_output=True,
                              text=True, timeout=60)

    def ncalls(self):
        return len(read(self.calls).splitlines()) if os.path.exists(self.calls) else 0

    def summary(self, exp="noise", docs=None):
        return load(os.path.join(docs or self.docs, "summary", f"{exp}.json"))

    def test_repeats_summary_and_stamps(self):
        code, err = self.main(*self.argv())
        self.assertEqual(code, 0, err)
        self.assertEqual(self.ncalls(), 3)
        sm = self.summary()
        runs = sm["comparisons"]["a"]["runs"]
        self.assertEqual([r["repeat"] for r in runs], [1, 2, 3])
        self.assertEqual(runs[1]["phases"]["hhzs"]["hhzs-a"]["ops_s"], 110)
        self.assertLess(os.path.getsize(os.path.join(self.docs, "summary", "noise.json")), 100_000)
        seeds = [line.split("--seed ")[1].split()[0] for line in read(self.calls).splitlines()]
        self.assertEqual(seeds, ["1", "2", "3"])
        stamp = load((os.path.join(self.results, "hhzs", "noise", "a-r2.stamp.json")))
        for key in ("git", "tools", "rocksdb", "machine", "settings", "command", "configs", "start",
                    "end", "load_start", "load_end", "busy_seen"):
            self.assertIn(key, stamp)
        self.assertEqual(stamp["seed"], 2)
        self.assertIn("zsbench_sha256", stamp["tools"])
        self.assertIn("--seconds", stamp["command"])
        self.assertEqual(sorted(stamp["configs"]), ["b3", "b3#2", "hhzs", "hhzs#2"])
        text = read(os.path.join(self.docs, "RESULTS.md"))
        # hhzs/b3 = 1.2, 1.1, 1.3 within each run: median 1.2, spread 16.7%.
        self.assertIn(f"1.200 (1.100-1.300){DAGGER}", text)
        self.assertIn("Not yet measured", text)   # every other experiment

    def drop_from_summary(self, key, repeat, exp="noise"):
        """The summary as a run interrupted before `repeat` left it."""
        path = os.path.join(self.docs, "summary", f"{exp}.json")
        sm = load(path)
        comp = sm["comparisons"][key]
        comp["runs"] = [r for r in comp["runs"] if r["repeat"] != repeat]
        sm["stamps"]["runs"] = [r for r in sm["stamps"]["runs"]
                                if (r["comparison"], r["repeat"]) != (key, repeat)]
        with open(path, "w") as f:
            json.dump(sm, f)

    def test_resume_skips_done_repeats(self):
        self.assertEqual(self.main(*self.argv())[0], 0)
        os.remove(os.path.join(self.results, "hhzs", "noise", "a-r2.stamp.json"))
        self.drop_from_summary("a", 2)
        self.assertEqual(self.main(*self.argv())[0], 0)
        self.assertEqual(self.ncalls(), 4)  # only repeat 2 again
        self.assertEqual(len(self.summary()["comparisons"]["a"]["runs"]), 3)

    def test_resume_on_a_fresh_machine_from_the_committed_summary(self):
        self.assertEqual(self.main(*self.argv())[0], 0)
        before = self.summary()
        # A fresh clone: the raw results are gone, the summary is in git.
        shutil.rmtree(self.results)
        code, err = self.main(*self.argv())
        self.assertEqual(code, 0, err)
        self.assertEqual(self.ncalls(), 3)  # nothing measured again
        after = self.summary()
        self.assertEqual(after["comparisons"]["a"]["runs"], before["comparisons"]["a"]["runs"])
        self.assertEqual(after["stamps"]["common"]["git.commit"],
                         before["stamps"]["common"]["git.commit"])
        stamp = load(os.path.join(self.results, "hhzs", "noise", "a-r2.stamp.json"))
        self.assertIn("restored", stamp)
        self.assertEqual(stamp["seed"], 2)
        self.assertIn(f"1.200 (1.100-1.300){DAGGER}", read(os.path.join(self.docs, "RESULTS.md")))
        # Interrupted before repeat 3, on a fresh machine: only repeat 3 runs.
        self.drop_from_summary("a", 3)
        shutil.rmtree(self.results)
        self.assertEqual(self.main(*self.argv())[0], 0)
        self.assertEqual(self.ncalls(), 4)
        seeds = [line.split("--seed ")[1].split()[0] for line in read(self.calls).splitlines()]
        self.assertEqual(seeds[-1], "3")
        self.assertEqual([r["repeat"] for r in self.summary()["comparisons"]["a"]["runs"]], [1, 2, 3])
        # A summary of other settings restores nothing: every repeat runs.
        path = os.path.join(self.docs, "summary", "noise.json")
        sm = load(path)
        sm["settings"]["bg_jobs"] = 4
        with open(path, "w") as f:
            json.dump(sm, f)
        shutil.rmtree(self.results)
        self.assertEqual(self.main(*self.argv())[0], 0)
        self.assertEqual(self.ncalls(), 7)
        # --fresh discards what is there and measures again.
        code, err = self.main(*self.argv("noise", "--fresh"))
        self.assertEqual(code, 0, err)
        self.assertEqual(self.ncalls(), 10)

    def separate(self):
        """The noise experiment with its comparison run in parts."""
        import dataclasses
        from hhzs import paper
        exp = paper.EXPERIMENTS["noise"]
        whole = exp.comparisons
        exp.comparisons = lambda s: [dataclasses.replace(c, separate=True) for c in whole(s)]
        self.addCleanup(setattr, exp, "comparisons", whole)

    def calls_schemes(self):
        return [[a.split("=", 1)[0] for a in line.split("--scheme ")[1:]]
                for line in read(self.calls).splitlines()]

    def test_separate_comparison_runs_each_scheme_alone_and_joins_the_repeat(self):
        self.separate()
        code, err = self.main(*self.argv())
        self.assertEqual(code, 0, err)
        calls = self.calls_schemes()
        self.assertEqual(len(calls), 12)            # 3 repeats x 4 schemes, one process each
        self.assertTrue(all(len(c) == 1 for c in calls))
        # Rotated by one per repeat.
        self.assertEqual([c[0] for c in calls[4:8]], [c[0] for c in calls[1:4] + calls[0:1]])
        sm = self.summary()
        runs = sm["comparisons"]["a"]["runs"]
        self.assertEqual([r["repeat"] for r in runs], [1, 2, 3])
        self.assertEqual(sorted(runs[1]["phases"]), ["b3", "b3#2", "hhzs", "hhzs#2"])
        self.assertEqual(sm["comparisons"]["a"]["parts"], [])
        self.assertTrue(sm["comparisons"]["a"]["spec"]["separate"])
        self.assertIn(f"1.200 (1.100-1.300){DAGGER}", read(os.path.join(self.docs, "RESULTS.md")))
        stamp = load(os.path.join(self.results, "hhzs", "noise", "a-r2.stamp.json"))
        self.assertEqual(sorted(stamp["parts"]), ["b3", "b3#2", "hhzs", "hhzs#2"])
        self.assertEqual(len(stamp["command"]), 4)
        self.assertEqual(stamp["start"], min(p["start"] for p in stamp["parts"].values()))
        self.assertEqual(stamp["end"], max(p["end"] for p in stamp["parts"].values()))
        self.assertEqual(stamp["seed"], 2)
        # Done before: nothing runs again.
        self.assertEqual(self.main(*self.argv())[0], 0)
        self.assertEqual(self.ncalls(), 12)

    def test_separate_repeat_resumes_at_its_missing_part_on_a_fresh_machine(self):
        self.separate()
        os.environ["FAKE_ZSBENCH"] = json.dumps(dict(json.loads(self.env["FAKE_ZSBENCH"]),
                                                     fail_scheme={"b3#2": "exit1"}))
        code, err = self.main(*self.argv())
        self.assertEqual(code, 1)                   # no repeat counts without b3#2
        sm = self.summary()
        self.assertEqual(sm["comparisons"]["a"]["runs"], [])
        parts = sm["comparisons"]["a"]["parts"]
        self.assertEqual(sorted((p["repeat"], p["part"]) for p in parts),
                         [(r, n) for r in (1, 2, 3) for n in ("b3", "hhzs", "hhzs#2")])
        self.assertTrue(all(p["stamp"]["command"] for p in parts))
        text = read(os.path.join(self.docs, "RESULTS.md"))
        self.assertIn("**In progress**", text)
        self.assertIn("a repeat 3 hhzs#2 (", text)
        # A fresh machine: only the committed summary is left.
        shutil.rmtree(self.results)
        os.environ["FAKE_ZSBENCH"] = self.env["FAKE_ZSBENCH"]
        code, err = self.main(*self.argv())
        self.assertEqual(code, 0, err)
        self.assertEqual(self.calls_schemes()[12:], [["b3#2"]] * 3)
        sm = self.summary()
        self.assertEqual([r["repeat"] for r in sm["comparisons"]["a"]["runs"]], [1, 2, 3])
        self.assertEqual(sm["comparisons"]["a"]["parts"], [])
        self.assertIn(f"1.200 (1.100-1.300){DAGGER}", read(os.path.join(self.docs, "RESULTS.md")))
        stamp = load(os.path.join(self.results, "hhzs", "noise", "a-r1.stamp.json"))
        self.assertIn("restored", stamp["parts"]["hhzs"])
        self.assertNotIn("restored", stamp["parts"]["b3#2"])
        # The complete repeats restore whole: nothing runs again.
        shutil.rmtree(self.results)
        self.assertEqual(self.main(*self.argv())[0], 0)
        self.assertEqual(self.ncalls(), 15)
        self.assertEqual([r["repeat"] for r in self.summary()["comparisons"]["a"]["runs"]], [1, 2, 3])

    def test_settings_mismatch_exits_5_and_fresh_discards(self):
        self.assertEqual(self.main(*self.argv())[0], 0)
        path = os.path.join(self.results, "hhzs", "noise", "a-r1.stamp.json")
        stamp = load((path))
        stamp["settings"]["bg_jobs"] = 4
        with open(path, "w") as f:
            json.dump(stamp, f)
        code, err = self.main(*self.argv())
        self.assertEqual(code, 5)
        self.assertIn("bg_jobs", err)
        self.assertEqual(self.ncalls(), 3)
        code, err = self.main(*self.argv("noise", "--fresh"))
        self.assertEqual(code, 0, err)
        self.assertEqual(self.ncalls(), 6)

    def test_rejected_runs_do_not_count(self):
        for mode in ("exit1", "missing_phase", "short_load"):
            with self.subTest(mode=mode):
                shutil.rmtree(self.results, ignore_errors=True)
                os.environ["FAKE_ZSBENCH"] = json.dumps({"fail": {"2": mode}})
                code, err = self.main(*self.argv("noise", "--fresh"))
                self.assertEqual(code, 1)
                self.assertIn("does not count", err)
                sm = self.summary()
                self.assertEqual([r["repeat"] for r in sm["comparisons"]["a"]["runs"]], [1, 3])
                self.assertEqual(sm["rejected"][0]["repeat"], 2)
                self.assertTrue(glob.glob(os.path.join(self.results, "hhzs", "noise", "a-r2.rejected1.stamp.json")))

    def test_rejections_outlive_the_invocation_and_the_machine(self):
        os.environ["FAKE_ZSBENCH"] = json.dumps({"fail": {"2": "exit1"}})
        self.assertEqual(self.main(*self.argv("noise"))[0], 1)
        # Resumed without failures: repeat 2 counts, its earlier rejection
        # stays listed, once.
        os.environ["FAKE_ZSBENCH"] = json.dumps({})
        code, err = self.main(*self.argv("noise"))
        self.assertEqual(code, 0, err)
        sm = self.summary()
        self.assertEqual([r["repeat"] for r in sm["comparisons"]["a"]["runs"]], [1, 2, 3])
        self.assertEqual([(r["comparison"], r["repeat"]) for r in sm["rejected"]], [("a", 2)])
        self.assertIn("zsbench exited 1", "; ".join(sm["rejected"][0]["why"]))
        self.assertTrue(sm["rejected"][0]["end"])
        # A fresh machine has only the summary: the rejection survives a
        # resume there too, and the report shows it.
        shutil.rmtree(self.results)
        code, err = self.main(*self.argv("noise"))
        self.assertEqual(code, 0, err)
        self.assertEqual([(r["comparison"], r["repeat"]) for r in self.summary()["rejected"]],
                         [("a", 2)])
        self.assertIn("- rejected: a repeat 2", report.stamp_lines(self.summary()))

    def test_dependent_comparison_skipped_when_its_base_failed(self):
        os.environ["FAKE_ZSBENCH"] = json.dumps({"fail": {"1": "exit1"}})
        code, err = self.main(*self.argv("o3", "--repeats", "1"))
        self.assertEqual(code, 1)
        self.assertIn("throttled not run", err)
        self.assertEqual(self.ncalls(), 1)

    def script(self, name, body):
        """An executable shell script `name` in the test's folder."""
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(f"#!/bin/sh\n{body}\n")
        os.chmod(path, 0o755)
        return path

    def test_unknown_scheme_option_refused_before_running(self):
        zsctl = self.script("zsctl", "echo 'hhzs'\necho '    spare_placement   false   ours'")
        code, err = self.main(*self.argv("refinements", "--zsctl", zsctl))
        self.assertEqual(code, 2)
        self.assertIn("cache_refresh is not an option", err)
        self.assertNotIn("spare_placement is not", err)
        self.assertEqual(self.ncalls(), 0)

    def test_report_from_summaries_alone(self):
        self.assertEqual(self.main(*self.argv())[0], 0)
        shutil.rmtree(self.results)
        os.remove(os.path.join(self.docs, "RESULTS.md"))
        os.makedirs(os.path.join(self.docs, "analysis"))
        with open(os.path.join(self.docs, "analysis", "noise.md"), "w") as f:
            f.write("Hand-written words.\n")
        code, err = self.main("hhzs", "report", "--results", self.results, "--docs", self.docs)
        self.assertEqual(code, 0, err)
        text = read(os.path.join(self.docs, "RESULTS.md"))
        self.assertIn(f"1.200 (1.100-1.300){DAGGER}", text)
        self.assertIn("Hand-written words.", text)
        self.assertIn("runs counted: 3 of 3", text)
        self.assertEqual(text.count("Not yet measured"), 11)
        self.assertNotIn("## Demo", text)                   # listed only where it ran

    def test_every_experiment_runs_and_reports(self):
        code, err = self.main(*self.argv("all", "--repeats", "2"))
        self.assertEqual(code, 0, err)
        docs = glob.glob(os.path.join(self.results, "hhzs", "custom", "*"))[0]
        text = read(os.path.join(docs, "RESULTS.md"))
        self.assertNotIn("Not yet measured", text)
        self.assertIn("## Demo", text)
        self.assertIn("| 64 |", text)                       # Exp#6's last rate
        self.assertIn("| L0 |", text)                       # O1's level box
        self.assertIn("1.188", text)                        # a paper number beside ours
        for exp in ("exp1", "exp5", "refinements"):
            self.assertLess(os.path.getsize(os.path.join(docs, "summary", f"{exp}.json")), 100_000)

    def test_custom_settings_folder(self):
        code, err = self.main(*self.argv("noise", "--scale", "1024", "--repeats", "1"))
        self.assertEqual(code, 0, err)
        self.assertFalse(os.path.exists(os.path.join(self.docs, "summary")))
        custom = glob.glob(os.path.join(self.results, "hhzs", "custom", "*", "summary", "noise.json"))
        self.assertEqual(len(custom), 1)
        self.assertIn("scale_1024", custom[0])
        self.assertTrue(os.path.exists(os.path.join(os.path.dirname(os.path.dirname(custom[0])), "RESULTS.md")))

    def test_lock_exits_3_naming_holder(self):
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT)
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, b"4242\n")
        try:
            r = self.subprocess(self.argv())
        finally:
            os.close(fd)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("pid 4242", r.stderr)
        self.assertEqual(self.ncalls(), 0)

    def test_busy_exits_4_unless_ignored(self):
        busy = self.script("zsfakebusy", "sleep 30")
        proc = subprocess.Popen([busy], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        try:
            for _ in range(50):   # until exec has renamed it
                if read(f"/proc/{proc.pid}/comm").strip() == "zsfakebusy":
                    break
                time.sleep(0.02)
            r = self.subprocess(self.argv())
            self.assertEqual(r.returncode, 4, r.stderr)
            self.assertIn(f"pid {proc.pid}", r.stderr)
            self.assertEqual(self.ncalls(), 0)
            r = self.subprocess(self.argv("noise", "--ignore-busy", "--repeats", "1"))
            self.assertEqual(r.returncode, 0, r.stderr)
        finally:
            os.killpg(proc.pid, 9)  # the shell and its sleep
            proc.wait()
        stamp = load((glob.glob(os.path.join(self.results, "hhzs", "custom", "*", "noise",
                                                      "a-r1.stamp.json"))[0]))
        self.assertTrue(stamp["ignore_busy"])
        self.assertTrue(any("zsfakebusy" in b for b in stamp["busy_seen"]))


class HhzsModuleTest(unittest.TestCase):
    def test_every_experiment_declares_comparisons(self):
        from hhzs import paper
        for exp in paper.EXPERIMENTS.values():
            comps = exp.comparisons(paper.DEFAULTS)
            self.assertTrue(comps, exp.name)
            for c in comps:
                for name, spec in c.schemes:
                    self.assertFalse(set(name) & set(":/?&;="), name)
                    cfg = paper.volume_config(paper.DEFAULTS, spec, c)
                    self.assertIn("scheme", cfg)

    def test_settings_are_the_papers(self):
        from hhzs import paper, setup
        s = paper.DEFAULTS
        self.assertEqual((s["scale"], s["bg_jobs"], s["bloom_bits"], s["ssd_zones"], s["threads"]),
                         (512, 12, 0, 20, 8))
        args = setup.zsbench_args(s, paper.EXPERIMENTS["noise"].comparisons(s)[0])
        self.assertIn("max_background_jobs=12", args)
        self.assertEqual(args[args.index("--seconds") + 1], "30.0")
        self.assertFalse(any("filter_policy" in a for a in args))


if __name__ == "__main__":
    unittest.main()
