// Device URI query parameters: a value that does not fit, carries a sign
// or junk, or is empty must be an error naming the parameter, never a
// device other than the one asked for.
#include <set>
#include <string>
#include <vector>

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

// SplitZNS 5.5.2: 8 to 64 chips with the zone size kept; a split zone has
// a subzone per chip, and every chip is a die of its own in the timing.
TEST(DeviceUriTest, ChipsSetTheSubzonesPerZoneAndTheDiesWithTheZoneSizeKept) {
  auto base = OpenDevice("emu:splitzns?scale=1/32&timing=sim");
  ASSERT_TRUE(base.ok()) << base.status();
  const uint64_t zone = (*base)->info().zone_size;
  for (uint32_t chips : {8u, 16u, 32u, 64u}) {
    SCOPED_TRACE(chips);
    auto dev = OpenDevice("emu:splitzns?scale=1/32&timing=sim&chips=" + std::to_string(chips));
    ASSERT_TRUE(dev.ok()) << dev.status();
    const DeviceInfo& info = (*dev)->info();
    EXPECT_EQ(info.zone_size, zone);
    EXPECT_EQ(info.subzones_per_zone, chips);
    EXPECT_EQ(info.subzone_size() * chips, zone);
    const DeviceStats stats = (*dev)->Stats();
    EXPECT_TRUE(stats.busy_ns.contains("die" + std::to_string(chips - 1)));
    EXPECT_FALSE(stats.busy_ns.contains("die" + std::to_string(chips)));
    // Subzones of one split zone take distinct chips.
    ASSERT_OK((*dev)->SplitZone(0, IoContext{}));
    const std::vector<uint8_t> unit(64 * 1024, 0xab);
    std::set<int32_t> taken;
    for (uint32_t sz = 0; sz < chips; ++sz) {
      ASSERT_OK((*dev)->AppendSubzone(0, sz, unit, IoContext{}).status());
      taken.insert((*dev)->ReportSubzones(0)->at(sz).chip);
    }
    EXPECT_EQ(taken.size(), chips);
    EXPECT_EQ(*taken.rbegin(), static_cast<int32_t>(chips - 1));
  }
}

TEST(DeviceUriTest, ChipsAreCheckedAndOnlyForSubzonePresets) {
  ExpectRefused("emu:splitzns?scale=1/32&chips=12", "chips");  // not a multiple of 8 channels
  ExpectRefused("emu:splitzns?scale=1/32&chips=0", "chips");
  ExpectRefused("emu:splitzns?scale=1/32&chips=x", "chips");
  ExpectRefused(std::string(kBase) + "&chips=16", "chips");
  // 1/512 leaves 1 MiB zones: 64 chips need 64 units of 64 KiB, 4 MiB.
  ExpectRefused("emu:splitzns?scale=1/512&chips=64", "chips");
}

}  // namespace
}  // namespace zonestack::device
