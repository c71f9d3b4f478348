// zfs's own placement when a mount names no policy: ZenFS's lifetime-based
// placement over every member in order.
#include "zfs/placement.h"

namespace zonestack::zfs {
namespace {

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

}  // namespace

std::shared_ptr<PlacementPolicy> MakeLifetimePlacement() {
  return std::make_shared<LifetimePlacement>();
}

}  // namespace zonestack::zfs
