// HHZS placement (3.3) and migration (3.4) driven by synthetic hints,
// device views and a manual clock.
#include <gtest/gtest.h>

#include "policy/scheme_common.h"
#include "policy/hhzs_options.h"
#include "policy/scheme_registry.h"
#include "policy_test_util.h"

namespace zonestack::policy {
namespace {

using testing::FakeClock;
using testing::Hdd;
using testing::kSec;
using testing::ManifestHint;
using testing::Ssd;
using testing::SstHint;
using testing::SstName;
using testing::WalHint;
using Devices = std::vector<uint32_t>;

class HhzsTest : public ::testing::Test {
 protected:
  std::shared_ptr<Scheme> Make(const std::string& name,
                               SstPriority priority = SstPriority::kLevelFirst) {
    HhzsOptions o;
    o.priority = priority;
    o.spare_placement = spare_placement_;
    o.spare_migration = spare_migration_;
    o.exclude_hdd_inputs = exclude_hdd_inputs_;
    o.min_tiering_level = min_tiering_level_;
    o.wal_cache_zones = 2;
    o.hdd_random_read_iops = 10;  // popularity migration above 5 reads/s
    o.hdd_read_window_us = 2 * kSec;
    o.decision_interval_us = kSec;
    auto s = MakeHhzsPaperScheme(name, o, {clock_.fn()});
    EXPECT_TRUE(s.ok()) << s.status();
    return *s;
  }

  // A complete SST at `level` that zfs placed on the SSD (0) or HDD (1).
  void AddSst(Scheme& s, uint64_t number, int level, bool on_ssd, int reads = 0,
              uint64_t size = 1 << 20) {
    s.view().SetLevel(number, level, size);
    s.OnPlaced(SstHint(number), on_ssd ? 0 : 1, on_ssd, size);
    for (int i = 0; i < reads; ++i) s.view().RecordRead(number);
  }

  // C_ssd = 10 - 2 pool - 1 GC = 7; both pool zones in use as cache zones
  // (no WAL demand); 4 empty zones, so 3 free for SSTs.
  // L0: #1; L1: #2, #3; L2: #10, #11 on the SSD and #20, #21, #22 on the
  // HDD. Cumulative 1, 3, 8 -> t = 2 with 4 slots, 2 used.
  void Balanced(Scheme& s) {
    AddSst(s, 1, 0, true);
    AddSst(s, 2, 1, true);
    AddSst(s, 3, 1, true);
    AddSst(s, 10, 2, true);
    AddSst(s, 11, 2, true);
    AddSst(s, 20, 2, false);
    AddSst(s, 21, 2, false);
    AddSst(s, 22, 2, false);
  }

  // L0: #1; L1: #2, #3; L2: #10-#13 on the SSD; L3: #30, #31 on the HDD.
  // 1, 3, 7 -> t = 2 with 4 slots, all used.
  void AboveTheTieringLevel(Scheme& s) {
    AddSst(s, 1, 0, true);
    AddSst(s, 2, 1, true);
    AddSst(s, 3, 1, true);
    for (uint64_t n : {10, 11, 12, 13}) AddSst(s, n, 2, true);
    AddSst(s, 30, 3, false);
    AddSst(s, 31, 3, false);
  }

  // L0: #1 on the SSD; #2, a hot L1 SST of four zones, on the HDD
  // (1, 5 < 7: every level fits).
  std::shared_ptr<Scheme> HotFourZoneSst() {
    auto s = Make("p+m");
    AddSst(*s, 1, 0, true);
    AddSst(*s, 2, 1, false, 0, 4 * devices_[0].zone_capacity);
    HddReads(*s, 2, 12);
    return s;
  }

  // `n` reads of HDD SST `number` spread over seconds 0 and 1; the clock
  // ends at 2 s, when both seconds count in the 2-s window.
  void HddReads(Scheme& s, uint64_t number, int n) {
    clock_.Set(kSec / 2);
    for (int i = 0; i < n / 2; ++i) s.view().RecordRead(number);
    clock_.Set(kSec + kSec / 2);
    for (int i = n / 2; i < n; ++i) s.view().RecordRead(number);
    clock_.Set(2 * kSec);
  }

  // L0: an intra-L0 output of six SSD zones (#1) and two SSTs (#2, #3);
  // L1: #10, #11; all on the HDD. A_0 = 8, A_1 = 2.
  void HddL0AndL1(Scheme& s) {
    AddSst(s, 1, 0, false, 0, 6 * devices_[0].zone_capacity);
    AddSst(s, 2, 0, false);
    AddSst(s, 3, 0, false);
    AddSst(s, 10, 1, false);
    AddSst(s, 11, 1, false);
  }

