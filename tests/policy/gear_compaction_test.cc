// GearDB's compaction windows and gear compaction plan
// (policy/gear_compaction.h) on synthetic zone snapshots and levels.
#include "policy/gear_compaction.h"

#include <gtest/gtest.h>

#include "policy_test_util.h"

namespace zonestack::policy {
namespace {

constexpr GearWindowing kSlices = GearWindowing::kKeySlices;

GearZone Zone(uint32_t zone, int level, std::vector<uint64_t> ssts, uint64_t written = 100) {
  return GearZone{.device = 0, .zone = zone, .level = level, .written_bytes = written,
                  .ssts = std::move(ssts)};
}

GearSst Sst(uint64_t number, const std::string& smallest, const std::string& largest,
            uint64_t size = 10) {
  return GearSst{.number = number, .size = size, .smallest = smallest, .largest = largest};
}

// Eight L2 SSTs of 10 bytes, "a".."h", one key each; k = 4 cuts them
// at "c", "e" and "g" (a quarter of the bytes each).
GearLevels EightSsts(int level = 2) {
  GearLevels levels(level + 1);
  for (char c = 'a'; c <= 'h'; ++c) {
    levels[level].push_back(Sst(100 + (c - 'a'), std::string(1, c), std::string(1, c)));
  }
  return levels;
}

TEST(GearWindowsTest, UntilTheTreeIsLargeEnoughOneWindowCoversAllKeys) {
  GearWindows w({.windows = kSlices, .k = 4, .whole_window_levels = 2});
  GearLevels levels = {{}, {}, {Sst(1, "a", "b"), Sst(2, "c", "d"), Sst(3, "e", "f")}};
  w.Update(levels, {});
  EXPECT_EQ(w.slices(), 1u);  // three SSTs in the largest level, fewer than k
  EXPECT_TRUE(w.InWindow(2, Sst(3, "e", "f")));
  EXPECT_EQ(w.windows_formed(), 0u);
  w.Update(EightSsts(), {});
  EXPECT_EQ(w.cuts(), (std::vector<std::string>{"c", "e", "g"}));
  EXPECT_EQ(w.window(), 0u);
  EXPECT_EQ(w.lo(), "");
  EXPECT_EQ(w.hi(), std::optional<std::string>("c"));
  EXPECT_EQ(w.windows_formed(), 1u);
  EXPECT_TRUE(w.InWindow(2, Sst(1, "a", "b")));
  EXPECT_FALSE(w.InWindow(2, Sst(2, "c", "d")));
  EXPECT_TRUE(w.InWindow(2, Sst(3, "b", "d")));  // overlaps the window
  EXPECT_FALSE(w.Inside(Sst(3, "b", "d")));      // but straddles its end
  EXPECT_TRUE(w.InWindow(1, Sst(2, "c", "d")));  // L1: the whole level
  EXPECT_TRUE(w.InWindow(0, Sst(2, "x", "z")));
}

TEST(GearWindowsTest, TheWindowRotatesSliceBySliceAndIsRecutEachRound) {
  GearWindows w({.windows = kSlices, .k = 4, .whole_window_levels = 2});
  GearLevels levels = EightSsts();
  w.Update(levels, {});
  const std::vector<std::pair<std::string, std::optional<std::string>>> ranges = {
      {"c", "e"}, {"e", "g"}, {"g", std::nullopt}};
  for (const auto& [lo, hi] : ranges) {
    w.Rotate(levels);
    EXPECT_EQ(w.lo(), lo);
    EXPECT_EQ(w.hi(), hi);
  }
  EXPECT_FALSE(w.InWindow(2, Sst(1, "a", "f")));
  EXPECT_TRUE(w.InWindow(2, Sst(1, "a", "g")));
  // A new round over a tree whose slices still hold about equal bytes
  // ("b".."i" in L3: no slice over twice its share): the cuts stay.
  GearLevels shifted(4);
  for (char c = 'b'; c <= 'i'; ++c) {
    shifted[3].push_back(Sst(200 + (c - 'a'), std::string(1, c), std::string(1, c)));
  }
  w.Rotate(shifted);
  EXPECT_EQ(w.window(), 0u);
  EXPECT_EQ(w.cuts(), (std::vector<std::string>{"c", "e", "g"}));
  EXPECT_EQ(w.cuts_taken(), 1u);
  // The data moved to "m".."t", all in the last slice: the next round
  // cuts again where the bytes are.
  GearLevels moved(4);
  for (char c = 'm'; c <= 't'; ++c) {
    moved[3].push_back(Sst(300 + (c - 'a'), std::string(1, c), std::string(1, c)));
  }
  for (int i = 0; i < 4; ++i) w.Rotate(moved);
  EXPECT_EQ(w.window(), 0u);
  EXPECT_EQ(w.cuts(), (std::vector<std::string>{"o", "q", "s"}));
  EXPECT_EQ(w.windows_released(), 8u);
  EXPECT_EQ(w.windows_formed(), 9u);
  EXPECT_EQ(w.cuts_taken(), 2u);
}

TEST(GearWindowsTest, CursorsArePerLevelAndWindow) {
  GearWindows w({.windows = kSlices, .k = 4, .whole_window_levels = 2});
  GearLevels levels = EightSsts();
  w.Update(levels, {});
  EXPECT_FALSE(w.Cursor(2).has_value());
  w.Advance(2, "b");
  w.Advance(1, "a");
  EXPECT_EQ(w.Cursor(2), std::optional<std::string>("b"));
  w.Rotate(levels);
  EXPECT_FALSE(w.Cursor(2).has_value());  // its own in the next window
  for (int i = 0; i < 3; ++i) w.Rotate(levels);
  EXPECT_EQ(w.window(), 0u);
  EXPECT_EQ(w.Cursor(2), std::optional<std::string>("b"));  // kept over the round
  EXPECT_EQ(w.Cursor(1), std::optional<std::string>("a"));
}

TEST(GearWindowsTest, ZonesResetOrWrittenAgainAreCountedReleased) {
  GearWindows w({.windows = kSlices, .k = 2, .whole_window_levels = 1});
  const GearLevels levels = EightSsts();
  w.Update(levels, {Zone(1, 2, {100, 101}, 500), Zone(2, 2, {102}, 500), Zone(3, 3, {103})});
  EXPECT_EQ(w.zones_released(), 0u);
  // Zone 1 was reset (gone), zone 2 reset and written again (less data).
  w.Update(levels, {Zone(2, 2, {104}, 100), Zone(3, 3, {103})});
  EXPECT_EQ(w.zones_released(), 2u);
  w.Update(levels, {Zone(2, 2, {104}, 100), Zone(3, 3, {103})});
  EXPECT_EQ(w.zones_released(), 2u);
}

TEST(GearWindowsTest, WindowsAreRebuiltTheSameFromATree) {
  GearWindows a({}), b({});
  a.Update(EightSsts(3), {});
  b.Update(EightSsts(3), {});  // a restart: the same tree gives the same cuts
  EXPECT_EQ(a.cuts(), b.cuts());
  EXPECT_EQ(a.lo(), b.lo());
  EXPECT_EQ(a.hi(), b.hi());
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

// k = 2: L3 (the largest level) is cut at "m"; window 0 is ["", "m").
// L1 is over its limit (3 x 40 > 100).
struct Tree {
  GearLevels levels = {
      {},
      {Sst(11, "a", "c", 40), Sst(12, "d", "f", 40), Sst(13, "n", "p", 40)},
      {Sst(21, "a", "b", 50), Sst(20, "e", "f", 50), Sst(22, "g", "h", 50), Sst(23, "n", "o", 50)},
      {Sst(31, "a", "b", 3000), Sst(32, "c", "d", 3000), Sst(33, "m", "n", 3000),
       Sst(34, "p", "q", 3000)},
  };
  GearWindows windows{{.windows = kSlices, .k = 2, .whole_window_levels = 2}};
  Tree() { windows.Update(levels, {}); }
};

TEST(GearPlanTest, VictimsAreSweptInKeyOrderInsideTheWindow) {
  Tree t;
  ASSERT_EQ(t.windows.cuts(), (std::vector<std::string>{"m"}));
  const GearOptions o{.windows = kSlices, .k = 2};
  auto step = PlanStep(t.levels, t.windows, Limits(), o);
  ASSERT_TRUE(step.has_value());
  EXPECT_EQ(step->kind, GearStep::Kind::kWindow);
  EXPECT_EQ(step->input_level, 1);
  EXPECT_EQ(step->output_level, 2);
  EXPECT_EQ(step->inputs, (std::vector<uint64_t>{11}));  // the first in the window
  EXPECT_EQ(step->cursor, std::optional<std::string>("c"));
  t.windows.Advance(1, *step->cursor);
  // The next after the cursor; the window's last L1 SST also takes L2's
  // SSTs of the window after it that nothing overlaps (22, not 23,
  // which lies in the other window).
  step = PlanStep(t.levels, t.windows, Limits(), o);
  ASSERT_TRUE(step.has_value());
  EXPECT_EQ(step->kind, GearStep::Kind::kWindow);
  EXPECT_EQ(step->inputs, (std::vector<uint64_t>{12, 22}));
  EXPECT_EQ(step->gap_bytes, 50u);
  t.windows.Advance(1, *step->cursor);
  // Past the window's last victim the sweep starts again.
  step = PlanStep(t.levels, t.windows, Limits(), o);
  ASSERT_TRUE(step.has_value());
  EXPECT_EQ(step->inputs, (std::vector<uint64_t>{11}));
  EXPECT_EQ(t.windows.window(), 0u);
}

TEST(GearPlanTest, TheGapBetweenTheCursorAndTheVictimGoesWithIt) {
  Tree t;
  t.levels[2][0] = Sst(21, "c1", "c2", 50);  // after 11 ("a".."c"), before 12
  t.windows.Advance(1, "c");
  auto step = PlanStep(t.levels, t.windows, Limits(), {.windows = kSlices, .k = 2});
  ASSERT_TRUE(step.has_value());
  EXPECT_EQ(step->inputs, (std::vector<uint64_t>{12, 21, 22}));
  // Without sweep_gaps, RocksDB's overlap only.
  step = PlanStep(t.levels, t.windows, Limits(), {.windows = kSlices, .k = 2, .sweep_gaps = false});
  ASSERT_TRUE(step.has_value());
  EXPECT_EQ(step->inputs, (std::vector<uint64_t>{12}));
  EXPECT_EQ(step->gap_bytes, 0u);
}

// With step_bytes a window step takes the next victims in key order while
// they and their overlap fit, and the gap SSTs between them: the next
// step then starts after the last one, instead of writing the previous
// step's last output again.
TEST(GearPlanTest, AWindowStepTakesVictimsInKeyOrderWithinStepBytes) {
  Tree t;
  t.levels[2][0] = Sst(21, "c1", "c2", 50);  // between 11 and 12: no victim overlaps it
  GearLimits limits = Limits();
  limits.step_bytes = 40 + 40 + 50;  // 11 and 12 (with 20 below), not 13
  auto step = PlanStep(t.levels, t.windows, limits, {.windows = kSlices, .k = 2});
  ASSERT_TRUE(step.has_value());
  EXPECT_EQ(step->kind, GearStep::Kind::kWindow);
  EXPECT_EQ(step->inputs, (std::vector<uint64_t>{11, 12, 21, 22}));
  EXPECT_EQ(step->cursor, std::optional<std::string>("f"));
  EXPECT_EQ(step->gap_bytes, 100u);
  // One victim per step when a second one would not fit.
  limits.step_bytes = 40 + 40 + 49;
  step = PlanStep(t.levels, t.windows, limits, {.windows = kSlices, .k = 2});
  ASSERT_TRUE(step.has_value());
  EXPECT_EQ(step->inputs, (std::vector<uint64_t>{11}));
}

TEST(GearPlanTest, ALevelWithNothingInTheWindowRotatesIt) {
  Tree t;
  t.levels[1] = {Sst(13, "n", "p", 120)};
  auto step = PlanStep(t.levels, t.windows, Limits(), {.windows = kSlices, .k = 2});
  ASSERT_TRUE(step.has_value());
  EXPECT_EQ(t.windows.window(), 1u);
  EXPECT_EQ(t.windows.windows_released(), 1u);
  EXPECT_EQ(step->kind, GearStep::Kind::kWindow);
  EXPECT_EQ(step->inputs, (std::vector<uint64_t>{13}));  // over 23, in window 1
}

TEST(GearPlanTest, AVictimWithNothingBelowIsADump) {
  Tree t;
  t.levels[1] = {Sst(11, "a", "c", 120)};
  t.levels[2] = {Sst(23, "n", "o", 50)};
  auto step = PlanStep(t.levels, t.windows, Limits(), {.windows = kSlices, .k = 2});
  ASSERT_TRUE(step.has_value());
  EXPECT_EQ(step->kind, GearStep::Kind::kDump);
  EXPECT_EQ(step->inputs, (std::vector<uint64_t>{11}));
}

TEST(GearPlanTest, AVictimStraddlingTheWindowsEndIsOutOfWindow) {
  Tree t;
  // Cut before the cuts were taken: "k".."o" overlaps window 0 and 23.
  t.levels[1] = {Sst(14, "k", "o", 120)};
  auto step = PlanStep(t.levels, t.windows, Limits(), {.windows = kSlices, .k = 2});
  ASSERT_TRUE(step.has_value());
  EXPECT_EQ(step->kind, GearStep::Kind::kOutOfWindow);
  // With the window's L2 SSTs before it: no cursor yet, the sweep starts
  // at the window's start.
  EXPECT_EQ(step->inputs, (std::vector<uint64_t>{14, 21, 20, 22}));
  EXPECT_EQ(step->out_of_window_bytes, 50u);
}

TEST(GearPlanTest, ABusyVictimOrOverlapWaits) {
  Tree t;
  t.levels[2][0].being_compacted = true;  // 21, under victim 11
  EXPECT_FALSE(PlanStep(t.levels, t.windows, Limits(), {.windows = kSlices, .k = 2}).has_value());
  EXPECT_EQ(t.windows.window(), 0u);  // not rotated
  t.levels[2][0].being_compacted = false;
  t.levels[1][0].being_compacted = true;
  EXPECT_FALSE(PlanStep(t.levels, t.windows, Limits(), {.windows = kSlices, .k = 2}).has_value());
}

TEST(GearPlanTest, TheCascadeTakesOutputsOverTheNextWindowOrOverNothingInIt) {
  // L1 was just compacted into L2, which is now over its limit; L3 holds
  // more than a window (10000 / 4), cut at "m", "q" and "t"; the window
  // is the second slice, ["m", "q").
  GearLevels levels = {
      {},
      {},
      {Sst(40, "a", "c", 300), Sst(41, "d", "f", 300), Sst(42, "n", "o", 300),
       Sst(46, "p5", "p7", 300), Sst(43, "q", "r", 300), Sst(44, "x", "z", 300)},
      {Sst(31, "a", "e", 2000), Sst(30, "m", "p", 2000), Sst(32, "q", "s", 2000),
       Sst(33, "t", "u", 2000)},
  };
  GearWindows w({.windows = kSlices, .k = 4, .whole_window_levels = 2});
  w.Update(levels, {});
  w.Rotate(levels);
  ASSERT_EQ(w.lo(), "m");
  ASSERT_EQ(w.hi(), std::optional<std::string>("q"));
  const std::vector<GearStep> steps =
      PlanCascade(levels, 2, {40, 41, 42, 46, 44}, w, Limits(), {.windows = kSlices, .k = 4});
  // 42 lies over the window, 46 over nothing in it: they go; 40, 41 and
  // 44 lie outside the window and stay; 43 was not an output.
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].kind, GearStep::Kind::kPassive);
  EXPECT_EQ(steps[0].output_level, 3);
  EXPECT_EQ(steps[0].inputs, (std::vector<uint64_t>{42, 46}));
}

TEST(GearPlanTest, TheCascadeStopsUnlessTheLevelIsOverItsLimitAndTheNextHoldsAWindow) {
  GearLevels levels = {{}, {}, {Sst(40, "n", "o", 300)}, {Sst(31, "m", "p", 5000)}};
  GearWindows w({.windows = kSlices, .k = 4, .whole_window_levels = 2});
  w.Update(levels, {});  // too small to cut: one window over all keys
  // L2 (300) within its limit (1000).
  EXPECT_TRUE(PlanCascade(levels, 2, {40}, w, Limits(), {.windows = kSlices, .k = 4}).empty());
  levels[2][0].size = 1500;
  EXPECT_EQ(PlanCascade(levels, 2, {40}, w, Limits(), {.windows = kSlices, .k = 4}).size(), 1u);
  // L3 below a window's worth (10000 / 4).
  levels[3][0].size = 2000;
  EXPECT_TRUE(PlanCascade(levels, 2, {40}, w, Limits(), {.windows = kSlices, .k = 4}).empty());
  // The last level cascades nowhere.
  EXPECT_TRUE(PlanCascade(levels, 3, {31}, w, Limits(), {.windows = kSlices, .k = 4}).empty());
}

// Age windows (the default): each level sweeps from its own cursor; a
// step of the level above that sweeps over the next level's cursor lets
// the cascade take its outputs ahead of it.
TEST(GearAgeWindowsTest, AStepOverTheNextLevelsCursorOpensTheCascadeFromIt) {
  GearWindows w({.k = 4});
  EXPECT_FALSE(w.Cursor(2).has_value());
  auto sweep = [](int level, std::optional<std::string> from, std::string to, bool to_end = false) {
    return GearStep{.kind = GearStep::Kind::kWindow, .input_level = level,
                    .output_level = level + 1, .cursor = to, .from = from, .to_end = to_end};
  };
  w.Advance(sweep(1, std::nullopt, "c"));  // from the start: over L2's cursor there
  EXPECT_EQ(w.Cursor(1), std::optional<std::string>("c"));
  EXPECT_FALSE(w.Cursor(2).has_value());  // it stays
  ASSERT_TRUE(w.Pulled(2).has_value());
  EXPECT_FALSE(w.Pulled(2)->origin.has_value());  // at the start
  w.Advance(sweep(2, std::nullopt, "f"));  // L2's own sweep: nothing of it to cascade now
  EXPECT_EQ(w.Cursor(2), std::optional<std::string>("f"));
  EXPECT_FALSE(w.Pulled(2).has_value());
  w.Advance(sweep(1, "c", "e"));  // short of L2's cursor
  EXPECT_FALSE(w.Pulled(2).has_value());
  w.Advance(sweep(1, "e", "g"));  // over it
  ASSERT_TRUE(w.Pulled(2).has_value());
  EXPECT_EQ(w.Pulled(2)->origin, std::optional<std::string>("f"));
  EXPECT_EQ(w.Cursor(2), std::optional<std::string>("f"));
  w.Advance(sweep(1, "x", "z", /*to_end=*/true));  // the tail only: not over "f"
  EXPECT_FALSE(w.Pulled(2).has_value());
  w.Advance(sweep(2, "f", "y"));
  w.Advance(sweep(1, "x", "z", /*to_end=*/true));  // over "y", to the end
  ASSERT_TRUE(w.Pulled(2).has_value());
  EXPECT_EQ(w.Pulled(2)->origin, std::optional<std::string>("y"));
  // No key slices by age.
  w.Update(EightSsts(), {});
  EXPECT_EQ(w.slices(), 1u);
}

TEST(GearAgeWindowsTest, ALevelsVictimsAreItsSstsJustAheadOfItsCursor) {
  GearLevels levels = {
      {},
      {Sst(11, "a", "c", 40)},
      {Sst(21, "a", "b", 500), Sst(22, "c1", "c2", 500), Sst(23, "e", "f", 500),
       Sst(24, "g", "h", 500)},
      {Sst(31, "a", "z", 100)},
  };
  GearWindows w({.k = 4});
  w.Update(levels, {});
  w.Advance(2, "c");
  auto step = PlanStep(levels, w, Limits(), {.k = 4});  // L2 (2000 / 1000) goes first
  ASSERT_TRUE(step.has_value());
  EXPECT_EQ(step->input_level, 2);
  EXPECT_EQ(step->inputs, (std::vector<uint64_t>{22}));  // the first after "c"
  EXPECT_EQ(step->from, std::optional<std::string>("c"));
  EXPECT_EQ(step->cursor, std::optional<std::string>("c2"));
}

TEST(GearAgeWindowsTest, TheCascadeTakesOutputsAheadOfTheSweptCursorInsideTheNextWindow) {
  GearLevels levels = {
      {},
      {},
      {Sst(40, "c", "c2", 300), Sst(41, "e", "f", 300), Sst(42, "g", "h", 300),
       Sst(43, "n", "o", 300)},
      {Sst(30, "a", "a1", 2000), Sst(31, "e", "e1", 2000), Sst(32, "f1", "f2", 200),
       Sst(33, "g", "h", 2000), Sst(34, "m", "m1", 2000), Sst(35, "p", "p1", 2000)},
  };
  GearWindows w({.k = 2});
  w.Advance(2, "d");
  // An L1 step swept ("b", "h"] of L2, over its cursor at "d".
  w.Advance(GearStep{.kind = GearStep::Kind::kWindow, .input_level = 1, .output_level = 2,
                     .cursor = "h", .from = "b"});
  EXPECT_EQ(w.Cursor(2), std::optional<std::string>("d"));
  // L3's window: its first half of bytes ahead of "d", "e" to "m1". 40
  // lies behind "d" and 43 beyond the window: they stay. The gap SST 32
  // goes with 41 and 42.
  GearLimits limits = Limits();
  limits.step_bytes = 1 << 20;
  std::vector<GearStep> steps = PlanCascade(levels, 2, {40, 41, 42, 43}, w, limits, {.k = 2});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].kind, GearStep::Kind::kPassive);
  EXPECT_EQ(steps[0].inputs, (std::vector<uint64_t>{41, 42, 32}));
  EXPECT_EQ(steps[0].gap_bytes, 200u);
  EXPECT_EQ(steps[0].from, std::optional<std::string>("d"));
  EXPECT_EQ(steps[0].cursor, std::optional<std::string>("h"));
  // Runs stay within step_bytes, as window steps do: one output each here,
  // the second sweeping on from the first.
  const std::vector<GearStep> small = PlanCascade(levels, 2, {40, 41, 42, 43}, w, Limits(), {.k = 2});
  ASSERT_EQ(small.size(), 2u);
  EXPECT_EQ(small[0].inputs, (std::vector<uint64_t>{41}));
  EXPECT_EQ(small[1].inputs, (std::vector<uint64_t>{42, 32}));
  EXPECT_EQ(small[1].from, std::optional<std::string>("f"));
  // Once it ran, the rest stays: the window is still the one ahead of "d".
  // The passive step moved L2's cursor; the L1 step had not.
  w.Advance(steps[0]);
  EXPECT_EQ(w.Cursor(2), std::optional<std::string>("h"));
  EXPECT_TRUE(PlanCascade(levels, 2, {40, 43}, w, limits, {.k = 2}).empty());
  // L2's own next step ends what the cascade may take.
  w.Advance(GearStep{.kind = GearStep::Kind::kWindow, .input_level = 2, .output_level = 3,
                     .cursor = "i", .from = "h"});
  EXPECT_TRUE(PlanCascade(levels, 2, {40, 41, 42, 43}, w, limits, {.k = 2}).empty());
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

