// Trace replay: one request at a time (the paper's replay issues a trace's
// requests in order), each timed from its arrival to its completion. A
// request that arrives while the drive is still cleaning its media cache
// counts the wait. The tier's placement periods (promotion, demotion) run
// between requests, driven from here: the paper migrates in background
// threads, so a migration is not part of the response of the request that
// happened to end a period; requests after it start once the devices are
// free (docs/zonetier.md, "Departures").
#include "tools/zsreplay/replay.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "absl/strings/str_cat.h"
#include "bench/histogram.h"
#include "device/clock.h"

namespace zonestack::zsreplay {
namespace {

double Us(double ns) { return ns / 1000.0; }

struct Completed {
  uint64_t arrival = 0, done = 0;
  bool cleaning_started = false;  // the drive began a cleaning run during it
};

// Performance recovery (ZoneTier Fig. 3): from the arrival of a request
// during which the drive started cleaning to the completion of the first
// request that is served within `factor` of the median response time again.
std::pair<uint64_t, uint64_t> RecoveryTime(const std::vector<Completed>& done, uint64_t median,
                                           double factor) {
  uint64_t total = 0, episodes = 0, covered_until = 0;
  for (size_t i = 0; i < done.size(); ++i) {
    if (!done[i].cleaning_started || done[i].arrival < covered_until) continue;
    size_t j = i;
    while (j < done.size() &&
           static_cast<double>(done[j].done - done[j].arrival) > factor * static_cast<double>(median)) {
      ++j;
    }
    const uint64_t end = j < done.size() ? done[j].done : done.back().done;
    total += end - done[i].arrival;
    covered_until = end;
    ++episodes;
  }
  return {total, episodes};
}

}  // namespace

absl::StatusOr<nlohmann::json> Replay(const std::vector<TraceRequest>& trace,
                                      const ReplayConfig& config) {
  auto options = tier::TierScheme(config.scheme, tier::TierOptions{});
  if (!options.ok()) return options.status();
  std::string drive_uri = config.drive_uri;
  if (options->device_managed_drive && drive_uri.find("smr=") == std::string::npos) {
    drive_uri += drive_uri.find('?') == std::string::npos ? "?smr=dm" : "&smr=dm";
  }
  // One time line for both devices: simulated when the drive's is.
  std::shared_ptr<device::Clock> clock;
  device::ManualClock* manual = nullptr;
  if (drive_uri.find("timing=sim") != std::string::npos) {
    auto m = std::make_shared<device::ManualClock>();
    manual = m.get();
    clock = m;
  } else if (drive_uri.find("timing=none") == std::string::npos) {
    clock = std::shared_ptr<device::Clock>(device::RealClock::Default(), [](device::Clock*) {});
  }
  auto drive = device::OpenDevice(drive_uri, clock);
  if (!drive.ok()) return drive.status();
  auto ssd = device::OpenDevice(config.ssd_uri, clock);
  if (!ssd.ok()) return ssd.status();
  options->ssd_tier_bytes = config.ssd_tier_bytes;
  options->cache_bytes = config.cache_bytes;
  tier::SetDefaultSizes((*drive)->info(), &*options);
  const uint64_t capacity = (*drive)->info().capacity_bytes();
  options->period_requests = 0;  // RunPeriod below, between requests
  auto tier = tier::BlockTier::Open(ssd->get(), drive->get(), *options, clock.get());
  if (!tier.ok()) return tier.status();

  bench::Histogram all, reads, writes;
  // Requests that touched no SSD tier slot: served by the HA-SMR drive's
  // zones, through the cache or not (the paper's Fig. 13).
  bench::Histogram drive_reads, drive_writes;
  std::vector<Completed> done;
  done.reserve(trace.size());
  std::vector<uint8_t> buf;
  const uint64_t block = (*tier)->block_size();
  const uint64_t t0 = clock ? clock->NowNs() : 0;
  uint64_t requests = 0;
  uint64_t period_ns = 0;  // simulated time in placement periods, between requests
  for (const TraceRequest& r : trace) {
    uint64_t off = (r.offset % capacity) / block * block;
    uint64_t len = (r.offset % capacity + r.length + block - 1) / block * block - off;
    len = std::min(len, capacity - off);
    if (len == 0) continue;
    uint64_t arrival = clock ? clock->NowNs() : 0;
    if (clock && config.honor_timestamps && t0 + r.time_ns > arrival) {
      arrival = t0 + r.time_ns;
      if (manual != nullptr) {
        manual->Set(arrival);
      } else {
        clock->WaitUntil(arrival);
      }
    }
    const uint64_t cleanings = (*drive)->Stats().media_cache_cleanings;
    const tier::TierStats before = (*tier)->Stats();
    buf.assign(len, static_cast<uint8_t>(requests + 1));
    const absl::Status s = r.write ? (*tier)->Write(off, buf) : (*tier)->Read(off, buf);
    if (!s.ok()) {
      return absl::Status(s.code(), absl::StrCat("request ", requests, " (",
                                                 r.write ? "write" : "read", " of ", len,
                                                 " bytes at ", off, "): ", s.message()));
    }
    const uint64_t end = clock ? clock->NowNs() : 0;
    const uint64_t ns = end - arrival;
    all.Record(ns);
    (r.write ? writes : reads).Record(ns);
    const tier::TierStats after = (*tier)->Stats();
    if (after.ssd_tier_reads == before.ssd_tier_reads &&
        after.ssd_tier_writes == before.ssd_tier_writes) {
      (r.write ? drive_writes : drive_reads).Record(ns);
    }
    done.push_back({arrival, end, (*drive)->Stats().media_cache_cleanings > cleanings});
    ++requests;
    if (config.period_requests != 0 && requests % config.period_requests == 0) {
      const uint64_t p0 = clock ? clock->NowNs() : 0;
      const absl::Status s = (*tier)->RunPeriod();
      period_ns += (clock ? clock->NowNs() : 0) - p0;
      if (!s.ok()) {
        return absl::Status(s.code(), absl::StrCat("placement period after request ", requests,
                                                   ": ", s.message()));
      }
    }
  }
  if (auto s = (*tier)->Flush(); !s.ok()) return s;
  const tier::TierStats ts = (*tier)->Stats();
  const device::DeviceStats ds = (*drive)->Stats();
  const uint64_t sim_ns = clock ? clock->NowNs() - t0 : 0;
  // The mapping's recovery: the tier reopened over its devices.
  tier->reset();
  const auto w0 = std::chrono::steady_clock::now();
  auto reopened = tier::BlockTier::Open(ssd->get(), drive->get(), *options, clock.get());
  const double recovery_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w0).count();
  if (!reopened.ok()) return reopened.status();
  const auto [prt_ns, prt_episodes] =
      done.empty() ? std::pair<uint64_t, uint64_t>{0, 0}
                   : RecoveryTime(done, all.Percentile(50), config.recovered_factor);

