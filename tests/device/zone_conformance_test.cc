// Zone state machine conformance: every transition and every error of the
// NVMe ZNS command set and ZBC (docs: shared/research/emulators.md sections
// 3 and 4), checked through the ZonedDevice interface only, so the suite can
// later run against a real zoned block device. Only fault injection (read
// only, offline) reaches past the interface into the emulator.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "device/emulated_device.h"
#include "device/zone.h"
#include "device/zone_error.h"
#include "device/zoned_device.h"
#include "device_test_util.h"

namespace zonestack::device {
namespace {

using testing_util::Pattern;

constexpr uint64_t KiB = 1024;
constexpr uint64_t kBlock = 4096;
const IoContext kCtx;

// A ZNS SSD with zones smaller than their size (ZCAP < ZSZE).
DeviceInfo ZnsInfo() {
  DeviceInfo i;
  i.name = "conformance-zns";
  i.model = "test ZNS SSD";
  i.protocol = Protocol::kZns;
  i.block_size = kBlock;
  i.zone_size = 64 * KiB;
  i.zone_capacity = 48 * KiB;
  i.num_zones = 16;
  i.max_open_zones = 3;
  i.max_active_zones = 4;
  i.max_append_bytes = 16 * KiB;
  i.native_cell_mode = i.default_cell_mode = CellMode::kTlc;
  i.reads_beyond_wp_allowed = true;
  i.cross_zone_reads_allowed = false;
  return i;
}

// A host-managed SMR disk: conventional zones first, URSWRZ = 0.
DeviceInfo ZbcInfo() {
  DeviceInfo i;
  i.name = "conformance-zbc";
  i.model = "test HM-SMR disk";
  i.protocol = Protocol::kZbc;
  i.block_size = kBlock;
  i.zone_size = 64 * KiB;
  i.zone_capacity = 64 * KiB;
  i.num_zones = 16;
  i.num_conventional_zones = 2;
  i.max_open_zones = 3;
  i.max_active_zones = 4;
  i.max_append_bytes = 16 * KiB;
  i.reads_beyond_wp_allowed = false;
  i.cross_zone_reads_allowed = true;
  return i;
}

// An HZNS SSD like the znh2 preset: native QLC, SLC by default, Simple Copy.
DeviceInfo HznsInfo() {
  DeviceInfo i = ZnsInfo();
  i.name = "conformance-hzns";
  i.model = "test HZNS SSD";
  i.zone_capacity = 64 * KiB;  // QLC; an SLC zone holds 16 KiB
  i.native_cell_mode = CellMode::kQlc;
  i.default_cell_mode = CellMode::kSlc;
  i.supports_slc = true;
  i.max_open_qlc_zones = 1;
  i.max_active_qlc_zones = 1;
  i.supports_simple_copy = true;
  return i;
}

// Builds the device under test and wraps the zone arithmetic the tests
// share. Everything goes through ZonedDevice except fault injection.
class DeviceHarness {
 protected:
  void Open(const DeviceInfo& info) {
    EmulatorOptions opts;
    opts.info = info;  // timing stays null: instant
    auto dev = EmulatedDevice::Create(std::move(opts));
    ASSERT_TRUE(dev.ok()) << dev.status();
    emulator_ = dev->get();
    device_ = std::move(*dev);
  }

  ZonedDevice& dev() { return *device_; }
  // Media failures only a device can declare.
  EmulatedDevice& emulator() { return *emulator_; }

  // The i-th zone with a write pointer.
  uint32_t Seq(uint32_t i) { return dev().info().num_conventional_zones + i; }
  uint64_t Start(uint32_t zone) { return dev().ZoneStart(zone); }

  ZoneInfo Report(uint32_t zone) {
    auto z = dev().ReportZone(zone);
    EXPECT_TRUE(z.ok()) << z.status();
    return z.ok() ? *z : ZoneInfo{};
  }
  ZoneState State(uint32_t zone) { return Report(zone).state; }
  // Bytes written, as the write pointer says.
  uint64_t Written(uint32_t zone) { return Report(zone).write_pointer - Start(zone); }
  uint64_t Capacity(uint32_t zone) { return Report(zone).capacity; }

  absl::Status WriteAt(uint64_t offset, uint64_t len, uint8_t seed = 1) {
    const std::vector<uint8_t> data = Pattern(len, seed);
    return dev().Write(offset, data, kCtx);
  }
  absl::Status TryRead(uint64_t offset, uint64_t len) {
    std::vector<uint8_t> buf(len);
    return dev().Read(offset, buf, kCtx);
  }
  std::vector<uint8_t> ReadBytes(uint64_t offset, uint64_t len) {
    std::vector<uint8_t> buf(len);
    const absl::Status s = dev().Read(offset, buf, kCtx);
    EXPECT_TRUE(s.ok()) << s;
    return buf;
  }

  int CountZones(bool (ZoneInfo::*pred)() const) {
    auto zones = dev().ReportZones(0, dev().info().num_zones);
    EXPECT_TRUE(zones.ok()) << zones.status();
    int n = 0;
    if (zones.ok()) {
      for (const ZoneInfo& z : *zones) n += (z.*pred)() ? 1 : 0;
    }
    return n;
  }
  int OpenCount() { return CountZones(&ZoneInfo::IsOpen); }
  int ActiveCount() { return CountZones(&ZoneInfo::IsActive); }

 private:
  std::unique_ptr<ZonedDevice> device_;
  EmulatedDevice* emulator_ = nullptr;
};

// Behaviors ZNS and ZBC share, run on both.
class ZoneConformanceTest : public testing::TestWithParam<Protocol>,
                            protected DeviceHarness {
 protected:
  void SetUp() override {
    Open(GetParam() == Protocol::kZns ? ZnsInfo() : ZbcInfo());
  }
};

class ZnsZoneTest : public testing::Test, protected DeviceHarness {
 protected:
  void SetUp() override { Open(ZnsInfo()); }
};

class ZbcZoneTest : public testing::Test, protected DeviceHarness {
 protected:
  void SetUp() override { Open(ZbcInfo()); }
};

class HznsZoneTest : public testing::Test, protected DeviceHarness {
 protected:
  void SetUp() override { Open(HznsInfo()); }
};

INSTANTIATE_TEST_SUITE_P(Protocols, ZoneConformanceTest,
                         testing::Values(Protocol::kZns, Protocol::kZbc),
                         [](const testing::TestParamInfo<Protocol>& p) {
                           return p.param == Protocol::kZns ? "Zns" : "Zbc";
                         });

// --- Initial state and data -------------------------------------------------

TEST_P(ZoneConformanceTest, NewDeviceReportsEveryWritePointerZoneEmpty) {
  const DeviceInfo& info = dev().info();
  auto zones = dev().ReportZones(0, info.num_zones);
  ASSERT_TRUE(zones.ok()) << zones.status();
  ASSERT_EQ(zones->size(), info.num_zones);
  for (const ZoneInfo& z : *zones) {
    EXPECT_EQ(z.start, Start(z.index));
    EXPECT_EQ(z.size, info.zone_size);
    if (z.index < info.num_conventional_zones) {
      EXPECT_EQ(z.type, ZoneType::kConventional) << "zone " << z.index;
      EXPECT_EQ(z.state, ZoneState::kNotWritePointer) << "zone " << z.index;
    } else {
      EXPECT_EQ(z.type, ZoneType::kSequentialWriteRequired) << "zone " << z.index;
      EXPECT_EQ(z.state, ZoneState::kEmpty) << "zone " << z.index;
      EXPECT_EQ(z.write_pointer, z.start) << "zone " << z.index;
      EXPECT_EQ(z.capacity, info.zone_capacity) << "zone " << z.index;
    }
  }
}

TEST_P(ZoneConformanceTest, WrittenDataReadsBack) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), 8 * KiB, 5));
  ASSERT_OK(WriteAt(Start(z) + 8 * KiB, 4 * KiB, 6));
  EXPECT_EQ(ReadBytes(Start(z), 8 * KiB), Pattern(8 * KiB, 5));
  EXPECT_EQ(ReadBytes(Start(z) + 8 * KiB, 4 * KiB), Pattern(4 * KiB, 6));
}

