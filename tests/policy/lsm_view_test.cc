#include "policy/lsm_view.h"

#include <gtest/gtest.h>

#include "policy_test_util.h"

namespace zonestack::policy {
namespace {

using testing::FakeClock;
using testing::kSec;
using testing::SstName;
using V = std::vector<uint32_t>;

class LsmViewTest : public ::testing::Test {
 protected:
  FakeClock clock_;
  LsmView view_{clock_.fn()};
};

TEST_F(LsmViewTest, CompactionDemandFollowsStartFileAndFinishHints) {
  view_.CompactionStarted(1, 2, {{10, 1}, {11, 1}, {20, 2}});
  EXPECT_EQ(view_.Demand(), (V{0, 0, 3}));
  for (uint64_t n : {10, 11, 20}) EXPECT_TRUE(view_.Sst(n)->being_compacted) << n;
  EXPECT_EQ(view_.SstsPerLevel(), (V{0, 2, 1}));

  view_.CompactionFileStarted(1, 30);
  EXPECT_EQ(view_.Demand(), (V{0, 0, 2}));
  EXPECT_EQ(view_.PendingLevel(30), 2);
  EXPECT_EQ(view_.SstsPerLevel(), (V{0, 2, 2}));  // the new SST now counts in A_2
  EXPECT_TRUE(view_.Sst(30)->being_written);

  // A second job to the same level adds its own demand.
  view_.CompactionStarted(2, 2, {{12, 1}, {21, 2}});
  EXPECT_EQ(view_.Demand(), (V{0, 0, 4}));

  // Job 1 writes more files than it had inputs: its demand stops at 0 and
  // does not eat into job 2's.
  for (uint64_t n : {31, 32, 33}) view_.CompactionFileStarted(1, n);
  EXPECT_EQ(view_.Demand(), (V{0, 0, 2}));

  view_.CompactionFinished(1, {30, 31, 32, 33});
  EXPECT_EQ(view_.Demand(), (V{0, 0, 2}));
  for (uint64_t n : {10, 11, 20}) EXPECT_FALSE(view_.Sst(n)->being_compacted) << n;
  EXPECT_EQ(view_.Sst(10)->level, 1);  // not a trivial move: levels stay
  EXPECT_TRUE(view_.Sst(12)->being_compacted);

  view_.CompactionFileStarted(2, 34);
  view_.CompactionFinished(2, {34});  // fewer outputs than inputs: the rest is dropped
  EXPECT_EQ(view_.Demand(), (V{0, 0, 0}));
}

TEST_F(LsmViewTest, FileHintOfUnknownJobChangesNothing) {
  view_.CompactionFileStarted(9, 30);
  EXPECT_FALSE(view_.PendingLevel(30).has_value());
  EXPECT_FALSE(view_.Sst(30).has_value());
}

TEST_F(LsmViewTest, TrivialMoveRelabelsInputs) {
  view_.SetLevel(40, 2, 100);
  view_.SetLevel(41, 2, 100);
  view_.CompactionStarted(5, 3, {{40, 2}, {41, 2}});
  EXPECT_EQ(view_.Demand(), (V{0, 0, 0, 2}));
  view_.CompactionFinished(5, {41, 40});
  EXPECT_EQ(view_.Demand(), (V{0, 0, 0, 0}));
  EXPECT_EQ(view_.SstsPerLevel(), (V{0, 0, 0, 2}));
  EXPECT_EQ(view_.Sst(40)->level, 3);
  EXPECT_TRUE(view_.Sst(40)->trivially_moved);
  EXPECT_FALSE(view_.Sst(40)->being_compacted);
  EXPECT_EQ(view_.PendingLevel(41), 3);
}

TEST_F(LsmViewTest, OutputsThatDifferFromInputsAreNoTrivialMove) {
  view_.CompactionStarted(5, 3, {{40, 2}, {41, 2}});
  view_.CompactionFinished(5, {40});
  EXPECT_EQ(view_.Sst(40)->level, 2);
  EXPECT_FALSE(view_.Sst(40)->trivially_moved);
}

TEST_F(LsmViewTest, RestartedJobIdFinishesTheOldJob) {
  view_.CompactionStarted(1, 1, {{10, 0}, {11, 0}});
  view_.CompactionStarted(1, 2, {{12, 1}});
  EXPECT_EQ(view_.Demand(), (V{0, 0, 1}));
  EXPECT_FALSE(view_.Sst(10)->being_compacted);
  EXPECT_TRUE(view_.Sst(12)->being_compacted);
}

TEST_F(LsmViewTest, FlushFilesArePendingAtL0AndKeepTheirLevelOnceCreated) {
  EXPECT_FALSE(view_.PendingLevel(7).has_value());
  clock_.Set(3 * kSec);
  view_.FlushFileStarted(7);
  EXPECT_EQ(view_.PendingLevel(7), 0);
  EXPECT_TRUE(view_.Sst(7)->being_written);
  EXPECT_EQ(view_.Sst(7)->created_us, 3 * kSec);
  view_.TableFileCreated(7, 4096);
  EXPECT_EQ(view_.PendingLevel(7), 0);
  EXPECT_FALSE(view_.Sst(7)->being_written);
  EXPECT_EQ(view_.Sst(7)->size, 4096u);
  view_.TableFileDeleted(7);
  EXPECT_FALSE(view_.PendingLevel(7).has_value());
  EXPECT_EQ(view_.SstsPerLevel(), (V{0}));
}

TEST_F(LsmViewTest, LocationFromZfs) {
  view_.FlushFileStarted(7);
  view_.SetLocation(7, SstName(7), true, 0);
  auto sst = view_.Sst(7);
  EXPECT_TRUE(sst->placed);
  EXPECT_TRUE(sst->on_ssd);
  EXPECT_EQ(sst->path, "/db/000007.sst");
  view_.TableFileCreated(7, 4096);
  view_.SetLocation(7, SstName(7), false, 1024);  // sizes only grow
  EXPECT_EQ(view_.Sst(7)->size, 4096u);
  EXPECT_FALSE(view_.Sst(7)->on_ssd);
  LevelCounts c = view_.Counts();
  EXPECT_EQ(c.zones, (V{1}));
  EXPECT_EQ(c.zones_on_ssd, (V{0}));
  view_.Forget(7);
  EXPECT_FALSE(view_.Sst(7).has_value());
}

TEST_F(LsmViewTest, CountsSeparateSsdResidentSsts) {
  view_.SetLevel(1, 0, 1);
  view_.SetLevel(2, 1, 1);
  view_.SetLevel(3, 1, 1);
  view_.SetLocation(1, SstName(1), true, 1);
  view_.SetLocation(2, SstName(2), true, 1);
  view_.SetLocation(3, SstName(3), false, 1);
  view_.CompactionStarted(1, 2, {{2, 1}});
  LevelCounts c = view_.Counts();
  EXPECT_EQ(c.zones, (V{1, 2, 0}));
  EXPECT_EQ(c.zones_on_ssd, (V{1, 1, 0}));
  EXPECT_EQ(c.demand, (V{0, 0, 1}));
}

TEST_F(LsmViewTest, CountsAnSstLongerThanAZoneAsTheZonesItTakes) {
  view_.FlushFileStarted(1);          // no size yet: one zone
  view_.SetLevel(2, 0, 100);          // exactly a zone
  view_.SetLevel(3, 0, 201);          // an intra-L0 output: three zones
  view_.SetLevel(4, 1, 50);
  view_.SetLocation(3, SstName(3), true, 201);
  LevelCounts zones = view_.Counts(100);
  EXPECT_EQ(zones.zones, (V{5, 1}));
  EXPECT_EQ(zones.zones_on_ssd, (V{3, 0}));
  EXPECT_EQ(view_.Counts().zones, (V{3, 1}));  // no zone size: one per SST
  EXPECT_EQ(SstZones(0, 100), 1u);
  EXPECT_EQ(SstZones(101, 100), 2u);
  EXPECT_EQ(SstZones(1 << 30, 0), 1u);
}

TEST_F(LsmViewTest, CompactionDemandCountsTheInputsZones) {
  view_.SetLevel(1, 0, 201);  // an intra-L0 output: three zones of 100
  view_.SetLevel(2, 1, 90);
  view_.CompactionStarted(1, 1, {{1, 0}, {2, 1}, {3, 1}});  // #3: size unknown
  EXPECT_EQ(view_.Counts(100).demand, (V{0, 5}));
  EXPECT_EQ(view_.Demand(), (V{0, 3}));  // no zone size: one per SST
  view_.CompactionFileStarted(1, 10);
  EXPECT_EQ(view_.Counts(100).demand, (V{0, 4}));
  // The input's size when the job started counts, not what it is later.
  view_.SetLevel(3, 1, 1000);
  EXPECT_EQ(view_.Counts(100).demand, (V{0, 4}));
}

TEST_F(LsmViewTest, HddInputsOfARunningCompactionLeaveAiOnlyWhenAsked) {
  view_.SetLevel(1, 0, 201);
  view_.SetLocation(1, SstName(1), false, 201);  // three zones on the HDD
  view_.SetLevel(2, 0, 100);
  view_.SetLocation(2, SstName(2), true, 100);  // one zone on the SSD
  view_.SetLevel(3, 1, 100);
  view_.SetLocation(3, SstName(3), false, 100);
  view_.SetLevel(4, 1, 100);  // not placed yet: counts
  EXPECT_EQ(view_.Counts(100).zones, (V{4, 2}));
  view_.CompactionStarted(1, 1, {{1, 0}, {2, 0}, {3, 1}});
  // The paper's A_i: every allocated zone, inputs of running jobs too.
  EXPECT_EQ(view_.Counts(100).zones, (V{4, 2}));
  LevelCounts c = view_.Counts(100, /*exclude_hdd_inputs=*/true);
  // The SSD input still takes its zone until it is deleted; the HDD inputs
  // never take SSD zones, and their data is in D_1.
  EXPECT_EQ(c.zones, (V{1, 1}));
  EXPECT_EQ(c.zones_on_ssd, (V{1, 0}));
  EXPECT_EQ(c.demand, (V{0, 5}));
  view_.CompactionFinished(1, {11});
  // Until RocksDB deletes them.
  EXPECT_EQ(view_.Counts(100, /*exclude_hdd_inputs=*/true).zones, (V{4, 2}));
}

TEST_F(LsmViewTest, ReadRateIsReadsOverAgeWithAtLeastOneSecond) {
  SstInfo s;
  s.created_us = 2 * kSec;
  s.reads = 10;
  EXPECT_DOUBLE_EQ(s.ReadRate(7 * kSec), 2.0);
  EXPECT_DOUBLE_EQ(s.ReadRate(2 * kSec + kSec / 2), 10.0);
  EXPECT_DOUBLE_EQ(s.ReadRate(0), 10.0);
}

TEST_F(LsmViewTest, HddReadRateCountsHddReadsInWholeSeconds) {
  view_.SetLevel(1, 1, 1);
  view_.SetLocation(1, SstName(1), false, 1);
  view_.SetLevel(2, 1, 1);
  view_.SetLocation(2, SstName(2), true, 1);
  for (int i = 0; i < 6; ++i) view_.RecordRead(1);  // second 0
  for (int i = 0; i < 50; ++i) view_.RecordRead(2);  // SSD: not counted
  view_.RecordRead(99);                               // unknown SST: ignored
  view_.SetLevel(3, 1, 1);                            // not placed by zfs yet:
  view_.RecordRead(3);                                // not an HDD read
  clock_.Set(kSec + kSec / 2);
  for (int i = 0; i < 4; ++i) view_.RecordRead(1);  // second 1
  EXPECT_EQ(view_.Sst(1)->reads, 10u);
  EXPECT_EQ(view_.Sst(2)->reads, 50u);
  // Second 1 is still in progress: only second 0 counts.
  EXPECT_DOUBLE_EQ(view_.HddReadRate(2 * kSec), 3.0);
  EXPECT_DOUBLE_EQ(view_.HddReadRate(kSec), 6.0);
  clock_.Set(2 * kSec);
  EXPECT_DOUBLE_EQ(view_.HddReadRate(2 * kSec), 5.0);
  EXPECT_DOUBLE_EQ(view_.HddReadRate(kSec), 4.0);
  EXPECT_DOUBLE_EQ(view_.HddReadRate(kSec + 1), 5.0);  // rounded up to 2 s
  clock_.Set(10 * kSec);
  EXPECT_DOUBLE_EQ(view_.HddReadRate(2 * kSec), 0.0);
}

TEST_F(LsmViewTest, MemoryBytesCountsEntries) {
  EXPECT_EQ(view_.MemoryBytes(), 0u);
  constexpr size_t kSstEntry =
      LsmView::kMapNodeOverhead + sizeof(std::pair<const uint64_t, SstInfo>);
  view_.SetLevel(1, 1, 1);
  view_.SetLocation(1, SstName(1), true, 1);  // 14 characters: kept inline
  EXPECT_EQ(view_.MemoryBytes(), kSstEntry);
  const std::string long_path = "/a/rather/long/database/path/000002.sst";
  view_.SetLocation(2, long_path, false, 1);
  const size_t with_two = view_.MemoryBytes();
  EXPECT_GE(with_two, 2 * kSstEntry + long_path.size() + 1);
  EXPECT_LE(with_two, 2 * kSstEntry + 2 * long_path.size() + 1);
  view_.RecordRead(2);
  EXPECT_EQ(view_.MemoryBytes(), with_two + sizeof(std::pair<uint64_t, uint64_t>));
}

}  // namespace
}  // namespace zonestack::policy
