// SpanDB's automated placement (AUTO) as HHZS 4.1 re-implements it, with
// the knobs of the HHZS authors' emulation of SpanDB (docs/hhzs.md, the scheme table):
// SSTs of levels <= a maximum level m go to the SSD. Once a second m
// follows the SSD's write throughput (below 40% of its sequential write
// throughput: m+1, up to 4; above 65%: m-1, down to -1), then the SSD's
// free space (below 13.3%: m at most 1; below 8%: m = -2, no SST at all).
// Like HHZS, AUTO keeps the WAL in a reserved SSD pool.
//
// m starts at 4, as SpanDB's driver does (option initial_max_level; 1 is
// ours, B2's split, which keeps a small scaled SSD from filling with L2/L3
// SSTs before the first free-space check).
#include <algorithm>
#include <atomic>
#include <optional>

#include "policy/scheme_common.h"
#include "policy/scheme_registry.h"

namespace zonestack::policy {
namespace {

constexpr uint64_t kTuneIntervalUs = 1'000'000;
constexpr int kMaxMaxLevel = 4;
constexpr int kMinTunedMaxLevel = -1;
constexpr int kNoSstMaxLevel = -2;
constexpr double kRaiseBelow = 0.40, kLowerAbove = 0.65;
constexpr double kCapFreeBelow = 0.133, kNoSstFreeBelow = 0.08;

class AutoScheme : public HintedScheme {
 public:
  AutoScheme(std::string name, HhzsOptions options, const SchemeEnv& env)
      : HintedScheme(std::move(name), std::move(options), env),
        max_level_(options_.initial_max_level) {}

  uint32_t PoolZones(uint32_t device, const std::vector<DeviceView>& devices) const override {
    return device == FirstSsd(devices) ? options_.wal_cache_zones : 0;
  }

  PlacementDecision Place(const FileHint& file, const std::vector<DeviceView>& devices) override {
    int max_level = options_.initial_max_level;
    if (auto ssd = FirstSsd(devices)) max_level = Tune(devices[*ssd]);
    return Decide(file, devices, /*sst_ssd_first=*/SstLevel(file) <= max_level,
                  /*wal_pool=*/true);
  }

  // How often each rule changed m, and m now.
  std::map<std::string, int64_t> counters() const override {
    return {{"raised", raised_.load()}, {"lowered", lowered_.load()}, {"capped", capped_.load()},
            {"no_sst", no_sst_.load()}, {"max_level", last_max_level_.load()}};
  }

 private:
  // SpanDB's DynamicLevelMoving, at most once per second.
  int Tune(const DeviceView& ssd) {
    const uint64_t now = view_.NowMicros();
    absl::MutexLock lock(&mu_);
    if (last_tune_us_ && now - *last_tune_us_ < kTuneIntervalUs) return max_level_;
    if (last_tune_us_) {
      const double seconds = static_cast<double>(now - *last_tune_us_) / 1e6;
      const double written =
          ssd.bytes_written > last_bytes_written_ ? ssd.bytes_written - last_bytes_written_ : 0;
      const double throughput = written / seconds;
      if (throughput < kRaiseBelow * options_.ssd_write_bytes_per_sec) {
        if (max_level_ < kMaxMaxLevel) {
          ++max_level_;
          ++raised_;
        }
      } else if (throughput > kLowerAbove * options_.ssd_write_bytes_per_sec &&
                 max_level_ > kMinTunedMaxLevel) {
        --max_level_;
        ++lowered_;
      }
    }
    last_tune_us_ = now;
    last_bytes_written_ = ssd.bytes_written;
    // The two space checks apply independently: below 8% no SST goes to
    // the SSD even in the second m was above 1 (SpanDB's code caps m at 1
    // first and only sets -2 a second later).
    const double free =
        ssd.data_zones == 0 ? 0 : static_cast<double>(ssd.empty_zones) / ssd.data_zones;
    if (free < kNoSstFreeBelow) {
      if (max_level_ != kNoSstMaxLevel) ++no_sst_;
      max_level_ = kNoSstMaxLevel;
    } else if (free < kCapFreeBelow && max_level_ > 1) {
      max_level_ = 1;
      ++capped_;
    }
    last_max_level_ = max_level_;
    return max_level_;
  }

  absl::Mutex mu_;
  int max_level_ ABSL_GUARDED_BY(mu_);
  std::optional<uint64_t> last_tune_us_ ABSL_GUARDED_BY(mu_);
  uint64_t last_bytes_written_ ABSL_GUARDED_BY(mu_) = 0;
  // Written under mu_, read without it by counters().
  std::atomic<int64_t> raised_{0}, lowered_{0}, capped_{0}, no_sst_{0};
  std::atomic<int64_t> last_max_level_{options_.initial_max_level};
};

}  // namespace

ZONESTACK_SCHEMES(auto) {
  registry.Add(SchemeSpecFor<HhzsOptions>(
      "auto", "SpanDB's automated placement (AUTO), as HHZS 4.1 describes it", HhzsOptionTable(),
      HhzsOptions{}, [](const std::string& name, HhzsOptions o, const SchemeEnv& env) {
        return std::make_shared<AutoScheme>(name, std::move(o), env);
      }));
}

}  // namespace zonestack::policy
