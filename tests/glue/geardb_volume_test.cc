// The geardb scheme's zone layout (GearDB 3.1) on a zfs volume over an
// emulated HM-SMR disk, driven by synthetic hints (files created with the
// level a hint would give them): zones hold SSTs of one level only, a zone
// is reset and reused once its SSTs die, and zfs never collects garbage,
// not even when the volume is full. The same writes under "lifetime" show
// each check can fail. With "gc": true (SplitZNS's Gear baseline) the same
// layout collects garbage when full.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "../zfs/zfs_test_util.h"
#include "policy/gear_compaction.h"
#include "policy/scheme_registry.h"

namespace zonestack::rocks {
namespace {

using zfs::testing_util::Devices;
using zfs::testing_util::OpenDev;
using zfs::testing_util::Pattern;
using zfs::testing_util::SmrUri;
using zfs::testing_util::WriteFile;

constexpr uint64_t kSst = 300 << 10;  // three to a 1 MiB zone

std::string SstPath(uint64_t number) { return absl::StrCat("/db/", 100000 + number, ".sst"); }

zfs::FileHint SstHint(uint64_t number, int level) {
  zfs::FileHint h;
  h.name = SstPath(number);
  h.kind = zfs::FileKind::kSst;
  h.level = level;
  return h;
}

class GearDbVolumeTest : public ::testing::Test {
 protected:
  // A fresh volume on a 1 MiB-zone SMR disk of `zones` zones with `scheme`.
  void Mount(const std::string& scheme, uint32_t zones = 48) {
    auto config = policy::ParseSchemeConfig(nlohmann::json(scheme));
    ASSERT_TRUE(config.ok()) << config.status();
    Mount(*config, zones);
  }
  void Mount(const policy::SchemeConfig& scheme, uint32_t zones = 48) {
    devs_ = {OpenDev(SmrUri(zones))};
    ASSERT_TRUE(zfs::Volume::Format(devs_).ok());
    auto made = policy::MakeScheme(scheme);
    ASSERT_TRUE(made.ok()) << made.status();
    // As the glue mounts hinted schemes: no background GC, GC only before
    // reporting no space (which geardb forbids unless "gc" is on).
    // New zones are the lowest empty ones (disk_run_zones 1), so a reset
    // zone is the next one taken.
    auto vol = zfs::Volume::Mount(
        devs_, {.placement = *made, .gc_free_zone_threshold = -1, .disk_run_zones = 1});
    ASSERT_TRUE(vol.ok()) << vol.status();
    vol_ = std::move(*vol);
    ASSERT_TRUE(vol_->CreateDir("/db").ok());
  }

  absl::Status Write(uint64_t number, int level) {
    return WriteFile(*vol_, SstPath(number), Pattern(number, kSst), SstHint(number, level));
  }

  // Levels of the SSTs in each data zone that holds live data.
  std::map<uint32_t, std::set<int>> LevelsPerZone() const {
    std::map<uint32_t, std::set<int>> out;
    for (const zfs::FileInfo& f : vol_->Files()) {
      for (const zfs::ExtentInfo& x : f.extents) out[x.zone].insert(f.hint.level);
    }
    return out;
  }

  uint32_t EmptyZones() const { return vol_->Space()[0].empty_zones; }

