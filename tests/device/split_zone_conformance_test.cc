// Split zones and subzones (SplitZNS section 4.2; docs/emulator.md, "Split
// zones"): the SPLIT/MERGE state rules, subzone writes, finish and reset,
// and their errors, through the ZonedDevice interface. Devices without
// subzones return kUnsupported; a real zoned block device skips the rest.
#include <algorithm>
#include <set>

#include "zone_conformance_fixture.h"

namespace zonestack::device::conformance {
namespace {

// --- Devices without subzones --------------------------------------------------

TEST_F(ZnsZoneTest, DeviceWithoutSubzonesRefusesEverySubzoneCommand) {
  const uint32_t z = Seq(0);
  const std::vector<uint8_t> data = Pattern(kBlock, 1);
  EXPECT_ZONE_ERROR(dev().SplitZone(z, kCtx), ZoneError::kUnsupported);
  EXPECT_ZONE_ERROR(dev().MergeZone(z, kCtx), ZoneError::kUnsupported);
  EXPECT_ZONE_ERROR(dev().ReportSubzones(z), ZoneError::kUnsupported);
  EXPECT_ZONE_ERROR(dev().AppendSubzone(z, 0, data, kCtx), ZoneError::kUnsupported);
  EXPECT_ZONE_ERROR(dev().FinishSubzone(z, 0, kCtx), ZoneError::kUnsupported);
  EXPECT_ZONE_ERROR(dev().ResetSubzone(z, 0, kCtx), ZoneError::kUnsupported);
  EXPECT_EQ(State(z), ZoneState::kEmpty);
}

// --- SPLIT ---------------------------------------------------------------------

TEST_F(SplitZoneTest, SplitOfEmptyZoneGivesAnOpenZoneOfEmptySubzones) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().SplitZone(z, kCtx));
  const ZoneInfo zi = Report(z);
  EXPECT_EQ(zi.state, ZoneState::kExplicitlyOpened);
  EXPECT_EQ(zi.subzones, 4u);
  EXPECT_TRUE(zi.IsSplit());
  EXPECT_EQ(OpenCount(), 1);
  EXPECT_EQ(ActiveCount(), 1);
  auto subs = dev().ReportSubzones(z);
  ASSERT_TRUE(subs.ok()) << subs.status();
  ASSERT_EQ(subs->size(), 4u);
  for (uint32_t i = 0; i < 4; ++i) {
    const SubzoneInfo& s = (*subs)[i];
    EXPECT_EQ(s.zone, z);
    EXPECT_EQ(s.index, i);
    EXPECT_EQ(s.start, Start(z) + i * 16 * KiB);
    EXPECT_EQ(s.size, 16 * KiB);
    EXPECT_EQ(s.capacity, 12 * KiB);  // a quarter of the zone's 48 KiB
    EXPECT_EQ(s.write_pointer, s.start);
    EXPECT_EQ(s.state, ZoneState::kEmpty);
    EXPECT_EQ(s.chip, -1);
  }
}

TEST_F(SplitZoneTest, OnlyAnEmptyWideZoneSplits) {
  ASSERT_OK(WriteAt(Start(Seq(0)), kBlock));
  EXPECT_ZONE_ERROR(dev().SplitZone(Seq(0), kCtx), ZoneError::kInvalidTransition);
  ASSERT_OK(dev().FinishZone(Seq(1), kCtx));
  EXPECT_ZONE_ERROR(dev().SplitZone(Seq(1), kCtx), ZoneError::kInvalidTransition);
  ASSERT_OK(dev().OpenZone(Seq(2), kCtx));
  EXPECT_ZONE_ERROR(dev().SplitZone(Seq(2), kCtx), ZoneError::kInvalidTransition);
  ASSERT_OK(dev().SplitZone(Seq(3), kCtx));
  EXPECT_ZONE_ERROR(dev().SplitZone(Seq(3), kCtx), ZoneError::kInvalidTransition);
  EXPECT_ZONE_ERROR(dev().SplitZone(dev().info().num_zones, kCtx), ZoneError::kOutOfRange);
}