  // p+m over AboveTheTieringLevel with `devices`' one free zone (2 empty
  // - 1 GC) and no write in flight: popularity migration moves #30, the
  // hottest HDD SST though it is at L3, into it. Then the zone is taken,
  // and at 3 s reads are still HDD-bound (on #31).
  std::shared_ptr<Scheme> HotL3SstMovedUp(std::vector<DeviceView>& devices) {
    auto s = Make("p+m");
    AboveTheTieringLevel(*s);
    HddReads(*s, 30, 20);
    auto m = s->NextMigration(devices);
    EXPECT_TRUE(m.has_value() && m->path == SstName(30) && m->to_device == 0u);
    s->OnPlaced(SstHint(30), 0, true, 1 << 20);
    devices[0].empty_zones = 1;
    clock_.Set(2 * kSec + kSec / 2);
    for (int i = 0; i < 12; ++i) s->view().RecordRead(31);
    clock_.Set(3 * kSec);
    return s;
  }

  FakeClock clock_;
  bool spare_placement_ = false;
  bool spare_migration_ = false;
  bool exclude_hdd_inputs_ = false;
  int min_tiering_level_ = 1;  // the authors' code
  std::vector<DeviceView> devices_{Ssd(10, 4, 2, 2), Hdd()};
};

// ---- placement (3.3)

TEST_F(HhzsTest, WalGoesToTheSsdPool) {
  auto s = Make("hhzs");
  PlacementDecision d = s->Place(WalHint(), devices_);
  EXPECT_EQ(d.devices, (Devices{0, 1}));
  EXPECT_EQ(d.group, kWalGroup);
  EXPECT_TRUE(d.pool);
  // Device indexes come from is_ssd, not from their order.
  std::vector<DeviceView> swapped{Hdd(), Ssd(10, 4, 2, 2)};
  EXPECT_EQ(s->Place(WalHint(), swapped).devices, (Devices{1, 0}));
  EXPECT_EQ(s->PoolZones(1, swapped), 2u);
  EXPECT_EQ(s->PoolZones(0, swapped), 0u);
  EXPECT_EQ(s->PoolZones(0, devices_), 2u);
  EXPECT_EQ(s->PoolZones(1, devices_), 0u);
}

TEST_F(HhzsTest, MetadataGoesToTheHddOrWhateverExists) {
  auto s = Make("hhzs");
  PlacementDecision d = s->Place(ManifestHint(), devices_);
  EXPECT_EQ(d.devices, (Devices{1, 0}));
  EXPECT_EQ(d.group, kMetadataGroup);
  EXPECT_FALSE(d.pool);
  FileHint other;
  other.name = "/db/OPTIONS-000007";
  EXPECT_EQ(s->Place(other, devices_).devices, (Devices{1, 0}));
  EXPECT_EQ(s->Place(ManifestHint(), {Ssd(10, 4)}).devices, (Devices{0}));
}

TEST_F(HhzsTest, EverySstGetsItsOwnGroup) {
  auto s = Make("p");
  EXPECT_EQ(s->Place(SstHint(5, 0), devices_).group, kSstGroupBase + 5);
  EXPECT_EQ(s->Place(SstHint(0x1000000f, 0), devices_).group, kSstGroupBase + 0xf);
  EXPECT_FALSE(s->Place(SstHint(5, 0), devices_).pool);
}

TEST_F(HhzsTest, TieringLevelGetsOnlyItsReservedSsdZones) {
  auto s = Make("p");
  AddSst(*s, 1, 0, true);
  AddSst(*s, 2, 1, true);
  AddSst(*s, 3, 1, true);
  AddSst(*s, 4, 2, true);
  for (uint64_t n : {5, 6, 7}) AddSst(*s, n, 2, false);
  // Cumulative 1, 3, 7 >= 7: t = 2 with 7 - 3 = 4 slots, 1 used.
  EXPECT_EQ(s->Place(SstHint(100, 1), devices_).devices, (Devices{0, 1}));
  EXPECT_EQ(s->Place(SstHint(100, 3), devices_).devices, (Devices{1, 0}));
  EXPECT_EQ(s->Place(SstHint(100, 2), devices_).devices, (Devices{0, 1}));
  s->OnPlaced(SstHint(100, 2), 0, true, 0);
  EXPECT_EQ(s->view().Sst(100)->level, 2);  // learned from the file hint
  EXPECT_EQ(s->Place(SstHint(101, 2), devices_).devices, (Devices{0, 1}));
  s->OnPlaced(SstHint(101, 2), 0, true, 0);
  EXPECT_EQ(s->Place(SstHint(102, 2), devices_).devices, (Devices{0, 1}));
  s->OnPlaced(SstHint(102, 2), 0, true, 0);
  // Four L2 SSTs on the SSD: the reservation is used up.
  EXPECT_EQ(s->Place(SstHint(103, 2), devices_).devices, (Devices{1, 0}));
  // L0 and L1 still go to the SSD.
  EXPECT_EQ(s->Place(SstHint(103, 0), devices_).devices, (Devices{0, 1}));
  // An L2 SST leaving frees a slot.
  s->OnRemoved(SstHint(100));
  EXPECT_EQ(s->Place(SstHint(103, 2), devices_).devices, (Devices{0, 1}));
}

TEST_F(HhzsTest, AnSstOfManyZonesCountsEveryZoneInTheTieringLevel) {
  auto s = Make("p");
  // An intra-L0 output of six SSD zones and two L1 SSTs, all on the HDD:
  // 6, 8 >= 7 -> t = 1 with one slot. Counted as one zone, the L0 SST
  // would leave room for every level (1, 3 < 7) and L2 would go to the SSD.
  s->view().SetLevel(1, 0, 6 * devices_[0].zone_capacity);
  s->OnPlaced(SstHint(1), 1, false, 6 * devices_[0].zone_capacity);
  AddSst(*s, 2, 1, false);
  AddSst(*s, 3, 1, false);
  EXPECT_EQ(s->Place(SstHint(100, 1), devices_).devices, (Devices{0, 1}));
  EXPECT_EQ(s->Place(SstHint(100, 2), devices_).devices, (Devices{1, 0}));
}

TEST_F(HhzsTest, AnHddL0InOneCompactionLeavesTheSsdToItsOutputsWhenAsked) {
  exclude_hdd_inputs_ = true;  // ours
  min_tiering_level_ = 0;
  auto s = Make("p");
  HddL0AndL1(*s);  // 8 >= 7: t = 0, an L1 SST goes to the HDD
  EXPECT_EQ(s->Place(SstHint(100, 1), devices_).devices, (Devices{1, 0}));
  // All of them merge into L1: the HDD inputs will never take SSD zones,
  // and the 10 zones they become are D_1. 0, 10 >= 7: t = 1 with 7 slots.
  s->view().CompactionStarted(1, 1, {{1, 0}, {2, 0}, {3, 0}, {10, 1}, {11, 1}});
  EXPECT_EQ(s->Place(SstHint(100, 1), devices_).devices, (Devices{0, 1}));
  EXPECT_EQ(s->Place(SstHint(100, 2), devices_).devices, (Devices{1, 0}));
}

TEST_F(HhzsTest, ThePapersAiCountsHddInputsOfARunningCompaction) {
  auto s = Make("p");
  HddL0AndL1(*s);
  s->view().CompactionStarted(1, 1, {{1, 0}, {2, 0}, {3, 0}, {10, 1}, {11, 1}});
  // A_0 = 8 >= 7: t = 0, raised to 1 as in the authors' code, with
  // 7 - (8 + 0) < 0 slots: the compaction's L1 outputs go to the HDD.
  EXPECT_EQ(s->Place(SstHint(100, 1), devices_).devices, (Devices{1, 0}));
  EXPECT_EQ(s->Place(SstHint(100, 0), devices_).devices, (Devices{0, 1}));
}

// L0: seven SSTs on the SSD and one on the HDD: A_0 = 8 >= 7, so t = 0
// with its 7 slots used (t >= 0 allowed).
TEST_F(HhzsTest, AFlushedSstGoesToTheSsdWhateverTheTieringLevel) {
  min_tiering_level_ = 0;
  auto s = Make("p");
  for (uint64_t n = 1; n <= 7; ++n) AddSst(*s, n, 0, true);
  AddSst(*s, 8, 0, false);
  FileHint flushed = SstHint(100, 0), compacted = SstHint(101, 0);
  flushed.origin = SstOrigin::kFlush;
  compacted.origin = SstOrigin::kCompaction;  // intra-L0
  // Step 4 (i): a flush's SST takes an empty SSD zone; (iii): an L_t SST
  // from a compaction only while L_t's reserved zones last.
  EXPECT_EQ(s->Place(flushed, devices_).devices, (Devices{0, 1}));
  EXPECT_EQ(s->Place(compacted, devices_).devices, (Devices{1, 0}));
}

TEST_F(HhzsTest, TieringLevelIsAtLeastOneAsInTheAuthorsCode) {
  auto s = Make("p");
  for (uint64_t n = 1; n <= 7; ++n) AddSst(*s, n, 0, true);
  AddSst(*s, 8, 0, false);
  FileHint compacted = SstHint(101, 0);
  compacted.origin = SstOrigin::kCompaction;
  // t = 1: every L0 SST belongs on the SSD; L1 has 7 - 8 < 0 slots.
  EXPECT_EQ(s->Place(compacted, devices_).devices, (Devices{0, 1}));
  EXPECT_EQ(s->Place(SstHint(102, 1), devices_).devices, (Devices{1, 0}));
  min_tiering_level_ = 0;
  EXPECT_EQ(Make("p")->Place(compacted, devices_).devices, (Devices{0, 1}));  // empty tree
}

TEST_F(HhzsTest, LevelComesFromHintThenPendingLevelThenL0) {
  auto s = Make("p");
  for (uint64_t n : {1, 2, 3}) AddSst(*s, n, 0, true);
  for (uint64_t n : {10, 11, 12}) AddSst(*s, n, 1, true);
  for (uint64_t n : {13, 14}) AddSst(*s, n, 1, false);
  s->view().CompactionStarted(1, 2, {{10, 1}, {20, 2}});
  s->view().CompactionFileStarted(1, 60);
  s->view().FlushFileStarted(61);
  // Cumulative 4, 9: t = 1, so L0 belongs on the SSD and L2 on the HDD.
  EXPECT_EQ(s->Place(SstHint(60), devices_).devices, (Devices{1, 0}));  // pending L2
  EXPECT_EQ(s->Place(SstHint(61), devices_).devices, (Devices{0, 1}));  // flush: L0
  EXPECT_EQ(s->Place(SstHint(62), devices_).devices, (Devices{0, 1}));  // unknown: L0
  EXPECT_EQ(s->Place(SstHint(60, 0), devices_).devices, (Devices{0, 1}));  // hint wins
}

TEST_F(HhzsTest, WalZonesInUseAreL0Demand) {
  auto s = Make("p");
  for (uint64_t n : {1, 2, 3}) AddSst(*s, n, 1, true);
  for (uint64_t n : {4, 5, 6}) AddSst(*s, n, 2, true);
  // No WAL zone in use: 0, 3, 6 < 7, every level fits.
  EXPECT_EQ(s->Place(SstHint(100, 2), {Ssd(10, 2, 2, 2), Hdd()}).devices, (Devices{0, 1}));
  // Two WAL zones in use: 2, 5, 8 -> t = 2 with 2 slots, 3 used.
  EXPECT_EQ(s->Place(SstHint(100, 2), {Ssd(10, 2, 2, 0), Hdd()}).devices, (Devices{1, 0}));
  EXPECT_EQ(s->Place(SstHint(100, 1), {Ssd(10, 2, 2, 0), Hdd()}).devices, (Devices{0, 1}));
}

TEST_F(HhzsTest, CompactionDemandReservesZonesForLowerLevels) {
  auto s = Make("p");
  AddSst(*s, 1, 1, true);
  AddSst(*s, 2, 2, true);
  // 1, 2 < 7: all fit.
  EXPECT_EQ(s->Place(SstHint(100, 2), devices_).devices, (Devices{0, 1}));
  // A compaction of five L0 SSTs into L1 (D_1 = 5): 5, 11 -> t = 1 with
  // 7 - 5 = 2 slots, 1 used; L2 now belongs on the HDD.
  s->view().CompactionStarted(1, 1, {{3, 0}, {4, 0}, {5, 0}, {6, 0}, {7, 0}});
  EXPECT_EQ(s->Place(SstHint(100, 1), devices_).devices, (Devices{0, 1}));
  EXPECT_EQ(s->Place(SstHint(100, 2), devices_).devices, (Devices{1, 0}));
}

TEST_F(HhzsTest, EmptyTreeSendsEveryLevelToTheSsd) {
  auto s = Make("p");
  for (int level = 0; level < 7; ++level) {
    EXPECT_EQ(s->Place(SstHint(1, level), devices_).devices, (Devices{0, 1})) << level;
  }
}

TEST_F(HhzsTest, MissingDevicesAreLeftOut) {
  auto s = Make("hhzs");
  EXPECT_EQ(s->Place(SstHint(1, 0), {Hdd()}).devices, (Devices{0}));
  EXPECT_EQ(s->Place(SstHint(1, 5), {Ssd(10, 4)}).devices, (Devices{0}));
  EXPECT_EQ(s->Place(WalHint(), {Hdd()}).devices, (Devices{0}));
  EXPECT_FALSE(s->NextMigration({Hdd()}).has_value());
}

// ---- switches

TEST_F(HhzsTest, SwitchesOfTheBreakdownSchemes) {
  auto p = Make("p");
  auto pm = Make("p+m");
  auto pmc = Make("p+m+c");
  auto hhzs = Make("hhzs");
  EXPECT_EQ(p->MigrationRate(), 0);
  EXPECT_EQ(p->cache(), nullptr);
  EXPECT_EQ(pm->MigrationRate(), 4 << 20);
  EXPECT_EQ(pm->cache(), nullptr);
  EXPECT_EQ(pmc->MigrationRate(), 4 << 20);
  EXPECT_NE(pmc->cache(), nullptr);
  EXPECT_NE(hhzs->cache(), nullptr);
  EXPECT_EQ(hhzs->name(), "hhzs");
  EXPECT_EQ(pmc->name(), "p+m+c");
  // P alone never migrates, even with an SST above L_t on the SSD.
  Balanced(*p);
  AddSst(*p, 30, 3, true);
  clock_.Set(10 * kSec);
  EXPECT_FALSE(p->NextMigration(devices_).has_value());
}

// ---- SST priorities (3.4)

TEST(SstPriorityTest, LowerLevelThenHigherReadRate) {
  SstInfo a, b;
  a.number = 1, b.number = 2;
  a.level = 1, a.reads = 0;
  b.level = 2, b.reads = 1000;
  EXPECT_TRUE(HigherPriority(a, b, 10 * kSec));
  EXPECT_FALSE(HigherPriority(b, a, 10 * kSec));
  // Same level: reads per second of age, not raw reads.
  b.level = 1;
  a.reads = 10, a.created_us = 0;        // 10 reads in 10 s: 1/s
  b.reads = 5, b.created_us = 8 * kSec;  // 5 reads in 2 s: 2.5/s
  EXPECT_TRUE(HigherPriority(b, a, 10 * kSec));
  EXPECT_FALSE(HigherPriority(a, b, 10 * kSec));
}

TEST(SstPriorityTest, ReadRateFirstThenLowerLevel) {
  SstInfo a, b;
  a.number = 1, b.number = 2;
  a.level = 1, a.reads = 1;
  b.level = 3, b.reads = 50;
  const auto rate_first = SstPriority::kReadRateFirst;
  EXPECT_TRUE(HigherPriority(b, a, 10 * kSec, rate_first));
  EXPECT_FALSE(HigherPriority(a, b, 10 * kSec, rate_first));
  b.reads = 1;  // same rate: the lower level
  EXPECT_TRUE(HigherPriority(a, b, 10 * kSec, rate_first));
}

TEST(SstPriorityTest, TiesGoToNotTriviallyMovedThenNewer) {
  SstInfo a, b;
  a.number = 1, b.number = 2;
  a.level = b.level = 3;
  EXPECT_TRUE(HigherPriority(b, a, kSec));
  b.trivially_moved = true;
  EXPECT_TRUE(HigherPriority(a, b, kSec));
  EXPECT_FALSE(HigherPriority(a, a, kSec));
}

// ---- capacity migration (3.4)

TEST_F(HhzsTest, CapacityMigrationWhenTieringLevelOverfull) {
  auto s = Make("p+m");
  Balanced(*s);
  AddSst(*s, 12, 2, true);
  AddSst(*s, 13, 2, true);
  AddSst(*s, 14, 2, true);
  for (auto [n, reads] : {std::pair{10, 5}, {11, 1}, {12, 3}, {13, 4}, {14, 2}}) {
    for (int i = 0; i < reads; ++i) s->view().RecordRead(n);
  }
  clock_.Set(10 * kSec);
  // 1, 3, 11 -> t = 2 with 4 slots but 5 L2 SSTs on the SSD: the coldest goes.
  auto m = s->NextMigration(devices_);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->path, SstName(11));
  EXPECT_EQ(m->to_device, 1u);
}

TEST_F(HhzsTest, CapacityMigrationWhenSsdHoldsAnSstAboveTieringLevel) {
  auto s = Make("p+m");
  Balanced(*s);
  AddSst(*s, 30, 3, true, 100);
  clock_.Set(10 * kSec);
  auto m = s->NextMigration(devices_);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->path, SstName(30));
  EXPECT_EQ(m->to_device, 1u);
}

