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
  explicit TieredScheme(SchemeOptions options) : HintedScheme(std::move(options)) {}

  PlacementDecision Place(const FileHint& file, const std::vector<DeviceView>& devices) override {
    PlacementDecision d = Decide(file, devices, /*sst_ssd_first=*/true, /*wal_pool=*/false);
    d.devices = DeviceOrder(devices, /*ssd_first=*/file.temperature != kColdTemperature);
    return d;
  }
};

}  // namespace

std::shared_ptr<Scheme> MakeTieredScheme(SchemeOptions options) {
  return std::make_shared<TieredScheme>(std::move(options));
}

}  // namespace zonestack::policy
