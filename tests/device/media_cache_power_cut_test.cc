// The media cache through power cuts (docs/emulator.md, "Host-aware SMR"):
// an NSW is durable when it returns (the media cache is a journal on the
// platter), a reset drops a zone's cached blocks for good, and a cleaning
// the power tears is either done or not for each zone: nothing any write
// returned for is lost.
#include <map>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "ha_smr_util.h"

namespace zonestack::device {
namespace {

using namespace ha_smr;  // NOLINT: the tests' vocabulary
using testing_util::Pattern;

constexpr uint64_t kMs = 1'000'000;

TEST(MediaCachePowerCutTest, NswsSurviveACutWithoutAFlush) {
  HaDevice d = OpenHa("mc=1048576", "none");
  ASSERT_NE(d.emu, nullptr);
  ASSERT_OK(d.WriteAt(d.Start(2), 3 * kBlock, 1));            // in place, unflushed
  ASSERT_OK(d.WriteAt(d.Start(2) + kBlock, kBlock, 2));       // NSW
  ASSERT_OK(d.WriteAt(d.Start(2) + 6 * kBlock, kBlock, 3));   // NSW
  ASSERT_OK(d.WriteAt(d.Start(3), 2 * kBlock, 4));            // in place, unflushed
  d.emu->PowerCut();
  const ZoneInfo z2 = d.Zone(2);
  EXPECT_TRUE(z2.non_sequential);
  EXPECT_EQ(z2.write_pointer, d.Start(2) + 7 * kBlock);
  std::vector<uint8_t> want = Pattern(3 * kBlock, 1);
  const std::vector<uint8_t> nsw = Pattern(kBlock, 2);
  std::copy(nsw.begin(), nsw.end(), want.begin() + kBlock);
  // The zone's condition changed with its in-place writes committed.
  EXPECT_EQ(d.ReadBytes(d.Start(2), 3 * kBlock), want);
  EXPECT_EQ(d.ReadBytes(d.Start(2) + 6 * kBlock, kBlock), Pattern(kBlock, 3));
  // A sequential zone keeps the ordinary contract: unflushed is lost.
  EXPECT_EQ(d.Zone(3).state, ZoneState::kEmpty);
  EXPECT_EQ(d.ReadBytes(d.Start(3), kBlock), std::vector<uint8_t>(kBlock, 0));
}

TEST(MediaCachePowerCutTest, ResetDropsTheCachedBlocksForGood) {
  HaDevice d = OpenHa("mc=1048576", "none");
  ASSERT_NE(d.emu, nullptr);
  ASSERT_OK(d.WriteAt(d.Start(2) + 4 * kBlock, kBlock, 1));
  ASSERT_OK(d.dev->ResetZone(2, kCtx));
  d.emu->PowerCut();
  EXPECT_EQ(d.Zone(2).state, ZoneState::kEmpty);
  EXPECT_FALSE(d.Zone(2).non_sequential);
  EXPECT_EQ(d.dev->Stats().media_cache_bytes, 0u);
  EXPECT_EQ(d.ReadBytes(d.Start(2) + 4 * kBlock, kBlock), std::vector<uint8_t>(kBlock, 0));
}

// PowerOffAfter(n) in the middle of a run of random NSWs (with the cleaning
// the high-water mark starts on the way): every write that returned is
// there after power-on.
TEST(MediaCachePowerCutTest, EveryAcknowledgedNswSurvivesAPowerOffAnywhere) {
  for (uint64_t cut : {3u, 20u, 41u, 77u, 150u}) {
    SCOPED_TRACE(testing::Message() << "power off after " << cut << " commands");
    HaDevice d = OpenHa("mc=131072&mc_high=50", "none");  // 32 blocks
    ASSERT_NE(d.emu, nullptr);
    std::mt19937 rng(static_cast<uint32_t>(cut));
    std::map<uint64_t, uint8_t> acked;  // block offset -> seed
    d.emu->PowerOffAfter(cut);
    for (uint32_t i = 0; i < 400; ++i) {
      const uint32_t zone = 2 + rng() % 8;
      const uint64_t off = d.Start(zone) + (rng() % 32) * kBlock;
      const auto seed = static_cast<uint8_t>(i);
      const uint64_t nsws = d.dev->Stats().nsw_writes;
      if (!d.WriteAt(off, kBlock, seed).ok()) break;
      // A write in place (at a sequential zone's write pointer) keeps the
      // ordinary contract: durable once a flush returns.
      if (d.dev->Stats().nsw_writes == nsws && !d.dev->Flush(kCtx).ok()) break;
      acked[off] = seed;
    }
    ASSERT_TRUE(d.emu->powered_off());
    d.emu->PowerOn();
    EXPECT_GT(d.dev->Stats().nsw_writes, 0u);
    for (const auto& [off, seed] : acked) {
      EXPECT_EQ(d.ReadBytes(off, kBlock), Pattern(kBlock, seed)) << "block at " << off;
    }
  }
}

// Six zones, each with two blocks in place and two NSWs (one over an
// in-place block); the device cleans 100 ms after the last write.
struct Prepared {
  HaDevice d;
  std::vector<std::vector<uint8_t>> want;  // each zone's first 6 blocks
};
Prepared Prepare() {
  Prepared p{OpenHa("mc=1048576&mc_idle_ms=100"), {}};
  for (uint32_t i = 0; i < 6; ++i) {
    const uint32_t z = 2 + i;
    std::vector<uint8_t> want = Pattern(2 * kBlock, static_cast<uint8_t>(i));
    want.resize(6 * kBlock, 0);
    EXPECT_OK(p.d.WriteAt(p.d.Start(z), 2 * kBlock, static_cast<uint8_t>(i)));
    for (uint64_t block : {1u, 5u}) {
      const auto seed = static_cast<uint8_t>(100 + 10 * i + block);
      EXPECT_OK(p.d.WriteAt(p.d.Start(z) + block * kBlock, kBlock, seed));
      const std::vector<uint8_t> data = Pattern(kBlock, seed);
      std::copy(data.begin(), data.end(), want.begin() + block * kBlock);
    }
    p.want.push_back(want);
  }
  return p;
}

TEST(MediaCachePowerCutTest, ACutDuringCleaningLeavesEachZoneCleanedOrNot) {
  // How long the cleaning of the six zones takes, undisturbed.
  uint64_t cleaning_ns;
  {
    Prepared p = Prepare();
    ASSERT_NE(p.d.clock, nullptr);
    p.d.clock->Advance(10'000 * kMs);
    ASSERT_OK(p.d.dev->Flush(kCtx));
    ASSERT_EQ(p.d.dev->Stats().media_cache_cleaned_zones, 6u);
    cleaning_ns = p.d.dev->Stats().media_cache_cleaning_ns;
    ASSERT_GT(cleaning_ns, 0u);
  }
  int partial = 0, torn = 0;
  for (int tenth = 0; tenth <= 11; ++tenth) {
    SCOPED_TRACE(testing::Message() << "cut at " << tenth << "/10 of the cleaning");
    Prepared p = Prepare();
    ASSERT_NE(p.d.clock, nullptr);
    p.d.clock->Advance(100 * kMs + cleaning_ns * tenth / 10);
    p.d.emu->PowerCut();
    torn += static_cast<int>(p.d.dev->Stats().media_cache_torn_cleanings);
    int cleaned = 0;
    for (uint32_t i = 0; i < 6; ++i) {
      const ZoneInfo z = p.d.Zone(2 + i);
      cleaned += z.non_sequential ? 0 : 1;
      EXPECT_EQ(z.write_pointer, z.start + 6 * kBlock) << "zone " << z.index;
      EXPECT_EQ(p.d.ReadBytes(z.start, 6 * kBlock), p.want[i]) << "zone " << z.index;
    }
    // The zones clean oldest first, so the cleaned ones come first.
    for (uint32_t i = 0; i < 6; ++i) {
      EXPECT_EQ(p.d.Zone(2 + i).non_sequential, i >= static_cast<uint32_t>(cleaned));
    }
    if (tenth == 0) {
      EXPECT_EQ(cleaned, 0);
    }
    if (tenth >= 10) {
      EXPECT_EQ(cleaned, 6);
    }
    if (cleaned > 0 && cleaned < 6) ++partial;
    // After power-on the drive goes on cleaning when idle, losing nothing.
    p.d.clock->Advance(10'000 * kMs);
    ASSERT_OK(p.d.dev->Flush(kCtx));
    EXPECT_EQ(p.d.dev->Stats().media_cache_bytes, 0u);
    for (uint32_t i = 0; i < 6; ++i) {
      EXPECT_FALSE(p.d.Zone(2 + i).non_sequential);
      EXPECT_EQ(p.d.ReadBytes(p.d.Start(2 + i), 6 * kBlock), p.want[i]);
    }
  }
  EXPECT_GE(partial, 3);
  EXPECT_GE(torn, 3);
}

}  // namespace
}  // namespace zonestack::device
