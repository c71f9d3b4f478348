"""The SplitZNS paper module with no zsbench: the systems' and the
breakdown's volume configs, the scaled setup, what compact keeps of a
zsbench result, and the tables computed from synthetic compact results."""
import unittest

from runner.core import Comparison
from runner.stats import Stat
from splitzns import compact, paper, setup, tables


def settings(**overrides):
    return dict(paper.DEFAULTS, **overrides)


def phase(ops_s, read=None, update=None, busy=0.5, dw=0, uw=0, gc=None, stall=0, comp=None):
    lat = {}
    if read:
        lat["READ"] = read
    if update:
        lat["UPDATE"] = update
    p = {"ops_s": ops_s, "ops": 10, "s": 1.0, "lat": lat, "wa": 1.0, "dw": dw, "uw": uw,
         "gc": gc or [0, 0, 0, 0.0], "stall_us": stall, "busy": busy, "late": 0, "errors": 0}
    if comp:
        p["comp"] = comp
    return p


def summary(comparisons):
    return {"settings": settings(), "comparisons": comparisons}


def cell(table, row, col):
    return table.rows[row][table.columns.index(col)]


class SetupTest(unittest.TestCase):
    def test_each_system_is_one_config_away(self):
        s = settings()
        sz = setup.volume_config(s, "splitzns")
        self.assertEqual(sz["scheme"], {"name": "splitzns"})
        self.assertIn("ring=on&prefetch=on&read_sched=on", sz["devices"][0])
        self.assertEqual(setup.volume_config(s, "ldp")["scheme"], "ldp")
        self.assertNotIn("rocksdb", setup.volume_config(s, "ldp"))
        self.assertEqual(setup.volume_config(s, "gear")["scheme"], {"name": "geardb", "gc": True, "windows": "key_slices", "window_zones": True})
        llc = setup.volume_config(s, "llc")
        self.assertEqual(llc["scheme"], "ldp")
        self.assertEqual(llc["rocksdb"], {"compaction_pri": "kRoundRobin"})
        with self.assertRaises(ValueError):
            setup.volume_config(s, "zenfs")
        l3 = setup.volume_config(s, "splitzns/min_level:3")
        self.assertEqual(l3["scheme"], {"name": "splitzns", "subzone_min_level": 3})

    def test_the_breakdown_adds_one_technique_per_step(self):
        s = settings()
        cfg = {n: setup.volume_config(s, n) for n in setup.BREAKDOWN}
        self.assertEqual(cfg["native"]["scheme"], {"name": "splitzns", "subzone_min_level": 0})
        self.assertEqual(cfg["+diff"]["scheme"], {"name": "splitzns"})
        self.assertIn("ring=off&prefetch=off&read_sched=off", cfg["native"]["devices"][0])
        self.assertEqual(cfg["native"]["devices"], cfg["+diff"]["devices"])
        self.assertIn("ring=on&prefetch=off&read_sched=off", cfg["+szr"]["devices"][0])
        self.assertIn("ring=on&prefetch=on&read_sched=off", cfg["+rp"]["devices"][0])
        # The last step is SplitZNS itself.
        self.assertEqual(cfg["+rs"], setup.volume_config(s, "splitzns"))

    def test_a_priority_spec_sets_rocksdbs_compaction_priority(self):
        comp = paper.policy_comparisons(settings())[1]
        self.assertEqual(comp.key, "pri-cs")
        cfg = paper.volume_config(settings(), comp.schemes[0][1], comp)
        self.assertEqual(cfg["rocksdb"], {"compaction_pri": "kByCompensatedSize"})

    def test_sizes_are_the_papers_divided_by_k(self):
        s = settings(scale=32)
        self.assertEqual(setup.zone_bytes(s), 16 * setup.MiB)
        self.assertEqual(setup.subzone_bytes(s), setup.MiB)
        opts = setup.rocksdb_options(s)
        self.assertEqual(opts["target_file_size_base"], setup.MiB - setup.MiB // 16)
        self.assertEqual(opts["write_buffer_size"], 2 * setup.MiB)
        self.assertEqual(opts["max_bytes_for_level_base"], 8 * setup.MiB)
        self.assertEqual(opts["max_background_compactions"], 16)
        self.assertEqual(setup.records(s), int(41.96 * setup.GiB) // 1040 // 32)
        self.assertEqual(setup.run_ops(s), 125_000)
        self.assertIn("zones=160&scale=1/32&timing=real", setup.device(s))

    def test_the_value_size_keeps_the_loaded_bytes(self):
        s = settings()
        comp = paper.value_comparisons(s)[0]
        args = setup.zsbench_args(s, comp)
        self.assertEqual(args[args.index("--value-size") + 1], "128")
        self.assertEqual(int(args[args.index("--records") + 1]), setup.LOAD_BYTES // (16 + 128) // 32)

    def test_the_chip_count_sets_the_device_and_the_sst_size(self):
        s = settings(scale=32)
        comps = {c.key: c for c in paper.chips_comparisons(s)}
        self.assertEqual(sorted(comps), ["chips-16", "chips-32", "chips-64", "chips-8"])
        c64 = comps["chips-64"]
        for _, spec in c64.schemes:
            self.assertIn("&chips=64", paper.volume_config(s, spec, c64)["devices"][0])
        self.assertNotIn("chips=", setup.volume_config(s, "ldp")["devices"][0])
        # The SST follows the subzone: the 16 MiB zone over 64 chips, less 1/16.
        args = setup.zsbench_args(s, c64)
        sst = 256 * 1024 - 256 * 1024 // 16
        self.assertIn(f"target_file_size_base={sst}", args)
        args8 = setup.zsbench_args(s, comps["chips-8"])
        self.assertIn(f"target_file_size_base={2 * setup.MiB - 2 * setup.MiB // 16}", args8)

    def test_phase_seconds_bounds_run_phases_by_time(self):
        comp = paper.overall_comparisons(settings())[0]
        args = setup.zsbench_args(settings(), comp)
        self.assertNotIn("--seconds", args)
        s = settings()
        s["phase_seconds"] = 30.0
        args = setup.zsbench_args(s, comp)
        self.assertEqual(args[args.index("--seconds") + 1], "30.0")
        self.assertEqual(int(args[args.index("--ops") + 1]), 60_000_000)

    def test_db_bench_phases_name_the_ycsb_loads_keys(self):
        args = setup.zsbench_args(settings(), paper.overall_comparisons(settings())[0])
        self.assertEqual(args[args.index("--dbbench-keys") + 1], "ycsb")

    def test_preflight_names_scheme_options_zsctl_does_not_list(self):
        listed = "geardb\n    windows   \"age\"\n    k   4\n    gc   false\n    window_zones   false\nsplitzns\n    subzone_min_level   4\n"
        self.assertEqual(paper.preflight(paper.EXPERIMENTS["overall"], listed), [])
        self.assertEqual(paper.preflight(paper.EXPERIMENTS["breakdown"], listed), [])
        old = "geardb\n    k   4\nsplitzns\n"
        self.assertEqual(len(paper.preflight(paper.EXPERIMENTS["overall"], old)), 3)  # gc, windows and window_zones
        self.assertIn("subzone_min_level", paper.preflight(paper.EXPERIMENTS["breakdown"], old)[0])

    def test_uniform_skew_is_a_uniform_mix(self):
        keys = [c.workload for c in paper.skew_comparisons(settings())]
        self.assertEqual(keys[0], "ycsb-a-load,mix:0.5:uniform")
        self.assertEqual(keys[-1], "ycsb-a-load,mix:0.5:0.99")


class CompactTest(unittest.TestCase):
    def test_writes_gc_stalls_and_latency_are_kept(self):
        p = {"name": "ycsb-a", "ops_per_second": 100.0, "ops": 5, "seconds": 2.0,
             "write_amplification": 3.0,
             "devices": [{"busy_fraction": 0.75, "total": {"write_bytes": 900}, "late_commands": 2,
                          "busy_by_chip": [0.5, 1.0]}],
             "rocksdb": {"flush_write_bytes": 100, "compact_write_bytes": 200, "stall_micros": 7},
             "gc": {"runs": 1, "zones_reclaimed": 2, "bytes_relocated": 300, "seconds": 0.5},
             "latency": {"READ": {"p50_us": 1.0, "p99_us": 2.0, "p999_us": 3.0}},
             "compactions": {"seconds": 4.0, "input_bytes": 10, "output_bytes": 8},
             "scheme": {"counters": {"subzone_requests": 4}}}
        c = compact.phase_compact(p)
        self.assertEqual((c["dw"], c["uw"], c["stall_us"], c["busy"], c["late"]), (900, 300, 7, 0.75, 2))
        self.assertEqual(c["gc"], [1, 2, 300, 0.5])
        self.assertEqual(c["lat"]["READ"], [1.0, 2.0, 3.0])
        self.assertEqual(c["comp"], [4.0, 10, 8])
        self.assertEqual(c["counters"], [0, 4, 0])
        self.assertEqual(c["chips"], [0.5, 1.0])
        self.assertNotIn("to_level", c)
        p["compactions"]["by_output_level"] = {"L4": {"count": 2, "output_bytes": 64, "trivial_moves": 1}}
        self.assertEqual(compact.phase_compact(p)["to_level"], {"L4": [2, 64, 1]})
        p["compactions"]["by_output_level"] = {}
        self.assertEqual(compact.phase_compact(p)["to_level"], {})
        self.assertNotIn("chips", compact.phase_compact({"name": "x", "devices": [{}]}))
        whole = compact.compact({"schemes": [{"name": "ldp", "phases": [p]}]})
        self.assertIn("ycsb-a", whole["phases"]["ldp"])

    def test_a_drain_is_named_after_the_phase_it_drains(self):
        names = ["ycsb-a-load", "drain", "ycsb-a", "drain", "ycsb-b"]
        whole = compact.compact({"schemes": [{"name": "ldp", "phases": [
            {"name": n, "seconds": float(i)} for i, n in enumerate(names)]}]})
        got = whole["phases"]["ldp"]
        self.assertEqual(list(got), ["ycsb-a-load", "ycsb-a-load+drain", "ycsb-a", "ycsb-a+drain", "ycsb-b"])
        self.assertEqual(got["ycsb-a+drain"]["s"], 3.0)


class TablesTest(unittest.TestCase):
    def test_overall_ratios_per_repeat_with_the_papers_beside(self):
        def run(k):
            return {"phases": {s: {"overwrite": phase(v * k, update=[1, u, u]),
                                   "readrandom": phase(v, read=[1, 1, 1])}
                               for s, v, u in (("splitzns", 300, 10), ("ldp", 100, 20), ("gear", 150, 20),
                                               ("llc", 100, 20))}}
        sm = summary({"uniform": {"runs": [run(1), run(1.2)]}})
        thr, lat, busy = tables.overall_tables(sm)
        row = [r[1] for r in thr.rows].index("overwrite")
        self.assertIsInstance(cell(thr, row, "/ldp"), Stat)
        self.assertAlmostEqual(cell(thr, row, "/ldp").median, 3.0)
        self.assertEqual(cell(thr, row, "/ldp, paper"), 2.77)
        self.assertAlmostEqual(cell(thr, row, "/gear").median, 2.0)
        p99 = [r for r in lat.rows if r[1] == "overwrite"][0]
        self.assertAlmostEqual(p99[lat.columns.index("p99")].median, 0.5)
        self.assertEqual(p99[lat.columns.index("p99, paper")], 0.428)
        self.assertEqual(len(busy.rows), len(paper.UNIFORM.split(",")))
        self.assertEqual(cell(busy, 0, "ldp"), "-")  # the load is not in the synthetic runs

    def test_writes_and_migration_on_ycsb_a(self):
        mib = setup.MiB
        sm = summary({"ycsb": {"runs": [{"phases": {
            "splitzns": {"ycsb-a": phase(2, dw=3 * mib, uw=2 * mib)},
            "ldp": {"ycsb-a-load": phase(1, gc=[1, 1, 1 * mib, 0.5]),
                    "ycsb-a": phase(1, dw=6 * mib, uw=2 * mib, gc=[4, 3, 4 * mib, 1.5])}}}]}})
        w = tables.overall_tables(sm)[2]
        self.assertEqual([r[0] for r in w.rows], list(setup.SYSTEMS))
        # GC's counters run since mount: the load's share is not YCSB-A's.
        self.assertAlmostEqual(w.rows[1][w.columns.index("GC relocated")].median, 3.0)
        self.assertAlmostEqual(w.rows[1][w.columns.index("GC runs")].median, 3.0)
        self.assertAlmostEqual(w.rows[1][w.columns.index("GC relocated, load + A")].median, 4.0)
        self.assertAlmostEqual(w.rows[0][w.columns.index("-D")].median, 3.0)
        self.assertEqual(w.rows[2][1], "-")  # gear did not run

    def test_drained_throughput_carries_the_drain_and_gc_counts_phase_and_drain(self):
        mib = setup.MiB

        def sys(ow_s, drain_s, gc_load, gc_ow):
            # 10 operations each; GC counters since mount at each drain's end
            return {"ycsb-a-load": phase(1), "ycsb-a-load+drain": dict(phase(0), s=1.0, gc=[1, 1, gc_load, 0]),
                    "readrandom": phase(1), "readrandom+drain": dict(phase(0), s=0.0, gc=[1, 1, gc_load, 0]),
                    "overwrite": dict(phase(10 / ow_s), s=ow_s),
                    "overwrite+drain": dict(phase(0), s=drain_s, gc=[2, 2, gc_ow, 0])}
        run = {"phases": {"splitzns": sys(1.0, 1.0, 5 * mib, 6 * mib), "ldp": sys(1.0, 4.0, 1 * mib, 9 * mib),
                          "gear": sys(2.0, 0.0, 0, 0), "llc": sys(1.0, 1.0, 0, 0)}}
        run["phases"]["splitzns"]["overwrite"]["to_level"] = {"L3": [5, 9 * mib, 0], "L4": [1, 2 * mib, 3]}
        run["phases"]["splitzns"]["overwrite+drain"]["to_level"] = {"L4": [2, 4 * mib, 1], "L5": [1, 1 * mib, 0]}
        thr, drain, gc, deep = tables.drained_tables(summary({"uniform": {"runs": [run]}}))
        row = [r[1] for r in thr.rows].index("overwrite")
        # splitzns 10 ops in 1 + 1 s, ldp in 1 + 4 s: 2.5x drained, a tie as run
        self.assertAlmostEqual(cell(thr, row, "/ldp").median, 2.5)
        self.assertAlmostEqual(cell(thr, row, "/ldp as run").median, 1.0)
        self.assertAlmostEqual(cell(thr, row, "/gear").median, 1.0)
        self.assertEqual(cell(thr, row, "/ldp, paper"), 2.77)
        self.assertAlmostEqual(cell(drain, row, "ldp").median, 4.0)
        # over the phase and its drain: since the readrandom's drain
        self.assertAlmostEqual(cell(gc, row, "splitzns").median, 1.0)
        self.assertAlmostEqual(cell(gc, row, "ldp").median, 8.0)
        self.assertAlmostEqual(cell(gc, 0, "ldp").median, 1.0)  # the load's: since mount
        # L4 and L5 over overwrite and its drain; L3 is not a subzone level
        self.assertAlmostEqual(cell(deep, row, "splitzns MiB").median, 7.0)
        self.assertAlmostEqual(cell(deep, row, "splitzns moves").median, 4.0)
        self.assertEqual(cell(deep, row, "ldp MiB"), "-")  # a summary without to_level

    def test_level_compares_both_thresholds_over_ldp_drained(self):
        mib = setup.MiB

        def sys(drain_s, to_level):
            p = {"ycsb-a-load": phase(1), "ycsb-a-load+drain": dict(phase(0), s=1.0),
                 "readrandom": phase(1), "readrandom+drain": dict(phase(0), s=0.0),
                 "overwrite": dict(phase(10), s=1.0, to_level=to_level),
                 "overwrite+drain": dict(phase(0), s=drain_s, to_level={})}
            return p
        run = {"phases": {"splitzns": sys(1.0, {"L4": [1, 2 * mib, 0]}),
                          "splitzns-l3": sys(0.25, {"L3": [4, 8 * mib, 0], "L4": [1, 2 * mib, 0]}),
                          "ldp": sys(1.0, {})}}
        thr, gc, deep = tables.level_tables(summary({"level-uniform": {"runs": [run]}}))
        row = [r[0] for r in thr.rows].index("overwrite")
        # 10 ops in 1 + 0.25 s against 1 + 1 s
        self.assertAlmostEqual(cell(thr, row, "splitzns-l3/ldp").median, 1.6)
        self.assertAlmostEqual(cell(thr, row, "splitzns/ldp").median, 1.0)
        self.assertAlmostEqual(cell(deep, row, "splitzns-l3 L3+").median, 10.0)
        self.assertAlmostEqual(cell(deep, row, "splitzns-l3 L4+").median, 2.0)
        self.assertAlmostEqual(cell(deep, row, "ldp L3+").median, 0.0)
        self.assertEqual(paper.level_comparisons(settings())[0].schemes[1], ("splitzns-l3", "splitzns/min_level:3"))

    def test_breakdown_steps_over_the_step_before_and_over_native(self):
        vals = {"native": 100, "+diff": 150, "+szr": 300, "+rp": 330, "+rs": 320}
        run = {"phases": {n: {"overwrite": dict(phase(v, update=[1, 1, 1], stall=2_000_000,
                                                     comp=[2.0, 0, 4 * setup.MiB]), chips=[0.25, 0.75]),
                              "readrandom": phase(v, read=[1, 2, 4])} for n, v in vals.items()}}
        step, native, internal = tables.breakdown_tables(summary({"breakdown": {"runs": [run]}}))
        self.assertEqual([r[0] for r in step.rows], ["+diff/native", "+szr/+diff", "+rp/+szr", "+rs/+rp"])
        self.assertAlmostEqual(cell(step, 0, "overwrite ops").median, 1.5)
        self.assertEqual(cell(step, 0, "overwrite ops, paper"), 1.43)
        self.assertAlmostEqual(cell(step, 1, "overwrite ops").median, 2.0)
        self.assertAlmostEqual(cell(native, 3, "overwrite ops").median, 3.2)
        self.assertAlmostEqual(internal.rows[0][1].median, 2.0)
        self.assertAlmostEqual(internal.rows[0][2].median, 2.0)
        self.assertAlmostEqual(cell(internal, 0, "least busy chip").median, 0.25)
        self.assertAlmostEqual(cell(internal, 0, "busiest chip").median, 0.75)
        self.assertEqual(tables.breakdown_tables(summary({})), [])

    def test_sensitivity_tables(self):
        run = {"phases": {"splitzns": {"ycsb-a": phase(3)}, "ldp": {"ycsb-a": phase(2)}}}
        sm = summary({"pri-oss": {"runs": [run]}, "value-128": {"runs": [run]}})
        (pol,) = tables.policy_tables(sm)
        self.assertEqual(pol.rows[0][0], "pri-oss")
        self.assertAlmostEqual(pol.rows[0][1].median, 1.5)
        self.assertEqual(pol.rows[0][pol.columns.index("paper")], 1.91)
        (val,) = tables.value_tables(sm)
        self.assertEqual(len(val.rows), 1)
        (chips,) = tables.chips_tables(summary({"chips-8": {"runs": [run]}}))
        self.assertAlmostEqual(chips.rows[0][1].median, 1.5)
        self.assertEqual(chips.rows[0][chips.columns.index("paper")], 1.79)
        skew_run = {"phases": {s: {"mix:0.5:uniform": phase(v)} for s, v in
                               (("splitzns", 4), ("ldp", 2), ("gear", 1), ("llc", 4))}}
        (sk,) = tables.skew_tables(summary({"skew-uniform": {"runs": [skew_run]}}))
        self.assertAlmostEqual(cell(sk, 0, "/gear").median, 4.0)
        self.assertEqual(cell(sk, 0, "/llc").cell(ratio=True).count("tie"), 1)

    def test_every_experiment_builds_its_comparisons(self):
        for e in paper.EXPERIMENTS.values():
            comps = e.comparisons(settings())
            self.assertTrue(comps)
            for c in comps:
                self.assertIsInstance(c, Comparison)
                for _, spec in c.schemes:
                    paper.volume_config(settings(), spec, c)
            # Not yet measured: tables without rows, from the summary alone.
            self.assertEqual([t.rows for t in e.tables(summary({})) if t.rows], [])


if __name__ == "__main__":
    unittest.main()
