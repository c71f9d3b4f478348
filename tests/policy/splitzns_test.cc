// The splitzns scheme (SplitZNS 4.3): SSTs of levels at or above
// subzone_min_level ask for subzones, everything else gets its lifetime
// group in wide zones; the 60% split limit; the GC threshold and the SST
// sizing it asks of the glue; the ldp baseline's GC; the Gear baseline's
// GC switch on the geardb scheme.
#include <gtest/gtest.h>

#include "policy/scheme_registry.h"
#include "policy_test_util.h"

namespace zonestack::policy {
namespace {

using nlohmann::json;
using testing::SstHint;
using testing::WalHint;

// A device with subzones: 100 data zones, `split` of them split, `free`
// empty subzones in open split zones.
struct SplitDevice {
  device::DeviceInfo info;
  DeviceView view;
  SplitDevice(uint32_t split, uint32_t free) {
    info.supports_subzones = true;
    info.subzones_per_zone = 16;
    view = testing::Ssd(100, 100 - split);
    view.info = &info;
    view.split_zones = split;
    view.free_subzones = free;
  }
};

std::shared_ptr<Scheme> Make(const json& config) {
  auto c = ParseSchemeConfig(config);
  EXPECT_TRUE(c.ok()) << c.status();
  auto s = MakeScheme(*c);
  EXPECT_TRUE(s.ok()) << s.status();
  return *s;
}

TEST(SplitZnsTest, HighLevelSstsAskForSubzonesTheRestTheirLifetimeGroup) {
  auto scheme = Make(json{{"name", "splitzns"}});
  SplitDevice dev(0, 0);
  for (int level = -1; level <= 6; ++level) {
    FileHint h = SstHint(10 + level, level);
    h.lifetime = zfs::Lifetime::kMedium;
    const PlacementDecision d = scheme->Place(h, {dev.view});
    EXPECT_EQ(d.use_subzone, level >= 4) << "L" << level;  // the paper's +diff: level > 3
    EXPECT_EQ(d.group, zfs::LifetimeGroup(h)) << "L" << level;
    EXPECT_EQ(d.devices, std::vector<uint32_t>{0});
  }
  EXPECT_FALSE(scheme->Place(WalHint(), {dev.view}).use_subzone);
  EXPECT_EQ(scheme->Place(WalHint(), {dev.view}).group, zfs::LifetimeGroup(WalHint()));
  EXPECT_TRUE(scheme->sst_per_subzone());
  EXPECT_TRUE(scheme->hinted());
  EXPECT_EQ(scheme->gc_threshold(), 0.2);
  EXPECT_TRUE(scheme->allows_gc());
}

TEST(SplitZnsTest, NativeSendsEverySstToASubzone) {
  auto scheme = Make(json{{"name", "splitzns"}, {"subzone_min_level", 0}});
  SplitDevice dev(0, 0);
  EXPECT_TRUE(scheme->Place(SstHint(1, 0), {dev.view}).use_subzone);
  EXPECT_FALSE(scheme->Place(SstHint(2, -1), {dev.view}).use_subzone) << "level unknown";
}

TEST(SplitZnsTest, SplitLimitSendsHighLevelsToWideZonesUnlessASubzoneIsFree) {
  auto scheme = Make(json{{"name", "splitzns"}});
  EXPECT_TRUE(scheme->Place(SstHint(1, 5), {SplitDevice(59, 0).view}).use_subzone);
  EXPECT_FALSE(scheme->Place(SstHint(2, 5), {SplitDevice(60, 0).view}).use_subzone);
  EXPECT_TRUE(scheme->Place(SstHint(3, 5), {SplitDevice(60, 3).view}).use_subzone);
  auto tight = Make(json{{"name", "splitzns"}, {"max_split_percent", 10}});
  EXPECT_FALSE(tight->Place(SstHint(4, 5), {SplitDevice(10, 0).view}).use_subzone);
  const auto counters = scheme->counters();
  EXPECT_EQ(counters.at("subzone_requests"), 2);
  EXPECT_EQ(counters.at("split_limit_reached"), 1);
}

TEST(SplitZnsTest, DeviceWithoutSubzonesGetsNoSubzoneRequest) {
  auto scheme = Make(json{{"name", "splitzns"}});
  EXPECT_FALSE(scheme->Place(SstHint(1, 5), {testing::Ssd(100, 100)}).use_subzone);
}

TEST(SplitZnsTest, OptionsAreChecked) {
  for (const json& bad : {json{{"name", "splitzns"}, {"subzone_min_level", -1}},
                          json{{"name", "splitzns"}, {"max_split_percent", 101}},
                          json{{"name", "splitzns"}, {"gc_threshold", "x"}},
                          json{{"name", "splitzns"}, {"zone", 1}}}) {
    auto c = ParseSchemeConfig(bad);
    EXPECT_FALSE(c.ok()) << bad.dump();
  }
}

TEST(LdpTest, IsLifetimePlacementWithGreedyGcAtTwentyPercent) {
  auto ldp = Make(json{{"name", "ldp"}});
  auto lifetime = Make(json{{"name", "lifetime"}});
  EXPECT_EQ(ldp->gc_threshold(), 0.2);
  EXPECT_EQ(lifetime->gc_threshold(), std::nullopt);
  EXPECT_FALSE(ldp->hinted());
  for (int level = 0; level < 5; ++level) {
    FileHint h = SstHint(level, level);
    h.lifetime = static_cast<zfs::Lifetime>(2 + level % 4);
    EXPECT_EQ(ldp->Place(h, {testing::Ssd(10, 10)}).group, zfs::LifetimeGroup(h));
    EXPECT_FALSE(ldp->Place(h, {SplitDevice(0, 0).view}).use_subzone);
  }
}

// SplitZNS 5.1.3 runs Gear with GC, GearDB itself without: one named
// option, off by default, so GearDB's own experiments keep no GC.
TEST(GearBaselineTest, GeardbRunsGcOnlyWhenAsked) {
  auto geardb = Make(json{{"name", "geardb"}});
  auto gear = Make(json{{"name", "geardb"}, {"gc", true}});
  EXPECT_FALSE(geardb->allows_gc());
  EXPECT_EQ(geardb->gc_threshold(), std::nullopt);
  EXPECT_TRUE(gear->allows_gc());
  EXPECT_EQ(gear->gc_threshold(), 0.2);
  // The same layout and the same compaction driver either way.
  ASSERT_TRUE(gear->gear().has_value());
  EXPECT_EQ(gear->gear()->options.k, geardb->gear()->options.k);
  for (int level = 0; level < 5; ++level) {
    EXPECT_EQ(gear->Place(SstHint(level, level), {testing::Ssd(10, 10)}).group,
              geardb->Place(SstHint(level, level), {testing::Ssd(10, 10)}).group);
  }
  auto bad = ParseSchemeConfig(json{{"name", "geardb"}, {"gc", 1}});
  EXPECT_FALSE(bad.ok());
}

}  // namespace
}  // namespace zonestack::policy
