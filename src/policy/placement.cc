#include "policy/placement.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace zonestack::policy {

int64_t SstNumber(const std::string& name) {
  absl::string_view base(name);
  if (auto slash = base.rfind('/'); slash != absl::string_view::npos) base.remove_prefix(slash + 1);
  if (!absl::ConsumeSuffix(&base, ".sst") || base.empty()) return -1;
  for (char c : base) {
    if (c < '0' || c > '9') return -1;
  }
  int64_t number = 0;
  if (!absl::SimpleAtoi(base, &number)) return -1;  // out of range
  return number;
}

namespace {

// Group 0 is the WAL's own; every other file is grouped by lifetime, so a
// zone holds data that dies at about the same time (ZenFS's lifetime
// placement, without its cross-lifetime matching).
uint32_t LifetimeGroup(const FileHint& f) {
  if (f.kind == FileKind::kWal) return 0;
  if (f.kind == FileKind::kManifest || f.kind == FileKind::kOther) return 1;
  return 2 + static_cast<uint32_t>(f.lifetime);
}

class LifetimePlacement : public PlacementPolicy {
 public:
  std::string name() const override { return "lifetime"; }
  PlacementDecision Place(const FileHint& f, const std::vector<DeviceView>& devices) override {
    PlacementDecision d;
    for (uint32_t i = 0; i < devices.size(); ++i) d.devices.push_back(i);
    d.group = LifetimeGroup(f);
    return d;
  }
};

// SSD first while it has room, then the HDDs, for every file.
class HybridPlacement : public PlacementPolicy {
 public:
  std::string name() const override { return "hybrid"; }
  PlacementDecision Place(const FileHint& f, const std::vector<DeviceView>& devices) override {
    PlacementDecision d;
    for (uint32_t i = 0; i < devices.size(); ++i) {
      if (devices[i].is_ssd) d.devices.push_back(i);
    }
    for (uint32_t i = 0; i < devices.size(); ++i) {
      if (!devices[i].is_ssd) d.devices.push_back(i);
    }
    d.group = LifetimeGroup(f);
    return d;
  }
};

}  // namespace

absl::StatusOr<std::shared_ptr<PlacementPolicy>> MakePlacementPolicy(const std::string& name) {
  if (name == "lifetime") return std::make_shared<LifetimePlacement>();
  if (name == "hybrid") return std::make_shared<HybridPlacement>();
  return absl::InvalidArgumentError(
      absl::StrCat("unknown placement policy '", name, "'; known: lifetime, hybrid"));
}

}  // namespace zonestack::policy
