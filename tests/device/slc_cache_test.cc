// The SLC cap table (ZnH2 Table 1) and the emulator's SLC/QLC device modes:
// DM Hybrid (slc=device: a hidden SLC cache the firmware migrates from)
// and pure QLC (slc=none).
#include <memory>

#include <gtest/gtest.h>

#include "device/clock.h"
#include "device/emulated_device.h"
#include "device/slc_cap.h"
#include "device/zoned_device.h"
#include "device_test_util.h"

namespace zonestack::device {
namespace {

using testing_util::Contains;
using testing_util::Pattern;

constexpr int kSlc = static_cast<int>(CellMode::kSlc);
constexpr int kQlc = static_cast<int>(CellMode::kQlc);

TEST(SlcCapTest, FollowsTheIntel660pTableByUsedCapacity) {
  const uint64_t total = 1000;
  EXPECT_EQ(SlcCapPercent(0, total), 56u);
  EXPECT_EQ(SlcCapPercent(199, total), 56u);
  EXPECT_EQ(SlcCapPercent(200, total), 50u);
  EXPECT_EQ(SlcCapPercent(399, total), 40u);
  EXPECT_EQ(SlcCapPercent(400, total), 30u);
  EXPECT_EQ(SlcCapPercent(500, total), 25u);
  EXPECT_EQ(SlcCapPercent(600, total), 20u);
  EXPECT_EQ(SlcCapPercent(699, total), 20u);
  EXPECT_EQ(SlcCapPercent(700, total), 10u);
  EXPECT_EQ(SlcCapPercent(1000, total), 10u);
  // SLC data in flash bytes against the cap of the used capacity's tenth.
  EXPECT_TRUE(SlcWithinCap(560, 190, total));
  EXPECT_FALSE(SlcWithinCap(561, 190, total));
  EXPECT_TRUE(SlcWithinCap(100, 700, total));
  EXPECT_FALSE(SlcWithinCap(101, 700, total));
}

std::unique_ptr<ZonedDevice> Open(const std::string& params) {
  // 4 MiB zones: four pages per die, one of each QLC page type.
  auto dev = OpenDevice("emu:znh2?zones=20&scale=1/256&timing=sim&" + params);
  EXPECT_TRUE(dev.ok()) << dev.status();
  return dev.ok() ? std::move(*dev) : nullptr;
}

// Fills `zone` in 64 KiB writes with a pattern seeded by the zone.
void FillZone(ZonedDevice& dev, uint32_t zone) {
  const uint64_t cap = dev.info().zone_capacity;
  for (uint64_t off = 0; off < cap; off += 64 << 10) {
    ASSERT_OK(dev.Write(dev.ZoneStart(zone) + off, Pattern(64 << 10, static_cast<uint8_t>(zone + off / 4096)),
                        {IoClass::kFlush}));
  }
}

TEST(DmHybridTest, HostSeesPlainQlcZones) {
  auto dev = Open("slc=device");
  ASSERT_NE(dev, nullptr);
  const DeviceInfo& info = dev->info();
  EXPECT_FALSE(info.supports_slc);
  EXPECT_EQ(info.default_cell_mode, CellMode::kQlc);
  EXPECT_EQ(info.max_open_qlc_zones, 0u);
  auto z = dev->ReportZone(3);
  ASSERT_OK(z.status());
  EXPECT_EQ(z->capacity, info.zone_capacity);
  EXPECT_EQ(z->cell_mode, CellMode::kQlc);
}

TEST(DmHybridTest, WritesLandInSlcUntilTheCapThenTheColdestZoneMigrates) {
  auto dev = Open("slc=device");
  ASSERT_NE(dev, nullptr);
  const uint64_t cap = dev->info().zone_capacity;  // C; the device holds 20 C
  // Zone 0 in SLC occupies 4 C of flash: 20 % used, under the 50 % cap.
  FillZone(*dev, 0);
  DeviceStats s = dev->Stats();
  EXPECT_EQ(s.programmed_bytes[kSlc], cap);
  EXPECT_EQ(s.programmed_bytes[kQlc], 0u);
  EXPECT_EQ(s.slc_zone_migrations, 0u);
  // Zone 1: 2 C of SLC would be 8 C of flash at 40 % used, over that
  // tenth's 30 % cap, so its last write first moves zone 0 to QLC.
  FillZone(*dev, 1);
  s = dev->Stats();
  EXPECT_EQ(s.slc_zone_migrations, 1u);
  EXPECT_EQ(s.programmed_bytes[kSlc], 2 * cap);
  EXPECT_EQ(s.programmed_bytes[kQlc], cap);
  EXPECT_EQ(s.migration_programmed_bytes[kQlc], cap);
  EXPECT_EQ(s.migration_programmed_bytes[kSlc], 0u);
  // The host's traffic is its own writes only.
  EXPECT_EQ(s.Total().write_bytes, 2 * cap);
  // Migrated data reads back unchanged, now from QLC pages of every type.
  std::vector<uint8_t> buf(64 << 10);
  ASSERT_OK(dev->Read(dev->ZoneStart(0), buf, {IoClass::kUserRead}));
  EXPECT_EQ(buf, Pattern(64 << 10, 0));
  for (uint64_t off = 0; off < cap; off += 64 << 10) {
    ASSERT_OK(dev->Read(dev->ZoneStart(0) + off, buf, {IoClass::kUserRead}));
  }
  s = dev->Stats();
  for (int t = 0; t < 4; ++t) EXPECT_GT(s.qlc_page_reads[t], 0u) << "page type " << t;
  // Zone 1 is still in SLC: reading it senses no QLC page.
  const auto qlc_before = s.qlc_page_reads;
  ASSERT_OK(dev->Read(dev->ZoneStart(1), buf, {IoClass::kUserRead}));
  EXPECT_EQ(dev->Stats().qlc_page_reads, qlc_before);
}

TEST(DmHybridTest, AResetZoneStartsInSlcAgain) {
  auto dev = Open("slc=device");
  ASSERT_NE(dev, nullptr);
  const uint64_t cap = dev->info().zone_capacity;
  FillZone(*dev, 0);
  FillZone(*dev, 1);  // zone 0 migrated
  ASSERT_OK(dev->ResetZone(0, {}));
  ASSERT_OK(dev->ResetZone(1, {}));
  FillZone(*dev, 0);
  const DeviceStats s = dev->Stats();
  EXPECT_EQ(s.programmed_bytes[kSlc], 3 * cap);
  EXPECT_EQ(s.slc_zone_migrations, 1u);
}

TEST(DmHybridTest, IdleFirmwareMigratesDownToItsTarget) {
  auto dev = Open("slc=device&slc_idle_ms=10&slc_idle_target=0");
  ASSERT_NE(dev, nullptr);
  auto* emu = dynamic_cast<EmulatedDevice*>(dev.get());
  ASSERT_NE(emu, nullptr);
  auto* clock = dynamic_cast<ManualClock*>(emu->clock());
  ASSERT_NE(clock, nullptr);
  const uint64_t cap = dev->info().zone_capacity;
  FillZone(*dev, 0);
  EXPECT_EQ(dev->Stats().slc_zone_migrations, 0u);
  // Busy: commands back to back leave the firmware no idle time.
  std::vector<uint8_t> buf(4096);
  ASSERT_OK(dev->Read(dev->ZoneStart(0), buf, {IoClass::kUserRead}));
  EXPECT_EQ(dev->Stats().slc_zone_migrations, 0u);
  // 20 ms without a command: the idle firmware empties the SLC cache.
  clock->Advance(20'000'000);
  ASSERT_OK(dev->Read(dev->ZoneStart(0), buf, {IoClass::kUserRead}));
  const DeviceStats s = dev->Stats();
  EXPECT_EQ(s.slc_zone_migrations, 1u);
  EXPECT_EQ(s.migration_programmed_bytes[kQlc], cap);
}

TEST(DmHybridTest, WithoutIdleMigrationTheCacheStaysUntilFull) {
  auto dev = Open("slc=device");
  ASSERT_NE(dev, nullptr);
  auto* emu = dynamic_cast<EmulatedDevice*>(dev.get());
  auto* clock = dynamic_cast<ManualClock*>(emu->clock());
  ASSERT_NE(clock, nullptr);
  FillZone(*dev, 0);
  clock->Advance(1'000'000'000);
  std::vector<uint8_t> buf(4096);
  ASSERT_OK(dev->Read(dev->ZoneStart(0), buf, {IoClass::kUserRead}));
  EXPECT_EQ(dev->Stats().slc_zone_migrations, 0u);
}

TEST(DmHybridTest, APowerCutGivesBackTheSlcRoomOfLostWrites) {
  auto dev = Open("slc=device");
  ASSERT_NE(dev, nullptr);
  auto* emu = dynamic_cast<EmulatedDevice*>(dev.get());
  const uint64_t cap = dev->info().zone_capacity;
  FillZone(*dev, 0);
  ASSERT_OK(dev->Flush({}));
  // Zone 1 written (not flushed) up to the write that would need a
  // migration, then lost: after the cut, zone 1 can be filled again with
  // the same single migration at its end.
  for (uint64_t off = 0; off + (64 << 10) < cap; off += 64 << 10) {
    ASSERT_OK(dev->Write(dev->ZoneStart(1) + off, Pattern(64 << 10, 1), {}));
  }
  emu->PowerCut();
  FillZone(*dev, 1);
  EXPECT_EQ(dev->Stats().slc_zone_migrations, 1u);
}

TEST(QlcOnlyTest, EveryWriteIsProgrammedInQlc) {
  auto dev = Open("slc=none");
  ASSERT_NE(dev, nullptr);
  EXPECT_FALSE(dev->info().supports_slc);
  const uint64_t cap = dev->info().zone_capacity;
  FillZone(*dev, 0);
  FillZone(*dev, 1);
  const DeviceStats s = dev->Stats();
  EXPECT_EQ(s.programmed_bytes[kQlc], 2 * cap);
  EXPECT_EQ(s.programmed_bytes[kSlc], 0u);
  EXPECT_EQ(s.slc_zone_migrations, 0u);
  // A QLC zone cannot be opened in SLC by the host.
  EXPECT_FALSE(dev->OpenZone(5, CellMode::kSlc, {}).ok());
}

TEST(SlcUriTest, RejectsModesAPresetCannotHaveAndStrayIdleOptions) {
  auto zn540 = OpenDevice("emu:zn540?zones=8&scale=1/1024&timing=none&slc=device");
  EXPECT_FALSE(zn540.ok());
  EXPECT_TRUE(Contains(zn540.status(), "slc= applies to presets with SLC/QLC zones"));
  auto bad = OpenDevice("emu:znh2?zones=8&scale=1/1024&timing=none&slc=both");
  EXPECT_TRUE(Contains(bad.status(), "must be host, device or none")) << bad.status();
  auto stray = OpenDevice("emu:znh2?zones=8&scale=1/1024&timing=none&slc_idle_ms=5");
  EXPECT_TRUE(Contains(stray.status(), "apply to slc=device only")) << stray.status();
  auto target = OpenDevice("emu:znh2?zones=8&scale=1/1024&timing=none&slc=device&slc_idle_target=101");
  EXPECT_FALSE(target.ok());
}

}  // namespace
}  // namespace zonestack::device
