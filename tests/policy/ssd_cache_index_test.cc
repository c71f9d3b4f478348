#include "policy/ssd_cache_index.h"

#include <gtest/gtest.h>

namespace zonestack::policy {
namespace {

constexpr size_t kPerBlock = SsdCacheIndex::kTableEntryBytes + SsdCacheIndex::kFifoEntryBytes;

TEST(SsdCacheIndexTest, PerBlockMemoryIsThePapersFortyEightBytes) {
  // HHZS 3.6: SST id, HDD offset and SSD location of 8 bytes each, in the
  // mapping table and in the FIFO queue.
  EXPECT_EQ(kPerBlock, 48u);
}

TEST(SsdCacheIndexTest, NoActiveZoneMeansNoRoom) {
  SsdCacheIndex index;
  EXPECT_FALSE(index.Admit({1, 0}, 4096).has_value());
  EXPECT_EQ(index.stats().admitted, 0u);
  EXPECT_EQ(index.stats().rejected, 0u);
  EXPECT_FALSE(index.EvictOldestZone().has_value());
}

TEST(SsdCacheIndexTest, AdmitsEachBlockOnceAndAppendsInTheActiveZone) {
  SsdCacheIndex index;
  index.OpenZone(7, 3 * 4096);
  auto a = index.Admit({1, 0}, 4096);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->zone, 7u);
  EXPECT_EQ(a->offset, 0u);
  EXPECT_EQ(a->size, 4096u);
  auto b = index.Admit({1, 8192}, 4096);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->offset, 4096u);
  // Already cached: rejected, and the zone's room is untouched.
  EXPECT_FALSE(index.Admit({1, 0}, 4096).has_value());
  auto c = index.Admit({2, 0}, 4096);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->offset, 8192u);
  // The zone is full: nullopt until a new zone opens.
  EXPECT_FALSE(index.Admit({3, 0}, 1).has_value());
  index.OpenZone(8, 4096);
  auto d = index.Admit({3, 0}, 1000);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->zone, 8u);
  EXPECT_EQ(d->offset, 0u);
  EXPECT_EQ(index.zones(), 2u);

  CacheStats s = index.stats();
  EXPECT_EQ(s.admitted, 4u);
  EXPECT_EQ(s.rejected, 1u);
  EXPECT_EQ(s.cached_blocks, 4u);
  EXPECT_EQ(s.cached_bytes, 3u * 4096 + 1000);
}

TEST(SsdCacheIndexTest, LookupCountsHitsAndMisses) {
  SsdCacheIndex index;
  index.OpenZone(7, 1 << 20);
  ASSERT_TRUE(index.Admit({1, 4096}, 4096).has_value());
  auto hit = index.Lookup({1, 4096});
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->zone, 7u);
  EXPECT_EQ(hit->offset, 0u);
  EXPECT_FALSE(index.Lookup({1, 0}).has_value());
  EXPECT_FALSE(index.Lookup({2, 4096}).has_value());
  CacheStats s = index.stats();
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 2u);
}

TEST(SsdCacheIndexTest, FifoEvictionDropsExactlyTheOldestZonesBlocks) {
  SsdCacheIndex index;
  index.OpenZone(100, 2 * 4096);
  ASSERT_TRUE(index.Admit({1, 0}, 4096));
  ASSERT_TRUE(index.Admit({2, 0}, 4096));
  index.OpenZone(200, 2 * 4096);
  ASSERT_TRUE(index.Admit({1, 4096}, 4096));
  ASSERT_TRUE(index.Admit({3, 0}, 4096));

  EXPECT_EQ(index.EvictOldestZone(), 100u);
  EXPECT_FALSE(index.Lookup({1, 0}).has_value());
  EXPECT_FALSE(index.Lookup({2, 0}).has_value());
  EXPECT_TRUE(index.Lookup({1, 4096}).has_value());
  EXPECT_TRUE(index.Lookup({3, 0}).has_value());
  CacheStats s = index.stats();
  EXPECT_EQ(s.evicted_zones, 1u);
  EXPECT_EQ(s.evicted_blocks, 2u);
  EXPECT_EQ(s.cached_blocks, 2u);
  EXPECT_EQ(s.cached_bytes, 2u * 4096);
  EXPECT_EQ(index.zones(), 1u);

  // An evicted block can be cached again.
  index.OpenZone(300, 4096);
  auto again = index.Admit({1, 0}, 4096);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->zone, 300u);

  EXPECT_EQ(index.EvictOldestZone(), 200u);
  EXPECT_EQ(index.EvictOldestZone(), 300u);
  EXPECT_FALSE(index.EvictOldestZone().has_value());
  s = index.stats();
  EXPECT_EQ(s.evicted_zones, 3u);
  EXPECT_EQ(s.evicted_blocks, 5u);
  EXPECT_EQ(s.cached_blocks, 0u);
  EXPECT_EQ(s.cached_bytes, 0u);
  EXPECT_EQ(s.memory_bytes, 0u);
}

