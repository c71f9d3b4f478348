// Format and mount given bad input: unformatted devices, another volume's
// device, members out of order or missing, a device whose geometry is not
// the recorded one, a corrupt label, too small a device.
#include <gtest/gtest.h>

#include "zfs_test_util.h"

namespace zonestack::zfs {
namespace {

using namespace testing_util;

bool Mentions(const absl::Status& s, const std::string& text) {
  return std::string(s.message()).find(text) != std::string::npos;
}

std::string VolumeIdOf(const Devices& devs) {
  auto vol = Volume::Mount(devs);
  EXPECT_TRUE(vol.ok()) << vol.status();
  return vol.ok() ? (*vol)->volume_id() : "";
}

TEST(MountTest, UnformattedZnsDeviceIsNotFound) {
  const absl::Status s = Volume::Mount({OpenDev(ZnsUri(16))}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_TRUE(Mentions(s, "not formatted")) << s;
  EXPECT_TRUE(Mentions(s, "device 0 (zn540)")) << s;
}

TEST(MountTest, UnformattedSmrDeviceIsNotFound) {
  // Its label zone is conventional: it reads as zeroes, not as empty.
  const absl::Status s = Volume::Mount({OpenDev(SmrUri(64))}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_TRUE(Mentions(s, "not formatted")) << s;
}

TEST(MountTest, DeviceOfAnotherVolumeIsRefusedNamingBothVolumes) {
  Devices a = {OpenDev(ZnsUri(16))}, b = {OpenDev(ZnsUri(16))};
  ASSERT_OK(Volume::Format(a));
  ASSERT_OK(Volume::Format(b));
  const std::string id_a = VolumeIdOf(a), id_b = VolumeIdOf(b);
  ASSERT_NE(id_a, id_b);
  const absl::Status s = Volume::Mount({a[0], b[0]}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_TRUE(Mentions(s, id_a)) << s;
  EXPECT_TRUE(Mentions(s, id_b)) << s;
  EXPECT_TRUE(Mentions(s, "device 1")) << s;
}

TEST(MountTest, DevicesInTheWrongOrderAreRefused) {
  Devices devs = {OpenDev(ZnsUri(16)), OpenDev(SmrUri(64))};
  ASSERT_OK(Volume::Format(devs));
  const absl::Status s = Volume::Mount({devs[1], devs[0]}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_TRUE(Mentions(s, "order")) << s;
  EXPECT_OK(Volume::Mount(devs));
}

TEST(MountTest, MissingMemberIsRefused) {
  Devices devs = {OpenDev(ZnsUri(16)), OpenDev(SmrUri(64))};
  ASSERT_OK(Volume::Format(devs));
  const absl::Status first_only = Volume::Mount({devs[0]}).status();
  EXPECT_EQ(first_only.code(), absl::StatusCode::kFailedPrecondition) << first_only;
  EXPECT_TRUE(Mentions(first_only, "missing")) << first_only;
  EXPECT_TRUE(Mentions(first_only, "2 member devices")) << first_only;
  const absl::Status second_only = Volume::Mount({devs[1]}).status();
  EXPECT_EQ(second_only.code(), absl::StatusCode::kFailedPrecondition) << second_only;
}

TEST(MountTest, DeviceWithOtherGeometryIsRefused) {
  // The label of a 16-zone device copied onto a 20-zone one.
  Devices small = {OpenDev(ZnsUri(16))};
  ASSERT_OK(Volume::Format(small));
  std::vector<uint8_t> label(4096);
  ASSERT_OK(small[0]->Read(0, label, {}));
  Devices big = {OpenDev(ZnsUri(20))};
  ASSERT_OK(big[0]->Write(0, label, {}));
  const absl::Status s = Volume::Mount(big).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_TRUE(Mentions(s, "20 zones")) << s;
  EXPECT_TRUE(Mentions(s, "16 zones")) << s;
}

TEST(MountTest, CorruptLabelIsDataLossNamingTheDevice) {
  // The disk's label is in a conventional zone, which can be overwritten.
  Devices devs = {OpenDev(SmrUri(64))};
  ASSERT_OK(Volume::Format(devs));
  std::vector<uint8_t> label(4096);
  ASSERT_OK(devs[0]->Read(0, label, {}));
  label[40] ^= 0xff;
  ASSERT_OK(devs[0]->Write(0, label, {}));
  const absl::Status s = Volume::Mount(devs).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_TRUE(Mentions(s, "device 0 (st14000nm0007)")) << s;
}

TEST(MountTest, FormatRefusesBadArguments) {
  EXPECT_EQ(Volume::Format({}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Volume::Format({OpenDev(ZnsUri(16))}, {.metadata_zones = 1}).code(),
            absl::StatusCode::kInvalidArgument);
  const absl::Status tiny = Volume::Format({OpenDev(ZnsUri(4))});
  EXPECT_EQ(tiny.code(), absl::StatusCode::kInvalidArgument) << tiny;
  EXPECT_TRUE(Mentions(tiny, "too few")) << tiny;
  EXPECT_EQ(Volume::Mount({}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(MountTest, FormatErasesAnExistingVolume) {
  Devices devs = {OpenDev(ZnsUri(16))};
  ASSERT_OK(Volume::Format(devs));
  const std::string old_id = VolumeIdOf(devs);
  {
    ASSERT_OK_AND_ASSIGN(auto vol, Volume::Mount(devs));
    ASSERT_OK(WriteFile(*vol, "/f", Pattern(1, 100000)));
  }
  ASSERT_OK(Volume::Format(devs));
  ASSERT_OK_AND_ASSIGN(auto vol, Volume::Mount(devs));
  EXPECT_NE(vol->volume_id(), old_id);
  EXPECT_TRUE(vol->Files().empty());
  EXPECT_EQ(vol->Space()[0].written_bytes, 0u);
  ExpectConsistent(*vol);
}

}  // namespace
}  // namespace zonestack::zfs
