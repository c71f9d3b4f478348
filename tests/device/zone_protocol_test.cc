// Conformance: what only ZNS, only ZBC or only HZNS (cell modes) does,
// and Simple Copy (fixtures in zone_conformance_fixture.h).
#include "zone_conformance_fixture.h"

namespace zonestack::device::conformance {
namespace {

using testing_util::Pattern;

// --- ZNS only ---------------------------------------------------------------

TEST_F(ZnsZoneTest, CloseOfExplicitlyOpenedZoneWithNothingWrittenKeepsItClosed) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().OpenZone(z, kCtx));
  ASSERT_OK(dev().CloseZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kClosed);
  EXPECT_EQ(ActiveCount(), 1);
}

TEST_F(ZnsZoneTest, FinishOfEmptyZoneAtActiveLimitSucceeds) {
  // An empty zone goes straight to full without taking an active resource
  // (QEMU's ZNS under Linux; ZBC differs, see ZbcZoneTest).
  ASSERT_NO_FATAL_FAILURE(CloseZonesUpToActiveLimit());
  EXPECT_OK(dev().FinishZone(Seq(4), kCtx));
  EXPECT_EQ(State(Seq(4)), ZoneState::kFull);
  EXPECT_EQ(ActiveCount(), 4);
}

TEST_F(ZnsZoneTest, FinishOfActiveZoneAtActiveLimitSucceeds) {
  ASSERT_NO_FATAL_FAILURE(CloseZonesUpToActiveLimit());
  EXPECT_OK(dev().FinishZone(Seq(0), kCtx));
  EXPECT_EQ(State(Seq(0)), ZoneState::kFull);
}

TEST_F(ZnsZoneTest, OldestImplicitOpenIsByOpenTimeNotZoneNumber) {
  // Which zone a device auto-closes is its own choice: QEMU's ZNS closes
  // the oldest (ZBC differs, see ZbcZoneTest).
  ASSERT_OK(WriteAt(Start(Seq(2)), kBlock));
  ASSERT_OK(WriteAt(Start(Seq(0)), kBlock));
  ASSERT_OK(WriteAt(Start(Seq(1)), kBlock));
  ASSERT_OK(WriteAt(Start(Seq(3)), kBlock));
  EXPECT_EQ(State(Seq(2)), ZoneState::kClosed);
  EXPECT_EQ(State(Seq(0)), ZoneState::kImplicitlyOpened);
}

TEST_F(ZnsZoneTest, ReadBeyondWritePointerReturnsZeroes) {
  REQUIRE_DEVICE(dev().info().reads_beyond_wp_allowed);
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock, 7));
  std::vector<uint8_t> want = Pattern(kBlock, 7);
  want.resize(3 * kBlock, 0);
  EXPECT_EQ(ReadBytes(Start(z), 3 * kBlock), want);
}

TEST_F(ZnsZoneTest, ReadOfEmptyZoneReturnsZeroes) {
  REQUIRE_DEVICE(dev().info().reads_beyond_wp_allowed);
  EXPECT_EQ(ReadBytes(Start(Seq(1)), 2 * kBlock), std::vector<uint8_t>(2 * kBlock, 0));
}

TEST_F(ZnsZoneTest, ReadAfterResetReturnsZeroesNotOldData) {
  REQUIRE_DEVICE(dev().info().reads_beyond_wp_allowed);
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), 2 * kBlock, 7));
  ASSERT_OK(dev().ResetZone(z, kCtx));
  EXPECT_EQ(ReadBytes(Start(z), 2 * kBlock), std::vector<uint8_t>(2 * kBlock, 0));
}