// --- Transitions ------------------------------------------------------------

TEST_P(ZoneConformanceTest, WriteToEmptyZoneOpensItImplicitly) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock));
  EXPECT_EQ(State(z), ZoneState::kImplicitlyOpened);
  EXPECT_EQ(Written(z), kBlock);
  EXPECT_EQ(OpenCount(), 1);
  EXPECT_EQ(ActiveCount(), 1);
}

TEST_P(ZoneConformanceTest, OpenOfEmptyZoneOpensItExplicitly) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().OpenZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kExplicitlyOpened);
  EXPECT_EQ(Written(z), 0u);
  EXPECT_EQ(ActiveCount(), 1);
}

TEST_P(ZoneConformanceTest, OpenOfImplicitlyOpenedZoneMakesItExplicit) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock));
  ASSERT_OK(dev().OpenZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kExplicitlyOpened);
  EXPECT_EQ(Written(z), kBlock);
  EXPECT_EQ(OpenCount(), 1);
}

TEST_P(ZoneConformanceTest, OpenOfExplicitlyOpenedZoneKeepsIt) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().OpenZone(z, kCtx));
  EXPECT_OK(dev().OpenZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kExplicitlyOpened);
  EXPECT_EQ(OpenCount(), 1);
}

TEST_P(ZoneConformanceTest, CloseOfImplicitlyOpenedZoneClosesIt) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock));
  ASSERT_OK(dev().CloseZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kClosed);
  EXPECT_EQ(Written(z), kBlock);
  EXPECT_EQ(OpenCount(), 0);
  EXPECT_EQ(ActiveCount(), 1);
}

TEST_P(ZoneConformanceTest, CloseOfExplicitlyOpenedZoneWithDataClosesIt) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().OpenZone(z, kCtx));
  ASSERT_OK(WriteAt(Start(z), kBlock));
  ASSERT_OK(dev().CloseZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kClosed);
  EXPECT_EQ(Written(z), kBlock);
  EXPECT_EQ(OpenCount(), 0);
  EXPECT_EQ(ActiveCount(), 1);
}

TEST_P(ZoneConformanceTest, CloseOfClosedZoneKeepsIt) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock));
  ASSERT_OK(dev().CloseZone(z, kCtx));
  EXPECT_OK(dev().CloseZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kClosed);
  EXPECT_EQ(ActiveCount(), 1);
}

TEST_P(ZoneConformanceTest, WriteToClosedZoneReopensItImplicitlyAtTheWritePointer) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock, 1));
  ASSERT_OK(dev().CloseZone(z, kCtx));
  ASSERT_OK(WriteAt(Start(z) + kBlock, kBlock, 2));
  EXPECT_EQ(State(z), ZoneState::kImplicitlyOpened);
  EXPECT_EQ(Written(z), 2 * kBlock);
  EXPECT_EQ(ReadBytes(Start(z), kBlock), Pattern(kBlock, 1));
  EXPECT_EQ(ReadBytes(Start(z) + kBlock, kBlock), Pattern(kBlock, 2));
}

TEST_P(ZoneConformanceTest, OpenOfClosedZoneOpensItExplicitly) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock));
  ASSERT_OK(dev().CloseZone(z, kCtx));
  ASSERT_OK(dev().OpenZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kExplicitlyOpened);
  EXPECT_EQ(Written(z), kBlock);
  EXPECT_EQ(OpenCount(), 1);
  EXPECT_EQ(ActiveCount(), 1);
}

TEST_P(ZoneConformanceTest, FinishOfEmptyZoneMakesItFull) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().FinishZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kFull);
  EXPECT_EQ(Written(z), Capacity(z));
  EXPECT_EQ(ActiveCount(), 0);
}

TEST_P(ZoneConformanceTest, FinishOfImplicitlyOpenedZoneMakesItFull) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock, 3));
  ASSERT_OK(dev().FinishZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kFull);
  EXPECT_EQ(Written(z), Capacity(z));
  EXPECT_EQ(ReadBytes(Start(z), kBlock), Pattern(kBlock, 3));
  EXPECT_EQ(OpenCount(), 0);
  EXPECT_EQ(ActiveCount(), 0);
}

TEST_P(ZoneConformanceTest, FinishOfExplicitlyOpenedZoneMakesItFull) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().OpenZone(z, kCtx));
  ASSERT_OK(dev().FinishZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kFull);
  EXPECT_EQ(Written(z), Capacity(z));
  EXPECT_EQ(ActiveCount(), 0);
}

TEST_P(ZoneConformanceTest, FinishOfClosedZoneMakesItFull) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock));
  ASSERT_OK(dev().CloseZone(z, kCtx));
  ASSERT_OK(dev().FinishZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kFull);
  EXPECT_EQ(Written(z), Capacity(z));
  EXPECT_EQ(ActiveCount(), 0);
}

TEST_P(ZoneConformanceTest, FinishOfFullZoneKeepsIt) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().FinishZone(z, kCtx));
  EXPECT_OK(dev().FinishZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kFull);
}

TEST_P(ZoneConformanceTest, WriteReachingCapacityMakesZoneFull) {
  const uint32_t z = Seq(0);
  const uint64_t cap = Capacity(z);
  ASSERT_OK(WriteAt(Start(z), cap - kBlock, 1));
  EXPECT_EQ(State(z), ZoneState::kImplicitlyOpened);
  ASSERT_OK(WriteAt(Start(z) + cap - kBlock, kBlock, 2));
  EXPECT_EQ(State(z), ZoneState::kFull);
  EXPECT_EQ(Written(z), cap);
  EXPECT_EQ(OpenCount(), 0);
  EXPECT_EQ(ActiveCount(), 0);
  EXPECT_EQ(ReadBytes(Start(z) + cap - kBlock, kBlock), Pattern(kBlock, 2));
}

TEST_P(ZoneConformanceTest, ResetOfEmptyZoneLeavesItEmpty) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().ResetZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kEmpty);
  EXPECT_EQ(Written(z), 0u);
}

TEST_P(ZoneConformanceTest, ResetOfImplicitlyOpenedZoneEmptiesIt) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock));
  ASSERT_OK(dev().ResetZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kEmpty);
  EXPECT_EQ(Written(z), 0u);
  EXPECT_EQ(ActiveCount(), 0);
}