TEST_F(SplitZoneTest, SplitNeedsAnActiveResource) {
  ASSERT_NO_FATAL_FAILURE(CloseZonesUpToActiveLimit());
  const uint32_t z = Seq(dev().info().max_active_zones);
  EXPECT_ZONE_ERROR(dev().SplitZone(z, kCtx), ZoneError::kTooManyActive);
  EXPECT_EQ(State(z), ZoneState::kEmpty);
  EXPECT_FALSE(Report(z).IsSplit());
}

TEST_F(SplitZoneTest, SplitNeedsAnOpenResourceLikeAnExplicitOpen) {
  for (uint32_t i = 0; i < dev().info().max_open_zones; ++i) {
    ASSERT_OK(dev().OpenZone(Seq(i), kCtx));
  }
  EXPECT_ZONE_ERROR(dev().SplitZone(Seq(3), kCtx), ZoneError::kTooManyOpen);
  ASSERT_OK(dev().CloseZone(Seq(0), kCtx));
  EXPECT_OK(dev().SplitZone(Seq(3), kCtx));
}

// --- Subzone writes ------------------------------------------------------------

TEST_F(SplitZoneTest, WriteToSubzoneOpensItAndMovesOnlyItsWritePointer) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().SplitZone(z, kCtx));
  ASSERT_OK(WriteAt(SubStart(z, 1), 2 * kBlock));
  const SubzoneInfo s = Sub(z, 1);
  EXPECT_EQ(s.state, ZoneState::kImplicitlyOpened);
  EXPECT_EQ(s.write_pointer, SubStart(z, 1) + 2 * kBlock);
  EXPECT_GE(s.chip, 0);
  for (uint32_t i : {0u, 2u, 3u}) {
    EXPECT_EQ(Sub(z, i).state, ZoneState::kEmpty) << "subzone " << i;
    EXPECT_EQ(Sub(z, i).write_pointer, SubStart(z, i)) << "subzone " << i;
  }
  // The split zone has no write pointer of its own.
  EXPECT_EQ(Report(z).write_pointer, Start(z));
  EXPECT_EQ(OpenCount(), 1);
}

TEST_F(SplitZoneTest, SubzoneWriteMustBeAtItsWritePointer) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().SplitZone(z, kCtx));
  EXPECT_ZONE_ERROR(WriteAt(SubStart(z, 2) + kBlock, kBlock), ZoneError::kInvalidWrite);
  ASSERT_OK(WriteAt(SubStart(z, 2), kBlock));
  EXPECT_ZONE_ERROR(WriteAt(SubStart(z, 2), kBlock), ZoneError::kInvalidWrite);
  EXPECT_ZONE_ERROR(WriteAt(SubStart(z, 2) + 100, kBlock), ZoneError::kUnaligned);
}

TEST_F(SplitZoneTest, SubzoneWriteMayNotCrossItsCapacity) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().SplitZone(z, kCtx));
  EXPECT_ZONE_ERROR(WriteAt(SubStart(z, 0), SubCap() + kBlock), ZoneError::kBoundary);
  ASSERT_OK(WriteAt(SubStart(z, 0), SubCap() - kBlock));
  EXPECT_ZONE_ERROR(WriteAt(SubStart(z, 0) + SubCap() - kBlock, 2 * kBlock),
                    ZoneError::kBoundary);
  EXPECT_EQ(Sub(z, 0).write_pointer, SubStart(z, 0) + SubCap() - kBlock);
}