TEST_F(HhzsTest, NoMigrationWhenThePlanHolds) {
  auto s = Make("p+m");
  Balanced(*s);
  clock_.Set(10 * kSec);
  EXPECT_FALSE(s->NextMigration(devices_).has_value());
}

TEST_F(HhzsTest, CompactionInputsAndUnplacedSstsAreNeverChosen) {
  auto s = Make("p+m");
  Balanced(*s);
  AddSst(*s, 30, 3, true);
  s->view().CompactionStarted(1, 4, {{30, 3}});
  s->view().SetLevel(31, 3, 1 << 20);  // zfs has not placed it
  clock_.Set(10 * kSec);
  // #30 is an input of a running compaction; the lowest-priority SST left
  // on the SSD is at L2 = L_t, which is within its reservation.
  EXPECT_FALSE(s->NextMigration(devices_).has_value());
  s->view().CompactionFinished(1, {});
  clock_.Advance(kSec);
  auto m = s->NextMigration(devices_);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->path, SstName(30));
}

TEST_F(HhzsTest, FilesBeingWrittenAreNeverChosen) {
  auto s = Make("p+m");
  Balanced(*s);
  s->view().CompactionStarted(1, 3, {{20, 2}});
  s->view().CompactionFileStarted(1, 30);
  s->OnPlaced(SstHint(30), 0, true, 0);  // first zone on the SSD, still written
  clock_.Set(10 * kSec);
  EXPECT_FALSE(s->NextMigration(devices_).has_value());
  s->view().TableFileCreated(30, 1 << 20);
  clock_.Advance(kSec);
  auto m = s->NextMigration(devices_);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->path, SstName(30));
}

