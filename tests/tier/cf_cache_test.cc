// Cleaning-friendly caching and zone tiering on the small rig
// (src/tier/cf_cache.cc, zone_tiering.cc): which end point each write
// reaches, and what the drive sees.
#include "tier_test_util.h"

namespace zonestack::tier::testing {
namespace {

uint64_t Z(uint32_t zone, uint64_t block = 0) { return zone * kZone + block * kBlock; }

TEST(CfCacheTest, AnOverwriteBehindTheWritePointerWaitsInTheCache) {
  Rig r = MakeRig("HA-256-CFC");
  ASSERT_OK(r.Write(Z(2), 4 * kBlock, 1));  // sequential: in place
  ASSERT_OK(r.Write(Z(2, 1), kBlock, 2));   // behind the pointer
  EXPECT_EQ(r.DriveNsws(), 0u);
  EXPECT_FALSE(r.Zone(2).non_sequential);
  EXPECT_EQ(r.tier->cached_blocks(), 1u);
  std::vector<uint8_t> want = Fill(4 * kBlock, 1);
  auto two = Fill(kBlock, 2);
  std::copy(two.begin(), two.end(), want.begin() + kBlock);
  EXPECT_EQ(r.Read(Z(2), 4 * kBlock), want);
}

TEST(CfCacheTest, AnNswToANonSequentialZoneBypassesTheCache) {
  Rig r = MakeRig("HA-256-CFC");
  // Another writer made zone 3 non-sequential already.
  ASSERT_OK(r.drive->Write(Z(3, 6), Fill(kBlock, 9), {}));
  ASSERT_TRUE(r.Zone(3).non_sequential);
  ASSERT_OK(r.Write(Z(3, 2), kBlock, 3));
  EXPECT_EQ(r.tier->cached_blocks(), 0u);
  EXPECT_EQ(r.tier->Stats().bypassed_nsws, 1u);
  EXPECT_EQ(r.Read(Z(3, 2), kBlock), Fill(kBlock, 3));
}

TEST(CfCacheTest, PaddingKeepsAZoneSequential) {
  Rig r = MakeRig("HA-256-CFC");
  ASSERT_OK(r.Write(Z(4), kBlock, 1));
  ASSERT_OK(r.Write(Z(4, 3), kBlock, 2));  // a two-block gap
  EXPECT_EQ(r.DriveNsws(), 0u);
  EXPECT_FALSE(r.Zone(4).non_sequential);
  EXPECT_EQ(r.Zone(4).write_pointer, Z(4, 4));
  EXPECT_EQ(r.tier->Stats().padded_writes, 1u);
  EXPECT_EQ(r.Read(Z(4, 1), kBlock), std::vector<uint8_t>(kBlock, 0));
  EXPECT_EQ(r.Read(Z(4, 3), kBlock), Fill(kBlock, 2));
}

TEST(CfCacheTest, BypassingKeepsTheNswUntilThePointerReachesIt) {
  TierOptions base;
  base.gap_policy = GapPolicy::kBypass;
  Rig r = MakeRig("HA-256-CFC", base);
  ASSERT_OK(r.Write(Z(4), kBlock, 1));
  ASSERT_OK(r.Write(Z(4, 3), kBlock, 2));
  EXPECT_EQ(r.tier->cached_blocks(), 1u);
  ASSERT_OK(r.Write(Z(4, 1), 2 * kBlock, 3));  // reaches the cached block
  EXPECT_EQ(r.tier->cached_blocks(), 0u);
  EXPECT_EQ(r.tier->Stats().drained_runs, 1u);
  EXPECT_EQ(r.DriveNsws(), 0u);
  EXPECT_EQ(r.Zone(4).write_pointer, Z(4, 4));
  EXPECT_EQ(r.Read(Z(4, 3), kBlock), Fill(kBlock, 2));
}

// Zone-aware eviction: a full CF-Cache sends one zone's blocks home
// together (the least recently used zone), so one zone turns
// non-sequential, where block-LRU eviction spreads NSWs over every zone
// its oldest blocks belong to.
int ZonesTurnedNonSequential(const std::string& scheme, uint64_t* cached) {
  TierOptions base;
  base.period_requests = 0;  // caching only
  base.lru_evict_batch = 8;
  Rig r = MakeRig(scheme, base);
  for (uint32_t z = 1; z <= 4; ++z) EXPECT_OK(r.drive->Write(Z(z), Fill(8 * kBlock, z), {}));
  // Round robin over the zones: 32 overwrites fill the 32-block cache.
  for (uint32_t i = 0; i < 32; ++i) EXPECT_OK(r.Write(Z(1 + i % 4, i / 4), kBlock, 100 + i));
  EXPECT_OK(r.Write(Z(5, 0), kBlock, 7));  // zone 5's first write: in place
  EXPECT_OK(r.Write(Z(6), 2 * kBlock, 8));
  EXPECT_OK(r.Write(Z(6, 0), kBlock, 9));  // needs room
  int n = 0;
  for (uint32_t z = 1; z < 40; ++z) n += r.Zone(z).non_sequential ? 1 : 0;
  for (uint32_t i = 0; i < 32; ++i) {
    EXPECT_EQ(r.Read(Z(1 + i % 4, i / 4), kBlock), Fill(kBlock, 100 + i));
  }
  *cached = r.tier->cached_blocks();
  return n;
}

TEST(CfCacheTest, ZoneAwareEvictionSendsOneZoneHome) {
  uint64_t cached = 0;
  EXPECT_EQ(ZonesTurnedNonSequential("HA-256-CFC", &cached), 1);
  EXPECT_EQ(cached, 25u);  // zones 2-4 and the new block
}

TEST(CfCacheTest, BlockLruEvictionSpreadsNswsOverZones) {
  uint64_t cached = 0;
  EXPECT_GE(ZonesTurnedNonSequential("HA-256-LRU", &cached), 4);
}

// A zone whose cached blocks lie just past its write pointer leaves the
// cache first, in place, with no NSW at all.
TEST(CfCacheTest, EvictionPrefersAZoneItCanWriteInPlace) {
  TierOptions base;
  base.period_requests = 0;
  base.gap_policy = GapPolicy::kBypass;
  Rig r = MakeRig("HA-256-CFC", base);
  ASSERT_OK(r.Write(Z(9), kBlock, 1));
  ASSERT_OK(r.Write(Z(9, 2), kBlock, 2));  // ahead of the pointer: cached (bypass)
  for (uint32_t z = 10; z <= 14; ++z) ASSERT_OK(r.drive->Write(Z(z), Fill(8 * kBlock, 3), {}));
  for (uint32_t i = 0; i < 31; ++i) ASSERT_OK(r.Write(Z(10 + i / 8, i % 8), kBlock, 10 + i));
  EXPECT_EQ(r.tier->cached_blocks(), 32u);
  ASSERT_OK(r.Write(Z(14, 0), kBlock, 50));
  EXPECT_EQ(r.tier->Stats().evictions_sequential, 1u);
  EXPECT_FALSE(r.Zone(9).non_sequential);
  EXPECT_EQ(r.Zone(9).write_pointer, Z(9, 3));
  EXPECT_EQ(r.Read(Z(9, 2), kBlock), Fill(kBlock, 2));
}

TEST(ZoneTieringTest, PromotionFiltersGarbageAndMergesTheCache) {
  TierOptions base;
  base.period_requests = 0;
  Rig r = MakeRig("HA-256-CFC", base);
  ASSERT_OK(r.Write(Z(5), 3 * kBlock, 1));
  ASSERT_OK(r.Write(Z(5, 1), kBlock, 2));  // cached
  ASSERT_OK(r.tier->RunPeriod());
  ASSERT_NE(r.tier->SlotOf(5), kNoSlot);
  const TierStats st = r.tier->Stats();
  EXPECT_EQ(st.promoted_bytes, 3 * kBlock);
  EXPECT_EQ(st.filtered_bytes, kZone - 3 * kBlock);
  EXPECT_EQ(st.merged_blocks, 1u);
  EXPECT_EQ(r.tier->cached_blocks(), 0u);
  EXPECT_EQ(r.Zone(5).write_pointer, Z(5));  // the drive's copy was reset
  std::vector<uint8_t> want = Fill(3 * kBlock, 1);
  auto two = Fill(kBlock, 2);
  std::copy(two.begin(), two.end(), want.begin() + kBlock);
  EXPECT_EQ(r.Read(Z(5), 3 * kBlock), want);
  EXPECT_EQ(r.Read(Z(5, 3), kBlock), std::vector<uint8_t>(kBlock, 0));
}

// One slot: zone 5 goes up, then zone 6 (hotter) takes its place.
Rig PromoteThenDisplace(const std::string& scheme) {
  TierOptions base;
  base.period_requests = 0;
  base.ssd_tier_bytes = kZone;
  base.placement.decay = 0;
  Rig r = MakeRig(scheme, base);
  // Zone 5 holds older data on the drive (an LRU cache would keep the
  // tier's own writes away from it).
  EXPECT_OK(r.drive->Write(Z(5), Fill(3 * kBlock, 1), {}));
  EXPECT_OK(r.Write(Z(6), 3 * kBlock, 2));
  EXPECT_OK(r.Write(Z(5, 1), kBlock, 3));
  EXPECT_OK(r.tier->RunPeriod());
  EXPECT_NE(r.tier->SlotOf(5), kNoSlot);
  for (int i = 0; i < 10; ++i) r.Read(Z(6), kBlock);
  EXPECT_OK(r.tier->RunPeriod());
  EXPECT_EQ(r.tier->SlotOf(5), kNoSlot);
  EXPECT_NE(r.tier->SlotOf(6), kNoSlot);
  std::vector<uint8_t> want = Fill(3 * kBlock, 1);
  auto three = Fill(kBlock, 3);
  std::copy(three.begin(), three.end(), want.begin() + kBlock);
  EXPECT_EQ(r.Read(Z(5), 3 * kBlock), want);
  return r;
}

TEST(ZoneTieringTest, DemotionResetsTheZoneAndWritesItSequentially) {
  Rig r = PromoteThenDisplace("HA-256-CFC");
  EXPECT_EQ(r.DriveNsws(), 0u);
  EXPECT_FALSE(r.Zone(5).non_sequential);
  EXPECT_EQ(r.Zone(5).write_pointer, Z(5, 3));
  EXPECT_EQ(r.tier->Stats().demotions, 1u);
}

TEST(ZoneTieringTest, HostAwareUnawareDemotionWritesNsws) {
  Rig r = PromoteThenDisplace("HA-256-LRU");
  EXPECT_GT(r.DriveNsws(), 0u);
  EXPECT_TRUE(r.Zone(5).non_sequential);
}

TEST(TierSchemeTest, EachTableThreeDesignIsOneName) {
  for (const char* n : {"DM-64-LRU", "DM-128-LRU", "DM-256-LRU", "HA-256-LRU", "HA-256-CFC"}) {
    Rig r = MakeRig(n);
    ASSERT_NE(r.tier, nullptr) << n;
    ASSERT_OK(r.Write(Z(7, 2), 2 * kBlock, 4));
    EXPECT_EQ(r.Read(Z(7, 2), 2 * kBlock), Fill(2 * kBlock, 4)) << n;
  }
  auto dm = TierScheme("DM-64-LRU", {});
  ASSERT_TRUE(dm.ok());
  EXPECT_EQ(dm->extents_per_zone, 4u);
  EXPECT_FALSE(TierScheme("HA-512", {}).ok());
}

TEST(TierSchemeTest, AnHaSchemeRefusesADeviceManagedDrive) {
  auto o = TierScheme("HA-256-CFC", {});
  ASSERT_TRUE(o.ok());
  o->ssd_tier_bytes = kZone;
  auto clock = std::make_shared<device::ManualClock>();
  auto drive = device::OpenDevice("emu:st8000as0022?zones=40&scale=1/2048&timing=none&smr=dm");
  auto ssd = device::OpenDevice("emu:zn540?zones=4&conv=4&scale=1/2048&timing=none");
  ASSERT_OK(drive.status());
  ASSERT_OK(ssd.status());
  auto t = BlockTier::Open(ssd->get(), drive->get(), *o, clock.get());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace zonestack::tier::testing
