// The ST8000AS0022 preset (ZoneTier Table 1), its URI parameters, the
// checks on a media cache's configuration, and the device-managed SMR mode
// (docs/emulator.md, "Host-aware SMR").
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "device/presets.h"
#include "ha_smr_util.h"

namespace zonestack::device {
namespace {

using namespace ha_smr;  // NOLINT: the tests' vocabulary
using testing_util::Contains;
using testing_util::Pattern;

TEST(MediaCachePresetTest, St8000as0022HasTheGeometryOfZoneTierTable1) {
  std::optional<Preset> p = FindPreset("st8000as0022");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->info.zone_size, 256u << 20);
  EXPECT_EQ(p->info.num_zones, 64u + 29745u);
  EXPECT_EQ(p->media_cache_bytes, 25'600'000'000u);
  EXPECT_TRUE(p->is_disk);
  // Opened at full size (instant, nothing written): 64 CMR zones first.
  auto dev = OpenDevice("emu:st8000as0022?timing=none");
  ASSERT_TRUE(dev.ok()) << dev.status();
  const DeviceInfo& info = (*dev)->info();
  EXPECT_TRUE(info.host_aware());
  EXPECT_EQ(info.num_conventional_zones, 64u);
  EXPECT_EQ((*dev)->ReportZone(63)->type, ZoneType::kConventional);
  EXPECT_EQ((*dev)->ReportZone(64)->type, ZoneType::kSequentialWritePreferred);
  EXPECT_EQ(dynamic_cast<EmulatedDevice&>(**dev).media_cache_bytes(), 25'600'000'000u);
}

TEST(MediaCachePresetTest, TheMediaCacheScalesWithTheZones) {
  HaDevice d = OpenHa("", "none");
  ASSERT_NE(d.emu, nullptr);
  EXPECT_EQ(d.dev->info().zone_size, kZone);
  // 25.6 GB / 2048, down to whole blocks.
  EXPECT_EQ(d.emu->media_cache_bytes(), 25'600'000'000u / 2048 / kBlock * kBlock);
  HaDevice given = OpenHa("mc=65536", "none");
  ASSERT_NE(given.emu, nullptr);
  EXPECT_EQ(given.emu->media_cache_bytes(), 65536u);
}

TEST(MediaCachePresetTest, BadParametersAreErrorsNamingThem) {
  const std::map<std::string, std::string> bad = {
      {"emu:zn540?mc=65536", "media cache"},
      {"emu:st14000nm0007?smr=dm", "media cache"},
      {"emu:st8000as0022?smr=hm", "smr='hm'"},
      {"emu:st8000as0022?mc=1000", "block size"},
      {"emu:st8000as0022?mc=0", "block size"},
      {"emu:st8000as0022?mc_high=101", "mc_high"},
      {"emu:st8000as0022?mc_high=50&mc_low=50", "high water"},
      {"emu:st8000as0022?write_cache=65536", "media cache"},
      {"emu:st8000as0022?zones=8&scale=1/2048&file=/tmp/zs-mc-test-never-made.img",
       "records no media cache"},
  };
  for (const auto& [uri, needle] : bad) {
    auto dev = OpenDevice(uri);
    ASSERT_FALSE(dev.ok()) << uri;
    EXPECT_EQ(dev.status().code(), absl::StatusCode::kInvalidArgument) << uri;
    EXPECT_TRUE(Contains(dev.status(), needle)) << uri << ": " << dev.status();
  }
  std::remove("/tmp/zs-mc-test-never-made.img");
}

TEST(MediaCachePresetTest, EmulatorRefusesAMediaCacheWithoutHostAwareZonesAndViceVersa) {
  EmulatorOptions zns;
  zns.info.name = "zns";
  zns.info.zone_size = zns.info.zone_capacity = 65536;
  zns.info.num_zones = 4;
  zns.media_cache.bytes = 65536;
  EXPECT_FALSE(EmulatedDevice::Create(std::move(zns)).ok());
  EmulatorOptions ha;
  ha.info.name = "ha";
  ha.info.zone_size = ha.info.zone_capacity = 65536;
  ha.info.num_zones = 4;
  ha.info.sequential_zone_type = ZoneType::kSequentialWritePreferred;
  auto dev = EmulatedDevice::Create(std::move(ha));
  ASSERT_FALSE(dev.ok());
  EXPECT_TRUE(Contains(dev.status(), "needs a media cache")) << dev.status();
}

// --- Device-managed SMR -----------------------------------------------------------

TEST(DeviceManagedSmrTest, HostSeesConventionalZonesOnly) {
  HaDevice d = OpenHa("smr=dm", "none");
  ASSERT_NE(d.emu, nullptr);
  const DeviceInfo& info = d.dev->info();
  EXPECT_FALSE(info.host_aware());
  EXPECT_EQ(info.num_conventional_zones, info.num_zones);
  EXPECT_NE(info.model.find("device-managed"), std::string::npos) << info.model;
  auto zones = d.dev->ReportZones(0, info.num_zones);
  ASSERT_OK(zones.status());
  for (const ZoneInfo& z : *zones) {
    EXPECT_EQ(z.type, ZoneType::kConventional) << "zone " << z.index;
    EXPECT_EQ(z.state, ZoneState::kNotWritePointer) << "zone " << z.index;
  }
  EXPECT_ZONE_ERROR(d.dev->OpenZone(3, kCtx), ZoneError::kInvalidArgument);
  EXPECT_ZONE_ERROR(d.dev->CloseZone(3, kCtx), ZoneError::kInvalidArgument);
  EXPECT_ZONE_ERROR(d.dev->FinishZone(3, kCtx), ZoneError::kInvalidArgument);
  EXPECT_ZONE_ERROR(d.dev->ResetZone(3, kCtx), ZoneError::kInvalidArgument);
}

TEST(DeviceManagedSmrTest, TakesRandomWritesAnywhereAndReadsTheNewest) {
  HaDevice d = OpenHa("smr=dm&mc=65536", "none");  // 16 blocks: cleaning runs often
  ASSERT_NE(d.emu, nullptr);
  const uint64_t blocks = d.dev->info().capacity_bytes() / kBlock;
  std::mt19937 rng(31);
  std::map<uint64_t, uint8_t> want;
  for (uint32_t i = 0; i < 600; ++i) {
    const uint64_t off = (rng() % blocks) * kBlock;
    ASSERT_OK(d.WriteAt(off, kBlock, static_cast<uint8_t>(i)));
    want[off] = static_cast<uint8_t>(i);
  }
  const DeviceStats s = d.dev->Stats();
  EXPECT_GT(s.nsw_writes, 500u);
  EXPECT_GT(s.media_cache_cleaned_zones, 0u);
  for (const auto& [off, seed] : want) {
    EXPECT_EQ(d.ReadBytes(off, kBlock), Pattern(kBlock, seed)) << "at " << off;
  }
  ASSERT_OK(d.dev->Flush(kCtx));
  d.emu->PowerCut();
  for (const auto& [off, seed] : want) {
    EXPECT_EQ(d.ReadBytes(off, kBlock), Pattern(kBlock, seed)) << "after the cut, at " << off;
  }
}

}  // namespace
}  // namespace zonestack::device
