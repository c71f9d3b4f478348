// The basic schemes Bh (HHZS 2.3) and B3+M (4.2, Exp#2).
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
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

class BasicTest : public ::testing::Test {
 protected:
  std::shared_ptr<Scheme> Make(const std::string& name) {
    HhzsOptions o;
    o.hdd_random_read_iops = 2;  // B3+M migrates above 1 HDD read/s
    auto s = MakeHhzsPaperScheme(name, o, {clock_.fn()});
    EXPECT_TRUE(s.ok()) << s.status();
    return *s;
  }
  void AddSst(Scheme& s, uint64_t number, int level, bool on_ssd, int reads = 0) {
    s.view().SetLevel(number, level, 1 << 20);
    s.OnPlaced(SstHint(number), on_ssd ? 0 : 1, on_ssd, 1 << 20);
    for (int i = 0; i < reads; ++i) s.view().RecordRead(number);
  }
  // Sets the clock to `sec` after 3 reads/s of an L4 SST on the HDD (which
  // B3+M never moves) over the 2 s before it: reads are HDD-bound.
  void ReadBoundAt(Scheme& s, uint64_t sec) {
    if (!s.view().Sst(99)) AddSst(s, 99, 4, false);
    for (uint64_t t : {sec - 2, sec - 1}) {
      clock_.Set(t * kSec);
      for (int i = 0; i < 3; ++i) s.view().RecordRead(99);
    }
    clock_.Set(sec * kSec);
  }

  FakeClock clock_;
  std::vector<DeviceView> devices_{Ssd(10, 3), Hdd()};
};

TEST_F(BasicTest, LevelThresholdSplitsSstsBetweenSsdAndHdd) {
  for (int h = 1; h <= 4; ++h) {
    auto s = Make(absl::StrCat("b", h));
    EXPECT_EQ(dynamic_cast<HintedScheme&>(*s).options().level_threshold, h);
    for (int level = 0; level <= 5; ++level) {
      EXPECT_EQ(s->Place(SstHint(9, level), devices_).devices,
                (level < h ? Devices{0, 1} : Devices{1, 0}))
          << "b" << h << " L" << level;
    }
  }
}

TEST_F(BasicTest, SstLevelFromPendingHintsElseL0) {
  auto s = Make("b1");
  s->view().CompactionStarted(1, 1, {{3, 0}});
  s->view().CompactionFileStarted(1, 9);
  EXPECT_EQ(s->Place(SstHint(9), devices_).devices, (Devices{1, 0}));
  EXPECT_EQ(s->Place(SstHint(10), devices_).devices, (Devices{0, 1}));
}

TEST_F(BasicTest, WalOnSsdWithoutPoolMetadataOnHdd) {
  auto s = Make("b3");
  PlacementDecision wal = s->Place(WalHint(), devices_);
  EXPECT_EQ(wal.devices, (Devices{0, 1}));
  EXPECT_EQ(wal.group, kWalGroup);
  EXPECT_FALSE(wal.pool);
  EXPECT_EQ(s->PoolZones(0, devices_), 0u);
  PlacementDecision meta = s->Place(ManifestHint(), devices_);
  EXPECT_EQ(meta.devices, (Devices{1, 0}));
  EXPECT_EQ(meta.group, kMetadataGroup);
  EXPECT_EQ(s->Place(SstHint(77, 0), devices_).group, kSstGroupBase + 77);
}

TEST_F(BasicTest, PlainBasicSchemesNeverMigrate) {
  auto s = Make("b3");
  AddSst(*s, 20, 1, false, 50);
  clock_.Set(10 * kSec);
  EXPECT_EQ(s->MigrationRate(), 0);
  EXPECT_FALSE(s->NextMigration(devices_).has_value());
  EXPECT_EQ(s->cache(), nullptr);
}

TEST_F(BasicTest, B3PlusMMovesLowLevelHddSstsUpByPriority) {
  auto s = Make("b3+m");
  EXPECT_EQ(s->MigrationRate(), 4 << 20);
  EXPECT_EQ(dynamic_cast<HintedScheme&>(*s).options().level_threshold, 3);
  AddSst(*s, 20, 2, false, 3);
  AddSst(*s, 21, 1, false, 0);
  AddSst(*s, 30, 3, false, 100);  // L3 stays on the HDD, however hot
  AddSst(*s, 40, 4, true);        // and nothing is moved down
  ReadBoundAt(*s, 10);
  auto m = s->NextMigration(devices_);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->path, SstName(21));  // L1 before L2
  EXPECT_EQ(m->to_device, 0u);
  s->OnPlaced(SstHint(21), 0, true, 1 << 20);
  ReadBoundAt(*s, clock_.now() / kSec + 1);
  m = s->NextMigration(devices_);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->path, SstName(20));
  s->OnPlaced(SstHint(20), 0, true, 1 << 20);
  ReadBoundAt(*s, clock_.now() / kSec + 1);
  EXPECT_FALSE(s->NextMigration(devices_).has_value());
}

TEST_F(BasicTest, B3PlusMMigratesOnlyWhileReadsAreHddBound) {
  // HHZS's popularity trigger (3.4): HDD user reads above half the HDD's
  // random-read IOPS, here 1 read/s.
  auto s = Make("b3+m");
  AddSst(*s, 20, 2, false);
  AddSst(*s, 99, 4, false);
  clock_.Set(8 * kSec);
  s->view().RecordRead(99);
  clock_.Set(9 * kSec);
  s->view().RecordRead(99);
  clock_.Set(10 * kSec);
  EXPECT_FALSE(s->NextMigration(devices_).has_value());  // 1 read/s: not above
  ReadBoundAt(*s, 12);
  auto m = s->NextMigration(devices_);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->path, SstName(20));
}

TEST_F(BasicTest, B3PlusMNeedsAnEmptyZoneBeyondTheGcReserve) {
  auto s = Make("b3+m");
  AddSst(*s, 20, 2, false);
  ReadBoundAt(*s, 10);
  EXPECT_FALSE(s->NextMigration({Ssd(10, 1), Hdd()}).has_value());
  ReadBoundAt(*s, clock_.now() / kSec + 1);
  EXPECT_TRUE(s->NextMigration({Ssd(10, 2), Hdd()}).has_value());
}

TEST_F(BasicTest, B3PlusMPassesOverAnSstLongerThanTheFreeZones) {
  auto s = Make("b3+m");
  const uint64_t zone = Ssd(10, 3).zone_capacity;
  s->view().SetLevel(20, 0, 3 * zone);  // an intra-L0 output of three zones
  s->OnPlaced(SstHint(20), 1, false, 3 * zone);
  s->view().RecordRead(20);
  AddSst(*s, 21, 2, false);
  ReadBoundAt(*s, 10);
  // Two zones free beyond the GC reserve: the L0 SST ranks first but does
  // not fit.
  auto m = s->NextMigration({Ssd(10, 3), Hdd()});
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->path, SstName(21));
  ReadBoundAt(*s, clock_.now() / kSec + 1);
  m = s->NextMigration({Ssd(10, 4), Hdd()});
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->path, SstName(20));
}

TEST_F(BasicTest, B3PlusMSkipsCompactionInputs) {
  auto s = Make("b3+m");
  AddSst(*s, 20, 1, false);
  AddSst(*s, 21, 2, false);
  s->view().CompactionStarted(1, 2, {{20, 1}});
  ReadBoundAt(*s, 10);
  auto m = s->NextMigration(devices_);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->path, SstName(21));
}

}  // namespace
}  // namespace zonestack::policy
