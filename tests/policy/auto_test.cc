// SpanDB's AUTO as HHZS 4.1 describes it: the maximum SSD level m follows
// the SSD's write throughput and free space, once a second.
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
using testing::Ssd;
using testing::SstHint;
using testing::WalHint;
using Devices = std::vector<uint32_t>;

constexpr double kMB = 1e6;

// The rules' tests start from m = 1 (option initial_max_level), where a
// step up and a step down both show; the default, SpanDB's 4, has its own.
class AutoTest : public ::testing::Test {
 protected:
  AutoTest() { Make(1); }

  void Make(int initial_max_level) {
    HhzsOptions o;
    o.ssd_write_bytes_per_sec = 100 * kMB;
    o.wal_cache_zones = 2;
    o.initial_max_level = initial_max_level;
    scheme_ = *MakeHhzsPaperScheme("auto", o, {clock_.fn()});
  }

  // At time `sec`, with `written` more bytes on the SSD than at the last
  // call and `empty` of 100 zones empty: the highest level placed SSD
  // first, or -1 for none.
  int MaxLevelAt(double sec, double written_mb, uint32_t empty = 50) {
    clock_.Set(static_cast<uint64_t>(sec * kSec));
    bytes_ += static_cast<uint64_t>(written_mb * kMB);
    std::vector<DeviceView> devices{Ssd(100, empty), Hdd()};
    devices[0].bytes_written = bytes_;
    int max = -1;
    for (int level = 0; level <= 6; ++level) {
      if (scheme_->Place(SstHint(9, level), devices).devices == Devices{0, 1}) max = level;
    }
    return max;
  }

  FakeClock clock_;
  std::shared_ptr<Scheme> scheme_;
  uint64_t bytes_ = 0;
};

TEST_F(AutoTest, StartsAtSpanDbsMaxLevelFourByDefault) {
  HhzsOptions defaults;
  EXPECT_EQ(defaults.initial_max_level, 4);
  Make(defaults.initial_max_level);
  EXPECT_EQ(MaxLevelAt(0, 0), 4);
  EXPECT_EQ(MaxLevelAt(1, 70), 3);  // 70% of the SSD's rate: m - 1
  EXPECT_EQ(MaxLevelAt(2, 10), 4);  // 10%: m + 1
}

TEST_F(AutoTest, CountersSayHowOftenEachRuleChangedTheMaxLevel) {
  EXPECT_EQ(MaxLevelAt(0, 0), 1);
  EXPECT_EQ(MaxLevelAt(1, 0), 2);      // raised
  EXPECT_EQ(MaxLevelAt(2, 90), 1);     // lowered
  EXPECT_EQ(MaxLevelAt(3, 0), 2);      // raised
  EXPECT_EQ(MaxLevelAt(4, 0, 13), 1);  // raised to 3, capped at 1
  EXPECT_EQ(MaxLevelAt(5, 0, 7), -1);  // raised to 2, then no SST (m = -2)
  const std::map<std::string, int64_t> c = scheme_->counters();
  EXPECT_EQ(c.at("raised"), 4);
  EXPECT_EQ(c.at("lowered"), 1);
  EXPECT_EQ(c.at("capped"), 1);
  EXPECT_EQ(c.at("no_sst"), 1);
  EXPECT_EQ(c.at("max_level"), -2);
}

TEST_F(AutoTest, StartsWithL0AndL1OnTheSsdAndKeepsTheWalInThePool) {
  EXPECT_EQ(MaxLevelAt(0, 0), 1);
  std::vector<DeviceView> devices{Ssd(100, 50), Hdd()};
  PlacementDecision wal = scheme_->Place(WalHint(), devices);
  EXPECT_EQ(wal.devices, (Devices{0, 1}));
  EXPECT_TRUE(wal.pool);
  EXPECT_EQ(scheme_->PoolZones(0, devices), 2u);
  EXPECT_EQ(scheme_->PoolZones(1, devices), 0u);
  EXPECT_EQ(scheme_->MigrationRate(), 0);
}