TEST_F(SplitZoneTest, SubzoneFilledToItsCapacityIsFull) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().SplitZone(z, kCtx));
  ASSERT_OK(WriteAt(SubStart(z, 3), SubCap()));
  EXPECT_EQ(Sub(z, 3).state, ZoneState::kFull);
  EXPECT_ZONE_ERROR(WriteAt(SubStart(z, 3) + SubCap(), kBlock), ZoneError::kZoneFull);
  // The split zone stays open: its other subzones take writes.
  EXPECT_EQ(State(z), ZoneState::kExplicitlyOpened);
  EXPECT_OK(WriteAt(SubStart(z, 0), kBlock));
}

TEST_F(SplitZoneTest, SubzoneDataReadsBackAndReadsStayInOneSubzone) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().SplitZone(z, kCtx));
  // Interleaved, so data landing in the wrong subzone shows.
  for (uint32_t round = 0; round < 3; ++round) {
    for (uint32_t i = 0; i < 4; ++i) {
      ASSERT_OK(WriteAt(SubStart(z, i) + round * kBlock, kBlock,
                        static_cast<uint8_t>(10 * i + round)));
    }
  }
  for (uint32_t i = 0; i < 4; ++i) {
    for (uint32_t round = 0; round < 3; ++round) {
      EXPECT_EQ(ReadBytes(SubStart(z, i) + round * kBlock, kBlock),
                Pattern(kBlock, static_cast<uint8_t>(10 * i + round)))
          << "subzone " << i << " block " << round;
    }
  }
  // Unwritten bytes of a subzone read as zeroes (ZNS).
  EXPECT_EQ(ReadBytes(SubStart(z, 0) + 3 * kBlock, kBlock), std::vector<uint8_t>(kBlock, 0));
  EXPECT_ZONE_ERROR(TryRead(SubStart(z, 1) - kBlock, 2 * kBlock), ZoneError::kBoundary);
}

TEST_F(SplitZoneTest, SubzonesOfASplitZoneGetDistinctChipsRoundRobin) {
  const uint32_t a = Seq(0), b = Seq(1);
  ASSERT_OK(dev().SplitZone(a, kCtx));
  ASSERT_OK(dev().SplitZone(b, kCtx));
  // Section 4.3: a counter over the chips, skipping chips a sibling holds.
  ASSERT_OK(WriteAt(SubStart(a, 2), kBlock));  // chip 0
  ASSERT_OK(WriteAt(SubStart(b, 0), kBlock));  // chip 1
  ASSERT_OK(WriteAt(SubStart(a, 0), kBlock));  // chip 2
  ASSERT_OK(WriteAt(SubStart(b, 3), kBlock));  // chip 3
  ASSERT_OK(WriteAt(SubStart(a, 1), kBlock));  // counter at 0, held by a.2: chip 1
  ASSERT_OK(WriteAt(SubStart(a, 3), kBlock));  // 2 held, 3 free: chip 3
  EXPECT_EQ(Sub(a, 2).chip, 0);
  EXPECT_EQ(Sub(b, 0).chip, 1);
  EXPECT_EQ(Sub(a, 0).chip, 2);
  EXPECT_EQ(Sub(b, 3).chip, 3);
  EXPECT_EQ(Sub(a, 1).chip, 1);
  EXPECT_EQ(Sub(a, 3).chip, 3);
  std::set<int32_t> chips;
  for (uint32_t i = 0; i < 4; ++i) chips.insert(Sub(a, i).chip);
  EXPECT_EQ(chips, (std::set<int32_t>{0, 1, 2, 3}));
  // Writing on keeps a subzone's chip.
  ASSERT_OK(WriteAt(SubStart(a, 2) + kBlock, kBlock));
  EXPECT_EQ(Sub(a, 2).chip, 0);
}

TEST_F(SplitZoneTest, WideZoneCommandsOnASplitZoneAreRefused) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().SplitZone(z, kCtx));
  const std::vector<uint8_t> data = Pattern(kBlock, 1);
  EXPECT_ZONE_ERROR(dev().Append(z, data, kCtx), ZoneError::kInvalidArgument);
  EXPECT_EQ(Sub(z, 0).write_pointer, SubStart(z, 0));
}

