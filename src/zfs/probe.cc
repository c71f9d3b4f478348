// Volume::Probe: what devices carry before anything formats them, so that
// format "if-needed" never erases a member of an existing volume.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "zfs/format.h"
#include "zfs/volume_impl.h"

namespace zonestack::zfs {
namespace {

MemberProbe Unreadable(const std::string& name, const absl::Status& s) {
  return {.kind = MemberProbe::Kind::kUnreadable,
          .description = absl::StrCat(name, " cannot be read: ", s.message())};
}

MemberProbe ProbeMember(device::ZonedDevice& dev, size_t i) {
  const std::string name = DeviceName(dev, i);
  const uint32_t label_zone = LabelZone(dev.info());
  auto zones = dev.ReportZones(0, dev.info().num_zones);
  if (!zones.ok()) return Unreadable(name, zones.status());
  const device::ZoneInfo& lz = (*zones)[label_zone];
  const bool label_zone_written =
      lz.type == device::ZoneType::kConventional || lz.write_pointer > lz.start;
  if (label_zone_written) {
    std::vector<uint8_t> block(dev.info().block_size);
    if (auto s = dev.Read(lz.start, block, device::IoContext{device::IoClass::kMetadata});
        !s.ok()) {
      return Unreadable(name, s);
    }
    if (auto label = DecodeLabel(block); label.ok()) {
      MemberProbe p{.kind = MemberProbe::Kind::kLabeled,
                    .volume_id = FormatVolumeId(label->volume_id),
                    .member_index = label->member_index,
                    .member_count = static_cast<uint32_t>(label->members.size())};
      p.description = absl::StrCat(name, " carries the label of volume ", p.volume_id,
                                   ", member ", p.member_index, " of ", p.member_count);
      return p;
    }
    // A conventional zone reads zeroes where nothing was written.
    if (std::any_of(block.begin(), block.end(), [](uint8_t b) { return b != 0; })) {
      return {.kind = MemberProbe::Kind::kHoldsData,
              .description = absl::StrCat(name, " holds data in zone ", label_zone,
                                          " that is not a ZoneStack label")};
    }
  }
  for (const device::ZoneInfo& z : *zones) {
    if (z.type != device::ZoneType::kConventional && z.state != device::ZoneState::kEmpty) {
      return {.kind = MemberProbe::Kind::kHoldsData,
              .description = absl::StrCat(name, " has no ZoneStack label but zone ", z.index,
                                          " is not empty (", device::ToString(z.state), ")")};
    }
  }
  return {.kind = MemberProbe::Kind::kBlank, .description = absl::StrCat(name, " is blank")};
}

}  // namespace

bool VolumeProbe::AllBlank() const {
  return std::all_of(members.begin(), members.end(), [](const MemberProbe& m) {
    return m.kind == MemberProbe::Kind::kBlank;
  });
}

std::string VolumeProbe::DescribeNonBlank() const {
  std::vector<std::string> parts;
  for (const MemberProbe& m : members) {
    if (m.kind != MemberProbe::Kind::kBlank) parts.push_back(m.description);
  }
  return absl::StrJoin(parts, "; ");
}

VolumeProbe Volume::Probe(const std::vector<std::shared_ptr<device::ZonedDevice>>& devices) {
  VolumeProbe probe;
  for (size_t i = 0; i < devices.size(); ++i) {
    probe.members.push_back(ProbeMember(*devices[i], i));
  }
  return probe;
}

}  // namespace zonestack::zfs