TEST_P(ZoneConformanceTest, ResetOfExplicitlyOpenedZoneEmptiesIt) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().OpenZone(z, kCtx));
  ASSERT_OK(WriteAt(Start(z), kBlock));
  ASSERT_OK(dev().ResetZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kEmpty);
  EXPECT_EQ(Written(z), 0u);
  EXPECT_EQ(ActiveCount(), 0);
}

TEST_P(ZoneConformanceTest, ResetOfClosedZoneEmptiesIt) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock));
  ASSERT_OK(dev().CloseZone(z, kCtx));
  ASSERT_OK(dev().ResetZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kEmpty);
  EXPECT_EQ(Written(z), 0u);
  EXPECT_EQ(ActiveCount(), 0);
}

TEST_P(ZoneConformanceTest, ResetOfFullZoneEmptiesIt) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), Capacity(z), 1));
  ASSERT_EQ(State(z), ZoneState::kFull);
  ASSERT_OK(dev().ResetZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kEmpty);
  EXPECT_EQ(Written(z), 0u);
}

TEST_P(ZoneConformanceTest, ResetZoneIsWritableFromItsStartWithNewData) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), 2 * kBlock, 1));
  ASSERT_OK(dev().ResetZone(z, kCtx));
  ASSERT_OK(WriteAt(Start(z), kBlock, 2));
  EXPECT_EQ(ReadBytes(Start(z), kBlock), Pattern(kBlock, 2));
  EXPECT_EQ(Written(z), kBlock);
}

// --- Invalid transitions ----------------------------------------------------

TEST_P(ZoneConformanceTest, OpenOfFullZoneIsInvalidTransition) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().FinishZone(z, kCtx));
  EXPECT_ZONE_ERROR(dev().OpenZone(z, kCtx), ZoneError::kInvalidTransition);
  EXPECT_EQ(State(z), ZoneState::kFull);
}

TEST_P(ZoneConformanceTest, CloseOfEmptyZoneIsInvalidTransition) {
  const uint32_t z = Seq(0);
  EXPECT_ZONE_ERROR(dev().CloseZone(z, kCtx), ZoneError::kInvalidTransition);
  EXPECT_EQ(State(z), ZoneState::kEmpty);
}

TEST_P(ZoneConformanceTest, CloseOfFullZoneIsInvalidTransition) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().FinishZone(z, kCtx));
  EXPECT_ZONE_ERROR(dev().CloseZone(z, kCtx), ZoneError::kInvalidTransition);
  EXPECT_EQ(State(z), ZoneState::kFull);
}

// --- Read-only and offline zones --------------------------------------------

TEST_P(ZoneConformanceTest, ReadOnlyZoneRejectsWritesWithReadOnly) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock));
  emulator().SetZoneReadOnly(z);
  EXPECT_EQ(State(z), ZoneState::kReadOnly);
  EXPECT_ZONE_ERROR(WriteAt(Start(z) + kBlock, kBlock), ZoneError::kReadOnly);
  std::vector<uint8_t> data = Pattern(kBlock, 1);
  EXPECT_ZONE_ERROR(dev().Append(z, data, kCtx), ZoneError::kReadOnly);
  EXPECT_EQ(Written(z), kBlock);
}

TEST_P(ZoneConformanceTest, ReadOnlyZoneRejectsZoneManagementWithInvalidTransition) {
  const uint32_t z = Seq(0);
  emulator().SetZoneReadOnly(z);
  EXPECT_ZONE_ERROR(dev().OpenZone(z, kCtx), ZoneError::kInvalidTransition);
  EXPECT_ZONE_ERROR(dev().CloseZone(z, kCtx), ZoneError::kInvalidTransition);
  EXPECT_ZONE_ERROR(dev().FinishZone(z, kCtx), ZoneError::kInvalidTransition);
  EXPECT_ZONE_ERROR(dev().ResetZone(z, kCtx), ZoneError::kInvalidTransition);
  EXPECT_EQ(State(z), ZoneState::kReadOnly);
}

TEST_P(ZoneConformanceTest, ReadOnlyZoneServesReadsOfItsData) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), 2 * kBlock, 4));
  emulator().SetZoneReadOnly(z);
  EXPECT_EQ(ReadBytes(Start(z), 2 * kBlock), Pattern(2 * kBlock, 4));
}

TEST_P(ZoneConformanceTest, OfflineZoneRejectsWritesWithOffline) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock));
  emulator().SetZoneOffline(z);
  EXPECT_EQ(State(z), ZoneState::kOffline);
  EXPECT_ZONE_ERROR(WriteAt(Start(z) + kBlock, kBlock), ZoneError::kOffline);
  std::vector<uint8_t> data = Pattern(kBlock, 1);
  EXPECT_ZONE_ERROR(dev().Append(z, data, kCtx), ZoneError::kOffline);
}

TEST_P(ZoneConformanceTest, OfflineZoneRejectsReadsWithOffline) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock));
  emulator().SetZoneOffline(z);
  EXPECT_ZONE_ERROR(TryRead(Start(z), kBlock), ZoneError::kOffline);
}

TEST_P(ZoneConformanceTest, OfflineZoneRejectsZoneManagementWithInvalidTransition) {
  const uint32_t z = Seq(0);
  emulator().SetZoneOffline(z);
  EXPECT_ZONE_ERROR(dev().OpenZone(z, kCtx), ZoneError::kInvalidTransition);
  EXPECT_ZONE_ERROR(dev().CloseZone(z, kCtx), ZoneError::kInvalidTransition);
  EXPECT_ZONE_ERROR(dev().FinishZone(z, kCtx), ZoneError::kInvalidTransition);
  EXPECT_ZONE_ERROR(dev().ResetZone(z, kCtx), ZoneError::kInvalidTransition);
  EXPECT_EQ(State(z), ZoneState::kOffline);
}

TEST_P(ZoneConformanceTest, ZoneGoingReadOnlyGivesUpItsOpenAndActiveResources) {
  // Read-only and offline zones are neither open nor active, so the
  // device's limits no longer count them.
  for (uint32_t i = 0; i < 3; ++i) ASSERT_OK(dev().OpenZone(Seq(i), kCtx));
  emulator().SetZoneReadOnly(Seq(0));
  EXPECT_OK(dev().OpenZone(Seq(3), kCtx));
  EXPECT_EQ(OpenCount(), 3);
}

// --- Write errors -----------------------------------------------------------

TEST_P(ZoneConformanceTest, WriteAheadOfWritePointerIsInvalidWrite) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock));
  EXPECT_ZONE_ERROR(WriteAt(Start(z) + 2 * kBlock, kBlock), ZoneError::kInvalidWrite);
  EXPECT_EQ(Written(z), kBlock);
}

TEST_P(ZoneConformanceTest, WriteBehindWritePointerIsInvalidWrite) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), 2 * kBlock, 1));
  EXPECT_ZONE_ERROR(WriteAt(Start(z), kBlock, 2), ZoneError::kInvalidWrite);
  EXPECT_EQ(ReadBytes(Start(z), 2 * kBlock), Pattern(2 * kBlock, 1));
}

