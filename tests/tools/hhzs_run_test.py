"""Tests of experiments/hhzs/run.py's tables over repeated runs (no zsbench)."""
import argparse
import io
import json
import os
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "experiments", "hhzs"))
import run  # noqa: E402


def result(ops, phase_name="hhzs-a", hdd_reads=None):
    """A zsbench result with one phase per scheme: ops = {scheme: ops/s}."""
    schemes = []
    for name, rate in ops.items():
        devices = [{"by_class": {"user_read": {"read_ops": 10}}},
                   {"by_class": {"user_read": {"read_ops": (hdd_reads or {}).get(name, 30)}}}]
        schemes.append({"name": name, "phases": [
            {"name": phase_name, "ops_per_second": rate, "ops": 100, "devices": devices,
             "scheme": {}}]})
    return {"schemes": schemes}


def setup(**overrides):
    """run.Setup from run.py's own defaults, as the command line gives them."""
    a = run.arg_parser().parse_args(["quick"])
    for k, v in overrides.items():
        setattr(a, k, v)
    return run.Setup(a)


class SetupTest(unittest.TestCase):
    def test_compaction_debt_limits_scale_with_the_data(self):
        opts = setup(scale=2048).rocksdb_options()
        self.assertEqual(opts["soft_pending_compaction_bytes_limit"], 32 * run.MiB)
        self.assertEqual(opts["hard_pending_compaction_bytes_limit"], 128 * run.MiB)

    def test_unscaled_debt_limits_are_rocksdbs_defaults(self):
        opts = setup(scale=2048, debt_limits="unscaled").rocksdb_options()
        self.assertNotIn("soft_pending_compaction_bytes_limit", opts)
        self.assertNotIn("hard_pending_compaction_bytes_limit", opts)


class BloomFilterTest(unittest.TestCase):
    def test_no_filter_by_default_as_the_authors_code_runs(self):
        self.assertEqual(setup().rocksdb_options()["block_based_table_factory"], "{block_cache=65536}")
        self.assertIn(";filter_policy=bloomfilter:10:false",
                      setup(bloom_bits=10).rocksdb_options()["block_based_table_factory"])


class IndexInCacheTest(unittest.TestCase):
    def test_index_and_filter_blocks_go_to_the_block_cache_only_when_asked(self):
        self.assertNotIn("cache_index_and_filter_blocks", setup().rocksdb_options()["block_based_table_factory"])
        self.assertIn(";cache_index_and_filter_blocks=true}",
                      setup(index_in_cache=True).rocksdb_options()["block_based_table_factory"])


class Exp6DecisionTest(unittest.TestCase):
    def test_decisions_do_not_bind_the_highest_rate(self):
        # One SST at the highest scaled rate takes about 123 ms at every K
        # (SST and rate both scale); the scheme's 1 s default would hold
        # the 8-64 MiB/s points to one SST a second.
        for k in (512, 2048):
            s = setup(scale=k)
            ms = run.exp6_decision_ms(s)
            top = s.migration_rate(max(run.EXP6_RATES) * run.MiB)
            self.assertLessEqual(ms / 1000 * top, s.sst)
            self.assertGreater((ms + 1) / 1000 * top, s.sst)
            self.assertLess(ms, 1000)

    def test_each_rates_volume_config_carries_the_interval(self):
        s = setup(scale=512)
        with tempfile.TemporaryDirectory() as d:
            path = s.config(d, "p+m-64mib", f"p+m/decision_interval_ms:{run.exp6_decision_ms(s)}", 20,
                            s.migration_rate(64 * run.MiB))
            with open(path) as f:
                scheme = json.load(f)["scheme"]
        self.assertEqual(scheme["name"], "p+m")
        self.assertEqual(scheme["decision_interval_ms"], 123)
        self.assertEqual(scheme["migration_mib_per_sec"], 16)


class SpreadTest(unittest.TestCase):
    def test_one_run_is_the_value(self):
        self.assertEqual(run.spread([1.2345]), "1.234")

    def test_repeats_give_mean_and_range(self):
        self.assertEqual(run.spread([1.0, 1.5, 0.8]), "1.100 (0.800-1.500)")


