"""The ZoneTier paper module with no zsreplay: the scaled setup, the
command line, what compact keeps of a zsreplay compare result, when a run
does not count, and the tables computed from synthetic results."""
import json
import os
import shutil
import tempfile
import unittest

from runner import cli, guard
from runner.stats import Stat
from zonetier import compact, paper, setup, tables


def settings(**overrides):
    return dict(paper.DEFAULTS, **overrides)


def result(scheme, avg_all, p999=1000.0, util=0.5, requests=100, error=None):
    if error:
        return {"scheme": scheme, "error": error}
    return {"scheme": scheme, "requests": requests, "drive_reads": 10, "drive_writes": 20,
            "avg_response_us": {"all": avg_all, "all_with_periods": avg_all * 2, "reads": 1.0, "writes": 1.0, "drive_reads": 2.0,
                                "drive_writes": 4.0, "demotion_writes": 3.0},
            "write_p99_us": 500.0, "write_p999_us": p999, "demotion_write_max_us": 7.0,
            "ssd_tier_utilization": util, "media_cache_cleanings": 1,
            "media_cache_cleaned_zones": 2, "media_cache_cleaning_ms": 3.0,
            "performance_recovery_ms": 4.0, "performance_recovery_episodes": 1,
            "drive_nsw_writes": 5, "simulated_ms": 200.0, "trace_ms": 100.0, "period_ms": 9.0,
            "tier": {"promotions": 1, "demotions": 2, "evictions": 3}}


def compare(avg, requests=100):
    """A compare result: avg {scheme: mean response us}."""
    return {"trace": {"requests": requests},
            "schemes": [result(s, avg[s], p999=avg[s] * 10) for s in setup.SCHEMES]}


class SetupTest(unittest.TestCase):
    def test_the_media_cache_keeps_the_papers_share_of_the_drive(self):
        s = settings()
        share = setup.media_cache_bytes(s) / setup.drive_bytes(s)
        self.assertAlmostEqual(share, 25.6e9 / (29809 * 256 * 2**20), places=5)
        self.assertEqual(setup.media_cache_bytes(s) % 4096, 0)
        self.assertIn(f"mc={setup.media_cache_bytes(s)}", setup.drive_uri(s))

    def test_the_ssd_holds_the_tier_and_the_cache(self):
        s = settings()
        uri = setup.ssd_uri(s)
        zones = int(uri.split("zones=")[1].split("&")[0])
        self.assertIn(f"conv={zones}", uri)
        self.assertGreaterEqual(zones * (1077 << 20) // s["scale"],
                                setup.ssd_tier_bytes(s) + setup.cache_bytes(s))
        self.assertEqual(setup.ssd_tier_bytes(s) % setup.zone_bytes(s), 0)

    def test_one_command_replays_every_scheme_on_one_trace(self):
        s = settings()
        comp = paper.comparisons(s)[0]
        cmd, ran_on = paper.command(s, comp, 2, "/x/r2.json", "/bin/zsreplay")
        self.assertEqual(cmd[:2], ["/bin/zsreplay", "compare"])
        self.assertEqual(cmd[cmd.index("--seed") + 1], "2")
        self.assertEqual(cmd[cmd.index("--profile") + 1], comp.params["profile"])
        self.assertEqual([cmd[i + 1] for i, a in enumerate(cmd) if a == "--scheme"], setup.SCHEMES)
        self.assertEqual(ran_on["drive"], setup.drive_uri(s))
        self.assertEqual([c.key for c in paper.comparisons(s)], setup.PROFILES)


class CountsTest(unittest.TestCase):
    def test_a_complete_run_counts(self):
        avg = {s: 1.0 for s in setup.SCHEMES}
        self.assertEqual(compact.problems(compare(avg), 0, setup.SCHEMES, "hm_0"), [])

    def test_a_failed_missing_or_short_scheme_does_not(self):
        avg = {s: 1.0 for s in setup.SCHEMES}
        r = compare(avg)
        r["schemes"][0] = result(setup.SCHEMES[0], 0, error="no space")
        r["schemes"][1]["requests"] = 99
        del r["schemes"][2]
        why = compact.problems(r, 1, setup.SCHEMES, "hm_0")
        self.assertEqual(len(why), 4, why)
        self.assertIn("zsreplay exited 1", why)
        self.assertTrue(any("no space" in w for w in why))
        self.assertTrue(any("missing" in w for w in why))
        self.assertTrue(any("99 of 100" in w for w in why))
        self.assertEqual(compact.problems(None, 0, setup.SCHEMES, "hm_0"), ["no JSON result"])


class TablesTest(unittest.TestCase):
    def summary(self):
        runs = []
        for r, zt in enumerate([50.0, 60.0, 40.0], start=1):
            avg = {s: 100.0 for s in setup.SCHEMES}
            avg[setup.ZONETIER] = zt
            runs.append(dict(compact.compact(compare(avg)), repeat=r))
        return {"settings": settings(), "comparisons": {"hm_0": {"runs": runs}}}

    def test_zonetier_over_each_baseline_within_each_run(self):
        t = tables.all_tables(self.summary())[0]
        c = t.rows[0][t.columns.index("ZoneTier / HA-256-LRU")]
        self.assertIsInstance(c, Stat)
        self.assertEqual((c.median, c.min, c.max), (0.5, 0.4, 0.6))
        self.assertIn("28.20%", t.rows[0][-1])

    def test_tails_put_the_baseline_over_zonetier(self):
        t = next(x for x in tables.all_tables(self.summary()) if x.title.startswith("Write p99.9"))
        c = t.rows[0][t.columns.index("DM-64-LRU / ZoneTier")]
        self.assertEqual(c.median, 2.0)

    def test_behind_is_replay_time_over_the_traces_span(self):
        t = next(x for x in tables.all_tables(self.summary()) if x.title.startswith("Replay time"))
        self.assertEqual(t.rows[0][1].median, 2.0)


class RunnerTest(unittest.TestCase):
    """The runner drives zsreplay through the module's own command and
    run check (a fake zsreplay: tests/fake_zsreplay.py)."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="zonetier-test-")
        self.saved = (guard.LOCK_PATH, guard.BUSY_NAMES)
        guard.LOCK_PATH, guard.BUSY_NAMES = os.path.join(self.tmp, "lock"), ("zsfakebusy",)

    def tearDown(self):
        guard.LOCK_PATH, guard.BUSY_NAMES = self.saved
        shutil.rmtree(self.tmp)

    def test_three_repeats_make_a_summary_and_a_report(self):
        fake = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_zsreplay.py")
        docs = os.path.join(self.tmp, "docs")
        rc = cli.main(["zonetier", "traces", "--zsbench", fake, "--results",
                       os.path.join(self.tmp, "results"), "--docs", docs])
        self.assertEqual(rc, 0)
        with open(os.path.join(docs, "summary", "traces.json")) as f:
            sm = json.load(f)
        self.assertEqual(sorted(sm["comparisons"]), sorted(setup.PROFILES))
        self.assertEqual(len(sm["comparisons"]["hm_0"]["runs"]), 3)
        with open(os.path.join(docs, "RESULTS.md")) as f:
            text = f.read()
        self.assertIn("zsreplay `--seed r`", text)
        self.assertIn("0.500 (0.500-0.500)", text)


if __name__ == "__main__":
    unittest.main()
