// zsreplay: block traces on ZoneStack's block tier (docs/zonetier.md).
//   zsreplay run --trace FILE [--format msr|blkparse] [--scheme HA-256-CFC] ...
//   zsreplay gen --profile hm_0 --requests N --out FILE [--capacity BYTES]
//   zsreplay compare (--trace FILE | --profile hm_0 --requests N --seed S)
//                    --scheme A --scheme B ... [--json FILE]
// run and compare print the results as JSON (compare to --json if given).
// Exit status: 0 every replay finished; 1 a replay failed (compare still
// runs and records the other schemes); 2 bad usage.
#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>
#include <memory>

#include "device/clock.h"
#include "device/zoned_device.h"
#include "tools/zsreplay/replay.h"
#include "tools/zsreplay/trace.h"

namespace zr = zonestack::zsreplay;

namespace {

struct ReplayOptions {
  zr::ReplayConfig config;
  std::string trace_path, format = "msr", profile, json_path;
  uint64_t requests = 100000, seed = 1;
  std::vector<std::string> schemes;
  bool afap = false;
};

// The trace of a compare: read from a file, or generated from a profile
// over the drive's capacity and zone size (opened once to learn them).
absl::StatusOr<std::vector<zr::TraceRequest>> CompareTrace(const ReplayOptions& o) {
  if (!o.trace_path.empty()) {
    auto fmt = zr::ParseTraceFormat(o.format);
    if (!fmt.ok()) return fmt.status();
    std::ifstream in(o.trace_path);
    if (!in) return absl::NotFoundError("cannot read " + o.trace_path);
    return zr::ParseTrace(in, *fmt);
  }
  auto p = zr::FindTraceProfile(o.profile);
  if (!p.ok()) return p.status();
  auto drive = zonestack::device::OpenDevice(
      o.config.drive_uri, std::make_shared<zonestack::device::ManualClock>());
  if (!drive.ok()) return drive.status();
  const auto& info = (*drive)->info();
  return zr::GenerateTrace(*p, o.requests, info.capacity_bytes(), info.zone_size, o.seed);
}

int Compare(ReplayOptions o) {
  if (o.trace_path.empty() == o.profile.empty()) {
    std::cerr << "compare: give --trace or --profile (one of them)\n";
    return 2;
  }
  auto trace = CompareTrace(o);
  if (!trace.ok()) {
    std::cerr << "compare: " << trace.status().message() << "\n";
    return trace.status().code() == absl::StatusCode::kInvalidArgument ? 2 : 1;
  }
  o.config.honor_timestamps = !o.afap;
  int failed = 0;
  nlohmann::json j = zr::ReplaySchemes(*trace, o.config, o.schemes, &failed);
  j["trace"] = {{"file", o.trace_path}, {"profile", o.profile}, {"requests", trace->size()},
                {"seed", o.seed}, {"afap", o.afap}};
  if (o.json_path.empty()) {
    std::cout << j.dump(2) << "\n";
  } else {
    std::ofstream out(o.json_path);
    out << j.dump(1) << "\n";
    if (!out.good()) {
      std::cerr << "compare: cannot write " << o.json_path << "\n";
      return 1;
    }
  }
  for (const auto& r : j["schemes"]) {
    if (r.contains("error")) std::cerr << r["scheme"] << ": " << r["error"] << "\n";
  }
  return failed ? 1 : 0;
}

}  // namespace

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

  // compare: one trace (a file, or a profile generated over the drive's
  // own capacity and zones), every scheme in turn, in one process.
  ReplayOptions cmp;
  CLI::App* compare = app.add_subcommand("compare", "replay one trace on several schemes");
  compare->add_option("--trace", cmp.trace_path, "trace file (else --profile)");
  compare->add_option("--format", cmp.format, "msr or blkparse");
  compare->add_option("--profile", cmp.profile, zr::TraceProfileNames());
  compare->add_option("--requests", cmp.requests, "requests of a generated trace");
  compare->add_option("--seed", cmp.seed, "seed of a generated trace");
  compare->add_option("--scheme", cmp.schemes, "schemes, in the order they run")->required();
  compare->add_option("--drive", cmp.config.drive_uri, "drive URI");
  compare->add_option("--ssd", cmp.config.ssd_uri, "SSD URI (conventional zones only)");
  compare->add_option("--ssd-tier-bytes", cmp.config.ssd_tier_bytes, "SSD tier size");
  compare->add_option("--cache-bytes", cmp.config.cache_bytes, "CF-Cache size");
  compare->add_option("--period", cmp.config.period_requests, "requests per placement period");
  compare->add_flag("--afap", cmp.afap, "ignore timestamps: as fast as possible");
  compare->add_option("--json", cmp.json_path, "write the JSON here (default stdout)");

  CLI11_PARSE(app, argc, argv);
  if (compare->parsed()) return Compare(cmp);
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
