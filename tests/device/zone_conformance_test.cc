// Zone state machine conformance: every transition and every error of the
// NVMe ZNS command set and ZBC (docs/emulator.md, "Zone semantics"), checked
// through the ZonedDevice interface only, so the suite can
// later run against a real zoned block device. Only fault injection (read
// only, offline) reaches past the interface into the emulator.
#include "zone_conformance_fixture.h"

namespace zonestack::device::conformance {
namespace {

using testing_util::Pattern;

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
  REQUIRE_DEVICE(CanInjectFaults());
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock));
  emulator().SetZoneReadOnly(z);
  EXPECT_EQ(State(z), ZoneState::kReadOnly);
  EXPECT_ZONE_ERROR(WriteAt(Start(z) + kBlock, kBlock), ZoneError::kReadOnly);
  std::vector<uint8_t> data = Pattern(kBlock, 1);
  EXPECT_ZONE_ERROR(dev().Append(z, data, kCtx), ZoneError::kReadOnly);
  // A read-only zone's write pointer is not valid (ZNS, ZBC; null_blk
  // reports none), so only its state can show the writes changed nothing.
  EXPECT_EQ(State(z), ZoneState::kReadOnly);
}

TEST_P(ZoneConformanceTest, ReadOnlyZoneRejectsZoneManagementWithInvalidTransition) {
  REQUIRE_DEVICE(CanInjectFaults());
  const uint32_t z = Seq(0);
  emulator().SetZoneReadOnly(z);
  EXPECT_ZONE_ERROR(dev().OpenZone(z, kCtx), ZoneError::kInvalidTransition);
  EXPECT_ZONE_ERROR(dev().CloseZone(z, kCtx), ZoneError::kInvalidTransition);
  EXPECT_ZONE_ERROR(dev().FinishZone(z, kCtx), ZoneError::kInvalidTransition);
  EXPECT_ZONE_ERROR(dev().ResetZone(z, kCtx), ZoneError::kInvalidTransition);
  EXPECT_EQ(State(z), ZoneState::kReadOnly);
}

TEST_P(ZoneConformanceTest, ReadOnlyZoneServesReadsOfItsData) {
  REQUIRE_DEVICE(CanInjectFaults());
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), 2 * kBlock, 4));
  emulator().SetZoneReadOnly(z);
  EXPECT_EQ(ReadBytes(Start(z), 2 * kBlock), Pattern(2 * kBlock, 4));
}

TEST_P(ZoneConformanceTest, OfflineZoneRejectsWritesWithOffline) {
  REQUIRE_DEVICE(CanInjectFaults());
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock));
  emulator().SetZoneOffline(z);
  EXPECT_EQ(State(z), ZoneState::kOffline);
  EXPECT_ZONE_ERROR(WriteAt(Start(z) + kBlock, kBlock), ZoneError::kOffline);
  std::vector<uint8_t> data = Pattern(kBlock, 1);
  EXPECT_ZONE_ERROR(dev().Append(z, data, kCtx), ZoneError::kOffline);
}

TEST_P(ZoneConformanceTest, OfflineZoneRejectsReadsWithOffline) {
  REQUIRE_DEVICE(CanInjectFaults());
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock));
  emulator().SetZoneOffline(z);
  EXPECT_ZONE_ERROR(TryRead(Start(z), kBlock), ZoneError::kOffline);
}

TEST_P(ZoneConformanceTest, OfflineZoneRejectsZoneManagementWithInvalidTransition) {
  REQUIRE_DEVICE(CanInjectFaults());
  const uint32_t z = Seq(0);
  emulator().SetZoneOffline(z);
  EXPECT_ZONE_ERROR(dev().OpenZone(z, kCtx), ZoneError::kInvalidTransition);
  EXPECT_ZONE_ERROR(dev().CloseZone(z, kCtx), ZoneError::kInvalidTransition);
  EXPECT_ZONE_ERROR(dev().FinishZone(z, kCtx), ZoneError::kInvalidTransition);
  EXPECT_ZONE_ERROR(dev().ResetZone(z, kCtx), ZoneError::kInvalidTransition);
  EXPECT_EQ(State(z), ZoneState::kOffline);
}

TEST_P(ZoneConformanceTest, ZoneGoingReadOnlyGivesUpItsOpenAndActiveResources) {
  REQUIRE_DEVICE(CanInjectFaults());
  // Read-only and offline zones are neither open nor active, so the
  // device's limits no longer count them.
  for (uint32_t i = 0; i < 3; ++i) ASSERT_OK(dev().OpenZone(Seq(i), kCtx));
  emulator().SetZoneReadOnly(Seq(0));
  EXPECT_OK(dev().OpenZone(Seq(3), kCtx));
  EXPECT_EQ(OpenCount(), 3);
}


}  // namespace
}  // namespace zonestack::device::conformance
