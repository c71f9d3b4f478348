// Synthetic MSR-like traces. No MSR trace can be downloaded here, so each
// profile sets the characteristics the ZoneTier evaluation depends on:
// write ratio, request sizes, skew over zones and the share of writes that
// are not appends (NSWs to a drive). The write ratios are those commonly
// reported for the MSR Cambridge volumes the profiles are named after; the
// other parameters are our choice (docs/zonetier.md, "Synthetic traces").
#include <algorithm>
#include <cmath>
#include <ostream>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bench/generators.h"
#include "tools/zsreplay/trace.h"

namespace zonestack::zsreplay {

const std::vector<TraceProfile>& TraceProfiles() {
  static const std::vector<TraceProfile> profiles = {
      {"hm_0", 0.64, {0.55, 0.25, 0.1, 0.07, 0.03}, 0.9, 0.6, 0.4, 2000},
      {"prxy_0", 0.97, {0.7, 0.15, 0.1, 0.04, 0.01}, 1.1, 0.7, 0.2, 1000},
      {"src1_2", 0.75, {0.3, 0.2, 0.2, 0.15, 0.15}, 0.8, 0.3, 0.5, 3000},
      {"stg_0", 0.85, {0.5, 0.2, 0.15, 0.1, 0.05}, 0.9, 0.5, 0.4, 2000},
      {"web_0", 0.70, {0.45, 0.25, 0.15, 0.1, 0.05}, 0.85, 0.5, 0.5, 2000},
  };
  return profiles;
}

std::string TraceProfileNames() {
  std::vector<std::string> names;
  for (const TraceProfile& p : TraceProfiles()) names.push_back(p.name);
  return absl::StrJoin(names, ", ");
}

absl::StatusOr<TraceProfile> FindTraceProfile(const std::string& name) {
  for (const TraceProfile& p : TraceProfiles()) {
    if (p.name == name) return p;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown trace profile '", name, "'; profiles: ", TraceProfileNames()));
}

std::vector<TraceRequest> GenerateTrace(const TraceProfile& p, uint64_t requests,
                                        uint64_t capacity, uint64_t zone_bytes, uint64_t seed) {
  constexpr uint64_t kBlock = 4096;
  std::mt19937_64 rng(seed);
  const uint64_t zones = std::max<uint64_t>(1, capacity / zone_bytes);
  const uint64_t touched = std::clamp<uint64_t>(
      static_cast<uint64_t>(p.footprint * static_cast<double>(zones)), 1, zones);
  // Hot zones are spread over the device, not the first ones.
  std::vector<uint64_t> perm(zones);
  for (uint64_t i = 0; i < zones; ++i) perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), rng);
  auto zipf = bench::ZipfianGenerator::Create(0, static_cast<int64_t>(touched) - 1, p.zipf_theta);
  std::discrete_distribution<int> size_k(p.size_weights.begin(), p.size_weights.end());
  std::exponential_distribution<double> gap(1.0 / static_cast<double>(p.mean_interarrival_us));
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<uint64_t> appended(zones, 0);  // bytes appended per zone
  std::vector<TraceRequest> out;
  double t_us = 0;
  for (uint64_t i = 0; i < requests; ++i) {
    TraceRequest r;
    t_us += gap(rng);
    r.time_ns = static_cast<uint64_t>(t_us * 1000);
    r.length = std::min<uint64_t>(kBlock << size_k(rng), zone_bytes);
    const uint64_t zone = perm[zipf.ok() ? static_cast<uint64_t>(zipf->Next(rng)) : 0];
    const uint64_t start = zone * zone_bytes;
    const uint64_t slots = (zone_bytes - r.length) / kBlock + 1;
    r.write = u(rng) < p.write_ratio;
    if (r.write && u(rng) >= p.nsw_share && appended[zone] + r.length <= zone_bytes) {
      r.offset = start + appended[zone];
      appended[zone] += r.length;
    } else if (!r.write && appended[zone] >= r.length) {
      // Reads mostly find data: within what the zone's appends wrote.
      r.offset = start + (rng() % ((appended[zone] - r.length) / kBlock + 1)) * kBlock;
    } else {
      r.offset = start + (rng() % slots) * kBlock;
    }
    out.push_back(r);
  }
  return out;
}

void WriteMsrCsv(const std::vector<TraceRequest>& trace, std::ostream& out) {
  // Windows ticks (100 ns) from an arbitrary epoch, as the MSR files have.
  constexpr uint64_t kEpoch = 128166372000000000ull;
  for (const TraceRequest& r : trace) {
    out << kEpoch + r.time_ns / 100 << ",synthetic,0," << (r.write ? "Write" : "Read") << ","
        << r.offset << "," << r.length << ",0\n";
  }
}

}  // namespace zonestack::zsreplay
