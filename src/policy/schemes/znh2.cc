// ZnH2's HM Hybrid (H-ZenFS, ZnH2 section 3.3) on an HZNS device, whose
// zones open in SLC (a quarter of the capacity) unless opened explicitly
// in QLC:
// - zone allocation (3.3.2): ZenFS's lifetime groups; a new zone opens in
//   QLC only while the SLC cache is insufficient (its data over the cap of
//   Table 1, indexed by used capacity) and fewer QLC zones than the
//   limit are active; otherwise in SLC;
// - migration (3.3.1): every period, while the SLC cache is over its cap,
//   live extents of SSTs move from SLC to QLC zones, longest lifetime
//   first, then the zone with the highest reclaim ratio, by Simple Copy
//   (switchable off). zfs carries the moves out (cell_migration.cc).
// Needs only RocksDB's write-lifetime hints, as H-ZenFS does.
#include <atomic>

#include "device/slc_cap.h"
#include "policy/scheme_registry.h"

namespace zonestack::policy {
namespace {

using device::CellMode;

struct Znh2Options {
  bool simple_copy = true;     // 3.3.1 principle #3; off for Fig. 8(a)
  uint64_t period_ns = 5'000'000'000;  // the migration thread's period (3.3.1)
  // Active QLC zones at most; 0 = the device's max active QLC zones (9 on
  // ZnH2's device, Table 2).
  uint32_t max_qlc_zones = 0;
};

const OptionTable<Znh2Options>& Znh2Table() {
  static const auto* t = &(new OptionTable<Znh2Options>)
                              ->Bool("simple_copy", &Znh2Options::simple_copy,
                                     "migrate by Simple Copy inside the device (false: host "
                                     "read and write)")
                              .Integer("period_ms", &Znh2Options::period_ns, 1, 3'600'000,
                                       "how often the SLC cache is checked for migration",
                                       1'000'000)
                              .Integer("max_qlc_zones", &Znh2Options::max_qlc_zones, 0, 1 << 20,
                                       "active QLC zones at most (0: the device's limit)");
  return *t;
}

// The SLC cache of one device as ZnH2 measures it: SLC data counts as much
// flash as it occupies (four times its bytes on QLC flash).
struct SlcUse {
  uint64_t slc_flash = 0, used = 0, total = 0;
  bool within_cap() const { return device::SlcWithinCap(slc_flash, used, total); }
  // Flash over the cap.
  uint64_t excess() const {
    const uint64_t cap = uint64_t{device::SlcCapPercent(used, total)} * total / 100;
    return slc_flash > cap ? slc_flash - cap : 0;
  }
};

bool Hzns(const DeviceView& v) { return v.info != nullptr && v.info->supports_slc; }

SlcUse SlcUseOf(const DeviceView& v) {
  const uint64_t bits = static_cast<uint64_t>(v.info->native_cell_mode);
  SlcUse u;
  u.slc_flash = v.slc_written_bytes * bits;
  u.used = v.native_written_bytes + u.slc_flash;
  u.total = uint64_t{v.data_zones} * v.zone_capacity;
  return u;
}

class Znh2Scheme : public Scheme {
 public:
  Znh2Scheme(std::string name, Znh2Options o, const SchemeEnv& env)
      : Scheme(env), name_(std::move(name)), options_(o) {}
  std::string name() const override { return name_; }
  bool hinted() const override { return false; }

  PlacementDecision Place(const FileHint& f, const std::vector<DeviceView>& devices) override {
    PlacementDecision d;
    for (uint32_t i = 0; i < devices.size(); ++i) d.devices.push_back(i);
    d.group = zfs::LifetimeGroup(f);
    // A new zone opens in QLC only while the SLC cache is insufficient and
    // the QLC limit allows another (3.3.2); else in SLC, the default.
    for (const DeviceView& v : devices) {
      if (!Hzns(v)) continue;
      if (SlcUseOf(v).within_cap()) break;
      if (v.active_native_zones < QlcLimit(v)) {
        d.cell_mode = CellMode::kQlc;
        ++qlc_decisions_;
      } else {
        ++qlc_limit_hits_;
      }
      break;
    }
    return d;
  }

  uint64_t CellMigrationPeriodNs() const override { return options_.period_ns; }

  std::optional<zfs::CellMigration> NextCellMigration(
      const std::vector<DeviceView>& devices) override {
    for (uint32_t i = 0; i < devices.size(); ++i) {
      if (!Hzns(devices[i])) continue;
      const SlcUse u = SlcUseOf(devices[i]);
      if (u.within_cap()) continue;
      // As much data as the flash over the cap (the authors' amount): the
      // SLC space comes back only when a zone's last live extent has left.
      ++migrations_;
      return zfs::CellMigration{.device = i,
                                .to_mode = CellMode::kQlc,
                                .bytes = u.excess(),
                                .simple_copy = options_.simple_copy};
    }
    return std::nullopt;
  }

  // Principle #2: SSTs only, longer lifetimes first, then the zones closer
  // to being wholly invalid (the ratio is below 1 for a zone with live
  // data, so it only breaks ties between equal lifetimes).
  std::optional<double> CellMigrationPriority(const zfs::ExtentCandidate& x) const override {
    if (x.file->kind != FileKind::kSst || x.zone_mode != CellMode::kSlc) return std::nullopt;
    return static_cast<double>(x.file->lifetime) + x.zone_reclaim_ratio;
  }

  std::map<std::string, int64_t> counters() const override {
    return {{"qlc_decisions", qlc_decisions_.load()},
            {"qlc_limit_hits", qlc_limit_hits_.load()},
            {"migrations", migrations_.load()}};
  }

 private:
  uint32_t QlcLimit(const DeviceView& v) const {
    uint32_t limit = v.info->max_active_qlc_zones;
    if (v.info->max_open_qlc_zones != 0 && (limit == 0 || v.info->max_open_qlc_zones < limit)) {
      limit = v.info->max_open_qlc_zones;
    }
    if (options_.max_qlc_zones != 0 && (limit == 0 || options_.max_qlc_zones < limit)) {
      limit = options_.max_qlc_zones;
    }
    return limit == 0 ? UINT32_MAX : limit;
  }

  const std::string name_;
  const Znh2Options options_;
  // Thread-safe counters (counters()).
  std::atomic<int64_t> qlc_decisions_{0}, qlc_limit_hits_{0}, migrations_{0};
};

}  // namespace

ZONESTACK_SCHEMES(znh2) {
  registry.Add(SchemeSpecFor<Znh2Options>(
      "znh2",
      "ZnH2's HM Hybrid on an HZNS device: SLC zones, QLC when the SLC cache is over its cap, "
      "lifetime-ordered migration to QLC by Simple Copy (ZnH2 3.3)",
      Znh2Table(), Znh2Options{},
      [](const std::string& name, Znh2Options o, const SchemeEnv& env) {
        return std::make_shared<Znh2Scheme>(name, o, env);
      }));
}

}  // namespace zonestack::policy