TEST_F(SplitZoneTest, AppendToSubzoneLandsAtItsWritePointer) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().SplitZone(z, kCtx));
  const std::vector<uint8_t> one = Pattern(kBlock, 1), two = Pattern(2 * kBlock, 2);
  auto first = dev().AppendSubzone(z, 2, one, kCtx);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(*first, SubStart(z, 2));
  auto second = dev().AppendSubzone(z, 2, two, kCtx);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(*second, SubStart(z, 2) + kBlock);
  EXPECT_EQ(ReadBytes(*second, 2 * kBlock), two);
  const std::vector<uint8_t> big = Pattern(dev().info().max_append_bytes + kBlock, 3);
  EXPECT_ZONE_ERROR(dev().AppendSubzone(z, 1, big, kCtx), ZoneError::kInvalidArgument);
}

TEST_F(SplitZoneTest, SubzoneCommandsCheckTheirTarget) {
  const uint32_t wide = Seq(0), split = Seq(1);
  ASSERT_OK(dev().SplitZone(split, kCtx));
  const std::vector<uint8_t> data = Pattern(kBlock, 1);
  EXPECT_ZONE_ERROR(dev().ReportSubzones(wide), ZoneError::kInvalidArgument);
  EXPECT_ZONE_ERROR(dev().AppendSubzone(wide, 0, data, kCtx), ZoneError::kInvalidArgument);
  EXPECT_ZONE_ERROR(dev().FinishSubzone(wide, 0, kCtx), ZoneError::kInvalidArgument);
  EXPECT_ZONE_ERROR(dev().ResetSubzone(wide, 0, kCtx), ZoneError::kInvalidArgument);
  EXPECT_ZONE_ERROR(dev().AppendSubzone(split, 4, data, kCtx), ZoneError::kOutOfRange);
  EXPECT_ZONE_ERROR(dev().FinishSubzone(split, 4, kCtx), ZoneError::kOutOfRange);
  EXPECT_ZONE_ERROR(dev().ResetSubzone(split, 4, kCtx), ZoneError::kOutOfRange);
  EXPECT_ZONE_ERROR(dev().ReportSubzones(dev().info().num_zones), ZoneError::kOutOfRange);
  EXPECT_ZONE_ERROR(dev().MergeZone(wide, kCtx), ZoneError::kInvalidTransition);
  EXPECT_EQ(State(wide), ZoneState::kEmpty);
}

// --- FINISH ------------------------------------------------------------------

TEST_F(SplitZoneTest, FinishOfSubzoneMakesItFull) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().SplitZone(z, kCtx));
  ASSERT_OK(WriteAt(SubStart(z, 1), kBlock, 7));
  ASSERT_OK(dev().FinishSubzone(z, 1, kCtx));
  const SubzoneInfo s = Sub(z, 1);
  EXPECT_EQ(s.state, ZoneState::kFull);
  EXPECT_EQ(s.write_pointer, SubStart(z, 1) + SubCap());
  EXPECT_ZONE_ERROR(WriteAt(SubStart(z, 1) + kBlock, kBlock), ZoneError::kZoneFull);
  EXPECT_EQ(ReadBytes(SubStart(z, 1), kBlock), Pattern(kBlock, 7));
  EXPECT_OK(dev().FinishSubzone(z, 1, kCtx));  // already full
  ASSERT_OK(dev().FinishSubzone(z, 2, kCtx));  // an empty one, too
  EXPECT_EQ(Sub(z, 2).state, ZoneState::kFull);
}