TEST_F(HhzsTest, DecidesAtMostOncePerInterval) {
  auto s = Make("p+m");
  Balanced(*s);
  AddSst(*s, 30, 3, true);
  clock_.Set(10 * kSec);
  EXPECT_TRUE(s->NextMigration(devices_).has_value());
  clock_.Advance(kSec / 2);
  EXPECT_FALSE(s->NextMigration(devices_).has_value());
  clock_.Advance(kSec / 2);
  EXPECT_TRUE(s->NextMigration(devices_).has_value());
}

// ---- popularity migration (3.4)

TEST_F(HhzsTest, PopularityNotTriggeredAtExactlyHalfTheHddIops) {
  auto s = Make("p+m");
  Balanced(*s);
  HddReads(*s, 20, 10);  // 10 reads in 2 s = 5/s = 10 IOPS / 2
  EXPECT_DOUBLE_EQ(s->view().HddReadRate(2 * kSec), 5.0);
  EXPECT_FALSE(s->NextMigration(devices_).has_value());
  // Counted by why nothing moved.
  EXPECT_EQ(s->counters().at("popularity_not_read_bound"), 1);
  EXPECT_EQ(s->counters().at("popularity_no_room"), 0);
}

TEST_F(HhzsTest, PopularityMovesTheHottestHddSstAboveHalfTheHddIops) {
  auto s = Make("p+m");
  Balanced(*s);
  HddReads(*s, 20, 10);
  HddReads(*s, 21, 1);  // 11 reads in 2 s
  auto m = s->NextMigration(devices_);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->path, SstName(20));
  EXPECT_EQ(m->to_device, 0u);
}