TEST(SsdCacheIndexTest, EvictionSkipsBlocksDroppedAndCachedAgainInANewerZone) {
  SsdCacheIndex index;
  index.OpenZone(100, 1 << 20);
  ASSERT_TRUE(index.Admit({1, 0}, 4096));
  index.DropSst(1);
  index.OpenZone(200, 1 << 20);
  auto again = index.Admit({1, 0}, 4096);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->zone, 200u);
  EXPECT_EQ(index.EvictOldestZone(), 100u);
  EXPECT_EQ(index.stats().evicted_blocks, 0u);
  auto still = index.Lookup({1, 0});
  ASSERT_TRUE(still.has_value());
  EXPECT_EQ(still->zone, 200u);
}

TEST(SsdCacheIndexTest, DropSstForgetsOnlyThatSstsBlocks) {
  SsdCacheIndex index;
  index.OpenZone(100, 1 << 20);
  for (uint64_t off = 0; off < 3 * 4096; off += 4096) ASSERT_TRUE(index.Admit({5, off}, 4096));
  ASSERT_TRUE(index.Admit({6, 0}, 512));
  index.DropSst(5);
  index.DropSst(42);  // nothing cached: no-op
  EXPECT_FALSE(index.Lookup({5, 0}).has_value());
  EXPECT_FALSE(index.Lookup({5, 8192}).has_value());
  EXPECT_TRUE(index.Lookup({6, 0}).has_value());
  CacheStats s = index.stats();
  EXPECT_EQ(s.cached_blocks, 1u);
  EXPECT_EQ(s.cached_bytes, 512u);
  EXPECT_EQ(s.evicted_blocks, 0u);
  // Dropped blocks may be admitted again.
  EXPECT_TRUE(index.Admit({5, 0}, 4096).has_value());
}

TEST(SsdCacheIndexTest, WithoutSecondChanceEveryEvictedBlockPasses) {
  SsdCacheIndex index;
  EXPECT_TRUE(index.PassesAdmission({1, 0}));
  EXPECT_TRUE(index.PassesAdmission({1, 0}));
  EXPECT_EQ(index.stats().first_sightings, 0u);
}

TEST(SsdCacheIndexTest, SecondChancePassesABlockOnItsSecondEvictionWithinTheGhostList) {
  SsdCacheIndex index;
  index.SetSecondChance(2);
  EXPECT_FALSE(index.PassesAdmission({1, 0}));  // first sighting: remembered
  EXPECT_TRUE(index.PassesAdmission({1, 0}));   // second: passes, forgotten
  EXPECT_FALSE(index.PassesAdmission({1, 0}));  // so a third is a first again
  // The list holds two sightings: {1,0} falls out after two newer ones.
  EXPECT_FALSE(index.PassesAdmission({2, 0}));
  EXPECT_FALSE(index.PassesAdmission({3, 0}));
  EXPECT_FALSE(index.PassesAdmission({1, 0}));
  // {3,0} is still remembered; {2,0} is not.
  EXPECT_TRUE(index.PassesAdmission({3, 0}));
  EXPECT_FALSE(index.PassesAdmission({2, 0}));
  EXPECT_EQ(index.stats().first_sightings, 6u);
  // An address that passed and was sighted again keeps its new entry when
  // its stale one comes due: {4,0} passes and is sighted again; the list
  // (three long) then holds {2,0}, the stale {4,0} and the new one, and
  // two more sightings push the first two out.
  index.SetSecondChance(3);
  EXPECT_FALSE(index.PassesAdmission({4, 0}));
  EXPECT_TRUE(index.PassesAdmission({4, 0}));
  EXPECT_FALSE(index.PassesAdmission({4, 0}));
  EXPECT_FALSE(index.PassesAdmission({5, 0}));
  EXPECT_FALSE(index.PassesAdmission({6, 0}));
  EXPECT_TRUE(index.PassesAdmission({4, 0}));
  // Off again: everything passes and the list is gone from memory.
  index.SetSecondChance(0);
  EXPECT_TRUE(index.PassesAdmission({9, 0}));
  EXPECT_EQ(index.stats().memory_bytes, 0u);
}

TEST(SsdCacheIndexTest, WithoutRefreshACachedBlockLeavesWithItsZone) {
  SsdCacheIndex index;
  index.OpenZone(7, 2 * 4096);
  ASSERT_TRUE(index.Admit({1, 0}, 4096).has_value());
  index.OpenZone(8, 2 * 4096);
  auto hit = index.Lookup({1, 0});
  ASSERT_TRUE(hit.has_value());
  EXPECT_FALSE(index.ShouldRefresh(*hit));
  EXPECT_FALSE(index.Admit({1, 0}, 4096).has_value());  // a duplicate
  EXPECT_EQ(index.EvictOldestZone(), 7u);
  EXPECT_FALSE(index.Lookup({1, 0}).has_value());
  EXPECT_EQ(index.stats().refreshed, 0u);
}

