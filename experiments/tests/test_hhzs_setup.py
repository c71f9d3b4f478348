"""The HHZS paper module's scaled setup and its hindsight arithmetic, with
no zsbench: RocksDB options, Exp#6's decision interval, the SST ceiling,
Exp#5's tables."""
import unittest

from hhzs import compact, paper, setup


def settings(**overrides):
    return dict(paper.DEFAULTS, **overrides)


class RocksDbOptionsTest(unittest.TestCase):
    def test_compaction_debt_limits_scale_with_the_data(self):
        opts = setup.rocksdb_options(settings(scale=2048))
        self.assertEqual(opts["soft_pending_compaction_bytes_limit"], 32 * setup.MiB)
        self.assertEqual(opts["hard_pending_compaction_bytes_limit"], 128 * setup.MiB)

    def test_unscaled_debt_limits_are_rocksdbs_defaults(self):
        opts = setup.rocksdb_options(settings(debt_limits="unscaled"))
        self.assertNotIn("soft_pending_compaction_bytes_limit", opts)
        self.assertNotIn("hard_pending_compaction_bytes_limit", opts)

    def test_no_filter_by_default_as_the_authors_code_runs(self):
        table = setup.rocksdb_options(settings())["block_based_table_factory"]
        self.assertNotIn("filter_policy", table)
        self.assertNotIn("cache_index_and_filter_blocks", table)
        self.assertIn(";filter_policy=bloomfilter:10:false",
                      setup.rocksdb_options(settings(bloom_bits=10))["block_based_table_factory"])
        self.assertIn(";cache_index_and_filter_blocks=true",
                      setup.rocksdb_options(settings(index_in_cache=True))["block_based_table_factory"])

    def test_the_papers_twelve_background_jobs(self):
        self.assertEqual(setup.rocksdb_options(settings())["max_background_jobs"], 12)

    def test_an_sst_fills_most_of_an_ssd_zone(self):
        s = settings()
        self.assertEqual(setup.rocksdb_options(s)["target_file_size_base"], setup.sst_size(s))
        self.assertGreater(setup.sst_size(s), 0.93 * setup.zone_cap(s))
        self.assertLessEqual(setup.sst_size(s), setup.zone_cap(s))


class Exp6DecisionTest(unittest.TestCase):
    def test_decisions_do_not_bind_the_highest_rate(self):
        # One SST at the highest scaled rate takes about 123 ms at every K
        # (SST and rate both scale); the scheme's 1 s default would hold the
        # 8-64 MiB/s points to one SST a second.
        for k in (512, 2048):
            s = settings(scale=k)
            ms = paper.exp6_decision_ms(s)
            top = setup.migration_rate(s, max(paper.EXP6_RATES) * setup.MiB)
            self.assertLessEqual(ms / 1000 * top, setup.sst_size(s))
            self.assertGreater((ms + 1) / 1000 * top, setup.sst_size(s))
            self.assertLess(ms, 1000)

    def test_every_rates_scheme_carries_the_interval_and_its_rate(self):
        (comp,) = paper.exp6_comparisons(settings())
        ms = paper.exp6_decision_ms(settings())
        rates = []
        for _, spec in comp.schemes:
            cfg = setup.volume_config(settings(), spec, comp.params)["scheme"]
            self.assertEqual(cfg["decision_interval_ms"], ms)
            rates.append(cfg["migration_mib_per_sec"])
        self.assertEqual(rates, sorted(rates))
        self.assertEqual(len(set(rates)), len(paper.EXP6_RATES))


class SstCeilingTest(unittest.TestCase):
    @staticmethod
    def sst(reads, zones=1, on_ssd=False):
        return {"reads": reads, "size": zones * 1000, "on_ssd": on_ssd}

    def test_best_takes_most_reads_per_zone_that_fit(self):
        ssts = [self.sst(30, zones=3), self.sst(12), self.sst(11), self.sst(5)]
        reads = [x["reads"] for x in ssts]
        # Per zone: 10, 12, 11, 5. Two zones: 12 + 11; the 3-zone SST cannot fit.
        self.assertEqual(compact.best_sst_reads(ssts, reads, 1000, 2), 23)
        # Four zones: 12, 11, then the 3-zone SST no longer fits; 5 does.
        self.assertEqual(compact.best_sst_reads(ssts, reads, 1000, 4), 28)
        self.assertEqual(compact.best_sst_reads(ssts, reads, 1000, 5), 53)

    def test_shares_of_the_ssd_the_hindsight_pick_and_chance(self):
        ssts = [self.sst(90, on_ssd=True)] + [self.sst(1) for _ in range(10)]
        total, on_ssd, best, chance = compact.sst_ceiling({"scheme": {"ssts": ssts}}, 1000, 1)
        self.assertEqual(total, 100)
        self.assertAlmostEqual(on_ssd, 0.9)
        self.assertAlmostEqual(best, 0.9)
        # 100 reads over 11 equal SSTs: the luckiest gets well under 90.
        self.assertGreater(chance, 1 / 11)
        self.assertLess(chance, 0.3)

    def test_no_per_sst_reads_gives_nothing(self):
        self.assertIsNone(compact.sst_ceiling({"scheme": {}}, 1000, 17))


