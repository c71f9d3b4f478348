// A placement for zfs tests over an SSD and an HDD: every file on the SSDs
// while they have room, then on the HDDs, grouped by lifetime (the
// "hybrid" scheme of src/policy, without depending on the policy layer).
#pragma once

#include <memory>

#include "zfs/placement.h"

namespace zonestack::zfs::testing_util {

class SsdFirstPlacement : public PlacementPolicy {
 public:
  std::string name() const override { return "ssd-first"; }
  PlacementDecision Place(const FileHint& f, const std::vector<DeviceView>& devices) override {
    PlacementDecision d;
    for (bool ssd : {true, false}) {
      for (uint32_t i = 0; i < devices.size(); ++i) {
        if (devices[i].is_ssd == ssd) d.devices.push_back(i);
      }
    }
    d.group = LifetimeGroup(f);
    return d;
  }
};

inline std::shared_ptr<PlacementPolicy> SsdFirst() { return std::make_shared<SsdFirstPlacement>(); }

}  // namespace zonestack::zfs::testing_util