class ThroughputTableTest(unittest.TestCase):
    def test_ratios_are_taken_within_each_run_then_averaged(self):
        # Run 2 is twice as fast for both schemes: the ratio is 1.5 in both,
        # which averaging ops/s first would also give, but run 3's ratio
        # (1.0) must pull the mean down to (1.5 + 1.5 + 1.0) / 3.
        runs = [result({"b3": 100, "hhzs": 150}), result({"b3": 200, "hhzs": 300}),
                result({"b3": 100, "hhzs": 100})]
        t = run.throughput_tables([("hhzs-a-load,hhzs-a", runs)], ["b3", "hhzs"], "b3", "t",
                                  lambda wl: ["hhzs-a"])
        self.assertEqual(t.rows, [["hhzs-a", "1.000 (1.000-1.000)", "1.333 (1.000-1.500)", "133"]])

    def test_read_sources_sum_reads_over_repeats(self):
        runs = [result({"b3": 100}, hdd_reads={"b3": 30}), result({"b3": 300}, hdd_reads={"b3": 70})]
        t = run.read_sources([("w,hhzs-a", runs)], ["b3"], "t", lambda wl: ["hhzs-a"])
        # HDD share (30 + 70) / (30 + 10 + 70 + 10); HDD reads per op
        # (30 + 70) / (100 + 100); mean ops/s 200.
        self.assertEqual(t.rows, [["hhzs-a", "b3", "200", "0.833", "0.500", "-", "-"]])


class HddTimeTest(unittest.TestCase):
    def test_hdd_time_shares_and_compaction_are_means_over_repeats(self):
        def one(user, compaction, ssd_mib, hdd_mib):
            ssd = {"by_class": {"compaction": {"write_bytes": ssd_mib * run.MiB}}}
            hdd = {"busy_by_class": {"user_read": user, "compaction": compaction},
                   "by_class": {"compaction": {"write_bytes": hdd_mib * run.MiB}}}
            return {"schemes": [{"name": "hhzs", "phases": [
                {"name": "hhzs-a", "ops_per_second": 100, "devices": [ssd, hdd]}]}]}
        runs = [one(0.9, 0.08, 10, 90), one(0.8, 0.2, 30, 70)]
        t = run.hdd_time([("w,hhzs-a", runs)], ["hhzs"], "t", lambda wl: ["hhzs-a"])
        # Time shares averaged; 100 MiB compacted in each run, 40 of 200 on the SSD.
        self.assertEqual(t.rows, [["hhzs-a", "hhzs", "100", "0.850", "0.140", "0.000", "100",
                                   "0.200"]])


class AheadCountsTest(unittest.TestCase):
    def test_counts_runs_ahead_of_each_and_of_all(self):
        runs = [result({"b3": 100, "auto": 120, "hhzs": 110}),
                result({"b3": 100, "auto": 90, "hhzs": 110}),
                result({"b3": 120, "auto": 90, "hhzs": 110})]
        t = run.ahead_counts([("w,hhzs-a", runs)], "hhzs", ["b3", "auto"], "t", lambda wl: ["hhzs-a"])
        self.assertEqual(t.rows, [["hhzs-a", "2/3", "2/3", "1/3"]])


class StepTableTest(unittest.TestCase):
    def test_each_step_is_a_ratio_within_a_run_and_counts_the_runs_it_added(self):
        runs = [result({"p": 100, "p+m": 110}), result({"p": 200, "p+m": 180}),
                result({"p": 100, "p+m": 130})]
        t = run.step_table([("w,hhzs-a", runs)], [("M", "p+m", "p")], "t", lambda wl: ["hhzs-a"])
        # 1.1, 0.9 and 1.3: mean 1.1, up in two of three runs.
        self.assertEqual(t.rows, [["hhzs-a", "1.100 (0.900-1.300), up 2/3"]])

    def test_a_scheme_missing_from_the_run_gives_a_dash(self):
        t = run.step_table([("w,hhzs-a", [result({"p": 100})])], [("M", "p+m", "p")], "t",
                           lambda wl: ["hhzs-a"])
        self.assertEqual(t.rows, [["hhzs-a", "-"]])


class SstCeilingTest(unittest.TestCase):
    def sst(self, reads, zones=1, on_ssd=False):
        return {"reads": reads, "size": zones * 1000, "on_ssd": on_ssd}

    def test_best_takes_most_reads_per_zone_that_fit(self):
        ssts = [self.sst(30, zones=3), self.sst(12), self.sst(11), self.sst(5)]
        reads = [x["reads"] for x in ssts]
        # Per zone: 10, 12, 11, 5. Two zones: 12 + 11; the 3-zone SST cannot fit.
        self.assertEqual(run.best_sst_reads(ssts, reads, 1000, 2), 23)
        # Four zones: 12, 11, then the 3-zone SST no longer fits; 5 does.
        self.assertEqual(run.best_sst_reads(ssts, reads, 1000, 4), 28)
        self.assertEqual(run.best_sst_reads(ssts, reads, 1000, 5), 53)

    def test_shares_of_the_ssd_the_hindsight_pick_and_chance(self):
        ssts = [self.sst(90, on_ssd=True)] + [self.sst(1) for _ in range(10)]
        total, on_ssd, best, chance = run.sst_oracle_share({"scheme": {"ssts": ssts}}, 1000, 1)
        self.assertEqual(total, 100)
        self.assertAlmostEqual(on_ssd, 0.9)
        self.assertAlmostEqual(best, 0.9)
        # 100 reads over 11 equal SSTs: the luckiest gets well under 90.
        self.assertGreater(chance, 1 / 11)
        self.assertLess(chance, 0.3)

    def test_no_per_sst_reads_gives_no_row(self):
        self.assertIsNone(run.sst_oracle_share({"scheme": {}}, 1000, 17))
        runs = [result({"hhzs": 100})]
        t = run.sst_ceiling([("w,hhzs-a", runs)], ["hhzs"], "t", lambda wl: ["hhzs-a"], 1000, 17)
        self.assertEqual(t.rows, [])


