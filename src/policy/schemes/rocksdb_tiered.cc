// RocksDB's own tiered storage (7.x, `last_level_temperature = kCold`):
// RocksDB marks the SSTs it writes to the last level cold; those go to the
// HDD and every other file (WAL, MANIFEST, warmer SSTs) to the SSD. The
// policy only reads the temperature RocksDB passes in FileOptions.
#include "policy/scheme_common.h"
#include "policy/scheme_registry.h"

namespace zonestack::policy {
namespace {

// rocksdb::Temperature::kCold.
constexpr uint8_t kColdTemperature = 12;

class TieredScheme : public HintedScheme {
 public:
  TieredScheme(std::string name, HhzsOptions options, const SchemeEnv& env)
      : HintedScheme(std::move(name), std::move(options), env) {}
  bool places_by_temperature() const override { return true; }
  std::string without_hints() const override {
    return "it still places by file temperature, but only last_level_temperature=kCold "
           "(which OpenDb and AttachHints set) sends the last level to the HDD";
  }

  PlacementDecision Place(const FileHint& file, const std::vector<DeviceView>& devices) override {
    PlacementDecision d = Decide(file, devices, /*sst_ssd_first=*/true, /*wal_pool=*/false);
    d.devices = DeviceOrder(devices, /*ssd_first=*/file.temperature != kColdTemperature);
    return d;
  }
};

}  // namespace

ZONESTACK_SCHEMES(rocksdb_tiered) {
  registry.Add(SchemeSpecFor<HhzsOptions>(
      "tiered", "RocksDB's own tiered storage: last-level (cold) SSTs on the HDD, the rest on the SSD",
      HhzsOptionTable(), HhzsOptions{},
      [](const std::string& name, HhzsOptions o, const SchemeEnv& env) {
        return std::make_shared<TieredScheme>(name, std::move(o), env);
      }));
}

}  // namespace zonestack::policy
