#include "policy/hhzs_placement.h"

#include <gtest/gtest.h>

#include "policy_test_util.h"

namespace zonestack::policy {
namespace {

using testing::Ssd;
using V = std::vector<uint32_t>;

TEST(TieringLevelTest, FirstLevelWhoseCumulativeNeedReachesCapacity) {
  // cumulative A+D: 3, 6, 13 -> L2 is the first to reach 10.
  EXPECT_EQ(TieringLevel(V{2, 3, 5, 10}, V{1, 0, 2, 0}, 10), 2);
  EXPECT_EQ(TieringSlots(V{2, 3, 5, 10}, V{1, 0, 2, 0}, 10, 2), 4);
}

TEST(TieringLevelTest, ExactlyReachingCapacityMakesThatLevelTheTieringLevel) {
  // cumulative 4, 10: ">= C_ssd" holds at L1; L1 then fits exactly.
  EXPECT_EQ(TieringLevel(V{4, 6, 1}, V{0, 0, 0}, 10), 1);
  EXPECT_EQ(TieringSlots(V{4, 6, 1}, V{0, 0, 0}, 10, 1), 6);
  // One short of the capacity: L1 fits, L2 becomes the tiering level.
  EXPECT_EQ(TieringLevel(V{4, 5, 1}, V{0, 0, 0}, 10), 2);
  EXPECT_EQ(TieringSlots(V{4, 5, 1}, V{0, 0, 0}, 10, 2), 1);
}

TEST(TieringLevelTest, EverythingFitsGivesTheNumberOfLevels) {
  EXPECT_EQ(TieringLevel(V{1, 2}, V{0, 1}, 10), 2);
  EXPECT_EQ(TieringSlots(V{1, 2}, V{0, 1}, 10, 2), 6);
  EXPECT_EQ(TieringLevel(V{}, V{}, 5), 0);
  EXPECT_EQ(TieringSlots(V{}, V{}, 5, 0), 5);
}

TEST(TieringLevelTest, L0AloneOverCapacityIsTieringLevelZero) {
  EXPECT_EQ(TieringLevel(V{12}, V{3}, 10), 0);
  EXPECT_EQ(TieringSlots(V{12}, V{3}, 10, 0), 10);
}

TEST(TieringLevelTest, NoCapacityMeansNoSsdSlots) {
  EXPECT_EQ(TieringLevel(V{0, 1}, V{0, 0}, 0), 0);
  EXPECT_EQ(TieringSlots(V{0, 1}, V{0, 0}, 0, 0), 0);
  EXPECT_EQ(TieringLevel(V{0, 1}, V{0, 0}, -3), 0);
  EXPECT_EQ(TieringSlots(V{0, 1}, V{0, 0}, -3, 0), 0);
}

TEST(TieringLevelTest, DemandAloneCanSetTheTieringLevel) {
  // Vectors of different lengths: cumulative 1, 1, 10.
  EXPECT_EQ(TieringLevel(V{1}, V{0, 0, 9}, 5), 2);
  EXPECT_EQ(TieringSlots(V{1}, V{0, 0, 9}, 5, 2), 4);
}

TEST(SstToSsdTest, Step4Choices) {
  EXPECT_TRUE(SstToSsd(0, 2, 5, 0));   // below L_t: always
  EXPECT_TRUE(SstToSsd(1, 2, 5, 0));
  EXPECT_TRUE(SstToSsd(2, 2, 3, 4));   // L_t with a reserved zone left
  EXPECT_FALSE(SstToSsd(2, 2, 4, 4));  // L_t's reservation used up
  EXPECT_FALSE(SstToSsd(3, 2, 0, 4));  // above L_t: never
  EXPECT_FALSE(SstToSsd(0, 0, 0, 0));  // no SSD capacity at all
  // An SST of several zones needs that many of L_t's reserved zones.
  EXPECT_TRUE(SstToSsd(2, 2, 1, 4, 3));
  EXPECT_FALSE(SstToSsd(2, 2, 2, 4, 3));
  EXPECT_TRUE(SstToSsd(1, 2, 9, 4, 3));  // below L_t: always
}

TEST(ComputeTieringTest, CapacityExcludesPoolAndGcReserveAndWalZonesAddToL0Demand) {
  LevelCounts counts{V{2, 3, 10}, V{2, 3, 4}, V{0, 1, 4}};
  // 20 data zones - 2 pool zones - 1 GC reserve = 17; of the two pool zones
  // in use one is a cache zone, so one WAL zone adds to D_0.
  Tiering t = ComputeTiering(counts, Ssd(20, 5, 2, 1), 2);
  EXPECT_EQ(t.ssd_capacity, 17);
  EXPECT_EQ(t.demand, (V{1, 1, 4}));
  // cumulative 3, 7, 21 -> t = 2 with 17 - 7 = 10 slots.
  EXPECT_EQ(t.level, 2);
  EXPECT_EQ(t.slots, 10);
  EXPECT_EQ(t.DemandBelowT(), 2u);
  EXPECT_EQ(t.OnSsdAt(2), 4u);
  EXPECT_TRUE(t.ToSsd(2));
  EXPECT_FALSE(t.ToSsd(3));
}

TEST(ComputeTieringTest, PendingZonesAreTheDemandBelowTAndLtsDemandUpToItsUnusedSlots) {
  // As above: D_0 + D_1 = 2 below L_t; L_t has 10 - 4 = 6 unused slots and
  // D_2 = 4, so all of its demand is pending.
  Tiering t = ComputeTiering(LevelCounts{V{2, 3, 10}, V{2, 3, 4}, V{0, 1, 4}}, Ssd(20, 5, 2, 1), 2);
  EXPECT_EQ(t.PendingZones(), 6u);
  // Nine of L_t's ten slots used: of D_2 = 8 only one zone is L_t's to take.
  Tiering full =
      ComputeTiering(LevelCounts{V{2, 3, 10}, V{2, 3, 9}, V{0, 1, 8}}, Ssd(20, 5, 2, 1), 2);
  EXPECT_EQ(full.level, 2);
  EXPECT_EQ(full.slots, 10);
  EXPECT_EQ(full.PendingZones(), 3u);
}

TEST(ComputeTieringTest, NoSsdCapacityFitsNothing) {
  Tiering t = ComputeTiering(LevelCounts{V{0}, V{0}, V{0}}, Ssd(3, 3), 2);
  EXPECT_EQ(t.ssd_capacity, 0);
  EXPECT_FALSE(t.fits_all);
  EXPECT_FALSE(t.ToSsd(0));
}

TEST(ComputeTieringTest, WalZonesCanLowerTheTieringLevel) {
  LevelCounts counts{V{0, 3, 3}, V{0, 3, 3}, V{0, 0, 0}};
  // C_ssd = 10 - 2 - 1 = 7. No WAL zone in use: 0, 3, 6 -> all fit.
  Tiering all = ComputeTiering(counts, Ssd(10, 2, 2, 2), 2);
  EXPECT_EQ(all.level, 3);
  EXPECT_TRUE(all.fits_all);
  EXPECT_TRUE(all.ToSsd(5));  // a level not seen yet fits too
  // Two WAL zones in use: 2, 5, 8 -> L2 is the tiering level, 2 slots.
  Tiering t = ComputeTiering(counts, Ssd(10, 2, 2, 0), 2);
  EXPECT_EQ(t.level, 2);
  EXPECT_EQ(t.slots, 2);
  EXPECT_FALSE(t.fits_all);
  EXPECT_FALSE(t.ToSsd(2));  // three L2 SSTs already on the SSD
}

}  // namespace
}  // namespace zonestack::policy