TEST_F(SplitZoneTest, FinishOfSplitZoneNeedsEverySubzoneEmptyOrFull) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().SplitZone(z, kCtx));
  ASSERT_OK(WriteAt(SubStart(z, 0), kBlock));
  EXPECT_ZONE_ERROR(dev().FinishZone(z, kCtx), ZoneError::kInvalidTransition);
  EXPECT_EQ(State(z), ZoneState::kExplicitlyOpened);
  ASSERT_OK(dev().FinishSubzone(z, 0, kCtx));
  ASSERT_OK(dev().FinishZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kFull);
  EXPECT_TRUE(Report(z).IsSplit());
  // Deactivated: its resources are free, its empty subzones take no writes.
  EXPECT_EQ(OpenCount(), 0);
  EXPECT_EQ(ActiveCount(), 0);
  EXPECT_ZONE_ERROR(WriteAt(SubStart(z, 1), kBlock), ZoneError::kZoneFull);
  EXPECT_ZONE_ERROR(dev().FinishSubzone(z, 1, kCtx), ZoneError::kInvalidTransition);
  EXPECT_EQ(Sub(z, 0).state, ZoneState::kFull);
  EXPECT_EQ(Sub(z, 1).state, ZoneState::kEmpty);
}

// --- Subzone reset (the paper's MERGE of a subzone) and MERGE/RESET ------------

TEST_F(SplitZoneTest, ResetOfSubzoneEmptiesItAndFreesItsChip) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().SplitZone(z, kCtx));
  ASSERT_OK(WriteAt(SubStart(z, 1), 2 * kBlock, 4));
  ASSERT_OK(WriteAt(SubStart(z, 2), kBlock, 5));
  ASSERT_OK(dev().ResetSubzone(z, 1, kCtx));
  const SubzoneInfo s = Sub(z, 1);
  EXPECT_EQ(s.state, ZoneState::kEmpty);
  EXPECT_EQ(s.write_pointer, SubStart(z, 1));
  EXPECT_EQ(s.chip, -1);
  EXPECT_EQ(ReadBytes(SubStart(z, 1), 2 * kBlock), std::vector<uint8_t>(2 * kBlock, 0));
  EXPECT_EQ(ReadBytes(SubStart(z, 2), kBlock), Pattern(kBlock, 5));
  ASSERT_OK(WriteAt(SubStart(z, 1), kBlock, 6));
  EXPECT_EQ(ReadBytes(SubStart(z, 1), kBlock), Pattern(kBlock, 6));
  EXPECT_NE(Sub(z, 1).chip, Sub(z, 2).chip);
}

TEST_F(SplitZoneTest, ResetOfSubzoneWorksInAFinishedSplitZone) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().SplitZone(z, kCtx));
  ASSERT_OK(WriteAt(SubStart(z, 0), SubCap()));
  ASSERT_OK(dev().FinishZone(z, kCtx));
  ASSERT_OK(dev().ResetSubzone(z, 0, kCtx));
  EXPECT_EQ(Sub(z, 0).state, ZoneState::kEmpty);
  EXPECT_EQ(State(z), ZoneState::kFull);
}

TEST_F(SplitZoneTest, OpenOfAFinishedSplitZoneReactivatesItForItsResetSubzones) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().SplitZone(z, kCtx));
  for (uint32_t i = 0; i < 4; ++i) ASSERT_OK(WriteAt(SubStart(z, i), SubCap(), 1));
  ASSERT_OK(dev().FinishZone(z, kCtx));
  EXPECT_EQ(ActiveCount(), 0);
  // Every subzone full: nothing to open it for.
  EXPECT_ZONE_ERROR(dev().OpenZone(z, kCtx), ZoneError::kInvalidTransition);
  EXPECT_EQ(State(z), ZoneState::kFull);
  ASSERT_OK(dev().ResetSubzone(z, 2, kCtx));
  EXPECT_ZONE_ERROR(WriteAt(SubStart(z, 2), kBlock), ZoneError::kZoneFull);
  ASSERT_OK(dev().OpenZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kExplicitlyOpened);
  EXPECT_EQ(ActiveCount(), 1);
  EXPECT_EQ(OpenCount(), 1);
  ASSERT_OK(WriteAt(SubStart(z, 2), kBlock, 7));
  EXPECT_EQ(ReadBytes(SubStart(z, 2), kBlock), Pattern(kBlock, 7));
  EXPECT_EQ(ReadBytes(SubStart(z, 1), kBlock), Pattern(kBlock, 1));
  EXPECT_EQ(Sub(z, 1).state, ZoneState::kFull);
  ASSERT_OK(dev().FinishSubzone(z, 2, kCtx));
  ASSERT_OK(dev().FinishZone(z, kCtx));
  EXPECT_EQ(ActiveCount(), 0);
}

