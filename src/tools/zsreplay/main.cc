// zsreplay: block traces on ZoneStack's block tier (docs/zonetier.md).
//   zsreplay run --trace FILE [--format msr|blkparse] [--scheme HA-256-CFC] ...
//   zsreplay gen --profile hm_0 --requests N --out FILE [--capacity BYTES]
// run prints the results as JSON on stdout.
#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>

#include "tools/zsreplay/replay.h"
#include "tools/zsreplay/trace.h"

namespace zr = zonestack::zsreplay;

int main(int argc, char** argv) {
  CLI::App app{"zsreplay: replay block traces on ZoneStack's block tier (ZoneTier)"};
  app.require_subcommand(1);

  zr::ReplayConfig cfg;
  std::string trace_path, format = "msr";
  bool afap = false;
  CLI::App* run = app.add_subcommand("run", "replay a trace, print JSON results");
  run->add_option("--trace", trace_path, "trace file")->required();
  run->add_option("--format", format, "msr (MSR Cambridge CSV) or blkparse (default text)");
  run->add_option("--scheme", cfg.scheme,
                  "DM-64-LRU, DM-128-LRU, DM-256-LRU, HA-256-LRU, HA-256-CFC (ZoneTier)");
  run->add_option("--drive", cfg.drive_uri, "drive URI (st8000as0022; DM schemes add smr=dm)");
  run->add_option("--ssd", cfg.ssd_uri, "SSD URI (conventional zones only)");
  run->add_option("--ssd-tier-bytes", cfg.ssd_tier_bytes, "SSD tier size (0: 10% of the drive)");
  run->add_option("--cache-bytes", cfg.cache_bytes, "CF-Cache size (0: 1% of the drive)");
  run->add_option("--period", cfg.period_requests, "requests per placement period");
  run->add_flag("--afap", afap, "ignore timestamps: as fast as possible");

  std::string profile = "hm_0", out_path;
  uint64_t requests = 100000, capacity = 2000ull * 128 * 1024, zone = 128 * 1024, seed = 1;
  CLI::App* gen = app.add_subcommand("gen", "write a synthetic MSR-like trace (MSR CSV)");
  gen->add_option("--profile", profile, zr::TraceProfileNames());
  gen->add_option("--requests", requests, "requests");
  gen->add_option("--capacity", capacity, "device bytes the trace addresses");
  gen->add_option("--zone-bytes", zone, "zone size the skew is over");
  gen->add_option("--seed", seed, "random seed");
  gen->add_option("--out", out_path, "output file")->required();

  CLI11_PARSE(app, argc, argv);
  if (gen->parsed()) {
    auto p = zr::FindTraceProfile(profile);
    if (!p.ok()) {
      std::cerr << p.status().message() << "\n";
      return 2;
    }
    std::ofstream out(out_path);
    if (!out) {
      std::cerr << "cannot write " << out_path << "\n";
      return 1;
    }
    zr::WriteMsrCsv(zr::GenerateTrace(*p, requests, capacity, zone, seed), out);
    return out.good() ? 0 : 1;
  }
  auto fmt = zr::ParseTraceFormat(format);
  if (!fmt.ok()) {
    std::cerr << fmt.status().message() << "\n";
    return 2;
  }
  std::ifstream in(trace_path);
  if (!in) {
    std::cerr << "cannot read " << trace_path << "\n";
    return 1;
  }
  auto trace = zr::ParseTrace(in, *fmt);
  if (!trace.ok()) {
    std::cerr << trace_path << ": " << trace.status().message() << "\n";
    return 1;
  }
  cfg.honor_timestamps = !afap;
  auto result = zr::Replay(*trace, cfg);
  if (!result.ok()) {
    std::cerr << result.status().message() << "\n";
    return 1;
  }
  std::cout << result->dump(2) << "\n";
  return 0;
}