TEST_P(ZoneConformanceTest, WriteToEmptyZoneNotAtItsStartIsInvalidWrite) {
  const uint32_t z = Seq(0);
  EXPECT_ZONE_ERROR(WriteAt(Start(z) + kBlock, kBlock), ZoneError::kInvalidWrite);
  EXPECT_EQ(State(z), ZoneState::kEmpty);
}

TEST_P(ZoneConformanceTest, WriteCrossingZoneCapacityIsBoundaryError) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), Capacity(z) - kBlock));
  EXPECT_ZONE_ERROR(WriteAt(Start(z) + Capacity(z) - kBlock, 2 * kBlock),
                    ZoneError::kBoundary);
  EXPECT_EQ(Written(z), Capacity(z) - kBlock);
  EXPECT_EQ(State(z), ZoneState::kImplicitlyOpened);
}

TEST_P(ZoneConformanceTest, FailedWriteToEmptyZoneLeavesItEmpty) {
  const uint32_t z = Seq(0);
  EXPECT_ZONE_ERROR(WriteAt(Start(z), Capacity(z) + kBlock), ZoneError::kBoundary);
  EXPECT_EQ(State(z), ZoneState::kEmpty);
  EXPECT_EQ(ActiveCount(), 0);
}

TEST_P(ZoneConformanceTest, WriteToFullZoneIsZoneFull) {
  // The zone state is checked before the write pointer (QEMU
  // nvme_check_zone_write), so any offset in a full zone gets Zone Is Full.
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), Capacity(z)));
  EXPECT_ZONE_ERROR(WriteAt(Start(z), kBlock), ZoneError::kZoneFull);
}

TEST_P(ZoneConformanceTest, WriteToFinishedZoneIsZoneFull) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock));
  ASSERT_OK(dev().FinishZone(z, kCtx));
  EXPECT_ZONE_ERROR(WriteAt(Start(z) + kBlock, kBlock), ZoneError::kZoneFull);
}

TEST_P(ZoneConformanceTest, WriteAtUnalignedOffsetIsUnaligned) {
  const uint32_t z = Seq(0);
  EXPECT_ZONE_ERROR(WriteAt(Start(z) + 512, kBlock), ZoneError::kUnaligned);
  EXPECT_EQ(State(z), ZoneState::kEmpty);
}

TEST_P(ZoneConformanceTest, WriteOfUnalignedLengthIsUnaligned) {
  const uint32_t z = Seq(0);
  EXPECT_ZONE_ERROR(WriteAt(Start(z), kBlock + 512), ZoneError::kUnaligned);
  EXPECT_EQ(State(z), ZoneState::kEmpty);
}

TEST_P(ZoneConformanceTest, ReadOfUnalignedRangeIsUnaligned) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), 2 * kBlock));
  EXPECT_ZONE_ERROR(TryRead(Start(z) + 512, kBlock), ZoneError::kUnaligned);
  EXPECT_ZONE_ERROR(TryRead(Start(z), 1000), ZoneError::kUnaligned);
}

TEST_P(ZoneConformanceTest, WriteBeyondDeviceEndIsOutOfRange) {
  const uint64_t end = dev().info().capacity_bytes();
  EXPECT_ZONE_ERROR(WriteAt(end, kBlock), ZoneError::kOutOfRange);
  EXPECT_ZONE_ERROR(WriteAt(end - kBlock, 2 * kBlock), ZoneError::kOutOfRange);
}

TEST_P(ZoneConformanceTest, ReadBeyondDeviceEndIsOutOfRange) {
  const uint64_t end = dev().info().capacity_bytes();
  EXPECT_ZONE_ERROR(TryRead(end, kBlock), ZoneError::kOutOfRange);
  EXPECT_ZONE_ERROR(TryRead(end - kBlock, 2 * kBlock), ZoneError::kOutOfRange);
}

TEST_P(ZoneConformanceTest, ZoneCommandsBeyondLastZoneAreOutOfRange) {
  const uint32_t past = dev().info().num_zones;
  std::vector<uint8_t> data = Pattern(kBlock, 1);
  EXPECT_ZONE_ERROR(dev().OpenZone(past, kCtx), ZoneError::kOutOfRange);
  EXPECT_ZONE_ERROR(dev().CloseZone(past, kCtx), ZoneError::kOutOfRange);
  EXPECT_ZONE_ERROR(dev().FinishZone(past, kCtx), ZoneError::kOutOfRange);
  EXPECT_ZONE_ERROR(dev().ResetZone(past, kCtx), ZoneError::kOutOfRange);
  EXPECT_ZONE_ERROR(dev().Append(past, data, kCtx), ZoneError::kOutOfRange);
  EXPECT_ZONE_ERROR(dev().ReportZone(past), ZoneError::kOutOfRange);
}

// --- Open and active limits (max_open 3, max_active 4) ----------------------

TEST_P(ZoneConformanceTest, ImplicitOpenAtOpenLimitClosesOldestImplicitlyOpenedZone) {
  for (uint32_t i = 0; i < 3; ++i) ASSERT_OK(WriteAt(Start(Seq(i)), kBlock));
  ASSERT_OK(WriteAt(Start(Seq(3)), kBlock));
  EXPECT_EQ(State(Seq(0)), ZoneState::kClosed);
  EXPECT_EQ(State(Seq(1)), ZoneState::kImplicitlyOpened);
  EXPECT_EQ(State(Seq(2)), ZoneState::kImplicitlyOpened);
  EXPECT_EQ(State(Seq(3)), ZoneState::kImplicitlyOpened);
  EXPECT_EQ(OpenCount(), 3);
  EXPECT_EQ(ActiveCount(), 4);
}

TEST_P(ZoneConformanceTest, OldestImplicitOpenIsByOpenTimeNotZoneNumber) {
  ASSERT_OK(WriteAt(Start(Seq(2)), kBlock));
  ASSERT_OK(WriteAt(Start(Seq(0)), kBlock));
  ASSERT_OK(WriteAt(Start(Seq(1)), kBlock));
  ASSERT_OK(WriteAt(Start(Seq(3)), kBlock));
  EXPECT_EQ(State(Seq(2)), ZoneState::kClosed);
  EXPECT_EQ(State(Seq(0)), ZoneState::kImplicitlyOpened);
}

TEST_P(ZoneConformanceTest, ImplicitOpenAtOpenLimitNeverClosesExplicitlyOpenedZones) {
  ASSERT_OK(dev().OpenZone(Seq(0), kCtx));  // oldest, but explicit
  ASSERT_OK(WriteAt(Start(Seq(1)), kBlock));
  ASSERT_OK(WriteAt(Start(Seq(2)), kBlock));
  ASSERT_OK(WriteAt(Start(Seq(3)), kBlock));
  EXPECT_EQ(State(Seq(0)), ZoneState::kExplicitlyOpened);
  EXPECT_EQ(State(Seq(1)), ZoneState::kClosed);
  EXPECT_EQ(State(Seq(2)), ZoneState::kImplicitlyOpened);
  EXPECT_EQ(State(Seq(3)), ZoneState::kImplicitlyOpened);
}