TEST_F(HhzsTest, PopularityPassesOverHddSstsNobodyRead) {
  auto s = Make("p+m");
  // L0: #1 on the SSD; L1: #2 on the HDD, never read; L2: #3 on the HDD
  // with all the reads. #2 ranks higher by level, but moving it would not
  // take a single read off the HDD.
  AddSst(*s, 1, 0, true);
  AddSst(*s, 2, 1, false);
  AddSst(*s, 3, 2, false);
  HddReads(*s, 3, 12);
  auto m = s->NextMigration(devices_);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->path, SstName(3));
  EXPECT_EQ(m->to_device, 0u);
}

TEST_F(HhzsTest, ReadRateFirstPriorityMovesTheHottestSstWhateverItsLevel) {
  // #2 (L1) has one read, #3 (L2) twelve. The paper's level-first order
  // moves #2; the read-rate-first option moves #3.
  for (auto [priority, moved] : {std::pair{SstPriority::kLevelFirst, 2},
                                 std::pair{SstPriority::kReadRateFirst, 3}}) {
    clock_.Set(0);
    auto s = Make("p+m", priority);
    AddSst(*s, 1, 0, true);
    AddSst(*s, 2, 1, false);
    AddSst(*s, 3, 2, false);
    s->view().RecordRead(2);
    HddReads(*s, 3, 12);
    auto m = s->NextMigration(devices_);
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->path, SstName(static_cast<uint64_t>(moved)));
  }
}

