// Volume::Probe: what each device carries before anything formats it
// (blank, a label naming its volume and member, other data, unreadable).
#include "zfs_test_util.h"

namespace zonestack::zfs {
namespace {

using testing_util::Devices;
using testing_util::OpenDev;
using testing_util::SmrUri;
using testing_util::ZnsUri;
using Kind = MemberProbe::Kind;

const device::IoContext kCtx;

TEST(ProbeTest, NewDevicesAreBlank) {
  const Devices devs = {OpenDev(ZnsUri(8)), OpenDev(SmrUri(16))};
  const VolumeProbe p = Volume::Probe(devs);
  ASSERT_EQ(p.members.size(), 2u);
  EXPECT_EQ(p.members[0].kind, Kind::kBlank);
  EXPECT_EQ(p.members[1].kind, Kind::kBlank);
  EXPECT_TRUE(p.AllBlank());
  EXPECT_EQ(p.DescribeNonBlank(), "");
}

TEST(ProbeTest, FormattedMembersCarryTheirVolumeAndIndex) {
  const Devices devs = {OpenDev(ZnsUri(8)), OpenDev(SmrUri(16))};
  ASSERT_OK(Volume::Format(devs));
  std::string id;
  {
    ASSERT_OK_AND_ASSIGN(auto vol, Volume::Mount(devs));
    id = vol->volume_id();
  }
  const VolumeProbe p = Volume::Probe(devs);
  EXPECT_FALSE(p.AllBlank());
  for (uint32_t i = 0; i < 2; ++i) {
    EXPECT_EQ(p.members[i].kind, Kind::kLabeled) << i;
    EXPECT_EQ(p.members[i].volume_id, id) << i;
    EXPECT_EQ(p.members[i].member_index, i);
    EXPECT_EQ(p.members[i].member_count, 2u);
  }
  EXPECT_NE(p.members[1].description.find("device 1 ("), std::string::npos)
      << p.members[1].description;
  EXPECT_NE(p.members[1].description.find("member 1 of 2"), std::string::npos)
      << p.members[1].description;
}

// The disk's label lies in a conventional zone, which has no write
// pointer: only reading it shows the label.
TEST(ProbeTest, LabelInAConventionalZoneIsFoundAlone) {
  const Devices devs = {OpenDev(ZnsUri(8)), OpenDev(SmrUri(16))};
  ASSERT_OK(Volume::Format(devs));
  const Devices disk_only = {devs[1]};
  const VolumeProbe p = Volume::Probe(disk_only);
  EXPECT_EQ(p.members[0].kind, Kind::kLabeled);
  EXPECT_EQ(p.members[0].member_index, 1u);
}

TEST(ProbeTest, WrittenSequentialZoneWithoutALabelHoldsData) {
  const Devices devs = {OpenDev(ZnsUri(8))};
  ASSERT_OK(devs[0]->Write(devs[0]->ZoneStart(5), std::vector<uint8_t>(4096, 1), kCtx));
  const VolumeProbe p = Volume::Probe(devs);
  EXPECT_EQ(p.members[0].kind, Kind::kHoldsData);
  EXPECT_NE(p.members[0].description.find("zone 5"), std::string::npos)
      << p.members[0].description;
}

TEST(ProbeTest, ForeignBytesInTheLabelZoneHoldData) {
  const Devices devs = {OpenDev(SmrUri(16))};
  ASSERT_OK(devs[0]->Write(0, std::vector<uint8_t>(4096, 0x5a), kCtx));
  const VolumeProbe p = Volume::Probe(devs);
  EXPECT_EQ(p.members[0].kind, Kind::kHoldsData);
}

TEST(ProbeTest, UnreadableDeviceIsReportedNotFatal) {
  const Devices devs = {OpenDev(ZnsUri(8))};
  testing_util::Emu(devs[0])->PowerOff();
  const VolumeProbe p = Volume::Probe(devs);
  EXPECT_EQ(p.members[0].kind, Kind::kUnreadable);
  EXPECT_FALSE(p.AllBlank());
  testing_util::Emu(devs[0])->PowerOn();
}

}  // namespace
}  // namespace zonestack::zfs
