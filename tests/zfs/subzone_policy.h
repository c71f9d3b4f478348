// A placement policy for the subzone tests: files whose name starts with
// "/sub" go to subzones, the rest to group 1 on any device.
#pragma once

#include <string>
#include <vector>

#include "zfs/placement.h"

namespace zonestack::zfs::testing_util {

class SubzonePolicy : public PlacementPolicy {
 public:
  std::string name() const override { return "subzone-test"; }
  PlacementDecision Place(const FileHint& f, const std::vector<DeviceView>& views) override {
    PlacementDecision d;
    for (uint32_t i = 0; i < views.size(); ++i) d.devices.push_back(i);
    d.group = 1;
    d.use_subzone = f.name.rfind("/sub", 0) == 0;
    return d;
  }
};

}  // namespace zonestack::zfs::testing_util
