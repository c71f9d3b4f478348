"""The peer benchmark's report (experiments/peer/report.py): ratios per
round and the namespace's block-layer counters per run."""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.path.join(os.path.dirname(HERE), "peer", "report.py")
spec = importlib.util.spec_from_file_location("peer_report", REPORT)
peer_report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(peer_report)


def stat_line(reads, writes, flushes, flush_ms):
    fields = [0] * 17
    fields[0], fields[4], fields[15], fields[16] = reads, writes, flushes, flush_ms
    return " ".join(map(str, fields))


class BlockIoTest(unittest.TestCase):
    def test_difference_of_the_two_lines(self):
        with tempfile.TemporaryDirectory() as d:
            p = Path(d, "x.txt.stat")
            p.write_text(stat_line(10, 20, 3, 7) + "\n" + stat_line(15, 120, 9, 40) + "\n")
            io = peer_report.block_io(p)
            self.assertEqual(io["reads"], 5)
            self.assertEqual(io["writes"], 100)
            self.assertEqual(io["flushes"], 6)
            self.assertEqual(io["flush_ms"], 33)

    def test_missing_or_partial_is_none(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertIsNone(peer_report.block_io(Path(d, "none.stat")))
            p = Path(d, "half.stat")
            p.write_text(stat_line(1, 1, 1, 1) + "\n")
            self.assertIsNone(peer_report.block_io(p))


class ReportTest(unittest.TestCase):
    def test_ratios_and_counters_in_the_json(self):
        with tempfile.TemporaryDirectory() as d:
            runs = Path(d, "runs")
            runs.mkdir()
            Path(d, "peer.env").write_text(
                "COMMIT=0123abc\nDIRTY=1\n"
                "NUM=100\nPAIRS=2\nBENCHMARKS=fillrandom\nSETTINGS=\"default\"\n")
            for rnd, (zs, zf) in enumerate([(80, 100), (90, 100)], start=1):
                for system, ops in (("zonestack", zs), ("zenfs", zf)):
                    name = f"v1000.default.nvme0n1.{rnd}.{system}.txt"
                    Path(runs, name).write_text(
                        f"fillrandom   :      10.0 micros/op {ops} ops/sec;\n")
                    Path(runs, name + ".stat").write_text(
                        stat_line(0, 0, 0, 0) + "\n" + stat_line(1, 2, 3, 4) + "\n")
            out = Path(d, "peer.json")
            subprocess.run([sys.executable, REPORT, d, str(out), "--accel", "tcg",
                            "--build_type", "Release", "--zenfs", "v2.1.2"],
                           check=True, capture_output=True, cwd=HERE)
            result = json.loads(out.read_text())
            row = result["ratios"][0]
            self.assertAlmostEqual(row["zonestack/zenfs"]["median"], 0.85)
            self.assertAlmostEqual(row["zonestack/zenfs"]["min"], 0.8)
            self.assertEqual(result["runs"][0]["block_io"]["zenfs"]["flushes"], 3)
            # The commit and dirty flag the script saw when the run started.
            self.assertEqual(result["commit"], "0123abc")
            self.assertTrue(result["dirty"])

            tables = subprocess.run([sys.executable, REPORT, "--markdown", str(out)],
                                    check=True, capture_output=True, text=True, cwd=HERE).stdout
            self.assertIn("| fillrandom | 0.85 (0.80-0.90) | - | - | - |", tables)
            self.assertIn("| 2 | 3 (0.0) | 3 (0.0) |", tables)


if __name__ == "__main__":
    unittest.main()
