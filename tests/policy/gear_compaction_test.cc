// GearDB's compaction windows and gear compaction plan
// (policy/gear_compaction.h) on synthetic zone snapshots and levels.
#include "policy/gear_compaction.h"

#include <gtest/gtest.h>

#include "policy_test_util.h"

namespace zonestack::policy {
namespace {

using Zones = std::vector<std::pair<uint32_t, uint32_t>>;

GearZone Zone(uint32_t zone, int level, std::vector<uint64_t> ssts, uint64_t written = 100) {
  return GearZone{.device = 0, .zone = zone, .level = level, .written_bytes = written,
                  .ssts = std::move(ssts)};
}

GearSst Sst(uint64_t number, const std::string& smallest, const std::string& largest,
            uint64_t size = 10) {
  return GearSst{.number = number, .size = size, .smallest = smallest, .largest = largest};
}

TEST(GearWindowsTest, TopLevelsHaveTheWholeLevelAsWindow) {
  GearWindows w({.k = 4, .whole_window_levels = 2});
  w.Update({Zone(1, 0, {10}), Zone(2, 1, {3, 4}), Zone(3, 1, {5})});
  EXPECT_EQ(w.WindowZones(0), (Zones{{0, 1}}));
  EXPECT_EQ(w.WindowZones(1), (Zones{{0, 2}, {0, 3}}));
  for (uint64_t sst : {10, 3, 4, 5}) EXPECT_TRUE(w.InWindow(sst)) << sst;
}

TEST(GearWindowsTest, AWindowIsTheOldestQuarterOfALevelsZones) {
  GearWindows w({.k = 4, .whole_window_levels = 2});
  // Five L2 zones: ceil(5/4) = 2 form the window, the oldest by SST number.
  w.Update({Zone(7, 2, {50, 51}), Zone(3, 2, {20}), Zone(9, 2, {60}), Zone(4, 2, {30, 12}),
            Zone(5, 2, {40})});
  EXPECT_EQ(w.WindowZones(2), (Zones{{0, 4}, {0, 3}}));
  EXPECT_TRUE(w.InWindow(12));
  EXPECT_TRUE(w.InWindow(30));
  EXPECT_TRUE(w.InWindow(20));
  EXPECT_FALSE(w.InWindow(40));
  EXPECT_FALSE(w.InWindow(60));
  EXPECT_EQ(w.windows_formed(), 1u);
}

TEST(GearWindowsTest, TheWindowStaysUntilItsZonesAreReleasedThenRotates) {
  GearWindows w({.k = 2, .whole_window_levels = 1});
  w.Update({Zone(1, 1, {1, 2}), Zone(2, 1, {3}), Zone(3, 1, {4}), Zone(4, 1, {5})});
  ASSERT_EQ(w.WindowZones(1), (Zones{{0, 1}, {0, 2}}));
  // Zone 1 emptied and was reset; new zones arrived: the window keeps zone 2
  // alone and does not grow.
  w.Update({Zone(2, 1, {3}), Zone(3, 1, {4}), Zone(4, 1, {5}), Zone(5, 1, {6}), Zone(6, 1, {7})});
  EXPECT_EQ(w.WindowZones(1), (Zones{{0, 2}}));
  EXPECT_EQ(w.zones_released(), 1u);
  EXPECT_EQ(w.windows_released(), 0u);
  // Zone 2 released too: the window is released and the next oldest
  // ceil(4/2) = 2 zones form the new one.
  w.Update({Zone(3, 1, {4}), Zone(4, 1, {5}), Zone(5, 1, {6}), Zone(6, 1, {7})});
  EXPECT_EQ(w.WindowZones(1), (Zones{{0, 3}, {0, 4}}));
  EXPECT_EQ(w.zones_released(), 2u);
  EXPECT_EQ(w.windows_released(), 1u);
  EXPECT_EQ(w.windows_formed(), 2u);
}

TEST(GearWindowsTest, AZoneResetAndReusedLeavesTheWindow) {
  GearWindows w({.k = 2, .whole_window_levels = 1});
  w.Update({Zone(1, 1, {1}, 500), Zone(2, 1, {2}, 500)});
  ASSERT_EQ(w.WindowZones(1), (Zones{{0, 1}}));
  // Between two snapshots zone 1 was reset and written again (less data
  // than before): released, though it is in the snapshot.
  w.Update({Zone(1, 1, {9}, 100), Zone(2, 1, {2}, 500)});
  EXPECT_EQ(w.zones_released(), 1u);
  EXPECT_EQ(w.WindowZones(1), (Zones{{0, 2}}));  // the oldest now
  // A zone taken by another level leaves this level's window too.
  w.Update({Zone(2, 3, {2}, 500), Zone(1, 1, {9}, 100)});
  EXPECT_EQ(w.zones_released(), 2u);
  EXPECT_EQ(w.WindowZones(1), (Zones{{0, 1}}));
}

TEST(GearWindowsTest, WindowsAreRebuiltTheSameFromASnapshot) {
  const std::vector<GearZone> zones = {Zone(1, 2, {5}), Zone(2, 2, {8}), Zone(3, 2, {2}),
                                       Zone(4, 3, {1}), Zone(5, 3, {9})};
  GearWindows a({}), b({});
  a.Update(zones);
  b.Update(zones);  // a restart: the same snapshot gives the same windows
  for (int level : {2, 3}) EXPECT_EQ(a.WindowZones(level), b.WindowZones(level));
  EXPECT_EQ(a.WindowZones(2), (Zones{{0, 3}}));
  EXPECT_EQ(a.WindowZones(3), (Zones{{0, 4}}));
}

GearLimits Limits() {
  return GearLimits{.l0_trigger = 2, .base_bytes = 100, .multiplier = 10, .num_levels = 4};
}

TEST(GearPlanTest, LimitsGrowByTheMultiplier) {
  EXPECT_EQ(Limits().Limit(1), 100u);
  EXPECT_EQ(Limits().Limit(2), 1000u);
  EXPECT_EQ(Limits().Limit(3), 10000u);
}

TEST(GearPlanTest, L0AtItsTriggerIsAnActiveCompactionOfAllOfIt) {
  GearWindows w({});
  GearLevels levels = {{Sst(7, "a", "z"), Sst(8, "b", "c")}, {Sst(3, "a", "m")}};
  auto step = PlanStep(levels, w, Limits(), {});
  ASSERT_TRUE(step.has_value());
  EXPECT_EQ(step->kind, GearStep::Kind::kActive);
  EXPECT_EQ(step->output_level, 1);
  EXPECT_EQ(step->inputs, (std::vector<uint64_t>{7, 8}));
  levels[0].pop_back();
  EXPECT_FALSE(PlanStep(levels, w, Limits(), {}).has_value());  // below the trigger, L1 within its limit
}

// LevelDB's choice: the higher score, L0's SSTs over its trigger or a
// level's bytes over its limit. L0 at its trigger does not starve an L1
// far over its limit.
TEST(GearPlanTest, TheLevelFurthestOverItsLimitGoesFirst) {
  GearWindows w({});
  GearLevels levels = {{Sst(7, "a", "z"), Sst(8, "b", "c")},
                       {Sst(3, "a", "m", 600), Sst(4, "n", "z", 600)}};  // 12x its limit
  auto step = PlanStep(levels, w, Limits(), {});
  ASSERT_TRUE(step.has_value());
  EXPECT_EQ(step->input_level, 1);
  EXPECT_EQ(step->output_level, 2);
  // L0 at three times its trigger against L1 at 1.2 times its limit.
  levels[0] = {Sst(7, "a", "z"), Sst(8, "b", "c"), Sst(9, "a", "b"), Sst(10, "c", "d"),
               Sst(14, "e", "f"), Sst(15, "g", "h")};
  levels[1] = {Sst(3, "a", "m", 60), Sst(4, "n", "z", 60)};
  step = PlanStep(levels, w, Limits(), {});
  ASSERT_TRUE(step.has_value());
  EXPECT_EQ(step->kind, GearStep::Kind::kActive);
}

// L1 over its limit (3 x 40 > 100); L2's window holds SST 20 ("d".."e") only.
struct Tree {
  GearLevels levels = {
      {},
      {Sst(11, "a", "c", 40), Sst(12, "d", "f", 40), Sst(13, "g", "i", 40)},
      {Sst(21, "a", "b", 500), Sst(20, "d", "e", 500), Sst(22, "g", "h", 500)},
  };
  GearWindows windows{{.k = 3, .whole_window_levels = 2}};
  Tree() {
    windows.Update({Zone(1, 1, {11, 12, 13}), Zone(2, 2, {20}), Zone(3, 2, {21}),
                    Zone(4, 2, {22})});
  }
};

TEST(GearPlanTest, AWindowVictimOverlappingOnlyTheNextWindowGoesFirst) {
  Tree t;
  ASSERT_TRUE(t.windows.InWindow(20));
  ASSERT_FALSE(t.windows.InWindow(21));
  auto step = PlanStep(t.levels, t.windows, Limits(), {});
  ASSERT_TRUE(step.has_value());
  EXPECT_EQ(step->kind, GearStep::Kind::kWindow);
  EXPECT_EQ(step->input_level, 1);
  EXPECT_EQ(step->output_level, 2);
  EXPECT_EQ(step->inputs, (std::vector<uint64_t>{12}));  // over 20, not the smallest key
}

TEST(GearPlanTest, AVictimWithNothingBelowIsDumpedBeforeOneOutsideTheWindow) {
  Tree t;
  t.levels[1][1] = Sst(12, "c1", "c2", 40);  // now in the gap between 21 and 20
  t.levels[1].push_back(Sst(14, "j", "k", 40));  // beyond L2's key range
  auto step = PlanStep(t.levels, t.windows, Limits(), {});
  ASSERT_TRUE(step.has_value());
  EXPECT_EQ(step->kind, GearStep::Kind::kDump);
  EXPECT_EQ(step->inputs, (std::vector<uint64_t>{12}));  // the first in key order
}

TEST(GearPlanTest, WithoutABetterVictimTheOneWithLeastOutOfWindowBytesGoes) {
  Tree t;
  t.levels[1].erase(t.levels[1].begin() + 1);  // no victim over L2's window
  t.levels[1].push_back(Sst(14, "l", "m", 40));
  t.levels[2][2].size = 300;  // 22 ("g".."h") is the smaller one outside
  t.levels[2].push_back(Sst(23, "l", "m", 600));
  // The window keeps zone 2 (SST 20), though k = 3 of four zones is two.
  t.windows.Update({Zone(1, 1, {11, 13, 14}), Zone(2, 2, {20}), Zone(3, 2, {21}),
                    Zone(4, 2, {22}), Zone(5, 2, {23})});
  auto step = PlanStep(t.levels, t.windows, Limits(), {});
  ASSERT_TRUE(step.has_value());
  EXPECT_EQ(step->kind, GearStep::Kind::kOutOfWindow);
  EXPECT_EQ(step->inputs, (std::vector<uint64_t>{13}));
  EXPECT_EQ(step->out_of_window_bytes, 300u);
}

TEST(GearPlanTest, VictimsComeFromTheWindowAndSkipBusySsts) {
  Tree t;
  // L2 over its limit with L3 empty: its window (zone 2, SST 20) gives the
  // victim, a dump since L3 is empty.
  t.levels[1] = {};
  t.levels[2].push_back(Sst(24, "x", "y", 500));
  t.levels.push_back({});
  auto step = PlanStep(t.levels, t.windows, Limits(), {});
  ASSERT_TRUE(step.has_value());
  EXPECT_EQ(step->input_level, 2);
  EXPECT_EQ(step->kind, GearStep::Kind::kDump);
  EXPECT_EQ(step->inputs, (std::vector<uint64_t>{20}));
  t.levels[2][1].being_compacted = true;
  step = PlanStep(t.levels, t.windows, Limits(), {});
  EXPECT_FALSE(step.has_value());  // nothing else in the window; no second step beside a running one
}

TEST(GearPlanTest, TheCascadeTakesOutputsOverTheNextWindowOrOverNothing) {
  // L1 was just compacted into L2, which is now over its limit; L3 holds
  // more than a window (10000 / 4) and its window is SST 30 ("m".."p").
  GearLevels levels = {
      {},
      {},
      {Sst(40, "a", "c", 300), Sst(41, "d", "f", 300), Sst(42, "n", "o", 300),
       Sst(43, "q", "r", 300), Sst(44, "x", "z", 300)},
      {Sst(31, "a", "e", 2000), Sst(30, "m", "p", 2000), Sst(32, "q", "s", 2000)},
  };
  GearWindows w({.k = 4, .whole_window_levels = 2});
  w.Update({Zone(1, 2, {40, 41, 42, 43, 44}), Zone(2, 3, {30}), Zone(3, 3, {31}),
            Zone(4, 3, {32}), Zone(5, 3, {33})});
  ASSERT_TRUE(w.InWindow(30));
  ASSERT_FALSE(w.InWindow(31));
  const std::vector<GearStep> steps =
      PlanCascade(levels, 2, {40, 41, 42, 44}, w, Limits(), {.k = 4});
  // 42 lies over the window; 44 over nothing; 40 and 41 over 31 (outside)
  // stay; 43 was not an output. Two runs: 42, then 44 (43 between them).
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].kind, GearStep::Kind::kPassive);
  EXPECT_EQ(steps[0].output_level, 3);
  EXPECT_EQ(steps[0].inputs, (std::vector<uint64_t>{42}));
  EXPECT_EQ(steps[1].inputs, (std::vector<uint64_t>{44}));
}

