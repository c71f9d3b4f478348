// Host-aware SMR zones (ZoneTier, "Host-Aware SMR Zones" and "Sequential
// Write and NSW"; docs/emulator.md, "Host-aware SMR"): the sequential /
// non-sequential zone condition, non-sequential writes (NSWs) journaled in
// the media cache, reads that find the newest copy there, and cleaning by
// read-modify-write, through the ZonedDevice interface on an instant
// device. A device without host-aware zones skips them (the fixture).
#include <vector>

#include "zone_conformance_fixture.h"

namespace zonestack::device::conformance {
namespace {

// --- Devices without host-aware zones ----------------------------------------------

TEST_F(ZbcZoneTest, HostManagedZonesRefuseNswsAndStaySequential) {
  EXPECT_FALSE(dev().info().host_aware());
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock));
  EXPECT_ZONE_ERROR(WriteAt(Start(z) + 2 * kBlock, kBlock), ZoneError::kInvalidWrite);
  EXPECT_FALSE(Report(z).non_sequential);
  EXPECT_EQ(dev().Stats().nsw_writes, 0u);
}

// --- The zone condition --------------------------------------------------------

TEST_F(HostAwareZoneTest, ZonesAreSequentialWritePreferredAndStartSequential) {
  const DeviceInfo& info = dev().info();
  EXPECT_TRUE(info.host_aware());
  for (uint32_t z = 0; z < info.num_zones; ++z) {
    const ZoneInfo zi = Report(z);
    EXPECT_EQ(zi.type, z < info.num_conventional_zones ? ZoneType::kConventional
                                                       : ZoneType::kSequentialWritePreferred)
        << "zone " << z;
    EXPECT_FALSE(zi.non_sequential) << "zone " << z;
  }
}

TEST_F(HostAwareZoneTest, WritesAtTheWritePointerKeepTheZoneSequential) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), 2 * kBlock, 1));
  ASSERT_OK(WriteAt(Start(z) + 2 * kBlock, kBlock, 2));
  EXPECT_FALSE(NonSequential(z));
  EXPECT_EQ(Written(z), 3 * kBlock);
  EXPECT_EQ(Nsws(), 0u);
  EXPECT_EQ(CachedBytes(), 0u);
}

TEST_F(HostAwareZoneTest, WriteAheadOfTheWritePointerIsAnNsw) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z) + 2 * kBlock, kBlock, 1));
  EXPECT_TRUE(NonSequential(z));
  EXPECT_EQ(Nsws(), 1u);
  EXPECT_EQ(CachedBytes(), kBlock);
  // The write pointer tracks the end of the highest block written.
  EXPECT_EQ(Written(z), 3 * kBlock);
  EXPECT_EQ(ReadBytes(Start(z) + 2 * kBlock, kBlock), Pattern(kBlock, 1));
  EXPECT_EQ(ReadBytes(Start(z), kBlock), std::vector<uint8_t>(kBlock, 0));
  EXPECT_FALSE(NonSequential(Seq(1)));
}

TEST_F(HostAwareZoneTest, WriteBehindTheWritePointerIsAnNsw) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), 4 * kBlock, 1));
  ASSERT_OK(WriteAt(Start(z) + kBlock, kBlock, 2));
  EXPECT_TRUE(NonSequential(z));
  EXPECT_EQ(Nsws(), 1u);
  EXPECT_EQ(Written(z), 4 * kBlock);
}

TEST_F(HostAwareZoneTest, WriteAtTheWritePointerOfANonSequentialZoneIsStillAnNsw) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z) + kBlock, kBlock, 1));
  ASSERT_TRUE(NonSequential(z));
  ASSERT_OK(WriteAt(Start(z) + 2 * kBlock, kBlock, 2));  // at the write pointer
  EXPECT_EQ(Nsws(), 2u);
  EXPECT_EQ(CachedBytes(), 2 * kBlock);
  EXPECT_TRUE(NonSequential(z));
}

TEST_F(HostAwareZoneTest, FullZoneTakesNsws) {
  const uint32_t z = Seq(0);
  ASSERT_OK(dev().FinishZone(z, kCtx));
  ASSERT_EQ(State(z), ZoneState::kFull);
  ASSERT_OK(WriteAt(Start(z), kBlock, 3));
  EXPECT_EQ(State(z), ZoneState::kFull);
  EXPECT_TRUE(NonSequential(z));
  EXPECT_EQ(ReadBytes(Start(z), kBlock), Pattern(kBlock, 3));
}

TEST_F(HostAwareZoneTest, ZonesTakeNoOpenOrActiveResources) {
  for (uint32_t i = 0; i < 10; ++i) ASSERT_OK(WriteAt(Start(Seq(i)) + kBlock * (i % 2), kBlock));
  EXPECT_EQ(OpenCount(), 10);
  EXPECT_ZONE_ERROR(dev().Append(Seq(11), Pattern(kBlock, 1), kCtx), ZoneError::kInvalidArgument);
}

TEST_F(HostAwareZoneTest, ConventionalZonesTakeWritesAnywhereWithoutTheMediaCache) {
  ASSERT_OK(WriteAt(Start(0) + 5 * kBlock, kBlock, 4));
  ASSERT_OK(WriteAt(Start(0) + 2 * kBlock, kBlock, 5));
  EXPECT_EQ(Nsws(), 0u);
  EXPECT_EQ(ReadBytes(Start(0) + 5 * kBlock, kBlock), Pattern(kBlock, 4));
}