TEST_P(ZoneConformanceTest, ExplicitOpenAtOpenLimitClosesAnImplicitlyOpenedZone) {
  ASSERT_OK(WriteAt(Start(Seq(0)), kBlock));
  ASSERT_OK(dev().OpenZone(Seq(1), kCtx));
  ASSERT_OK(dev().OpenZone(Seq(2), kCtx));
  ASSERT_OK(dev().OpenZone(Seq(3), kCtx));
  EXPECT_EQ(State(Seq(0)), ZoneState::kClosed);
  EXPECT_EQ(State(Seq(3)), ZoneState::kExplicitlyOpened);
  EXPECT_EQ(OpenCount(), 3);
}

TEST_P(ZoneConformanceTest, WriteWhenAllOpenZonesAreExplicitIsTooManyOpen) {
  for (uint32_t i = 0; i < 3; ++i) ASSERT_OK(dev().OpenZone(Seq(i), kCtx));
  EXPECT_ZONE_ERROR(WriteAt(Start(Seq(3)), kBlock), ZoneError::kTooManyOpen);
  EXPECT_EQ(State(Seq(3)), ZoneState::kEmpty);
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(State(Seq(i)), ZoneState::kExplicitlyOpened);
  }
}

TEST_P(ZoneConformanceTest, AppendWhenAllOpenZonesAreExplicitIsTooManyOpen) {
  for (uint32_t i = 0; i < 3; ++i) ASSERT_OK(dev().OpenZone(Seq(i), kCtx));
  std::vector<uint8_t> data = Pattern(kBlock, 1);
  EXPECT_ZONE_ERROR(dev().Append(Seq(3), data, kCtx), ZoneError::kTooManyOpen);
  EXPECT_EQ(State(Seq(3)), ZoneState::kEmpty);
}

TEST_P(ZoneConformanceTest, OpenWhenAllOpenZonesAreExplicitIsTooManyOpen) {
  for (uint32_t i = 0; i < 3; ++i) ASSERT_OK(dev().OpenZone(Seq(i), kCtx));
  EXPECT_ZONE_ERROR(dev().OpenZone(Seq(3), kCtx), ZoneError::kTooManyOpen);
  EXPECT_EQ(State(Seq(3)), ZoneState::kEmpty);
}

TEST_P(ZoneConformanceTest, WriteToClosedZoneWhenAllOpenZonesAreExplicitIsTooManyOpen) {
  ASSERT_OK(WriteAt(Start(Seq(3)), kBlock));
  ASSERT_OK(dev().CloseZone(Seq(3), kCtx));
  for (uint32_t i = 0; i < 3; ++i) ASSERT_OK(dev().OpenZone(Seq(i), kCtx));
  EXPECT_ZONE_ERROR(WriteAt(Start(Seq(3)) + kBlock, kBlock), ZoneError::kTooManyOpen);
  EXPECT_EQ(State(Seq(3)), ZoneState::kClosed);
  EXPECT_EQ(Written(Seq(3)), kBlock);
}

TEST_P(ZoneConformanceTest, ClosedZonesCountAgainstActiveLimit) {
  for (uint32_t i = 0; i < 4; ++i) {
    ASSERT_OK(WriteAt(Start(Seq(i)), kBlock));
    ASSERT_OK(dev().CloseZone(Seq(i), kCtx));
  }
  ASSERT_EQ(OpenCount(), 0);
  EXPECT_ZONE_ERROR(WriteAt(Start(Seq(4)), kBlock), ZoneError::kTooManyActive);
  EXPECT_EQ(State(Seq(4)), ZoneState::kEmpty);
}

TEST_P(ZoneConformanceTest, AutoClosedZoneStillCountsAgainstActiveLimit) {
  // The fourth write auto-closes a zone; the fifth needs a fifth active zone.
  for (uint32_t i = 0; i < 4; ++i) ASSERT_OK(WriteAt(Start(Seq(i)), kBlock));
  EXPECT_ZONE_ERROR(WriteAt(Start(Seq(4)), kBlock), ZoneError::kTooManyActive);
  EXPECT_EQ(State(Seq(4)), ZoneState::kEmpty);
}

TEST_P(ZoneConformanceTest, OpenAtActiveLimitIsTooManyActive) {
  for (uint32_t i = 0; i < 4; ++i) {
    ASSERT_OK(WriteAt(Start(Seq(i)), kBlock));
    ASSERT_OK(dev().CloseZone(Seq(i), kCtx));
  }
  EXPECT_ZONE_ERROR(dev().OpenZone(Seq(4), kCtx), ZoneError::kTooManyActive);
  EXPECT_EQ(State(Seq(4)), ZoneState::kEmpty);
}

TEST_P(ZoneConformanceTest, WriteToClosedZoneAtActiveLimitSucceeds) {
  // A closed zone is already active: reopening it needs only an open slot.
  for (uint32_t i = 0; i < 4; ++i) {
    ASSERT_OK(WriteAt(Start(Seq(i)), kBlock));
    ASSERT_OK(dev().CloseZone(Seq(i), kCtx));
  }
  EXPECT_OK(WriteAt(Start(Seq(2)) + kBlock, kBlock));
  EXPECT_EQ(State(Seq(2)), ZoneState::kImplicitlyOpened);
  EXPECT_EQ(ActiveCount(), 4);
}

TEST_P(ZoneConformanceTest, FinishFreesAnActiveResource) {
  for (uint32_t i = 0; i < 4; ++i) {
    ASSERT_OK(WriteAt(Start(Seq(i)), kBlock));
    ASSERT_OK(dev().CloseZone(Seq(i), kCtx));
  }
  ASSERT_OK(dev().FinishZone(Seq(0), kCtx));
  EXPECT_OK(WriteAt(Start(Seq(4)), kBlock));
  EXPECT_EQ(ActiveCount(), 4);
}

TEST_P(ZoneConformanceTest, ResetsReturnOpenAndActiveCountsToZero) {
  ASSERT_OK(dev().OpenZone(Seq(0), kCtx));
  ASSERT_OK(WriteAt(Start(Seq(1)), kBlock));
  ASSERT_OK(WriteAt(Start(Seq(2)), kBlock));
  ASSERT_OK(WriteAt(Start(Seq(3)), kBlock));  // auto-closes Seq(1)
  ASSERT_EQ(ActiveCount(), 4);
  for (uint32_t i = 0; i < 4; ++i) ASSERT_OK(dev().ResetZone(Seq(i), kCtx));
  EXPECT_EQ(OpenCount(), 0);
  EXPECT_EQ(ActiveCount(), 0);
  // The device's own counters agree: the full limits are available again.
  for (uint32_t i = 4; i < 7; ++i) EXPECT_OK(dev().OpenZone(Seq(i), kCtx));
  ASSERT_OK(WriteAt(Start(Seq(4)), kBlock));
  ASSERT_OK(dev().CloseZone(Seq(4), kCtx));
  EXPECT_OK(dev().OpenZone(Seq(7), kCtx));  // third open, fourth active
}

// --- Zone append ------------------------------------------------------------

