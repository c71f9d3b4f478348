"""The GearDB paper module with no zsbench: the four systems' volume
configs, the scaled setup, what compact keeps of zsbench's new fields
(checkpoints, zones, compactions), and the tables computed from synthetic
compact results."""
import unittest

from geardb import compact, paper, setup
from runner.stats import Stat


def settings(**overrides):
    return dict(paper.DEFAULTS, **overrides)


class SetupTest(unittest.TestCase):
    def test_each_system_is_one_config_away(self):
        s = settings()
        g = setup.volume_config(s, "geardb", 18)
        self.assertEqual(g["scheme"], {"name": "geardb", "k": 4})
        self.assertNotIn("gc", g)
        self.assertEqual(g["flush"], "none")
        greedy = setup.volume_config(s, "ldb-greedy", 18)
        self.assertEqual(greedy["scheme"], "log")
        self.assertEqual(greedy["gc"], {"threshold": 0.2, "victims": "greedy"})
        self.assertEqual(setup.volume_config(s, "ldb-cb", 18)["gc"]["victims"], "cost-benefit")
        llc = setup.volume_config(s, "llc", 18)
        self.assertEqual(llc["gc"], greedy["gc"])
        self.assertEqual(llc["rocksdb"], {"compaction_pri": "kRoundRobin"})
        self.assertNotIn("rocksdb", greedy)

    def test_every_comparison_runs_each_system_in_its_own_process(self):
        # One repeat of the random load outlasts a sitting: its parts are
        # kept one by one (experiments/README.md, "Separate comparisons").
        for exp in paper.EXPERIMENTS.values():
            for c in exp.comparisons(settings()):
                self.assertTrue(c.separate, c.key)
        # What a part keeps is keyed by its system, so the parts join.
        self.assertEqual(list(compact.compact({"schemes": [{"name": "llc", "phases": []}]})["phases"]),
                         ["llc"])

    def test_spec_options_override_the_settings(self):
        s = settings()
        self.assertEqual(setup.volume_config(s, "geardb/k:8", 18)["scheme"]["k"], 8)
        self.assertEqual(setup.volume_config(s, "ldb-greedy/threshold:0.5", 18)["gc"]["threshold"], 0.5)
        with self.assertRaises(ValueError):
            setup.volume_config(s, "leveldb", 18)

    def test_the_drive_is_the_papers_with_zfs_and_non_sst_zones_added(self):
        dev = setup.volume_config(settings(scale=64), "geardb", 18)["devices"][0]
        self.assertEqual(dev, "emu:st13125nm007?zones=26&scale=1/64&timing=real")  # 18 + 5 + 3

    def test_sizes_keep_the_papers_proportions(self):
        s = settings(scale=64, share=16)
        opts = setup.rocksdb_options(s)
        self.assertEqual(setup.zone_bytes(s) // opts["target_file_size_base"], 64)  # SSTs per zone
        self.assertEqual(opts["write_buffer_size"], opts["target_file_size_base"])
        self.assertEqual(opts["max_bytes_for_level_base"], 10 * setup.MiB // 64)
        self.assertEqual((opts["level0_file_num_compaction_trigger"], opts["level0_slowdown_writes_trigger"],
                          opts["level0_stop_writes_trigger"]), (4, 8, 12))
        self.assertEqual(setup.records(s), 20_000_000 // (64 * 16))

    def test_the_random_load_fills_the_papers_share_of_the_disk(self):
        # The paper: 280 zones; D divides them. Loads of unique keys get as
        # many more zones as keep the valid data's share.
        s = settings(share=1)
        random_zones = paper.random_zones(s)
        self.assertEqual(random_zones, 280)
        self.assertEqual(paper.unique_zones(s), 443)
        r = setup.valid_share(s, random_zones, setup.RANDOM_UNIQUE)
        u = setup.valid_share(s, paper.unique_zones(s), 1.0)
        self.assertAlmostEqual(r, u, delta=0.01)
        self.assertEqual(paper.random_zones(settings(share=16)), 18)

    def test_a_random_load_puts_every_record_and_ycsb_runs_take_run_ops(self):
        s = settings()
        load = paper.load_comparisons(s)[0]
        args = setup.zsbench_args(s, load)
        self.assertEqual(args[args.index("--ops") + 1], str(setup.records(s)))
        ycsb = paper.ycsb_comparisons(s)[0]
        args = setup.zsbench_args(s, ycsb)
        self.assertEqual(args[args.index("--ops") + 1], str(setup.run_ops(s)))
        self.assertIn("--value-size", args)
        self.assertEqual(args[args.index("--value-size") + 1], "4096")

    def test_threshold_and_window_comparisons_name_each_point(self):
        s = settings()
        thr = paper.threshold_comparisons(s)[0]
        self.assertEqual([n for n, _ in thr.schemes][:2], ["geardb", "ldb-greedy-t0"])
        self.assertEqual(setup.volume_config(s, dict(thr.schemes)["ldb-greedy-t50"], 1)["gc"]["threshold"], 0.5)
        self.assertEqual(thr.params["zones"], setup.load_zones(s, setup.RANDOM_UNIQUE, 440))
        win = paper.window_comparisons(s)[0]
        self.assertEqual([spec for _, spec in win.schemes], [f"geardb/k:{k}" for k in (2, 4, 6, 8, 10)])


def zsbench_phase(name="fillrandom", ops=800, ops_s=100.0, gc_bytes=0, zones=None):
    cps = []
    for i in range(1, 81):
        c = {"ops": ops * i // 80, "t": i / 10, "device_write_bytes": 1000 * i, "gc_bytes": 0,
             "gc_seconds": 0.0}
        if i % 20 == 0:
            c["zones"] = [{"space_efficiency": 0.5, "zones": zones or [[0, 10, 100, 100], [2, 90, 100, 100],
                                                                      [3, 100, 100, 100], [3, 0, 100, 100]]}]
        cps.append(c)
    return {"name": name, "ops": ops, "seconds": 8.0, "ops_per_second": ops_s, "write_amplification": 3.0,
            "devices": [{"busy_fraction": 0.9, "busy_by_class": {"wal": 0.1, "compaction": 0.5, "gc": 0.25},
                         "by_class": {"wal": {"write_bytes": 100}, "gc": {"write_bytes": gc_bytes}}}],
            "gc": {"runs": 2, "zones_reclaimed": 1, "bytes_relocated": gc_bytes, "seconds": 2.0},
            "metadata_log": {"records": 40, "bytes": 172032, "flushes": 38, "rolls": 1,
                             "snapshot_bytes": 8192},
            "checkpoints": cps,
            "compactions": {"count": 5, "seconds": 1.5, "input_bytes": 10, "output_bytes": 20,
                            "trivial_moves": 1, "by_kind": {"level_size": 5},
                            "latency": {"count": 5, "mean_us": 300000.0, "p50_us": 200000, "p90_us": 1,
                                        "p99_us": 900000, "max_us": 900000},
                            "chains": {"count": 4, "latency": {"mean_us": 375000.0}}, "log": []},
            "scheme": {"counters": {"steps.active": 3, "steps.passive": 2, "cascaded_bytes": 7}}}


class CompactTest(unittest.TestCase):
    def test_sst_zones_leave_the_wal_out(self):
        z = [[0, 10, 100, 100], [2, 90, 100, 100], [3, 100, 100, 100], [3, 0, 100, 100]]
        eff, n, hist = compact.utilization(z)
        self.assertAlmostEqual(eff, 190 / 300, places=5)
        self.assertEqual(n, 3)
        self.assertEqual((hist[0], hist[18], hist[19]), (1, 1, 1))
        self.assertEqual(compact.utilization(z, False)[:2], [0.5, 4])

    def test_phase_keeps_time_compactions_zones_and_steps(self):
        c = compact.phase_compact(zsbench_phase(gc_bytes=500), {"timeline": True})
        self.assertEqual(c["busy"], {"wal": 0.8, "compaction": 4.0, "gc": 2.0})
        self.assertEqual(c["gc"], [2, 1, 500, 2.0])
        self.assertEqual(c["ml"], [40, 172032, 38, 1, 8192])
        self.assertEqual(c["comp"][:3], [5, 1.5, 300000.0])
        self.assertEqual(c["comp"][6], 4)
        self.assertEqual(len(c["tl"]), 80)
        self.assertEqual([z[0] for z in c["zones"]], [0.25, 0.5, 0.75, 1.0])
        self.assertEqual(c["steps"][:5], [3, 0, 0, 0, 2])
        self.assertEqual(c["steps"][5], 7)
        self.assertNotIn("tl", compact.phase_compact(zsbench_phase(), {}))


def summary(comps, s=None):
    return {"settings": s or settings(), "comparisons": comps}


def run(phases, r=1):
    return {"repeat": r, "phases": phases}


class TablesTest(unittest.TestCase):
    def cell(self, table, row, col):
        return table.rows[row][table.columns.index(col)]

    def test_load_ratios_breakdown_and_space_per_repeat(self):
        def repeat(r):
            return run({x: {"fillrandom": compact.phase_compact(
                zsbench_phase(ops_s=(170.0 + r if x == "geardb" else 100.0),
                              gc_bytes=0 if x == "geardb" else 500), {"timeline": True})}
                for x in paper.setup.SYSTEMS}, r)
        sm = summary({"random": {"runs": [repeat(r) for r in (1, 2, 3)]}})
        tables = paper.tables.load_tables(sm)
        fig10 = tables[0]
        g = self.cell(fig10, 0, "ours")
        self.assertIsInstance(g, Stat)
        self.assertAlmostEqual(g.median, 1.72)
        self.assertEqual(self.cell(fig10, 0, "paper"), "1.71")
        fig11 = next(t for t in tables if t.title.startswith("Fig. 11"))
        self.assertAlmostEqual(fig11.rows[0][1].median, 100 / 1.0)  # 100 ops over 1 s per eighth
        fig16 = next(t for t in tables if t.title.startswith("Fig. 16"))
        self.assertAlmostEqual(fig16.rows[-1][1].median, 80000 / (800 * 4112))
        fig17 = next(t for t in tables if t.title.startswith("Fig. 17: space"))
        self.assertAlmostEqual(fig17.rows[-1][1].median, 190 / 300, places=5)
        cdf = next(t for t in tables if t.title.startswith("Fig. 17(h)"))
        self.assertAlmostEqual(cdf.rows[0][1].median, 1 / 3)
        self.assertAlmostEqual(cdf.rows[-1][1].median, 2 / 3)
        fig14 = next(t for t in tables if t.title.startswith("Fig. 14"))
        gc_share = next(row for row in fig14.rows if row[0] == "GC time / load time")
        self.assertAlmostEqual(gc_share[1].median, 0.25)

    def test_systems_that_did_not_run_are_left_out_and_missing_data_is_a_dash(self):
        sm = summary({"random": {"runs": [run({"geardb": {"fillrandom": compact.phase_compact(
            zsbench_phase(), {})}})]}})
        tables = paper.tables.load_tables(sm)
        self.assertEqual(tables[0].rows, [])  # no baseline: no ratio
        fig11 = next(t for t in tables if t.title.startswith("Fig. 11"))
        self.assertEqual(fig11.columns, ["share of the load", "geardb"])
        self.assertEqual(fig11.rows[0][1], "-")  # no timeline kept

    def test_ycsb_ratios_per_workload(self):
        phases = {x: {pn: {"ops_s": 2.0 if x == "geardb" else 1.0, "gc": [0, 0, 0, 0.0], "wa": 1.0}
                      for pn in [paper.YCSB_LOAD] + paper.YCSB_RUN} for x in ["geardb"] + paper.LDB}
        t = paper.tables.ycsb_tables(summary({"ycsb": {"runs": [run(phases)]}}))
        self.assertAlmostEqual(t[0].rows[1][1].median, 2.0)
        self.assertAlmostEqual(t[1].rows[0][1].median, 2.0)

    def test_threshold_points_against_geardb(self):
        phases = {"geardb": {"fillrandom": compact.phase_compact(zsbench_phase(ops_s=200.0), {})}}
        for x in paper.THRESHOLDS:
            phases[paper.threshold_name(x)] = {"fillrandom": compact.phase_compact(
                zsbench_phase(ops_s=100.0 * (1 - x)), {})}
        t = paper.tables.threshold_tables(summary({"threshold": {"runs": [run(phases)]}}))[0]
        self.assertAlmostEqual(self.cell(t, 1, "ratio to geardb").median, 0.5)
        self.assertEqual(self.cell(t, 0, "GC threshold"), "none (no GC)")


if __name__ == "__main__":
    unittest.main()
