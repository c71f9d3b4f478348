// The basic schemes Bh of HHZS 2.3: the WAL and SSTs of L0..L(h-1) on the
// SSD while it has room, SSTs of Lh and above on the HDD; no reserved
// space, no migration. B3+M (4.2, Exp#2) adds HHZS's migration limited to
// what B3 allows: HDD SSTs of L0..L(h-1) move up to the SSD, nothing else.
#include <optional>

#include "absl/strings/str_cat.h"
#include "policy/hhzs_placement.h"
#include "policy/scheme_common.h"
#include "policy/scheme_registry.h"

namespace zonestack::policy {
namespace {

class BasicScheme : public HintedScheme {
 public:
  BasicScheme(std::string name, HhzsOptions options, const SchemeEnv& env, bool migration)
      : HintedScheme(std::move(name), std::move(options), env), migration_(migration) {}

  PlacementDecision Place(const FileHint& file, const std::vector<DeviceView>& devices) override {
    const bool low_level = SstLevel(file) < options_.level_threshold;
    return Decide(file, devices, /*sst_ssd_first=*/low_level, /*wal_pool=*/false);
  }

  double MigrationRate() const override {
    return migration_ ? options_.migration_bytes_per_sec : 0;
  }

  // B3+M: while reads are HDD-bound (HHZS's popularity trigger), the
  // highest-priority HDD SST below L_h that fits the SSD's empty zones
  // beyond zfs's GC reserve moves up. Unlike HHZS there is no capacity
  // migration and no swap. An SST longer than the free zones (an intra-L0
  // output) is passed over: its copy would run out of zones halfway and be
  // thrown away.
  std::optional<Migration> NextMigration(const std::vector<DeviceView>& devices) override {
    if (!migration_) return std::nullopt;
    const auto ssd = FirstSsd(devices);
    if (!ssd || !FirstHdd(devices) || !DecisionDue() || !ReadBound()) return std::nullopt;
    const int64_t free_zones = int64_t{devices[*ssd].empty_zones} - kGcReserveZones;
    if (free_zones <= 0) return std::nullopt;
    const uint64_t now = view_.NowMicros();
    std::optional<SstInfo> best;
    for (SstInfo& sst : view_.Ssts()) {
      if (!Migratable(sst) || sst.on_ssd || sst.level >= options_.level_threshold) continue;
      if (SstZones(sst.size, devices[*ssd].zone_capacity) > free_zones) continue;
      if (!best || Ranks(sst, *best, now)) best = std::move(sst);
    }
    if (!best) return std::nullopt;
    return Migration{best->path, *ssd};
  }

 private:
  const bool migration_;
};

}  // namespace

// Bh takes h from its name (overriding "level_threshold"); B3+M is B3
// with limited migration.
ZONESTACK_SCHEMES(basic) {
  for (int h = 1; h <= 4; ++h) {
    registry.Add(SchemeSpecFor<HhzsOptions>(
        absl::StrCat("b", h),
        absl::StrCat("HHZS 2.3's basic scheme B", h, ": the WAL and SSTs below L", h,
                     " on the SSD while it has room"),
        HhzsOptionTable(), HhzsOptions{},
        [h](const std::string& name, HhzsOptions o, const SchemeEnv& env) {
          o.level_threshold = h;
          return std::make_shared<BasicScheme>(name, std::move(o), env, /*migration=*/false);
        }));
  }
  registry.Add(SchemeSpecFor<HhzsOptions>(
      "b3+m", "B3 with HHZS's migration limited to L0..L2 (HHZS Exp#2)", HhzsOptionTable(),
      HhzsOptions{}, [](const std::string& name, HhzsOptions o, const SchemeEnv& env) {
        o.level_threshold = 3;
        return std::make_shared<BasicScheme>(name, std::move(o), env, /*migration=*/true);
      }));
}

}  // namespace zonestack::policy