// IDENTITY, CURRENT and OPTIONS live long and are small: mixed into the
// MANIFEST's and info LOG's zones, each kept one of them alive for good.
TEST(GearDbSchemeTest, SmallLongLivedFilesHaveAGroupApartFromTheManifestAndLog) {
  for (const char* name : {"geardb", "log"}) {
    auto s = MakeScheme(name);
    ASSERT_TRUE(s.ok()) << s.status();
    const std::vector<DeviceView> devices = {testing::Ssd(100, 50)};
    auto group = [&](const std::string& path, FileKind kind) {
      FileHint h;
      h.name = path;
      h.kind = kind;
      return (*s)->Place(h, devices).group;
    };
    const uint32_t manifest = group("/db/MANIFEST-000005", FileKind::kManifest);
    EXPECT_EQ(group("/db/LOG", FileKind::kOther), manifest) << name;
    EXPECT_EQ(group("/db/LOG.old.123", FileKind::kOther), manifest) << name;
    const uint32_t small = group("/db/IDENTITY", FileKind::kOther);
    EXPECT_NE(small, manifest) << name;
    EXPECT_EQ(group("/db/CURRENT", FileKind::kOther), small) << name;
    EXPECT_EQ(group("/db/OPTIONS-000007", FileKind::kOther), small) << name;
    EXPECT_NE(group("/db/000004.log", FileKind::kWal), small) << name;
    EXPECT_EQ(GearLevelOfGroup(small), -1) << name;
  }
}