TEST(GearPlanTest, TheCascadeStopsUnlessTheLevelIsOverItsLimitAndTheNextHoldsAWindow) {
  GearLevels levels = {{}, {}, {Sst(40, "n", "o", 300)}, {Sst(31, "m", "p", 5000)}};
  GearWindows w({.k = 4, .whole_window_levels = 2});
  w.Update({Zone(1, 2, {40}), Zone(2, 3, {31})});
  // L2 (300) within its limit (1000).
  EXPECT_TRUE(PlanCascade(levels, 2, {40}, w, Limits(), {.k = 4}).empty());
  levels[2][0].size = 1500;
  EXPECT_EQ(PlanCascade(levels, 2, {40}, w, Limits(), {.k = 4}).size(), 1u);
  // L3 below a window's worth (10000 / 4).
  levels[3][0].size = 2000;
  EXPECT_TRUE(PlanCascade(levels, 2, {40}, w, Limits(), {.k = 4}).empty());
  // The last level cascades nowhere.
  EXPECT_TRUE(PlanCascade(levels, 3, {31}, w, Limits(), {.k = 4}).empty());
}

TEST(GearCountersTest, AddsAndSets) {
  GearCounters c;
  c.Add("window", 2);
  c.Add("window", 3);
  c.Set("zones_released", 7);
  EXPECT_EQ(c.Snapshot(), (std::map<std::string, int64_t>{{"window", 5}, {"zones_released", 7}}));
}

