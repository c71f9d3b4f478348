// Timing of the host-aware SMR model on simulated time (docs/emulator.md,
// "Host-aware SMR"): a sequential write costs what the disk model charges
// in place, an NSW a journal append in the media cache; cleaning starts
// above the high-water mark and after the idle time; foreground I/O during
// cleaning crawls (ZoneTier Fig. 2) for a time that grows with the zones
// the NSWs touched (Fig. 3); a write that finds the log full waits.
#include <algorithm>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "device/disk_timing.h"
#include "device/presets.h"
#include "ha_smr_util.h"

namespace zonestack::device {
namespace {

using namespace ha_smr;  // NOLINT: the tests' vocabulary
using testing_util::Pattern;

constexpr uint64_t kMs = 1'000'000;

TEST(MediaCacheTimingTest, SequentialWriteCostsSmrSpeedAndNswAMediaCacheAppend) {
  HaDevice d = OpenHa("mc=1048576&mc_idle_ms=0");
  ASSERT_NE(d.clock, nullptr);
  // A reference disk model fed what the drive should do: sequential writes
  // in place, NSWs at successive positions of the log (at the start of
  // the stroke, where the CMR region is).
  DiskTiming ref(FindPreset("st8000as0022")->disk, d.dev->info().capacity_bytes());
  for (uint64_t off = 0; off < kZone; off += 32 * 1024) {
    const uint64_t t0 = d.Now();
    ASSERT_OK(d.WriteAt(d.Start(5) + off, 32 * 1024, 1));
    EXPECT_EQ(d.Now(), ref.Schedule({.op = IoOp::kWrite, .zone = 5, .offset = d.Start(5) + off,
                                     .length = 32 * 1024},
                                    t0));
  }
  std::vector<uint64_t> nsw_ns;
  for (uint32_t i = 0; i < 8; ++i) {
    const uint32_t zone = 10 + 3 * i;  // scattered over the stroke
    const uint64_t t0 = d.Now();
    ASSERT_OK(d.WriteAt(d.Start(zone) + 3 * kBlock, kBlock, static_cast<uint8_t>(i)));
    EXPECT_EQ(d.Now(), ref.Schedule({.op = IoOp::kWrite, .zone = zone, .offset = i * kBlock,
                                     .length = kBlock},
                                    t0));
    nsw_ns.push_back(d.Now() - t0);
  }
  EXPECT_EQ(d.dev->Stats().nsw_writes, 8u);
  // After the first, the NSWs stream into the log: no positioning, where
  // writing each in its zone would seek across the stroke.
  std::vector<uint8_t> buf(kBlock);
  uint64_t t0 = d.Now();
  ASSERT_OK(d.dev->Read(d.Start(38), buf, kCtx));
  EXPECT_EQ(d.Now(), ref.Schedule({.op = IoOp::kRead, .zone = 38, .offset = d.Start(38),
                                   .length = kBlock},
                                  t0));
  const uint64_t random_read = d.Now() - t0;
  for (size_t i = 1; i < nsw_ns.size(); ++i) {
    EXPECT_LT(nsw_ns[i], random_read / 10) << "NSW " << i;
  }
  // Reading an NSW's block back reads the log, not its zone.
  t0 = d.Now();
  EXPECT_EQ(d.ReadBytes(d.Start(13) + 3 * kBlock, kBlock), Pattern(kBlock, 1));
  EXPECT_EQ(d.Now(), ref.Schedule({.op = IoOp::kRead, .zone = 13, .offset = kBlock,
                                   .length = kBlock},
                                  t0));
  EXPECT_EQ(d.dev->Stats().media_cache_read_bytes, kBlock);
}

// Mean latency of `n` 4 KiB reads, back to back, of the conventional zone
// from `*next` on.
double MeanReadNs(HaDevice& d, int n, uint64_t* next) {
  std::vector<uint8_t> buf(kBlock);
  uint64_t total = 0;
  for (int i = 0; i < n; ++i) {
    total += d.Timed([&] { return d.dev->Read(*next, buf, kCtx); });
    *next += kBlock;
  }
  return static_cast<double>(total) / n;
}

TEST(MediaCacheTimingTest, ForegroundIoDuringCleaningIsFarSlower) {
  HaDevice d = OpenHa("mc=1048576&mc_idle_ms=100");
  ASSERT_NE(d.clock, nullptr);
  uint64_t next = d.Start(0);
  const double before = MeanReadNs(d, 16, &next);
  for (uint32_t z = 2; z < 18; ++z) ASSERT_OK(d.WriteAt(d.Start(z) + 5 * kBlock, kBlock, 1));
  d.clock->Advance(101 * kMs);  // idle: cleaning has just begun
  const double during = MeanReadNs(d, 16, &next);
  EXPECT_EQ(d.dev->Stats().media_cache_idle_cleanings, 1u);
  EXPECT_GT(during, 20 * before) << "before " << before << " ns, during " << during << " ns";
  // Once the log is clean the reads stream again.
  for (int i = 0; i < 64 && d.dev->Stats().media_cache_bytes > 0; ++i) MeanReadNs(d, 1, &next);
  ASSERT_EQ(d.dev->Stats().media_cache_bytes, 0u);
  MeanReadNs(d, 1, &next);  // back from the last cleaned zone
  EXPECT_LT(MeanReadNs(d, 16, &next), 2 * before);
}

// The performance recovery time after `blocks` NSWs spread over `zones`
// zones: from the moment idle cleaning starts until a 4 KiB read of the
// conventional zone completes within 1 ms again.
uint64_t RecoveryNs(uint32_t zones, uint32_t blocks) {
  HaDevice d = OpenHa("mc=1048576&mc_idle_ms=100");
  if (d.clock == nullptr) return 0;
  for (uint32_t b = 0; b < blocks; ++b) {
    const uint32_t zone = 2 + b % zones;
    const uint64_t block = 1 + b / zones;
    EXPECT_OK(d.WriteAt(d.Start(zone) + block * kBlock, kBlock, static_cast<uint8_t>(b)));
  }
  d.clock->Advance(100 * kMs);
  const uint64_t start = d.Now();
  uint64_t next = d.Start(0);
  std::vector<uint8_t> buf(kBlock);
  for (int i = 0; i < 1000; ++i) {
    const uint64_t t0 = d.Now();
    EXPECT_OK(d.dev->Read(next, buf, kCtx));
    next += kBlock;
    if (d.Now() - t0 < kMs) return t0 - start;
  }
  ADD_FAILURE() << "no recovery after 1000 reads";
  return 0;
}

TEST(MediaCacheTimingTest, RecoveryTimeGrowsWithTheZonesTheNswsTouched) {
  const uint64_t one = RecoveryNs(1, 16);
  const uint64_t four = RecoveryNs(4, 16);
  const uint64_t sixteen = RecoveryNs(16, 16);
  EXPECT_LT(one, four);
  EXPECT_LT(four, sixteen);
  // Each touched zone costs a read-modify-write of its own.
  EXPECT_GT(sixteen, 4 * one) << "1 zone " << one << " ns, 16 zones " << sixteen << " ns";
}

TEST(MediaCacheTimingTest, HighWaterStartsCleaningBehindTheWriteThatCrossedIt) {
  HaDevice d = OpenHa("mc=65536&mc_high=50&mc_idle_ms=0");  // 16 blocks, high at 8
  ASSERT_NE(d.clock, nullptr);
  for (uint32_t i = 0; i < 8; ++i) ASSERT_OK(d.WriteAt(d.Start(2 + i) + kBlock, kBlock, 1));
  EXPECT_EQ(d.dev->Stats().media_cache_cleanings, 0u);
  const uint64_t crossing = d.Timed([&] { return d.WriteAt(d.Start(10) + kBlock, kBlock, 2); });
  EXPECT_EQ(d.dev->Stats().media_cache_cleanings, 1u);
  // The write that crossed the mark did not wait for the cleaning.
  EXPECT_LT(crossing, kMs);
  EXPECT_EQ(d.dev->Stats().media_cache_cleaned_zones, 0u);
  // The next command does: the head is cleaning.
  std::vector<uint8_t> buf(kBlock);
  const uint64_t next = d.Timed([&] { return d.dev->Read(d.Start(0), buf, kCtx); });
  EXPECT_GT(next, 5 * kMs);
  EXPECT_GE(d.dev->Stats().media_cache_cleaned_zones, 1u);
  EXPECT_EQ(d.dev->Stats().media_cache_idle_cleanings, 0u);
  for (int i = 0; i < 64 && d.dev->Stats().media_cache_bytes > 0; ++i) {
    ASSERT_OK(d.dev->Read(d.Start(0), buf, kCtx));
  }
  EXPECT_EQ(d.dev->Stats().media_cache_bytes, 0u);
  EXPECT_EQ(d.dev->Stats().media_cache_cleaned_zones, 9u);
  // The last zone's rewrite ends before the next command starts.
  EXPECT_TRUE(d.Zone(10).non_sequential);
  ASSERT_OK(d.dev->Read(d.Start(0), buf, kCtx));
  for (uint32_t z = 2; z < 11; ++z) EXPECT_FALSE(d.Zone(z).non_sequential) << "zone " << z;
}

TEST(MediaCacheTimingTest, IdleCleaningWaitsForTheIdleTime) {
  HaDevice d = OpenHa("mc=1048576&mc_idle_ms=100");
  ASSERT_NE(d.clock, nullptr);
  for (uint32_t z = 2; z < 6; ++z) ASSERT_OK(d.WriteAt(d.Start(z) + kBlock, kBlock, 1));
  std::vector<uint8_t> buf(kBlock);
  d.clock->Advance(99 * kMs);
  ASSERT_OK(d.dev->Read(d.Start(0), buf, kCtx));
  EXPECT_EQ(d.dev->Stats().media_cache_cleanings, 0u);
  // The read restarted the idle time.
  d.clock->Advance(99 * kMs);
  ASSERT_OK(d.dev->Read(d.Start(0), buf, kCtx));
  EXPECT_EQ(d.dev->Stats().media_cache_cleanings, 0u);
  d.clock->Advance(10'000 * kMs);
  ASSERT_OK(d.dev->Read(d.Start(0), buf, kCtx));
  const DeviceStats s = d.dev->Stats();
  EXPECT_EQ(s.media_cache_idle_cleanings, 1u);
  EXPECT_EQ(s.media_cache_cleaned_zones, 4u);
  EXPECT_EQ(s.media_cache_bytes, 0u);
  EXPECT_GT(s.media_cache_cleaning_ns, 0u);
}

TEST(MediaCacheTimingTest, WriteThatFindsTheLogFullWaitsForAZoneToBeCleaned) {
  HaDevice d = OpenHa("mc=32768&mc_high=100&mc_idle_ms=0");  // 8 blocks
  ASSERT_NE(d.clock, nullptr);
  std::vector<uint64_t> ns;
  for (uint32_t i = 0; i < 9; ++i) {
    ns.push_back(d.Timed([&] {
      return d.WriteAt(d.Start(2 + i) + kBlock, kBlock, static_cast<uint8_t>(i));
    }));
  }
  const DeviceStats s = d.dev->Stats();
  EXPECT_EQ(s.media_cache_full_stalls, 1u);
  EXPECT_EQ(s.media_cache_cleaned_zones, 1u);  // the oldest, zone 2
  EXPECT_FALSE(d.Zone(2).non_sequential);
  EXPECT_TRUE(d.Zone(3).non_sequential);
  EXPECT_GT(ns[8], 10 * ns[7]);
  for (uint32_t i = 0; i < 9; ++i) {
    EXPECT_EQ(d.ReadBytes(d.Start(2 + i) + kBlock, kBlock), Pattern(kBlock, static_cast<uint8_t>(i)));
  }
}

TEST(MediaCacheTimingTest, NswLargerThanTheLogIsRewrittenIntoItsZone) {
  HaDevice d = OpenHa("mc=16384&mc_idle_ms=0");  // 4 blocks
  ASSERT_NE(d.clock, nullptr);
  ASSERT_OK(d.WriteAt(d.Start(3) + 2 * kBlock, kBlock, 1));
  ASSERT_OK(d.WriteAt(d.Start(4) + kBlock, 8 * kBlock, 2));
  EXPECT_EQ(d.dev->Stats().media_cache_bytes, 0u);
  EXPECT_FALSE(d.Zone(3).non_sequential);
  EXPECT_FALSE(d.Zone(4).non_sequential);
  EXPECT_EQ(d.ReadBytes(d.Start(4) + kBlock, 8 * kBlock), Pattern(8 * kBlock, 2));
  EXPECT_EQ(d.ReadBytes(d.Start(3) + 2 * kBlock, kBlock), Pattern(kBlock, 1));
}

}  // namespace
}  // namespace zonestack::device