TEST(SsdCacheIndexTest, RefreshMovesABlockHitOutsideTheActiveZoneToItsTail) {
  SsdCacheIndex index;
  index.SetRefresh(true);
  index.OpenZone(7, 2 * 4096);
  ASSERT_TRUE(index.Admit({1, 0}, 4096).has_value());
  ASSERT_TRUE(index.Admit({2, 0}, 4096).has_value());
  // In the active zone: nothing to refresh, and a second admission is a
  // duplicate.
  auto hit = index.Lookup({1, 0});
  ASSERT_TRUE(hit.has_value());
  EXPECT_FALSE(index.ShouldRefresh(*hit));
  EXPECT_FALSE(index.Admit({1, 0}, 4096).has_value());
  index.OpenZone(8, 2 * 4096);
  hit = index.Lookup({1, 0});
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->zone, 7u);
  EXPECT_TRUE(index.ShouldRefresh(*hit));
  auto moved = index.Admit({1, 0}, 4096);
  ASSERT_TRUE(moved.has_value());
  EXPECT_EQ(moved->zone, 8u);
  EXPECT_EQ(moved->offset, 0u);
  // Zone 7's eviction takes {2,0} and skips {1,0}'s stale entry.
  EXPECT_EQ(index.EvictOldestZone(), 7u);
  EXPECT_FALSE(index.Lookup({2, 0}).has_value());
  auto still = index.Lookup({1, 0});
  ASSERT_TRUE(still.has_value());
  EXPECT_EQ(still->zone, 8u);
  CacheStats s = index.stats();
  EXPECT_EQ(s.admitted, 2u);
  EXPECT_EQ(s.refreshed, 1u);
  EXPECT_EQ(s.rejected, 1u);
  EXPECT_EQ(s.cached_blocks, 1u);
  EXPECT_EQ(s.cached_bytes, 4096u);
  EXPECT_EQ(s.evicted_blocks, 1u);
}

TEST(SsdCacheIndexTest, RefreshWithoutRoomKeepsTheOldCopy) {
  SsdCacheIndex index;
  index.SetRefresh(true);
  index.OpenZone(7, 4096);
  ASSERT_TRUE(index.Admit({1, 0}, 4096).has_value());
  index.OpenZone(8, 4096);
  ASSERT_TRUE(index.Admit({2, 0}, 4096).has_value());  // zone 8 is full
  EXPECT_FALSE(index.Admit({1, 0}, 4096).has_value());
  auto hit = index.Lookup({1, 0});
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->zone, 7u);
  EXPECT_EQ(index.stats().refreshed, 0u);
  EXPECT_EQ(index.stats().cached_blocks, 2u);
}

TEST(SsdCacheIndexTest, SecondChancePassesACachedBlockHandedBackForRefresh) {
  SsdCacheIndex index;
  index.SetSecondChance(4);
  index.SetRefresh(true);
  index.OpenZone(7, 1 << 20);
  EXPECT_FALSE(index.PassesAdmission({1, 0}));
  EXPECT_TRUE(index.PassesAdmission({1, 0}));
  ASSERT_TRUE(index.Admit({1, 0}, 4096).has_value());
  // Cached: its next eviction is not a first sighting.
  EXPECT_TRUE(index.PassesAdmission({1, 0}));
  EXPECT_EQ(index.stats().first_sightings, 1u);
}

TEST(SsdCacheIndexTest, MemoryCountsTableAndFifoEntries) {
  SsdCacheIndex index;
  EXPECT_EQ(index.stats().memory_bytes, 0u);
  index.OpenZone(100, 1 << 20);
  ASSERT_TRUE(index.Admit({1, 0}, 4096));
  const size_t one_sst = index.stats().memory_bytes - kPerBlock;  // per-SST table entry
  EXPECT_GT(one_sst, 0u);
  ASSERT_TRUE(index.Admit({1, 4096}, 4096));
  ASSERT_TRUE(index.Admit({2, 0}, 4096));
  EXPECT_EQ(index.stats().memory_bytes, 2 * one_sst + 3 * kPerBlock);
  // A dropped SST leaves its FIFO entries until its zone is evicted.
  index.DropSst(1);
  EXPECT_EQ(index.stats().memory_bytes,
            one_sst + kPerBlock + 2 * SsdCacheIndex::kFifoEntryBytes);
  EXPECT_EQ(index.EvictOldestZone(), 100u);
  EXPECT_EQ(index.stats().memory_bytes, 0u);
}

TEST(SsdCacheIndexTest, TwoGibCacheOfFourKibBlocksNeedsAbout24MiB) {
  // The paper's example (3.6): 2 GiB / 4 KiB blocks * 48 B = 24 MiB.
  EXPECT_EQ((size_t{2} << 30) / 4096 * kPerBlock, size_t{24} << 20);
}

}  // namespace
}  // namespace zonestack::policy