TEST_F(AutoTest, BytesWrittenBetweenTuningsCountAtTheNextTuning) {
  EXPECT_EQ(MaxLevelAt(0, 0), 1);
  EXPECT_EQ(MaxLevelAt(0.5, 500), 1);  // less than a second: no tuning
  EXPECT_EQ(MaxLevelAt(1, 0), 0);      // 500 MB since t = 0: 500%
}

TEST_F(AutoTest, BelowFortyPercentRaisesAboveSixtyFiveLowers) {
  EXPECT_EQ(MaxLevelAt(0, 0), 1);
  EXPECT_EQ(MaxLevelAt(1, 39), 2);  // 39% of 100 MB/s
  EXPECT_EQ(MaxLevelAt(2, 41), 2);  // 41%: between the thresholds
  EXPECT_EQ(MaxLevelAt(3, 64), 2);
  EXPECT_EQ(MaxLevelAt(4, 66), 1);  // 66%
  EXPECT_EQ(MaxLevelAt(6, 100), 1);  // 100 MB over 2 s = 50%
  EXPECT_EQ(MaxLevelAt(8, 70), 2);   // 70 MB over 2 s = 35%
}

TEST_F(AutoTest, MaxLevelStopsAtFourAndAtMinusOne) {
  EXPECT_EQ(MaxLevelAt(0, 0), 1);
  EXPECT_EQ(MaxLevelAt(1, 0), 2);
  EXPECT_EQ(MaxLevelAt(2, 0), 3);
  EXPECT_EQ(MaxLevelAt(3, 0), 4);
  EXPECT_EQ(MaxLevelAt(4, 0), 4);
  EXPECT_EQ(MaxLevelAt(5, 90), 3);
  EXPECT_EQ(MaxLevelAt(6, 90), 2);
  EXPECT_EQ(MaxLevelAt(7, 90), 1);
  EXPECT_EQ(MaxLevelAt(8, 90), 0);
  EXPECT_EQ(MaxLevelAt(9, 90), -1);   // m = -1: no SST on the SSD
  EXPECT_EQ(MaxLevelAt(10, 90), -1);  // floor: m stays -1
  EXPECT_EQ(MaxLevelAt(11, 0), 0);    // one raise brings L0 back
}

TEST_F(AutoTest, LowFreeSpaceCapsTheMaxLevelAtOne) {
  EXPECT_EQ(MaxLevelAt(0, 0), 1);
  EXPECT_EQ(MaxLevelAt(1, 0), 2);
  EXPECT_EQ(MaxLevelAt(2, 0, 14), 3);  // 14% free: no cap
  EXPECT_EQ(MaxLevelAt(3, 0, 13), 1);  // 13% < 13.3%: m = 1
  EXPECT_EQ(MaxLevelAt(4, 0, 13), 1);
}

TEST_F(AutoTest, CapDoesNotRaiseALowerMaxLevel) {
  EXPECT_EQ(MaxLevelAt(0, 0), 1);
  EXPECT_EQ(MaxLevelAt(1, 90), 0);
  EXPECT_EQ(MaxLevelAt(2, 50, 10), 0);
}

TEST_F(AutoTest, BelowEightPercentFreeNoSstGoesToTheSsd) {
  EXPECT_EQ(MaxLevelAt(0, 0), 1);
  EXPECT_EQ(MaxLevelAt(1, 0), 2);
  EXPECT_EQ(MaxLevelAt(2, 0, 7), -1);  // m = -2, even from above 1
  EXPECT_EQ(MaxLevelAt(2.5, 0, 50), -1);
  // Space back: m climbs from -2 one step a second.
  EXPECT_EQ(MaxLevelAt(3, 0, 50), -1);  // -1
  EXPECT_EQ(MaxLevelAt(4, 0, 50), 0);
  EXPECT_EQ(MaxLevelAt(5, 0, 50), 1);
}

TEST_F(AutoTest, TuningWaitsForASecondOfClock) {
  EXPECT_EQ(MaxLevelAt(0, 0), 1);
  EXPECT_EQ(MaxLevelAt(0.999, 0), 1);
  EXPECT_EQ(MaxLevelAt(1, 0), 2);
}

}  // namespace
}  // namespace zonestack::policy