TEST_P(ZoneConformanceTest, AppendReturnsWhereDataLanded) {
  const uint32_t z = Seq(0);
  const std::vector<uint8_t> a = Pattern(2 * kBlock, 1);
  const std::vector<uint8_t> b = Pattern(kBlock, 2);
  auto first = dev().Append(z, a, kCtx);
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = dev().Append(z, b, kCtx);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(*first, Start(z));
  EXPECT_EQ(*second, Start(z) + 2 * kBlock);
  EXPECT_EQ(ReadBytes(*first, a.size()), a);
  EXPECT_EQ(ReadBytes(*second, b.size()), b);
  EXPECT_EQ(Written(z), 3 * kBlock);
}

TEST_P(ZoneConformanceTest, AppendToEmptyZoneOpensItImplicitly) {
  const uint32_t z = Seq(0);
  std::vector<uint8_t> data = Pattern(kBlock, 1);
  ASSERT_OK(dev().Append(z, data, kCtx));
  EXPECT_EQ(State(z), ZoneState::kImplicitlyOpened);
}

TEST_P(ZoneConformanceTest, AppendToFullZoneIsZoneFull) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().FinishZone(z, kCtx));
  std::vector<uint8_t> data = Pattern(kBlock, 1);
  EXPECT_ZONE_ERROR(dev().Append(z, data, kCtx), ZoneError::kZoneFull);
  // Where capacity equals size, the full zone's write pointer is the next
  // zone's start; the append must not land there.
  EXPECT_EQ(State(z + 1), ZoneState::kEmpty);
}

TEST_P(ZoneConformanceTest, AppendToReadOnlyFullZoneIsReadOnly) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), Capacity(z)));
  emulator().SetZoneReadOnly(z);
  std::vector<uint8_t> data = Pattern(kBlock, 1);
  EXPECT_ZONE_ERROR(dev().Append(z, data, kCtx), ZoneError::kReadOnly);
  EXPECT_EQ(State(z + 1), ZoneState::kEmpty);
}

TEST_P(ZoneConformanceTest, AppendLargerThanLimitIsInvalidArgument) {
  const uint32_t z = Seq(0);
  std::vector<uint8_t> data = Pattern(dev().info().max_append_bytes + kBlock, 1);
  EXPECT_ZONE_ERROR(dev().Append(z, data, kCtx), ZoneError::kInvalidArgument);
  EXPECT_EQ(State(z), ZoneState::kEmpty);
}

TEST_P(ZoneConformanceTest, AppendCrossingZoneCapacityIsBoundaryError) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), Capacity(z) - kBlock));
  std::vector<uint8_t> data = Pattern(2 * kBlock, 1);
  EXPECT_ZONE_ERROR(dev().Append(z, data, kCtx), ZoneError::kBoundary);
  EXPECT_EQ(Written(z), Capacity(z) - kBlock);
}

// --- ZNS only ---------------------------------------------------------------

TEST_F(ZnsZoneTest, CloseOfExplicitlyOpenedZoneWithNothingWrittenKeepsItClosed) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().OpenZone(z, kCtx));
  ASSERT_OK(dev().CloseZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kClosed);
  EXPECT_EQ(ActiveCount(), 1);
}

TEST_F(ZnsZoneTest, FinishOfEmptyZoneNeedsAnActiveResource) {
  for (uint32_t i = 0; i < 4; ++i) {
    ASSERT_OK(WriteAt(Start(Seq(i)), kBlock));
    ASSERT_OK(dev().CloseZone(Seq(i), kCtx));
  }
  EXPECT_ZONE_ERROR(dev().FinishZone(Seq(4), kCtx), ZoneError::kTooManyActive);
  EXPECT_EQ(State(Seq(4)), ZoneState::kEmpty);
}

TEST_F(ZnsZoneTest, FinishOfActiveZoneAtActiveLimitSucceeds) {
  for (uint32_t i = 0; i < 4; ++i) {
    ASSERT_OK(WriteAt(Start(Seq(i)), kBlock));
    ASSERT_OK(dev().CloseZone(Seq(i), kCtx));
  }
  EXPECT_OK(dev().FinishZone(Seq(0), kCtx));
  EXPECT_EQ(State(Seq(0)), ZoneState::kFull);
}

TEST_F(ZnsZoneTest, ReadBeyondWritePointerReturnsZeroes) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock, 7));
  std::vector<uint8_t> want = Pattern(kBlock, 7);
  want.resize(3 * kBlock, 0);
  EXPECT_EQ(ReadBytes(Start(z), 3 * kBlock), want);
}

TEST_F(ZnsZoneTest, ReadOfEmptyZoneReturnsZeroes) {
  EXPECT_EQ(ReadBytes(Start(Seq(1)), 2 * kBlock), std::vector<uint8_t>(2 * kBlock, 0));
}

TEST_F(ZnsZoneTest, ReadAfterResetReturnsZeroesNotOldData) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), 2 * kBlock, 7));
  ASSERT_OK(dev().ResetZone(z, kCtx));
  EXPECT_EQ(ReadBytes(Start(z), 2 * kBlock), std::vector<uint8_t>(2 * kBlock, 0));
}

TEST_F(ZnsZoneTest, ReadAcrossZoneBoundaryIsBoundaryError) {
  ASSERT_OK(WriteAt(Start(Seq(0)), Capacity(Seq(0))));
  ASSERT_OK(WriteAt(Start(Seq(1)), kBlock));
  EXPECT_ZONE_ERROR(TryRead(Start(Seq(1)) - kBlock, 2 * kBlock), ZoneError::kBoundary);
}

TEST_F(ZnsZoneTest, SimpleCopyIsUnsupportedWithoutTheFeature) {
  ASSERT_OK(WriteAt(Start(Seq(0)), kBlock));
  const CopyRange src[] = {{Start(Seq(0)), kBlock}};
  EXPECT_ZONE_ERROR(dev().SimpleCopy(src, Seq(1), kCtx), ZoneError::kUnsupported);
  EXPECT_EQ(State(Seq(1)), ZoneState::kEmpty);
}

TEST_F(ZnsZoneTest, OpenInCellModeTheDeviceLacksIsUnsupported) {
  EXPECT_ZONE_ERROR(dev().OpenZone(Seq(0), CellMode::kSlc, kCtx), ZoneError::kUnsupported);
  EXPECT_EQ(State(Seq(0)), ZoneState::kEmpty);
}

// --- ZBC only ---------------------------------------------------------------

TEST_F(ZbcZoneTest, CloseOfExplicitlyOpenedZoneWithNothingWrittenEmptiesIt) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().OpenZone(z, kCtx));
  ASSERT_OK(dev().CloseZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kEmpty);
  EXPECT_EQ(ActiveCount(), 0);
  // The active resource really came back: four other zones can be active.
  for (uint32_t i = 1; i < 4; ++i) ASSERT_OK(WriteAt(Start(Seq(i)), kBlock));
  EXPECT_OK(WriteAt(Start(Seq(4)), kBlock));  // auto-closes Seq(1)
  EXPECT_EQ(ActiveCount(), 4);
}

TEST_F(ZbcZoneTest, ReadBeyondWritePointerIsReadBeyondWp) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock));
  EXPECT_ZONE_ERROR(TryRead(Start(z) + kBlock, kBlock), ZoneError::kReadBeyondWp);
  EXPECT_ZONE_ERROR(TryRead(Start(z), 2 * kBlock), ZoneError::kReadBeyondWp);
  EXPECT_ZONE_ERROR(TryRead(Start(Seq(1)), kBlock), ZoneError::kReadBeyondWp);
}

