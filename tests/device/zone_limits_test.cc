// Conformance: write errors, open and active limits, zone append (ZNS and
// ZBC alike; fixtures in zone_conformance_fixture.h).
#include "zone_conformance_fixture.h"

namespace zonestack::device::conformance {
namespace {

using testing_util::Pattern;

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
  ASSERT_NO_FATAL_FAILURE(CloseZonesUpToActiveLimit());
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
  ASSERT_NO_FATAL_FAILURE(CloseZonesUpToActiveLimit());
  EXPECT_ZONE_ERROR(dev().OpenZone(Seq(4), kCtx), ZoneError::kTooManyActive);
  EXPECT_EQ(State(Seq(4)), ZoneState::kEmpty);
}

TEST_P(ZoneConformanceTest, WriteToClosedZoneAtActiveLimitSucceeds) {
  // A closed zone is already active: reopening it needs only an open slot.
  ASSERT_NO_FATAL_FAILURE(CloseZonesUpToActiveLimit());
  EXPECT_OK(WriteAt(Start(Seq(2)) + kBlock, kBlock));
  EXPECT_EQ(State(Seq(2)), ZoneState::kImplicitlyOpened);
  EXPECT_EQ(ActiveCount(), 4);
}

TEST_P(ZoneConformanceTest, FinishFreesAnActiveResource) {
  ASSERT_NO_FATAL_FAILURE(CloseZonesUpToActiveLimit());
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
  REQUIRE_DEVICE(CanInjectFaults());
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


}  // namespace
}  // namespace zonestack::device::conformance
