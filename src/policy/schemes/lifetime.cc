// Placements that need no hints beyond a file's kind and write lifetime.
// "lifetime": ZenFS's lifetime-based placement (LDP) over every device in
// order; "ldp": the same with greedy GC at 20% free, SplitZNS's baseline. "hybrid": the same groups, on the SSDs while they have room, then
// the HDDs.
#include "policy/scheme_registry.h"

namespace zonestack::policy {
namespace {

struct NoOptions {};

class LifetimeScheme : public Scheme {
 public:
  LifetimeScheme(std::string name, bool ssd_first, const SchemeEnv& env,
                 std::optional<double> gc = std::nullopt)
      : Scheme(env), name_(std::move(name)), ssd_first_(ssd_first), gc_(gc) {}
  std::string name() const override { return name_; }
  bool hinted() const override { return false; }
  std::optional<double> gc_threshold() const override { return gc_; }

  PlacementDecision Place(const FileHint& f, const std::vector<DeviceView>& devices) override {
    PlacementDecision d;
    for (uint32_t i = 0; i < devices.size(); ++i) {
      if (!ssd_first_ || devices[i].is_ssd) d.devices.push_back(i);
    }
    for (uint32_t i = 0; ssd_first_ && i < devices.size(); ++i) {
      if (!devices[i].is_ssd) d.devices.push_back(i);
    }
    d.group = zfs::LifetimeGroup(f);
    return d;
  }

 private:
  const std::string name_;
  const bool ssd_first_;
  const std::optional<double> gc_;
};

const OptionTable<NoOptions>& NoOptionTable() {
  static const auto* table = new OptionTable<NoOptions>;
  return *table;
}

}  // namespace

ZONESTACK_SCHEMES(lifetime) {
  registry.Add(SchemeSpecFor<NoOptions>(
      "lifetime", "ZenFS's lifetime-based placement (LDP) over every device in order",
      NoOptionTable(), NoOptions{}, [](const std::string& name, NoOptions, const SchemeEnv& env) {
        return std::make_shared<LifetimeScheme>(name, /*ssd_first=*/false, env);
      }));
  // SplitZNS's main baseline (5.1.3): LDP with greedy GC when free space
  // falls under 20%. RocksDB derives the lifetime hints from the level.
  registry.Add(SchemeSpecFor<NoOptions>(
      "ldp",
      "SplitZNS's LDP baseline: lifetime placement, greedy GC at 20% free zones (SplitZNS 5.1.3)",
      NoOptionTable(), NoOptions{}, [](const std::string& name, NoOptions, const SchemeEnv& env) {
        return std::make_shared<LifetimeScheme>(name, /*ssd_first=*/false, env, 0.20);
      }));
  registry.Add(SchemeSpecFor<NoOptions>(
      "hybrid", "lifetime placement on the SSDs while they have room, then the HDDs",
      NoOptionTable(), NoOptions{}, [](const std::string& name, NoOptions, const SchemeEnv& env) {
        return std::make_shared<LifetimeScheme>(name, /*ssd_first=*/true, env);
      }));
}

}  // namespace zonestack::policy