TEST(GearDbSchemeTest, EachLevelHasItsOwnPlacementGroupAndGcIsNotAllowed) {
  auto s = MakeScheme("geardb");
  ASSERT_TRUE(s.ok()) << s.status();
  const std::vector<DeviceView> devices = {testing::Ssd(100, 50)};
  std::set<uint32_t> groups;
  for (int level = 0; level < 7; ++level) {
    const PlacementDecision d = (*s)->Place(testing::SstHint(10 + level, level), devices);
    EXPECT_EQ(GearLevelOfGroup(d.group), level);
    groups.insert(d.group);
  }
  groups.insert((*s)->Place(testing::WalHint(), devices).group);
  groups.insert((*s)->Place(testing::ManifestHint(), devices).group);
  EXPECT_EQ(groups.size(), 9u);
  EXPECT_EQ(GearLevelOfGroup((*s)->Place(testing::WalHint(), devices).group), -1);
  // An SST no hint gave a level goes with L0.
  EXPECT_EQ(GearLevelOfGroup((*s)->Place(testing::SstHint(99), devices).group), 0);
  EXPECT_FALSE((*s)->allows_gc());
  ASSERT_TRUE((*s)->gear().has_value());
  EXPECT_EQ((*s)->gear()->options.k, 4u);
  EXPECT_EQ((*s)->gear()->options.whole_window_levels, 2u);
}

TEST(GearDbSchemeTest, OptionsAreChecked) {
  auto c = ParseSchemeConfig(nlohmann::json{{"name", "geardb"}, {"k", 8}});
  ASSERT_TRUE(c.ok()) << c.status();
  auto s = MakeScheme(*c);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->gear()->options.k, 8u);
  EXPECT_FALSE(ParseSchemeConfig(nlohmann::json{{"name", "geardb"}, {"k", 0}}).ok());
  EXPECT_FALSE(ParseSchemeConfig(nlohmann::json{{"name", "geardb"}, {"window", 4}}).ok());
}

}  // namespace
}  // namespace zonestack::policy