TEST_F(HhzsTest, PopularityMovesAnSstOfManyZonesOnlyIntoAsManyFreeZones) {
  // Three free zones (4 empty - 1 GC): it does not fit, and the only SSD
  // SST (L0) ranks above it, so nothing moves.
  EXPECT_FALSE(HotFourZoneSst()->NextMigration(devices_).has_value());
  // Five free zones: it moves.
  auto m = HotFourZoneSst()->NextMigration({Ssd(10, 6, 2, 2), Hdd()});
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->path, SstName(2));
  EXPECT_EQ(m->to_device, 0u);
}

TEST_F(HhzsTest, NoSwapWhoseSsdHalfFreesTooFewZones) {
  auto make = [&] {
    auto s = HotFourZoneSst();
    AddSst(*s, 10, 2, true);  // one zone, ranks below any L1 SST
    return s;
  };
  // Two free zones + #10's one < 4: swapping #10 out would not make room.
  EXPECT_FALSE(make()->NextMigration({Ssd(10, 3, 2, 2), Hdd()}).has_value());
  // Three free zones + one = 4: the swap starts with #10.
  auto m = make()->NextMigration(devices_);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->path, SstName(10));
  EXPECT_EQ(m->to_device, 1u);
}

TEST_F(HhzsTest, PopularitySkipsCompactionInputs) {
  auto s = Make("p+m");
  Balanced(*s);
  HddReads(*s, 20, 10);
  HddReads(*s, 21, 4);
  s->view().CompactionStarted(1, 3, {{20, 2}});
  auto m = s->NextMigration(devices_);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->path, SstName(21));
}