  Devices devs_;
  std::unique_ptr<zfs::Volume> vol_;
};

TEST_F(GearDbVolumeTest, AZoneHoldsSstsOfOneLevelOnly) {
  Mount("geardb");
  for (uint64_t n = 0; n < 40; ++n) ASSERT_TRUE(Write(n, static_cast<int>(n % 4)).ok()) << n;
  const auto levels = LevelsPerZone();
  ASSERT_GE(levels.size(), 4u);
  std::map<uint32_t, uint32_t> group;
  for (const zfs::ZoneReport& z : vol_->Zones()) group[z.zone.index] = z.group;
  for (const auto& [zone, in] : levels) {
    ASSERT_EQ(in.size(), 1u) << "zone " << zone << " holds SSTs of several levels";
    EXPECT_EQ(policy::GearLevelOfGroup(group[zone]), *in.begin()) << "zone " << zone;
  }
  EXPECT_EQ(vol_->gc_totals().runs, 0u);
}

TEST_F(GearDbVolumeTest, LifetimePlacementMixesLevelsInAZone) {
  Mount("lifetime");
  for (uint64_t n = 0; n < 40; ++n) ASSERT_TRUE(Write(n, static_cast<int>(n % 4)).ok()) << n;
  bool mixed = false;
  for (const auto& [zone, in] : LevelsPerZone()) mixed = mixed || in.size() > 1;
  EXPECT_TRUE(mixed);
}

TEST_F(GearDbVolumeTest, ALevelsZonesAreResetWholeAndReusedWhenItsSstsDie) {
  Mount("geardb");
  for (uint64_t n = 0; n < 36; ++n) ASSERT_TRUE(Write(n, static_cast<int>(n % 3)).ok()) << n;
  const uint32_t empty_before = EmptyZones();
  const uint64_t resets_before = zfs::testing_util::ZoneResets(*vol_);
  std::set<uint32_t> l1_zones;
  for (const auto& [zone, in] : LevelsPerZone()) {
    if (in.contains(1)) l1_zones.insert(zone);
  }
  ASSERT_GE(l1_zones.size(), 3u);
  // Every L1 SST dies (a compaction took them): exactly L1's zones come
  // back, with no data moved.
  for (uint64_t n = 1; n < 36; n += 3) ASSERT_TRUE(vol_->Delete(SstPath(n)).ok());
  EXPECT_EQ(EmptyZones(), empty_before + l1_zones.size());
  EXPECT_EQ(zfs::testing_util::ZoneResets(*vol_), resets_before + l1_zones.size());
  for (const auto& [zone, in] : LevelsPerZone()) {
    EXPECT_FALSE(in.contains(1));
    EXPECT_FALSE(l1_zones.contains(zone)) << "zone " << zone << " kept data";
  }
  // New SSTs of another level take the reset zones.
  for (uint64_t n = 100; n < 112; ++n) ASSERT_TRUE(Write(n, 3).ok()) << n;
  std::set<uint32_t> reused;
  for (const auto& [zone, in] : LevelsPerZone()) {
    if (l1_zones.contains(zone)) reused.insert(zone);
  }
  EXPECT_FALSE(reused.empty());
  EXPECT_EQ(vol_->gc_totals().runs, 0u);
  zfs::testing_util::ExpectConsistent(*vol_);
}

// Fills the volume, kills one SST in three so that every zone is partly
// dead, and writes until a write fails.
TEST_F(GearDbVolumeTest, AFullVolumeFailsTheWriteAndNeverCollectsGarbage) {
  Mount("geardb");
  uint64_t n = 0;
  absl::Status s;
  for (; s.ok(); ++n) s = Write(n, 2);
  ASSERT_TRUE(absl::IsResourceExhausted(s)) << s;
  // One SST in three dies: each zone is a third dead, nothing whole is free.
  const uint32_t empty = EmptyZones();
  for (uint64_t i = 0; i + 1 < n; i += 3) ASSERT_TRUE(vol_->Delete(SstPath(i)).ok());
  EXPECT_LE(EmptyZones(), empty + 1);
  s = absl::OkStatus();
  for (uint64_t m = 1000; s.ok() && m < 1100; ++m) s = Write(m, 2);
  EXPECT_TRUE(absl::IsResourceExhausted(s)) << s;
  const zfs::GcTotals gc = vol_->gc_totals();
  EXPECT_EQ(gc.runs, 0u);
  EXPECT_EQ(gc.bytes_relocated, 0u);
  EXPECT_TRUE(absl::IsFailedPrecondition(vol_->CollectGarbage(/*force=*/true).status()));
  zfs::testing_util::ExpectConsistent(*vol_);
}

// A level that fills the disk while another level's zone has room left:
// its next write fails rather than go into that zone, which, shared with
// data of another lifetime and never collected, would not die whole.
TEST_F(GearDbVolumeTest, AFullVolumeNeverWritesIntoAnotherLevelsZone) {
  Mount("geardb");
  ASSERT_TRUE(Write(0, 3).ok());  // L3's zone: a third written
  uint64_t n = 1;
  absl::Status s;
  for (; s.ok() && n < 1000; ++n) s = Write(n, 2);
  ASSERT_TRUE(absl::IsResourceExhausted(s)) << s;
  EXPECT_EQ(EmptyZones(), 0u);
  for (const auto& [zone, in] : LevelsPerZone()) {
    EXPECT_EQ(in.size(), 1u) << "zone " << zone << " holds SSTs of several levels";
  }
  // L3 still writes into its own zone's room.
  EXPECT_TRUE(Write(5000, 3).ok());
  EXPECT_EQ(vol_->gc_totals().runs, 0u);
  zfs::testing_util::ExpectConsistent(*vol_);
}

TEST_F(GearDbVolumeTest, LifetimePlacementCollectsGarbageWhenFull) {
  Mount("lifetime");
  uint64_t n = 0;
  absl::Status s;
  for (; s.ok(); ++n) s = Write(n, 2);
  ASSERT_TRUE(absl::IsResourceExhausted(s)) << s;
  for (uint64_t i = 0; i + 1 < n; i += 3) ASSERT_TRUE(vol_->Delete(SstPath(i)).ok());
  EXPECT_TRUE(Write(1000, 2).ok());  // GC made room
  EXPECT_GE(vol_->gc_totals().runs, 1u);
  EXPECT_GT(vol_->gc_totals().bytes_relocated, 0u);
}

// The same fill as above on geardb with "gc": true: GC makes room, and the
// zones it fills still hold one level each.
TEST_F(GearDbVolumeTest, GearWithGcCollectsGarbageWhenFullAndKeepsLevelsApart) {
  auto config = policy::ParseSchemeConfig(nlohmann::json{{"name", "geardb"}, {"gc", true}});
  ASSERT_TRUE(config.ok()) << config.status();
  Mount(*config);
  uint64_t n = 0;
  absl::Status s;
  for (; s.ok(); ++n) s = Write(n, n % 2 == 0 ? 2 : 3);
  ASSERT_TRUE(absl::IsResourceExhausted(s)) << s;
  for (uint64_t i = 0; i + 1 < n; i += 3) ASSERT_TRUE(vol_->Delete(SstPath(i)).ok());
  EXPECT_TRUE(Write(1000, 2).ok());  // GC made room
  EXPECT_TRUE(Write(1001, 3).ok());
  EXPECT_GE(vol_->gc_totals().runs, 1u);
  EXPECT_GT(vol_->gc_totals().bytes_relocated, 0u);
  for (const auto& [zone, levels] : LevelsPerZone()) {
    EXPECT_EQ(levels.size(), 1u) << "zone " << zone;
  }
  zfs::testing_util::ExpectConsistent(*vol_);
}

}  // namespace
}  // namespace zonestack::rocks
