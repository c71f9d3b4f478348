// Device URI query parameters: a value that does not fit, carries a sign
// or junk, or is empty must be an error naming the parameter, never a
// device other than the one asked for.
#include <string>

#include <gtest/gtest.h>

#include "device/zoned_device.h"
#include "device_test_util.h"

namespace zonestack::device {
namespace {

using testing_util::Contains;

constexpr char kBase[] = "emu:zn540?scale=1/256&timing=none";

// Expects `uri` to be refused with a message naming `param`.
void ExpectRefused(const std::string& uri, const std::string& param) {
  auto dev = OpenDevice(uri);
  ASSERT_FALSE(dev.ok()) << uri << " opened a device of " << (*dev)->info().num_zones
                         << " zones";
  EXPECT_EQ(dev.status().code(), absl::StatusCode::kInvalidArgument) << dev.status();
  EXPECT_TRUE(Contains(dev.status(), param)) << dev.status();
}

TEST(DeviceUriTest, ValidCountsOpenTheDeviceAskedFor) {
  auto dev = OpenDevice(std::string(kBase) + "&zones=8&max_open=4&max_active=6");
  ASSERT_TRUE(dev.ok()) << dev.status();
  EXPECT_EQ((*dev)->info().num_zones, 8u);
  EXPECT_EQ((*dev)->info().max_open_zones, 4u);
  EXPECT_EQ((*dev)->info().max_active_zones, 6u);
}

TEST(DeviceUriTest, ZonesBeyondTwoToThe32DoNotWrap) {
  // 2^32 + 8 once became 8 zones.
  ExpectRefused(std::string(kBase) + "&zones=4294967304", "zones");
}

TEST(DeviceUriTest, CountsThatDoNotFitAreRefused) {
  ExpectRefused(std::string(kBase) + "&zones=8&max_open=4294967297", "max_open");
  ExpectRefused(std::string(kBase) + "&zones=8&max_active=4294967297", "max_active");
  ExpectRefused(std::string(kBase) + "&zones=8&conv=4294967297", "conv");
  ExpectRefused(std::string(kBase) + "&zones=99999999999999999999", "zones");
}

TEST(DeviceUriTest, AbsurdZoneCountIsRefusedBeforeAllocating) {
  ExpectRefused(std::string(kBase) + "&zones=4000000000", "zones");
}

TEST(DeviceUriTest, SignsSpacesAndJunkAreRefused) {
  for (const char* v : {"-8", "+8", " 8", "8 ", "8x", "0x10", "1e3", ""}) {
    ExpectRefused(std::string(kBase) + "&zones=" + v, "zones");
  }
  ExpectRefused("emu:st14000nm0007?scale=1/2048&timing=none&write_cache=-1", "write_cache");
}

TEST(DeviceUriTest, EmptyFileIsAnErrorNotAnInMemoryDevice) {
  ExpectRefused(std::string(kBase) + "&zones=8&file=", "file");
}

TEST(DeviceUriTest, ParameterGivenTwiceIsRefused) {
  ExpectRefused(std::string(kBase) + "&zones=8&zones=16", "zones");
}

TEST(DeviceUriTest, SplitznsPresetSplitsScaledZonesIntoWholeUnitsPerChip) {
  // 512 MiB zones scaled by 1/100 would not split into 16 subzones of
  // whole 64 KiB units; the scale rounds to a multiple of 16 units.
  auto dev = OpenDevice("emu:splitzns?scale=1/100&timing=none");
  ASSERT_TRUE(dev.ok()) << dev.status();
  const DeviceInfo& info = (*dev)->info();
  EXPECT_TRUE(info.supports_subzones);
  EXPECT_EQ(info.subzones_per_zone, 16u);
  EXPECT_EQ(info.zone_size % (16 * 64 * 1024), 0u);
  EXPECT_EQ(info.subzone_size() * 16, info.zone_size);
  ASSERT_OK((*dev)->SplitZone(0, IoContext{}));
  EXPECT_TRUE((*dev)->ReportZone(0)->IsSplit());
  for (const char* ring : {"on", "off"}) {
    auto d = OpenDevice(std::string("emu:splitzns?scale=1/64&timing=none&ring=") + ring);
    EXPECT_TRUE(d.ok()) << ring << ": " << d.status();
  }
}

TEST(DeviceUriTest, SplitznsOptionsAreCheckedAndOnlyForSubzonePresets) {
  ExpectRefused("emu:splitzns?scale=1/64&ring=yes", "ring");
  ExpectRefused(std::string(kBase) + "&ring=on", "ring");
}

}  // namespace
}  // namespace zonestack::device