TEST_F(HhzsTest, PopularityCountsADecisionWithNoHddSstToMove) {
  auto s = Make("p+m");
  Balanced(*s);
  HddReads(*s, 20, 12);  // HDD-bound, all on #20, which is being compacted
  s->view().CompactionStarted(1, 3, {{20, 2}});
  EXPECT_FALSE(s->NextMigration(devices_).has_value());
  EXPECT_EQ(s->counters().at("popularity_no_hdd_sst"), 1);
  EXPECT_EQ(s->counters().at("popularity_no_room"), 0);
}

TEST_F(HhzsTest, PopularitySwapsWhenFreeZonesDoNotExceedLowerLevelDemand) {
  auto s = Make("p+m");
  Balanced(*s);
  // A compaction into L1 (D_1 = 1): 1, 4, 9 -> t = 2, 3 slots, 2 used.
  s->view().CompactionStarted(7, 1, {{1, 0}});
  s->view().RecordRead(10);
  s->view().RecordRead(10);
  HddReads(*s, 20, 12);
  // One free zone (2 empty - 1 GC), not more than D_0 + D_1 = 1: swap #20
  // with the coldest SSD SST, #11.
  std::vector<DeviceView> devices{Ssd(10, 2, 2, 2), Hdd()};
  auto out = s->NextMigration(devices);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->path, SstName(11));
  EXPECT_EQ(out->to_device, 1u);
  // #11 arrives on the HDD; its zone is free: the HDD half follows.
  s->OnPlaced(SstHint(11), 1, false, 1 << 20);
  devices[0].empty_zones = 3;
  clock_.Advance(kSec);
  auto in = s->NextMigration(devices);
  ASSERT_TRUE(in.has_value());
  EXPECT_EQ(in->path, SstName(20));
  EXPECT_EQ(in->to_device, 0u);
}

TEST_F(HhzsTest, NoSwapWhenEverySsdSstRanksHigher) {
  auto s = Make("p+m");
  Balanced(*s);
  for (int i = 0; i < 100; ++i) {
    s->view().RecordRead(10);
    s->view().RecordRead(11);
  }
  HddReads(*s, 20, 12);
  EXPECT_FALSE(s->NextMigration({Ssd(10, 1, 2, 2), Hdd()}).has_value());
  EXPECT_EQ(s->counters().at("popularity_no_room"), 1);
  EXPECT_EQ(s->counters().at("popularity_not_read_bound"), 0);
}

TEST_F(HhzsTest, ThePapersRulesMoveAnSstAboveTheTieringLevelUpAndBackDown) {
  std::vector<DeviceView> devices{Ssd(10, 2, 2, 2), Hdd()};
  auto s = HotL3SstMovedUp(devices);
  // Reads still HDD-bound: capacity migration, which runs first, sends it
  // back, as 3.4's two rules have it.
  auto m = s->NextMigration(devices);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->path, SstName(30));
  EXPECT_EQ(m->to_device, 1u);
  const auto c = s->counters();
  EXPECT_EQ(c.at("popularity_migrations"), 1);
  EXPECT_EQ(c.at("capacity_migrations"), 1);
}

TEST_F(HhzsTest, PopularityMovesAnSstAboveTheTieringLevelIntoSpareZonesAndKeepsIt) {
  spare_migration_ = true;  // ours
  std::vector<DeviceView> devices{Ssd(10, 2, 2, 2), Hdd()};
  auto s = HotL3SstMovedUp(devices);
  // Reads stay HDD-bound (on #31): capacity migration leaves #30, and
  // #31 neither fits nor outranks it.
  EXPECT_FALSE(s->NextMigration(devices).has_value());
  // Reads no longer HDD-bound: the paper's capacity migration sends it back.
  clock_.Set(10 * kSec);
  auto m = s->NextMigration(devices);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->path, SstName(30));
  EXPECT_EQ(m->to_device, 1u);
}

