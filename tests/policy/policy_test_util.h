// Helpers for the policy tests: a manual clock, device views and hints.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "policy/lsm_view.h"
#include "policy/scheme.h"
#include "policy/hhzs_options.h"
#include "policy/scheme_registry.h"

namespace zonestack::policy::testing {

constexpr uint64_t kSec = 1'000'000;

// A clock the test moves by hand; copies share the time.
class FakeClock {
 public:
  uint64_t now() const { return *now_; }
  void Set(uint64_t us) { *now_ = us; }
  void Advance(uint64_t us) { *now_ += us; }
  LsmView::Clock fn() const {
    auto p = now_;
    return [p] { return *p; };
  }

 private:
  std::shared_ptr<uint64_t> now_ = std::make_shared<uint64_t>(0);
};

inline std::string SstName(uint64_t number) { return absl::StrFormat("/db/%06d.sst", number); }

inline FileHint SstHint(uint64_t number, int level = -1, uint8_t temperature = 0) {
  FileHint h;
  h.name = SstName(number);
  h.kind = FileKind::kSst;
  h.level = level;
  h.temperature = temperature;
  return h;
}

inline FileHint WalHint() {
  FileHint h;
  h.name = "/db/000004.log";
  h.kind = FileKind::kWal;
  return h;
}

inline FileHint ManifestHint() {
  FileHint h;
  h.name = "/db/MANIFEST-000005";
  h.kind = FileKind::kManifest;
  return h;
}

inline DeviceView Ssd(uint32_t data_zones, uint32_t empty_zones, uint32_t pool_zones = 0,
                      uint32_t cache_zones = 0) {
  DeviceView d;
  d.name = "ssd";
  d.is_ssd = true;
  d.zone_capacity = 64 << 20;
  d.data_zones = data_zones;
  d.empty_zones = empty_zones;
  d.pool_zones = pool_zones;
  d.cache_zones = cache_zones;
  return d;
}

inline DeviceView Hdd(uint32_t data_zones = 1000, uint32_t empty_zones = 900) {
  DeviceView d;
  d.name = "hdd";
  d.zone_capacity = 16 << 20;
  d.data_zones = data_zones;
  d.empty_zones = empty_zones;
  return d;
}

inline std::vector<uint32_t> Order(uint32_t a, uint32_t b) { return {a, b}; }

}  // namespace zonestack::policy::testing