// Window zones: a windowed level's SSTs go to the group of the driver's
// current window (key slice); whole-window levels keep one group.
TEST(GearDbSchemeTest, AWindowedLevelHasAGroupPerWindow) {
  auto windowed = ParseSchemeConfig(
      nlohmann::json{{"name", "geardb"}, {"windows", "key_slices"}, {"window_zones", true}});
  ASSERT_TRUE(windowed.ok()) << windowed.status();
  auto s = MakeScheme(*windowed);
  ASSERT_TRUE(s.ok()) << s.status();
  const std::vector<DeviceView> devices = {testing::Ssd(100, 50)};
  auto setup = (*s)->gear();
  ASSERT_TRUE(setup.has_value() && setup->window != nullptr);
  std::set<uint32_t> l2_groups, l1_groups;
  for (uint32_t window = 0; window < 4; ++window) {
    setup->window->store(window);
    const PlacementDecision l2 = (*s)->Place(testing::SstHint(20 + window, 2), devices);
    EXPECT_EQ(l2.group, GearGroup(2, window));
    EXPECT_EQ(GearLevelOfGroup(l2.group), 2);
    l2_groups.insert(l2.group);
    l1_groups.insert((*s)->Place(testing::SstHint(30 + window, 1), devices).group);
  }
  EXPECT_EQ(l2_groups.size(), 4u);
  EXPECT_EQ(l1_groups, (std::set<uint32_t>{GearGroup(1, 0)}));
  // The default (the paper's) keeps one group per level.
  auto one = MakeScheme("geardb");
  ASSERT_TRUE(one.ok());
  (*one)->gear()->window->store(3);
  EXPECT_EQ((*one)->Place(testing::SstHint(40, 2), devices).group, GearGroup(2, 0));
}