TEST_F(SplitZoneTest, ReopeningAFinishedSplitZoneNeedsAnActiveResource) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().SplitZone(z, kCtx));
  ASSERT_OK(WriteAt(SubStart(z, 0), SubCap()));
  ASSERT_OK(dev().FinishZone(z, kCtx));
  ASSERT_OK(dev().ResetSubzone(z, 0, kCtx));
  for (uint32_t i = 1; i <= dev().info().max_active_zones; ++i) {
    ASSERT_OK(WriteAt(Start(Seq(i)), kBlock));
    ASSERT_OK(dev().CloseZone(Seq(i), kCtx));
  }
  EXPECT_ZONE_ERROR(dev().OpenZone(z, kCtx), ZoneError::kTooManyActive);
  EXPECT_EQ(State(z), ZoneState::kFull);
}

TEST_F(SplitZoneTest, MergeNeedsEverySubzoneEmpty) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().SplitZone(z, kCtx));
  ASSERT_OK(WriteAt(SubStart(z, 3), kBlock));
  EXPECT_ZONE_ERROR(dev().MergeZone(z, kCtx), ZoneError::kInvalidTransition);
  EXPECT_ZONE_ERROR(dev().ResetZone(z, kCtx), ZoneError::kInvalidTransition);
  ASSERT_OK(dev().FinishSubzone(z, 3, kCtx));
  EXPECT_ZONE_ERROR(dev().MergeZone(z, kCtx), ZoneError::kInvalidTransition);
  EXPECT_TRUE(Report(z).IsSplit());
  ASSERT_OK(dev().ResetSubzone(z, 3, kCtx));
  ASSERT_OK(dev().MergeZone(z, kCtx));
  const ZoneInfo zi = Report(z);
  EXPECT_FALSE(zi.IsSplit());
  EXPECT_EQ(zi.state, ZoneState::kEmpty);
  EXPECT_EQ(zi.write_pointer, Start(z));
  EXPECT_EQ(zi.capacity, dev().info().zone_capacity);
  EXPECT_EQ(OpenCount(), 0);
  EXPECT_EQ(ActiveCount(), 0);
  // A wide zone again: written at its one write pointer, read back whole.
  ASSERT_OK(WriteAt(Start(z), 20 * KiB, 9));
  EXPECT_EQ(ReadBytes(Start(z), 20 * KiB), Pattern(20 * KiB, 9));
  EXPECT_ZONE_ERROR(dev().ReportSubzones(z), ZoneError::kInvalidArgument);
}

TEST_F(SplitZoneTest, ResetOfSplitZoneWithEmptySubzonesMergesIt) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().SplitZone(z, kCtx));
  ASSERT_OK(dev().ResetZone(z, kCtx));
  EXPECT_FALSE(Report(z).IsSplit());
  EXPECT_EQ(State(z), ZoneState::kEmpty);
  EXPECT_EQ(ActiveCount(), 0);
}

TEST_F(SplitZoneTest, FinishedSplitZoneMergesOnceItsSubzonesAreReset) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().SplitZone(z, kCtx));
  ASSERT_OK(WriteAt(SubStart(z, 0), SubCap()));
  ASSERT_OK(dev().FinishZone(z, kCtx));
  EXPECT_ZONE_ERROR(dev().MergeZone(z, kCtx), ZoneError::kInvalidTransition);
  ASSERT_OK(dev().ResetSubzone(z, 0, kCtx));
  ASSERT_OK(dev().MergeZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kEmpty);
  EXPECT_OK(dev().SplitZone(z, kCtx));
}

