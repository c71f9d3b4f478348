// The basic schemes Bh of HHZS 2.3: the WAL and SSTs of L0..L(h-1) on the
// SSD while it has room, SSTs of Lh and above on the HDD; no reserved
// space, no migration. B3+M (4.2, Exp#2) adds HHZS's migration limited to
// what B3 allows: HDD SSTs of L0..L(h-1) move up to the SSD, nothing else.
#include <optional>

#include "policy/scheme_common.h"
#include "policy/scheme_registry.h"
#include "policy/tiering.h"

namespace zonestack::policy {
namespace {

class BasicScheme : public HintedScheme {
 public:
  BasicScheme(SchemeOptions options, bool migration)
      : HintedScheme(std::move(options)), migration_(migration) {}

  PlacementDecision Place(const FileHint& file, const std::vector<DeviceView>& devices) override {
    const bool low_level = SstLevel(file) < options_.level_threshold;
    return Decide(file, devices, /*sst_ssd_first=*/low_level, /*wal_pool=*/false);
  }

  double MigrationRate() const override {
    return migration_ ? options_.migration_bytes_per_sec : 0;
  }

  // B3+M: the highest-priority HDD SST below L_h that fits the SSD's empty
  // zones beyond zfs's GC reserve moves up. Unlike HHZS there is no
  // read-rate trigger, no capacity migration and no swap. An SST longer
  // than the free zones (an intra-L0 output) is passed over: its copy
  // would run out of zones halfway and be thrown away.
  std::optional<Migration> NextMigration(const std::vector<DeviceView>& devices) override {
    if (!migration_) return std::nullopt;
    const auto ssd = FirstSsd(devices);
    if (!ssd || !FirstHdd(devices) || !DecisionDue()) return std::nullopt;
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

std::shared_ptr<Scheme> MakeBasicScheme(SchemeOptions options, bool migration) {
  return std::make_shared<BasicScheme>(std::move(options), migration);
}

}  // namespace zonestack::policy