TEST(GearDbSchemeTest, OptionsAreChecked) {
  auto c = ParseSchemeConfig(nlohmann::json{{"name", "geardb"}, {"k", 8}});
  ASSERT_TRUE(c.ok()) << c.status();
  auto s = MakeScheme(*c);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->gear()->options.k, 8u);
  EXPECT_TRUE((*s)->gear()->options.sweep_gaps);
  EXPECT_TRUE((*s)->gear()->options.cascade);
  EXPECT_FALSE((*s)->gear()->options.window_zones);
  EXPECT_EQ((*s)->gear()->options.windows, GearWindowing::kAge);
  c = ParseSchemeConfig(nlohmann::json{{"name", "geardb"}, {"windows", "key_slices"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ((*MakeScheme(*c))->gear()->options.windows, GearWindowing::kKeySlices);
  EXPECT_FALSE(ParseSchemeConfig(nlohmann::json{{"name", "geardb"}, {"windows", "zones"}}).ok());
  EXPECT_EQ((*s)->gear()->options.slowdown_ms, 1.0);  // LevelDB's
  c = ParseSchemeConfig(nlohmann::json{{"name", "geardb"}, {"slowdown_ms", 32}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ((*MakeScheme(*c))->gear()->options.slowdown_ms, 32.0);
  EXPECT_FALSE(ParseSchemeConfig(nlohmann::json{{"name", "geardb"}, {"slowdown_ms", -1}}).ok());
  EXPECT_TRUE((*s)->gear()->options.space_hold);
  c = ParseSchemeConfig(nlohmann::json{{"name", "geardb"}, {"space_hold", false}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE((*MakeScheme(*c))->gear()->options.space_hold);
  // A zone group per key slice needs key slices.
  EXPECT_FALSE(ParseSchemeConfig(nlohmann::json{{"name", "geardb"}, {"window_zones", true}}).ok());
  c = ParseSchemeConfig(nlohmann::json{{"name", "geardb"}, {"sweep_gaps", false}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE((*MakeScheme(*c))->gear()->options.sweep_gaps);
  EXPECT_FALSE(ParseSchemeConfig(nlohmann::json{{"name", "geardb"}, {"k", 0}}).ok());
  EXPECT_FALSE(ParseSchemeConfig(nlohmann::json{{"name", "geardb"}, {"window", 4}}).ok());
}

}  // namespace
}  // namespace zonestack::policy