TEST_F(ZnsZoneTest, ReadAcrossZoneBoundaryIsBoundaryError) {
  REQUIRE_DEVICE(!dev().info().cross_zone_reads_allowed);
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

TEST_F(ZbcZoneTest, FinishOfEmptyZoneNeedsAnActiveResource) {
  // The zone passes through active on its way to full (null_blk).
  ASSERT_NO_FATAL_FAILURE(CloseZonesUpToActiveLimit());
  EXPECT_ZONE_ERROR(dev().FinishZone(Seq(4), kCtx), ZoneError::kTooManyActive);
  EXPECT_EQ(State(Seq(4)), ZoneState::kEmpty);
}

TEST_F(ZbcZoneTest, AutoCloseTakesZonesByNumberRoundRobinNotOldestFirst) {
  // null_blk closes the first implicitly opened zone by zone number after
  // the one it closed last, starting from the first sequential zone.
  ASSERT_OK(WriteAt(Start(Seq(2)), kBlock));
  ASSERT_OK(WriteAt(Start(Seq(0)), kBlock));
  ASSERT_OK(WriteAt(Start(Seq(1)), kBlock));
  ASSERT_OK(WriteAt(Start(Seq(3)), kBlock));
  EXPECT_EQ(State(Seq(0)), ZoneState::kClosed);
  EXPECT_EQ(State(Seq(2)), ZoneState::kImplicitlyOpened);
  // Frees an active resource (finish would need an open one, see below).
  ASSERT_OK(dev().ResetZone(Seq(0), kCtx));
  ASSERT_OK(WriteAt(Start(Seq(4)), kBlock));
  EXPECT_EQ(State(Seq(1)), ZoneState::kClosed);
  EXPECT_EQ(State(Seq(2)), ZoneState::kImplicitlyOpened);
  EXPECT_EQ(State(Seq(3)), ZoneState::kImplicitlyOpened);
  EXPECT_EQ(State(Seq(4)), ZoneState::kImplicitlyOpened);
}

TEST_F(ZbcZoneTest, FinishOfEmptyZoneAtOpenLimitClosesAnImplicitlyOpenedZone) {
  // The zone passes through open on its way to full (null_blk).
  for (uint32_t i = 0; i < 3; ++i) ASSERT_OK(WriteAt(Start(Seq(i)), kBlock));
  ASSERT_OK(dev().FinishZone(Seq(3), kCtx));
  EXPECT_EQ(State(Seq(3)), ZoneState::kFull);
  EXPECT_EQ(State(Seq(0)), ZoneState::kClosed);
  EXPECT_EQ(OpenCount(), 2);
}

TEST_F(ZbcZoneTest, FinishOfClosedZoneWithOpenAndActiveLimitsReachedIsTooManyOpen) {
  // null_blk closes no zone to make room while the active limit is
  // reached, though the closed zone is already active.
  ASSERT_OK(WriteAt(Start(Seq(0)), kBlock));
  ASSERT_OK(dev().CloseZone(Seq(0), kCtx));
  for (uint32_t i = 1; i < 4; ++i) ASSERT_OK(WriteAt(Start(Seq(i)), kBlock));
  EXPECT_ZONE_ERROR(dev().FinishZone(Seq(0), kCtx), ZoneError::kTooManyOpen);
  EXPECT_EQ(State(Seq(0)), ZoneState::kClosed);
  EXPECT_EQ(OpenCount(), 3);
}

TEST_F(ZbcZoneTest, WriteToClosedZoneWithOpenAndActiveLimitsReachedIsTooManyOpen) {
  ASSERT_OK(WriteAt(Start(Seq(0)), kBlock));
  ASSERT_OK(dev().CloseZone(Seq(0), kCtx));
  for (uint32_t i = 1; i < 4; ++i) ASSERT_OK(WriteAt(Start(Seq(i)), kBlock));
  EXPECT_ZONE_ERROR(WriteAt(Start(Seq(0)) + kBlock, kBlock), ZoneError::kTooManyOpen);
  EXPECT_EQ(State(Seq(0)), ZoneState::kClosed);
  EXPECT_EQ(Written(Seq(0)), kBlock);
}

TEST_F(ZbcZoneTest, ReadBeyondWritePointerIsReadBeyondWp) {
  REQUIRE_DEVICE(!dev().info().reads_beyond_wp_allowed);
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
  REQUIRE_DEVICE(dev().info().cross_zone_reads_allowed);
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
  REQUIRE_DEVICE(!dev().info().reads_beyond_wp_allowed);
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
}  // namespace zonestack::device::conformance