class Exp1Test(unittest.TestCase):
    def test_exp1_builds_its_tables_from_repeated_runs(self):
        def fake_zsbench(a_, setup_, cfgs, wl, path, n, rate):
            phases = wl.split(",")
            res = {"schemes": [{"name": s, "phases": [
                {"name": p, "ops_per_second": 100.0, "devices": [], "scheme": {}, "samples": []}
                for p in phases]} for s, _ in cfgs]}
            return res

        with tempfile.TemporaryDirectory() as out:
            a = argparse.Namespace(settle=False, repeat=2, reuse=False, ops=100)
            setup = mock.Mock()
            setup.config.return_value = "cfg"
            with mock.patch.object(run, "zsbench", fake_zsbench):
                tables = run.exp1(a, setup, out)
        self.assertEqual(tables[0].rows[0][:2], ["hhzs-a-load", "1.000 (1.000-1.000)"])
        self.assertEqual(tables[1].rows[0], ["hhzs-a-load", "0/2", "0/2", "0/2", "0/2"])


class RepeatFilesTest(unittest.TestCase):
    def test_each_repeat_writes_its_own_json_and_reuse_reads_them(self):
        with tempfile.TemporaryDirectory() as out:
            a = argparse.Namespace(settle=False, repeat=2, reuse=False, zsbench="zsbench", interval=1.0)
            setup = mock.Mock()
            setup.config.return_value = "cfg"
            setup.rocksdb_options.return_value = {}
            calls = []

            def fake_run(cmd, check):
                # What zsbench would do: write its JSON where --json says.
                path = cmd[cmd.index("--json") + 1]
                calls.append(path)
                with open(path, "w") as f:
                    json.dump(result({"b3": 100 * len(calls)}), f)

            with mock.patch.object(run.subprocess, "run", fake_run), \
                    mock.patch("sys.stderr", new=io.StringIO()):
                first = run.run_workloads(a, setup, out, ["b3"], ["hhzs-a-load,hhzs-a"], 10)
                a.reuse = True
                again = run.run_workloads(a, setup, out, ["b3"], ["hhzs-a-load,hhzs-a"], 10)
                # Every experiment's comparisons go through zsbench(), so
                # --reuse holds for those outside run_workloads too (exp6, O1-O3).
                self.assertEqual(run.zsbench(a, setup, [], "x", calls[0]), first[0][1][0])
            self.assertEqual([os.path.basename(p) for p in calls],
                             ["hhzs-a-load+hhzs-a-20z.json", "hhzs-a-load+hhzs-a-20z-r2.json"])
            self.assertEqual(first, again)
            self.assertEqual(len(first[0][1]), 2)


class PoolTest(unittest.TestCase):
    def test_pool_reads_every_repeat_of_every_folder_and_runs_nothing(self):
        with tempfile.TemporaryDirectory() as root:
            dirs = []
            for d, n in (("s1", 2), ("s2", 1)):
                os.makedirs(os.path.join(root, d, "exp1"))
                dirs.append(os.path.join(root, d))
                for r in range(1, n + 1):
                    name = "hhzs-a-load+hhzs-a-20z" + (f"-r{r}" if r > 1 else "") + ".json"
                    with open(os.path.join(root, d, "exp1", name), "w") as f:
                        json.dump(result({"b3": 100 * r, "hhzs": 110 * r}), f)
            a = argparse.Namespace(settle=False, repeat=1, reuse=False, pool=dirs)
            setup = mock.Mock()
            setup.config.return_value = "cfg"
            with mock.patch.object(run, "zsbench", side_effect=AssertionError("ran zsbench")):
                got = run.run_workloads(a, setup, os.path.join(root, "out", "exp1"), ["b3", "hhzs"],
                                        ["hhzs-a-load,hhzs-a"], 10)
            self.assertEqual(len(got[0][1]), 3)
            with self.assertRaises(SystemExit):
                run.run_workloads(a, setup, os.path.join(root, "out", "exp2"), ["b3"],
                                  ["hhzs-a-load,hhzs-a"], 10)


if __name__ == "__main__":
    unittest.main()