  nlohmann::json j;
  j["scheme"] = config.scheme;
  j["drive"] = drive_uri;
  j["ssd"] = config.ssd_uri;
  j["timestamps"] = config.honor_timestamps ? "honored" : "as fast as possible";
  j["requests"] = requests;
  j["reads"] = reads.count();
  j["writes"] = writes.count();
  j["drive_reads"] = drive_reads.count();
  j["drive_writes"] = drive_writes.count();
  j["simulated_ms"] = static_cast<double>(sim_ns) / 1e6;
  // The trace's own span: a replay that took longer fell behind it (its
  // requests then started late, and that wait is not in their times).
  j["period_ms"] = static_cast<double>(period_ns) / 1e6;
  j["trace_ms"] = trace.empty() ? 0.0 : static_cast<double>(trace.back().time_ns) / 1e6;
  j["avg_response_us"] = {
      {"all", Us(all.mean())},
      {"reads", Us(reads.mean())},
      {"writes", Us(writes.mean())},
      // Every placement period's time charged to the requests as well:
      // the paper migrates in the background, where that time is spread
      // over the requests the migration delays.
      {"all_with_periods",
       all.count() ? Us((all.mean() * static_cast<double>(all.count()) +
                         static_cast<double>(period_ns)) /
                        static_cast<double>(all.count()))
                   : 0.0},
      {"drive_reads", Us(drive_reads.mean())},
      {"drive_writes", Us(drive_writes.mean())},
      {"demotion_writes", ts.demotion_writes ? Us(static_cast<double>(ts.demotion_write_ns) /
                                                  static_cast<double>(ts.demotion_writes))
                                             : 0.0}};
  j["write_p99_us"] = Us(static_cast<double>(writes.Percentile(99)));
  j["write_p999_us"] = Us(static_cast<double>(writes.Percentile(99.9)));
  j["demotion_write_max_us"] = Us(static_cast<double>(ts.demotion_write_max_ns));
  j["ssd_tier_utilization"] = ts.utilization();
  j["media_cache_cleaning_ms"] = static_cast<double>(ds.media_cache_cleaning_ns) / 1e6;
  j["media_cache_cleanings"] = ds.media_cache_cleanings;
  j["media_cache_cleaned_zones"] = ds.media_cache_cleaned_zones;
  j["performance_recovery_ms"] = static_cast<double>(prt_ns) / 1e6;
  j["performance_recovery_episodes"] = prt_episodes;
  j["mapping_recovery_ms"] = recovery_ms;
  j["drive_nsw_writes"] = ds.nsw_writes;
  j["tier"] = {{"ssd_tier_reads", ts.ssd_tier_reads},
               {"ssd_tier_writes", ts.ssd_tier_writes},
               {"cache_read_hits", ts.cache_read_hits},
               {"cache_admissions", ts.cache_admissions},
               {"cache_overwrites", ts.cache_overwrites},
               {"sequential_writes", ts.sequential_writes},
               {"bypassed_nsws", ts.bypassed_nsws},
               {"padded_writes", ts.padded_writes},
               {"padding_bytes", ts.padding_bytes},
               {"evictions", ts.evictions},
               {"evictions_sequential", ts.evictions_sequential},
               {"evicted_blocks", ts.evicted_blocks},
               {"drained_runs", ts.drained_runs},
               {"promotions", ts.promotions},
               {"promoted_bytes", ts.promoted_bytes},
               {"filtered_bytes", ts.filtered_bytes},
               {"merged_blocks", ts.merged_blocks},
               {"demotions", ts.demotions},
               {"demotion_bytes", ts.demotion_bytes},
               {"demotion_writes", ts.demotion_writes},
               {"periods", ts.periods},
               {"caf", ts.caf}};
  return j;
}

nlohmann::json ReplaySchemes(const std::vector<TraceRequest>& trace, const ReplayConfig& config,
                             const std::vector<std::string>& schemes, int* failed) {
  nlohmann::json out;
  out["schemes"] = nlohmann::json::array();
  *failed = 0;
  for (const std::string& scheme : schemes) {
    ReplayConfig c = config;
    c.scheme = scheme;
    auto r = Replay(trace, c);
    if (r.ok()) {
      out["schemes"].push_back(*r);
    } else {
      ++*failed;
      out["schemes"].push_back({{"scheme", scheme}, {"error", r.status().ToString()}});
    }
  }
  return out;
}

}  // namespace zonestack::zsreplay