// --- CLOSE and OPEN --------------------------------------------------------------

TEST_F(SplitZoneTest, ClosedSplitZoneReopensImplicitlyOnASubzoneWrite) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().SplitZone(z, kCtx));
  ASSERT_OK(WriteAt(SubStart(z, 0), kBlock, 1));
  ASSERT_OK(dev().CloseZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kClosed);
  EXPECT_EQ(Sub(z, 0).state, ZoneState::kClosed);
  EXPECT_EQ(OpenCount(), 0);
  EXPECT_EQ(ActiveCount(), 1);
  ASSERT_OK(WriteAt(SubStart(z, 0) + kBlock, kBlock, 2));
  EXPECT_EQ(State(z), ZoneState::kImplicitlyOpened);
  EXPECT_EQ(Sub(z, 0).state, ZoneState::kImplicitlyOpened);
  EXPECT_EQ(OpenCount(), 1);
  EXPECT_EQ(ReadBytes(SubStart(z, 0), kBlock), Pattern(kBlock, 1));
  EXPECT_EQ(ReadBytes(SubStart(z, 0) + kBlock, kBlock), Pattern(kBlock, 2));
  ASSERT_OK(dev().CloseZone(z, kCtx));
  ASSERT_OK(dev().OpenZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kExplicitlyOpened);
}

TEST_F(SplitZoneTest, ClosedSplitZoneNeedsAnOpenResourceToTakeWrites) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().SplitZone(z, kCtx));
  ASSERT_OK(WriteAt(SubStart(z, 0), kBlock));
  ASSERT_OK(dev().CloseZone(z, kCtx));
  for (uint32_t i = 1; i <= dev().info().max_open_zones; ++i) {
    ASSERT_OK(dev().OpenZone(Seq(i), kCtx));
  }
  EXPECT_ZONE_ERROR(WriteAt(SubStart(z, 0) + kBlock, kBlock), ZoneError::kTooManyOpen);
  EXPECT_EQ(Sub(z, 0).write_pointer, SubStart(z, 0) + kBlock);
}

// --- Media failures ---------------------------------------------------------------

TEST_F(SplitZoneTest, OfflineSplitZoneRefusesSubzoneCommands) {
  REQUIRE_DEVICE(CanInjectFaults());
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().SplitZone(z, kCtx));
  ASSERT_OK(WriteAt(SubStart(z, 0), kBlock));
  emulator().SetZoneOffline(z);
  EXPECT_ZONE_ERROR(WriteAt(SubStart(z, 0) + kBlock, kBlock), ZoneError::kOffline);
  EXPECT_ZONE_ERROR(TryRead(SubStart(z, 0), kBlock), ZoneError::kOffline);
  EXPECT_ZONE_ERROR(dev().ResetSubzone(z, 0, kCtx), ZoneError::kInvalidTransition);
  EXPECT_ZONE_ERROR(dev().FinishSubzone(z, 0, kCtx), ZoneError::kInvalidTransition);
  EXPECT_ZONE_ERROR(dev().MergeZone(z, kCtx), ZoneError::kInvalidTransition);
}

TEST_F(SplitZoneTest, ReadOnlySplitZoneKeepsItsSubzonesReadable) {
  REQUIRE_DEVICE(CanInjectFaults());
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().SplitZone(z, kCtx));
  ASSERT_OK(WriteAt(SubStart(z, 2), kBlock, 3));
  emulator().SetZoneReadOnly(z);
  EXPECT_ZONE_ERROR(WriteAt(SubStart(z, 2) + kBlock, kBlock), ZoneError::kReadOnly);
  EXPECT_EQ(ReadBytes(SubStart(z, 2), kBlock), Pattern(kBlock, 3));
}

}  // namespace
}  // namespace zonestack::device::conformance
