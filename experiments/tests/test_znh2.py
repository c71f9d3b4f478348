"""The ZnH2 paper module with no zsbench: the three devices and schemes,
RocksDB's defaults divided by K, and the tables computed from synthetic
compact results (a ratio per repeat, the capacity timeline)."""
import unittest

from runner.stats import Stat
from znh2 import compact, paper, setup


def settings(**overrides):
    return dict(paper.DEFAULTS, **overrides)


def phase(ops_s, qlc=0, total=0, busy=0.5, tl=None, lat=None):
    p = {"ops_s": ops_s, "ops": 10, "s": 1.0, "busy": busy, "late": [0, 1],
         "nand": [0, 0, qlc, 0, total, 0, 0], "moved": [0, 0], "lat": lat or {}}
    if tl:
        p["tl"] = tl
    return p


def summary(comparisons, s=None):
    return {"settings": s or settings(), "comparisons": comparisons}


class SetupTest(unittest.TestCase):
    def test_each_system_gets_its_device_mode_and_scheme(self):
        s = settings()
        hm, dm, qlc = (setup.volume_config(s, x) for x in ("hm", "dm", "qlc"))
        self.assertEqual(hm["scheme"]["name"], "znh2")
        self.assertNotIn("slc=", hm["devices"][0])
        self.assertIn("&slc=device", dm["devices"][0])
        self.assertIn("&slc=none", qlc["devices"][0])
        self.assertEqual(dm["scheme"], {"name": "lifetime"})
        self.assertFalse(setup.volume_config(s, "hm-nosc")["scheme"]["simple_copy"])

    def test_the_migration_period_scales_with_k_unless_given(self):
        self.assertEqual(setup.volume_config(settings(scale=32), "hm")["scheme"]["period_ms"], 156)
        self.assertEqual(setup.volume_config(settings(period_ms=5000), "hm")["scheme"]["period_ms"], 5000)

    def test_rocksdb_defaults_divided_by_k(self):
        opts = setup.rocksdb_options(settings(scale=32))
        self.assertEqual(opts["write_buffer_size"], 2 * setup.MiB)
        self.assertEqual(opts["target_file_size_base"], 2 * setup.MiB)
        self.assertEqual(opts["max_bytes_for_level_base"], 8 * setup.MiB)
        self.assertEqual(opts["block_based_table_factory"], "{block_cache=262144}")
        self.assertEqual(opts["use_direct_reads"], "true")
        self.assertNotIn("use_direct_reads", setup.rocksdb_options(settings(direct_io=False)))

    def test_an_sst_size_comparison_sets_the_target_file_size(self):
        comp = paper.sst_comparisons(settings())[0]
        args = setup.zsbench_args(settings(scale=32), comp)
        self.assertIn(f"target_file_size_base={16 * setup.MiB // 32}", args)
        self.assertIn(str(20_000_000 // 32), args)


class CompactTest(unittest.TestCase):
    def test_nand_bytes_by_cell_mode_and_the_timeline(self):
        p = {"name": "ycsb-a-load", "ops_per_second": 100.0, "ops": 5, "seconds": 2.0,
             "devices": [{"busy_fraction": 0.25, "total": {"read_ops": 1, "write_ops": 2},
                          "nand": {"programmed": {"slc": {"host": 10, "migration": 0},
                                                  "qlc": {"host": 3, "migration": 4}},
                                   "programmed_total": 17, "simple_copies": 2,
                                   "qlc_page_reads": {"L": 1, "CL": 2, "CU": 0, "U": 4}}}],
             "latency": {"INSERT": {"p99_us": 1.0, "p999_us": 2.0, "p9999_us": 3.0}},
             "samples": [{"t": t, "capacity_bytes": [t], "used_bytes": [1], "slc_used_bytes": [0]}
                         for t in range(100)]}
        c = compact.phase_compact(p, {"timeline": True})
        self.assertEqual(c["nand"], [10, 0, 3, 4, 17, 2, 0])
        self.assertEqual(c["lat"]["INSERT"], [1.0, 2.0, 3.0])
        self.assertEqual((c["reads"], c["qlc_reads"]), (1, 7))
        self.assertLessEqual(len(c["tl"]), compact.TIMELINE_POINTS + 1)
        self.assertEqual(c["tl"][-1][0], 99)


class TablesTest(unittest.TestCase):
    def cell(self, table, row, col):
        return table.rows[row][table.columns.index(col)]

    def test_load_ratios_per_repeat_and_simple_copy(self):
        runs = [{"repeat": r, "phases": {
            "hm": {paper.LOAD: phase(120 + r, qlc=50, total=200)},
            "hm-nosc": {paper.LOAD: phase(110, qlc=50, total=200)},
            "dm": {paper.LOAD: phase(100, qlc=100, total=150)},
            "qlc": {paper.LOAD: phase(80, qlc=150, total=150)}}} for r in (1, 2, 3)]
        comps = {paper.load_key(m): {"runs": runs} for m in paper.SIZES}
        tables = paper.load_tables(summary(comps))
        tput = tables[0]
        hm_dm = self.cell(tput, 0, "hm/dm")
        self.assertIsInstance(hm_dm, Stat)
        self.assertEqual((hm_dm.min, hm_dm.median, hm_dm.max), (1.21, 1.22, 1.23))
        qlc = next(x for x in tables if x.title.startswith("Fig. 5(b)"))
        self.assertAlmostEqual(self.cell(qlc, 0, "hm/dm").median, 0.5)
        sc = next(x for x in tables if x.title.startswith("Fig. 8(a)"))
        self.assertAlmostEqual(self.cell(sc, 2, "hm-nosc/hm").median, 110 / 122)

    def test_capacity_at_tenths_of_the_load(self):
        s = settings(scale=32)
        full = setup.device_bytes(s)
        tl = [[t, full * t // 100, full * t // 200, full * t // 400] for t in range(0, 101, 5)]
        comps = {paper.load_key(30): {"runs": [{"repeat": 1, "phases": {"hm": {paper.LOAD: phase(1, tl=tl)}}}]}}
        t = next(x for x in paper.load_tables(summary(comps, s)) if x.title.startswith("Fig. 4"))
        self.assertEqual(t.rows[-1][0], "100%")
        self.assertAlmostEqual(t.rows[-1][1].median, 100.0)
        self.assertAlmostEqual(t.rows[4][2].median, 25.0)
        self.assertAlmostEqual(t.rows[-1][4].median, 50.0)

    def test_ycsb_mean_of_the_workloads(self):
        run = {"repeat": 1, "phases": {x: {pn: phase(2.0 if x == "hm" else 1.0) for pn in paper.RUN}
                                       for x in paper.THREE}}
        run["phases"]["hm"]["ycsb-e"] = phase(1.0)
        t = paper.ycsb_tables(summary({paper.YCSB_KEY: {"runs": [run]}}))[0]
        self.assertAlmostEqual(t.rows[-1][1].median, (5 * 2.0 + 1.0) / 6)


if __name__ == "__main__":
    unittest.main()
