// SplitZNS (Huang et al., TACO 2023), the host half: SSTs of high levels
// in subzones of split zones, one SST per subzone (section 4.3, "+diff");
// everything else in wide zones with lifetime-based placement (LDP);
// greedy GC at 20% free, as the paper's LDP. zfs splits zones, leases
// subzones (the greedy subzone allocator) and resets and merges them
// (src/zfs/subzones.cc); the device gives chips (its chip allocator) and
// runs the SubZone Ring, Read Prefetcher and Read Scheduler.
// docs/splitzns.md has the mapping onto the paper.
#include <atomic>

#include "policy/scheme_registry.h"

namespace zonestack::policy {
namespace {

struct SplitZnsOptions {
  // SSTs of this level and above go to subzones: 4 is the paper's "+diff"
  // (level > 3), 0 its "native" (every SST in a subzone).
  uint32_t subzone_min_level = 4;
  // At most this share of a device's zones is split (4.3: "a hard limit is
  // set on the maximum number of splitzones (60% of the number of total
  // zones in our case)"); past it, high-level SSTs take wide zones too.
  uint32_t max_split_percent = 60;
  // Free-zone fraction below which GC runs (5.1.3: greedy "when the free
  // space falls under the threshold (20%)").
  double gc_threshold = 0.20;
};

const OptionTable<SplitZnsOptions>& SplitZnsTable() {
  static const auto* t =
      &(new OptionTable<SplitZnsOptions>)
           ->Integer("subzone_min_level", &SplitZnsOptions::subzone_min_level, 0, 64,
                     "SSTs of this LSM level and above go to subzones (4: the paper's +diff, "
                     "level > 3; 0: native, every SST)")
           .Integer("max_split_percent", &SplitZnsOptions::max_split_percent, 0, 100,
                    "at most this percentage of a device's data zones is split (paper: 60)")
           .Number("gc_threshold", &SplitZnsOptions::gc_threshold, /*zero_ok=*/true,
                   "greedy GC runs when empty zones fall to this fraction of the data zones "
                   "(paper: 0.2); a config's \"gc\" overrides it");
  return *t;
}

class SplitZnsScheme : public Scheme {
 public:
  SplitZnsScheme(std::string name, SplitZnsOptions o, const SchemeEnv& env)
      : Scheme(env), name_(std::move(name)), options_(o) {}
  std::string name() const override { return name_; }
  std::string without_hints() const override {
    return "no SST's level is known, so every SST goes to wide zones (LDP)";
  }
  std::optional<double> gc_threshold() const override { return options_.gc_threshold; }
  bool sst_per_subzone() const override { return true; }

  PlacementDecision Place(const FileHint& f, const std::vector<DeviceView>& devices) override {
    PlacementDecision d;
    for (uint32_t i = 0; i < devices.size(); ++i) d.devices.push_back(i);
    d.group = zfs::LifetimeGroup(f);
    if (f.kind != FileKind::kSst || f.level < 0 ||
        static_cast<uint32_t>(f.level) < options_.subzone_min_level) {
      wide_.fetch_add(1, std::memory_order_relaxed);
      return d;
    }
    // Past the split limit on every device: lifetime placement (4.3).
    for (const DeviceView& v : devices) {
      const bool subzones = v.info != nullptr && v.info->supports_subzones;
      if (subzones && (v.free_subzones > 0 || v.split_zones * 100ull < uint64_t{options_.max_split_percent} * v.data_zones)) {
        d.use_subzone = true;
      }
    }
    (d.use_subzone ? subzone_ : over_limit_).fetch_add(1, std::memory_order_relaxed);
    return d;
  }

  std::map<std::string, int64_t> counters() const override {
    return {{"wide_zone_files", wide_.load()},
            {"subzone_requests", subzone_.load()},
            {"split_limit_reached", over_limit_.load()}};
  }

 private:
  const std::string name_;
  const SplitZnsOptions options_;
  // Files placed in wide zones by level or kind, SSTs sent to subzones
  // (zfs falls back to a wide zone when it can split no zone), and SSTs of
  // a subzone level sent to wide zones because of the split limit.
  std::atomic<int64_t> wide_{0}, subzone_{0}, over_limit_{0};
};

}  // namespace

ZONESTACK_SCHEMES(splitzns) {
  registry.Add(SchemeSpecFor<SplitZnsOptions>(
      "splitzns",
      "SplitZNS: SSTs of high levels in subzones of split zones, one SST per subzone; wide "
      "zones with lifetime placement for the rest; greedy GC at 20% free (SplitZNS 4.2-4.3)",
      SplitZnsTable(), SplitZnsOptions{},
      [](const std::string& name, SplitZnsOptions o, const SchemeEnv& env) {
        return std::make_shared<SplitZnsScheme>(name, o, env);
      }));
}

}  // namespace zonestack::policy
