#include "device/zoned_device.h"

#include "absl/strings/str_cat.h"
#include "device/zone_error.h"

namespace zonestack::device {

absl::StatusOr<ZoneInfo> ZonedDevice::ReportZone(uint32_t zone) const {
  if (zone >= info().num_zones) {
    return MakeZoneError(ZoneError::kOutOfRange,
                         absl::StrCat("zone ", zone, " of ", info().num_zones));
  }
  auto zones = ReportZones(zone, 1);
  if (!zones.ok()) return zones.status();
  return zones->front();
}

absl::StatusOr<uint64_t> ZonedDevice::SimpleCopy(std::span<const CopyRange>,
                                                 uint32_t, const IoContext&) {
  return MakeZoneError(ZoneError::kUnsupported,
                       absl::StrCat(info().name, " has no Simple Copy"));
}

namespace {

absl::Status NoSubzones(const DeviceInfo& info) {
  return MakeZoneError(ZoneError::kUnsupported, absl::StrCat(info.name, " has no subzones"));
}

}  // namespace

absl::Status ZonedDevice::SplitZone(uint32_t, const IoContext&) { return NoSubzones(info()); }

absl::Status ZonedDevice::MergeZone(uint32_t, const IoContext&) { return NoSubzones(info()); }

absl::StatusOr<std::vector<SubzoneInfo>> ZonedDevice::ReportSubzones(uint32_t) const {
  return NoSubzones(info());
}

absl::StatusOr<uint64_t> ZonedDevice::AppendSubzone(uint32_t, uint32_t, std::span<const uint8_t>,
                                                    const IoContext&) {
  return NoSubzones(info());
}

absl::Status ZonedDevice::FinishSubzone(uint32_t, uint32_t, const IoContext&) {
  return NoSubzones(info());
}

absl::Status ZonedDevice::ResetSubzone(uint32_t, uint32_t, const IoContext&) {
  return NoSubzones(info());
}

}  // namespace zonestack::device