TEST_F(HostAwareZoneTest, ResetEmptiesANonSequentialZoneAndDropsItsCachedBlocks) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z) + 3 * kBlock, 2 * kBlock, 1));
  ASSERT_OK(dev().ResetZone(z, kCtx));
  EXPECT_EQ(State(z), ZoneState::kEmpty);
  EXPECT_FALSE(NonSequential(z));
  EXPECT_EQ(CachedBytes(), 0u);
  EXPECT_EQ(ReadBytes(Start(z) + 3 * kBlock, 2 * kBlock), std::vector<uint8_t>(2 * kBlock, 0));
  // A reset zone is written sequentially again.
  ASSERT_OK(WriteAt(Start(z), kBlock, 2));
  EXPECT_FALSE(NonSequential(z));
  EXPECT_EQ(Nsws(), 1u);
}

// --- Read after write -----------------------------------------------------------

TEST_F(HostAwareZoneTest, ReadsFindTheNewestCopyInTheMediaCache) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), 4 * kBlock, 1));            // in place
  ASSERT_OK(WriteAt(Start(z) + kBlock, kBlock, 2));       // NSW
  ASSERT_OK(WriteAt(Start(z) + kBlock, 2 * kBlock, 3));   // NSW over it
  std::vector<uint8_t> want = Pattern(4 * kBlock, 1);
  const std::vector<uint8_t> newest = Pattern(2 * kBlock, 3);
  std::copy(newest.begin(), newest.end(), want.begin() + kBlock);
  EXPECT_EQ(ReadBytes(Start(z), 4 * kBlock), want);
  EXPECT_EQ(dev().Stats().media_cache_read_bytes, 2 * kBlock);
}

// --- Cleaning --------------------------------------------------------------------

TEST_F(HostAwareZoneTest, CleaningAboveHighWaterRewritesZonesSequentially) {
  // 12 blocks (75 %) stay cached; the 13th crosses the high-water mark.
  std::vector<std::vector<uint8_t>> want(3, std::vector<uint8_t>(8 * kBlock, 0));
  for (uint32_t n = 0; n < 13; ++n) {
    const uint32_t i = n % 3;
    const uint64_t block = 7 - n / 3;  // backwards: every write is an NSW
    ASSERT_OK(WriteAt(Start(Seq(i)) + block * kBlock, kBlock, static_cast<uint8_t>(n)));
    const std::vector<uint8_t> data = Pattern(kBlock, static_cast<uint8_t>(n));
    std::copy(data.begin(), data.end(), want[i].begin() + block * kBlock);
    if (n < 12) {
      EXPECT_EQ(dev().Stats().media_cache_cleaned_zones, 0u) << "after NSW " << n;
    }
  }
  const DeviceStats s = dev().Stats();
  EXPECT_EQ(s.media_cache_cleanings, 1u);
  EXPECT_EQ(s.media_cache_cleaned_zones, 3u);
  EXPECT_EQ(s.media_cache_bytes, 0u);
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_FALSE(NonSequential(Seq(i))) << "zone " << Seq(i);
    // The write pointer stays at the end of the zone's valid data.
    EXPECT_EQ(Written(Seq(i)), 8 * kBlock);
    EXPECT_EQ(ReadBytes(Start(Seq(i)), 8 * kBlock), want[i]) << "zone " << Seq(i);
  }
  // Cleaned zones take sequential writes at their write pointers again.
  ASSERT_OK(WriteAt(Start(Seq(0)) + 8 * kBlock, kBlock, 9));
  EXPECT_FALSE(NonSequential(Seq(0)));
  EXPECT_EQ(Nsws(), 13u);
}

TEST_F(HostAwareZoneTest, NewestCopyWinsAcrossCleaning) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), 4 * kBlock, 1));
  ASSERT_OK(WriteAt(Start(z) + 2 * kBlock, kBlock, 2));
  // Thirteen blocks of NSWs elsewhere trigger cleaning of both zones.
  for (uint32_t n = 0; n < 12; ++n) {
    ASSERT_OK(WriteAt(Start(Seq(1)) + (15 - n) * kBlock, kBlock, static_cast<uint8_t>(10 + n)));
  }
  ASSERT_EQ(dev().Stats().media_cache_cleaned_zones, 2u);
  // After cleaning, an NSW over the cleaned block is newest again.
  ASSERT_OK(WriteAt(Start(z) + 2 * kBlock, kBlock, 3));
  std::vector<uint8_t> want = Pattern(4 * kBlock, 1);
  const std::vector<uint8_t> newest = Pattern(kBlock, 3);
  std::copy(newest.begin(), newest.end(), want.begin() + 2 * kBlock);
  EXPECT_EQ(ReadBytes(Start(z), 4 * kBlock), want);
  EXPECT_EQ(ReadBytes(Start(Seq(1)) + 4 * kBlock, kBlock), Pattern(kBlock, 21));
}

TEST_F(HostAwareZoneTest, NswLargerThanTheMediaCacheLandsInItsZone) {
  const uint32_t z = Seq(0);
  ASSERT_OK(WriteAt(Start(z), kBlock, 1));
  ASSERT_OK(WriteAt(Start(z) + kBlock, kBlock, 7));  // at the pointer: in place
  // 15 blocks from block 1: behind the write pointer, and only 1 block
  // short of the whole cache; then a 16-block NSW over a full zone's worth.
  ASSERT_OK(WriteAt(Start(z), 16 * kBlock, 2));
  EXPECT_EQ(CachedBytes(), 0u);
  EXPECT_FALSE(NonSequential(z));
  EXPECT_EQ(ReadBytes(Start(z), 16 * kBlock), Pattern(16 * kBlock, 2));
}

}  // namespace
}  // namespace zonestack::device::conformance