class GitStateTest(unittest.TestCase):
    def test_the_runners_own_outputs_do_not_make_the_tree_dirty(self):
        import os
        import subprocess
        import tempfile
        from runner import stamps
        with tempfile.TemporaryDirectory() as d:
            def git(*args):
                subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=d,
                               check=True, capture_output=True)
            os.makedirs(os.path.join(d, "experiments", "hhzs", "summary"))
            files = ["experiments/hhzs/RESULTS.md", "experiments/hhzs/summary/exp1.json",
                     "experiments/run.sh"]
            for f in files:
                with open(os.path.join(d, f), "w") as out:
                    out.write("a\n")
            git("init", "-q")
            git("add", ".")
            git("commit", "-qm", "x")
            for f in files[:2]:
                with open(os.path.join(d, f), "a") as out:
                    out.write("b\n")
            self.assertFalse(stamps.git_state(d)["dirty"])
            with open(os.path.join(d, files[2]), "a") as out:
                out.write("b\n")
            state = stamps.git_state(d)
            self.assertTrue(state["dirty"])
            self.assertIn("run.sh", state["diff_stat"])
            self.assertNotIn("RESULTS.md", state["diff_stat"])


def exp5_summary(rates):
    """rates: {zones: [{scheme: (load ops/s, run ops/s)} per repeat]}."""
    comps = {}
    for z, reps in rates.items():
        comps[f"z{z}"] = {"spec": {"workload": "hhzs-w2-load,mix:0.5:0.9"},
                          "runs": [{"phases": {s: {"hhzs-w2-load": {"ops_s": a}, "mix:0.5:0.9": {"ops_s": b}}
                                               for s, (a, b) in rep.items()}} for rep in reps]}
    return {"settings": dict(paper.DEFAULTS), "comparisons": comps}


class Exp5TablesTest(unittest.TestCase):
    def setUp(self):
        base = {"b1": (80, 8), "b2": (90, 9), "b4": (70, 7), "auto": (60, 6)}
        self.sm = exp5_summary({20: [dict(base, b3=(100, 10), p=(110, 12), hhzs=(121, 15)),
                                     dict(base, b3=(50, 5), p=(99, 9), hhzs=(99, 18))],
                                40: [dict(base, b3=(100, 10), p=(100, 10), hhzs=(100, 10))]})
        self.ratio, self.best = paper.exp5_tables(self.sm)

    def test_loads_of_different_ssd_sizes_are_not_pooled(self):
        self.assertEqual([r[0] for r in self.ratio.rows],
                         ["20 zones, hhzs-w2-load", "20 zones, mix:0.5:0.9",
                          "40 zones, hhzs-w2-load", "40 zones, mix:0.5:0.9"])

    def test_over_the_best_baseline_of_each_repeat(self):
        cols = self.ratio.columns
        row = self.ratio.rows[1]
        # repeat 1: p 12 over b3's 10; repeat 2: p 9 over b2's 9
        self.assertEqual(sorted(row[cols.index("p/best")].values), [1.0, 1.2])
        self.assertEqual(sorted(row[cols.index("hhzs/p")].values), [1.25, 2.0])
        self.assertEqual(row[cols.index("hhzs/p, paper")], "-")
        self.assertEqual(self.ratio.rows[0][cols.index("hhzs/p, paper")], "1.022")

    def test_the_fastest_baseline_named_per_repeat(self):
        self.assertEqual(self.best.rows, [["20 zones, hhzs-w2-load", "b3, b2"],
                                          ["20 zones, mix:0.5:0.9", "b3, b2"],
                                          ["40 zones, hhzs-w2-load", "b3"],
                                          ["40 zones, mix:0.5:0.9", "b3"]])


if __name__ == "__main__":
    unittest.main()