TEST_F(ZbcZoneTest, ReadUpToWritePointerIsAllowed) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), 2 * kBlock, 3));
  EXPECT_EQ(ReadBytes(Start(z), 2 * kBlock), Pattern(2 * kBlock, 3));
}

TEST_F(ZbcZoneTest, ReadAcrossZoneBoundaryIsAllowed) {
  const uint32_t a = Seq(0), b = Seq(1);
  ASSERT_OK(WriteAt(Start(a), Capacity(a), 1));
  ASSERT_OK(WriteAt(Start(b), kBlock, 2));
  std::vector<uint8_t> want = Pattern(Capacity(a), 1);
  want.erase(want.begin(), want.end() - kBlock);
  const std::vector<uint8_t> tail = Pattern(kBlock, 2);
  want.insert(want.end(), tail.begin(), tail.end());
  EXPECT_EQ(ReadBytes(Start(b) - kBlock, 2 * kBlock), want);
}

TEST_F(ZbcZoneTest, ReadAcrossZoneBoundaryBeyondWritePointerIsReadBeyondWp) {
  const uint32_t a = Seq(0), b = Seq(1);
  ASSERT_OK(WriteAt(Start(a), Capacity(a)));
  EXPECT_ZONE_ERROR(TryRead(Start(b) - kBlock, 2 * kBlock), ZoneError::kReadBeyondWp);
}

TEST_F(ZbcZoneTest, ConventionalZoneAcceptsRandomWrites) {
  const uint64_t s = Start(0);
  ASSERT_OK(WriteAt(s + 3 * kBlock, kBlock, 1));
  ASSERT_OK(WriteAt(s, kBlock, 2));
  ASSERT_OK(WriteAt(s + 3 * kBlock, kBlock, 3));  // overwrite
  EXPECT_EQ(ReadBytes(s, kBlock), Pattern(kBlock, 2));
  EXPECT_EQ(ReadBytes(s + 3 * kBlock, kBlock), Pattern(kBlock, 3));
  EXPECT_EQ(ReadBytes(s + kBlock, kBlock), std::vector<uint8_t>(kBlock, 0));
  EXPECT_EQ(State(0), ZoneState::kNotWritePointer);
}

TEST_F(ZbcZoneTest, ConventionalZoneWritesTakeNoOpenResource) {
  for (uint32_t i = 0; i < 3; ++i) ASSERT_OK(dev().OpenZone(Seq(i), kCtx));
  EXPECT_OK(WriteAt(Start(1), kBlock));
  EXPECT_EQ(OpenCount(), 3);
}

TEST_F(ZbcZoneTest, ConventionalZoneRejectsZoneManagementWithInvalidArgument) {
  EXPECT_ZONE_ERROR(dev().OpenZone(0, kCtx), ZoneError::kInvalidArgument);
  EXPECT_ZONE_ERROR(dev().CloseZone(0, kCtx), ZoneError::kInvalidArgument);
  EXPECT_ZONE_ERROR(dev().FinishZone(0, kCtx), ZoneError::kInvalidArgument);
  EXPECT_ZONE_ERROR(dev().ResetZone(0, kCtx), ZoneError::kInvalidArgument);
  EXPECT_EQ(State(0), ZoneState::kNotWritePointer);
}

TEST_F(ZbcZoneTest, ConventionalZoneRejectsAppend) {
  std::vector<uint8_t> data = Pattern(kBlock, 1);
  EXPECT_ZONE_ERROR(dev().Append(0, data, kCtx), ZoneError::kInvalidArgument);
}

TEST_F(ZbcZoneTest, WriteFromConventionalIntoNextZoneIsBoundaryError) {
  // Zone 1 is the last conventional zone; zone 2 has a write pointer.
  EXPECT_ZONE_ERROR(WriteAt(Start(2) - kBlock, 2 * kBlock), ZoneError::kBoundary);
  EXPECT_EQ(State(2), ZoneState::kEmpty);
}

// --- Cell modes (HZNS) ------------------------------------------------------

TEST_F(HznsZoneTest, ImplicitOpenUsesDefaultSlcMode) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock));
  const ZoneInfo zi = Report(z);
  EXPECT_EQ(zi.cell_mode, CellMode::kSlc);
  EXPECT_EQ(zi.capacity, 16 * KiB);
}

TEST_F(HznsZoneTest, OpenWithoutModeUsesDefaultSlcMode) {
  ASSERT_OK(dev().OpenZone(Seq(0), kCtx));
  EXPECT_EQ(Report(Seq(0)).cell_mode, CellMode::kSlc);
}

TEST_F(HznsZoneTest, QlcZoneCapacityIsFourTimesSlc) {
  ASSERT_OK(dev().OpenZone(Seq(0), CellMode::kQlc, kCtx));
  ASSERT_OK(dev().OpenZone(Seq(1), CellMode::kSlc, kCtx));
  const ZoneInfo qlc = Report(Seq(0)), slc = Report(Seq(1));
  EXPECT_EQ(qlc.cell_mode, CellMode::kQlc);
  EXPECT_EQ(slc.cell_mode, CellMode::kSlc);
  EXPECT_EQ(qlc.capacity, 64 * KiB);
  EXPECT_EQ(qlc.capacity, 4 * slc.capacity);
}

TEST_F(HznsZoneTest, QlcZoneBecomesFullAtQlcCapacity) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().OpenZone(z, CellMode::kQlc, kCtx));
  ASSERT_OK(WriteAt(Start(z), 32 * KiB, 1));
  EXPECT_EQ(State(z), ZoneState::kExplicitlyOpened);
  ASSERT_OK(WriteAt(Start(z) + 32 * KiB, 32 * KiB, 2));
  EXPECT_EQ(State(z), ZoneState::kFull);
  EXPECT_EQ(ReadBytes(Start(z) + 32 * KiB, 32 * KiB), Pattern(32 * KiB, 2));
}

TEST_F(HznsZoneTest, SlcZoneBecomesFullAtSlcCapacity) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), 16 * KiB));
  EXPECT_EQ(State(z), ZoneState::kFull);
  EXPECT_ZONE_ERROR(WriteAt(Start(z) + 16 * KiB, kBlock), ZoneError::kZoneFull);
}

TEST_F(HznsZoneTest, SecondActiveQlcZoneIsTooManyActive) {
  ASSERT_OK(dev().OpenZone(Seq(0), CellMode::kQlc, kCtx));
  ASSERT_OK(WriteAt(Start(Seq(0)), kBlock));
  ASSERT_OK(dev().CloseZone(Seq(0), kCtx));  // closed QLC zones stay active
  EXPECT_ZONE_ERROR(dev().OpenZone(Seq(1), CellMode::kQlc, kCtx),
                    ZoneError::kTooManyActive);
  EXPECT_EQ(State(Seq(1)), ZoneState::kEmpty);
  EXPECT_OK(dev().OpenZone(Seq(1), CellMode::kSlc, kCtx));  // SLC still fine
}

