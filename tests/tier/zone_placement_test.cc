// Critical Access Frequency placement (src/tier/zone_placement.cc).
#include "tier/zone_placement.h"

#include <gtest/gtest.h>

namespace zonestack::tier {
namespace {

void Access(ZonePlacement& p, uint64_t extent, int n, AccessKind kind = AccessKind::kRead) {
  for (int i = 0; i < n; ++i) p.Record(extent, kind);
}

TEST(ZonePlacementTest, TheHottestExtentsFillFreeSlotsAndSetTheCaf) {
  ZonePlacement p(10, PlacementOptions{});
  Access(p, 3, 9);
  Access(p, 7, 5);
  Access(p, 1, 2);
  std::vector<bool> on_ssd(10, false);
  const auto moves = p.EndPeriod(on_ssd, 2, 2);
  ASSERT_EQ(moves.size(), 2u);
  EXPECT_EQ(moves[0].promote, 3u);
  EXPECT_EQ(moves[1].promote, 7u);
  EXPECT_EQ(moves[0].demote, UINT64_MAX);
  // The second slot's extent sets the bar extent 1 stays below.
  EXPECT_DOUBLE_EQ(p.critical_access_frequency(), 5);
}

TEST(ZonePlacementTest, SequentialWritesDoNotMakeAZoneCritical) {
  ZonePlacement p(4, PlacementOptions{});  // ZoneTier's weights
  Access(p, 0, 50, AccessKind::kSequentialWrite);
  Access(p, 1, 3, AccessKind::kNsw);
  const auto moves = p.EndPeriod(std::vector<bool>(4, false), 1, 1);
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_EQ(moves[0].promote, 1u);
}

TEST(ZonePlacementTest, AHotterExtentDisplacesTheColdestOnlyPastTheHysteresis) {
  PlacementOptions o;
  o.decay = 0;  // each period on its own
  ZonePlacement p(4, o);
  std::vector<bool> on_ssd(4, false);
  on_ssd[0] = true;
  Access(p, 0, 10);
  Access(p, 2, 12);  // above, but within 25%
  EXPECT_TRUE(p.EndPeriod(on_ssd, 1, 0).empty());
  Access(p, 0, 10);
  Access(p, 2, 13);  // more than 25% above
  const auto moves = p.EndPeriod(on_ssd, 1, 0);
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_EQ(moves[0].promote, 2u);
  EXPECT_EQ(moves[0].demote, 0u);
}

TEST(ZonePlacementTest, FrequenciesDecayAcrossPeriods) {
  PlacementOptions o;
  o.decay = 0.5;
  ZonePlacement p(2, o);
  Access(p, 1, 8);
  p.EndPeriod(std::vector<bool>(2, false), 0, 0);
  p.EndPeriod(std::vector<bool>(2, false), 0, 0);
  EXPECT_DOUBLE_EQ(p.frequency(1), 4);
}

}  // namespace
}  // namespace zonestack::tier