TEST_F(HhzsTest, SpareZonesLeaveOutWritesInFlightAtOrBelowTheTieringLevel) {
  spare_migration_ = true;  // ours
  auto make = [&] {
    auto s = Make("p+m");
    AboveTheTieringLevel(*s);
    // A compaction into L1 (D_1 = 1): 1, 4, 8 -> t = 2 with 3 slots, 4 used.
    s->view().CompactionStarted(7, 1, {{1, 0}});
    HddReads(*s, 30, 20);
    return s;
  };
  // One free zone, and D_1 = 1 is about to take it: #30 stays on the HDD,
  // and L_t's overflow may stay on the SSD since the free zone covers D_1.
  EXPECT_FALSE(make()->NextMigration({Ssd(10, 2, 2, 2), Hdd()}).has_value());
  // No free zone: capacity migration makes room for D_1 though reads are
  // HDD-bound; the coldest L2 SST (#10, the oldest) goes.
  auto m = make()->NextMigration({Ssd(10, 1, 2, 2), Hdd()});
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->path, SstName(10));
  EXPECT_EQ(m->to_device, 1u);
}

TEST_F(HhzsTest, SparePlacementWritesTheTieringLevelIntoSpareZonesWhileReadsAreHddBound) {
  spare_placement_ = true;
  auto make = [&](bool hdd_bound, bool l1_demand) {
    auto s = Make("p");
    AboveTheTieringLevel(*s);  // t = 2, its 4 slots used
    if (l1_demand) s->view().CompactionStarted(7, 1, {{1, 0}});
    if (hdd_bound) HddReads(*s, 30, 20);
    return s;
  };
  const std::vector<DeviceView> one_free{Ssd(10, 2, 2, 2), Hdd()};
  // Reads HDD-bound and a spare zone: an L2 SST the plan has no slot for
  // goes to the SSD; L3, above t, still to the HDD.
  auto s = make(true, false);
  EXPECT_EQ(s->Place(SstHint(100, 2), one_free).devices, (Devices{0, 1}));
  EXPECT_EQ(s->Place(SstHint(100, 3), one_free).devices, (Devices{1, 0}));
  // No spare zone: the HDD.
  EXPECT_EQ(s->Place(SstHint(100, 2), {Ssd(10, 1, 2, 2), Hdd()}).devices, (Devices{1, 0}));
  // Reads not HDD-bound (a load): the plan as the paper has it.
  EXPECT_EQ(make(false, false)->Place(SstHint(100, 2), one_free).devices, (Devices{1, 0}));
  // The free zone is L1's demand (D_1 = 1), not spare.
  EXPECT_EQ(make(true, true)->Place(SstHint(100, 2), one_free).devices, (Devices{1, 0}));
  // Switched off: the HDD, HDD-bound or not.
  spare_placement_ = false;
  EXPECT_EQ(make(true, false)->Place(SstHint(100, 2), one_free).devices, (Devices{1, 0}));
}

TEST_F(HhzsTest, UnusedPoolZonesAreNotFreeForSsts) {
  auto s = Make("p+m");
  Balanced(*s);
  HddReads(*s, 20, 12);
  // 3 empty zones, but 2 of them are pool zones not in use yet: 0 free.
  // The coldest SSD SST (#10, older than #11) is swapped out instead.
  auto m = s->NextMigration({Ssd(10, 3, 0, 0), Hdd()});
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->path, SstName(10));
  EXPECT_EQ(m->to_device, 1u);
}

// ---- caching switch (3.5)

TEST_F(HhzsTest, CachedBlocksAreDroppedWhenTheirSstMovesToTheSsdOrDies) {
  auto s = Make("hhzs");
  Balanced(*s);
  SsdCacheIndex* cache = s->cache();
  ASSERT_NE(cache, nullptr);
  cache->OpenZone(1, 1 << 20);
  ASSERT_TRUE(cache->Admit({20, 0}, 4096).has_value());
  ASSERT_TRUE(cache->Admit({21, 0}, 4096).has_value());
  ASSERT_TRUE(cache->Admit({22, 0}, 4096).has_value());
  s->OnPlaced(SstHint(20), 0, true, 1 << 20);  // popularity migration done
  EXPECT_FALSE(cache->Lookup({20, 0}).has_value());
  s->OnRemoved(SstHint(21));
  EXPECT_FALSE(cache->Lookup({21, 0}).has_value());
  EXPECT_FALSE(s->view().Sst(21).has_value());
  EXPECT_TRUE(cache->Lookup({22, 0}).has_value());
  EXPECT_EQ(cache->stats().cached_blocks, 1u);
}

}  // namespace
}  // namespace zonestack::policy