TEST_F(HznsZoneTest, SecondOpenQlcZoneIsTooManyOpen) {
  DeviceInfo info = HznsInfo();
  info.max_active_qlc_zones = 2;  // so the open limit is the one that binds
  Open(info);
  ASSERT_OK(dev().OpenZone(Seq(0), CellMode::kQlc, kCtx));
  EXPECT_ZONE_ERROR(dev().OpenZone(Seq(1), CellMode::kQlc, kCtx),
                    ZoneError::kTooManyOpen);
  ASSERT_OK(dev().CloseZone(Seq(0), kCtx));
  EXPECT_OK(dev().OpenZone(Seq(1), CellMode::kQlc, kCtx));
}

TEST_F(HznsZoneTest, WriteReopeningClosedQlcZoneCountsAgainstQlcOpenLimit) {
  DeviceInfo info = HznsInfo();
  info.max_active_qlc_zones = 2;
  Open(info);
  ASSERT_OK(dev().OpenZone(Seq(0), CellMode::kQlc, kCtx));
  ASSERT_OK(WriteAt(Start(Seq(0)), kBlock));
  ASSERT_OK(dev().CloseZone(Seq(0), kCtx));
  ASSERT_OK(dev().OpenZone(Seq(1), CellMode::kQlc, kCtx));
  EXPECT_ZONE_ERROR(WriteAt(Start(Seq(0)) + kBlock, kBlock), ZoneError::kTooManyOpen);
}

TEST_F(HznsZoneTest, FinishingQlcZoneFreesItsQlcResources) {
  ASSERT_OK(dev().OpenZone(Seq(0), CellMode::kQlc, kCtx));
  ASSERT_OK(dev().FinishZone(Seq(0), kCtx));
  EXPECT_OK(dev().OpenZone(Seq(1), CellMode::kQlc, kCtx));
}

TEST_F(HznsZoneTest, ResettingQlcZoneFreesItsQlcResources) {
  ASSERT_OK(dev().OpenZone(Seq(0), CellMode::kQlc, kCtx));
  ASSERT_OK(WriteAt(Start(Seq(0)), kBlock));
  ASSERT_OK(dev().ResetZone(Seq(0), kCtx));
  EXPECT_OK(dev().OpenZone(Seq(1), CellMode::kQlc, kCtx));
}

TEST_F(HznsZoneTest, ChangingCellModeOfNonEmptyZoneFails) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock));  // implicitly opened in SLC
  EXPECT_ZONE_ERROR(dev().OpenZone(z, CellMode::kQlc, kCtx), ZoneError::kInvalidArgument);
  EXPECT_EQ(Report(z).cell_mode, CellMode::kSlc);
  EXPECT_EQ(State(z), ZoneState::kImplicitlyOpened);
}

TEST_F(HznsZoneTest, OpenOfNonEmptyZoneInItsOwnModeSucceeds) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock));
  EXPECT_OK(dev().OpenZone(z, CellMode::kSlc, kCtx));
  EXPECT_EQ(State(z), ZoneState::kExplicitlyOpened);
}

TEST_F(HznsZoneTest, OpenInCellModeTheNandLacksIsUnsupported) {
  EXPECT_ZONE_ERROR(dev().OpenZone(Seq(0), CellMode::kTlc, kCtx), ZoneError::kUnsupported);
  EXPECT_EQ(State(Seq(0)), ZoneState::kEmpty);
}

TEST_F(HznsZoneTest, ResetReturnsZoneToDefaultCellMode) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().OpenZone(z, CellMode::kQlc, kCtx));
  ASSERT_OK(WriteAt(Start(z), kBlock));
  ASSERT_OK(dev().ResetZone(z, kCtx));
  const ZoneInfo zi = Report(z);
  EXPECT_EQ(zi.cell_mode, CellMode::kSlc);
  EXPECT_EQ(zi.capacity, 16 * KiB);
}

// --- Simple Copy ------------------------------------------------------------

TEST_F(HznsZoneTest, SimpleCopyCopiesDataToDestinationWritePointer) {
  const uint32_t a = Seq(0), b = Seq(1), dst = Seq(2);
  ASSERT_OK(WriteAt(Start(a), 2 * kBlock, 1));
  ASSERT_OK(WriteAt(Start(b), 2 * kBlock, 2));
  ASSERT_OK(WriteAt(Start(dst), kBlock, 3));
  const CopyRange src[] = {{Start(a), 2 * kBlock}, {Start(b) + kBlock, kBlock}};
  auto landed = dev().SimpleCopy(src, dst, kCtx);
  ASSERT_TRUE(landed.ok()) << landed.status();
  EXPECT_EQ(*landed, Start(dst) + kBlock);
  EXPECT_EQ(Written(dst), 4 * kBlock);
  std::vector<uint8_t> want = Pattern(kBlock, 3);
  const std::vector<uint8_t> from_a = Pattern(2 * kBlock, 1);
  const std::vector<uint8_t> from_b = Pattern(2 * kBlock, 2);
  want.insert(want.end(), from_a.begin(), from_a.end());
  want.insert(want.end(), from_b.begin() + kBlock, from_b.end());
  EXPECT_EQ(ReadBytes(Start(dst), 4 * kBlock), want);
  // The sources are untouched.
  EXPECT_EQ(ReadBytes(Start(a), 2 * kBlock), from_a);
}

TEST_F(HznsZoneTest, SimpleCopyToFullZoneIsZoneFull) {
  ASSERT_OK(WriteAt(Start(Seq(0)), kBlock));
  ASSERT_OK(dev().FinishZone(Seq(1), kCtx));
  const CopyRange src[] = {{Start(Seq(0)), kBlock}};
  EXPECT_ZONE_ERROR(dev().SimpleCopy(src, Seq(1), kCtx), ZoneError::kZoneFull);
}

TEST_F(HznsZoneTest, SimpleCopyToFullZoneWithCapacityEqualToSizeIsZoneFull) {
  // A QLC zone's capacity is its size: when full, its write pointer is the
  // next zone's start, and the copy must not land there.
  ASSERT_OK(WriteAt(Start(Seq(0)), kBlock));
  ASSERT_OK(dev().OpenZone(Seq(1), CellMode::kQlc, kCtx));
  ASSERT_OK(dev().FinishZone(Seq(1), kCtx));
  const CopyRange src[] = {{Start(Seq(0)), kBlock}};
  EXPECT_ZONE_ERROR(dev().SimpleCopy(src, Seq(1), kCtx), ZoneError::kZoneFull);
  EXPECT_EQ(State(Seq(2)), ZoneState::kEmpty);
}

TEST_F(HznsZoneTest, SimpleCopyOverflowingDestinationIsBoundaryError) {
  ASSERT_OK(WriteAt(Start(Seq(0)), 8 * KiB));
  ASSERT_OK(WriteAt(Start(Seq(1)), 12 * KiB));  // SLC capacity is 16 KiB
  const CopyRange src[] = {{Start(Seq(0)), 8 * KiB}};
  EXPECT_ZONE_ERROR(dev().SimpleCopy(src, Seq(1), kCtx), ZoneError::kBoundary);
  EXPECT_EQ(Written(Seq(1)), 12 * KiB);
}

}  // namespace
}  // namespace zonestack::device
