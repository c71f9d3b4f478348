#include "device/disk_timing.h"

#include <gtest/gtest.h>

#include <cmath>

namespace zonestack::device {
namespace {

// A small disk with round numbers: one revolution is 10 ms, the outer
// diameter reads at 100 MB/s and writes at 50 MB/s, the inner diameter at
// half that, and seeks take 1 ms + 4 ms * sqrt(fraction of the stroke).
constexpr uint64_t kCmd = 50'000;
constexpr uint64_t kRev = 10'000'000;
constexpr uint64_t kMinSeek = 1'000'000;
constexpr uint64_t kFullSeek = 5'000'000;
constexpr double kOdRead = 100e6;
constexpr double kOdWrite = 50e6;
constexpr double kIdRatio = 0.5;
constexpr uint64_t kCapacity = 10'000'000'000;
constexpr uint64_t kMB = 1'000'000;

DiskParams SmallDisk() {
  DiskParams p;
  p.rpm = 6000;
  p.od_read_bytes_per_s = kOdRead;
  p.od_write_bytes_per_s = kOdWrite;
  p.id_ratio = kIdRatio;
  p.min_seek_ns = kMinSeek;
  p.full_seek_ns = kFullSeek;
  p.command_ns = kCmd;
  return p;
}

TimedRequest Req(IoOp op, uint64_t offset, uint64_t length) {
  return {.op = op, .offset = offset, .length = length};
}

double Pos(uint64_t offset) {
  return static_cast<double>(offset) / static_cast<double>(kCapacity);
}

// rate(offset) = od * (1 - (1 - id_ratio) * offset / capacity).
double Rate(uint64_t offset, bool write) {
  return (write ? kOdWrite : kOdRead) * (1.0 - (1.0 - kIdRatio) * Pos(offset));
}

uint64_t TransferNs(uint64_t offset, uint64_t length, bool write = false) {
  return static_cast<uint64_t>(std::llround(static_cast<double>(length) * 1e9 /
                                            Rate(offset, write)));
}

uint64_t Seek(double distance) {
  return kMinSeek + static_cast<uint64_t>((kFullSeek - kMinSeek) * std::sqrt(distance));
}

// The wait for `offset` to rotate under a head that arrives at time `t`:
// the sector's angle is offset / track bytes (track = rate * revolution)
// modulo one turn, the head's is t / revolution modulo one turn.
uint64_t RotationNs(uint64_t offset, uint64_t t, bool write = false) {
  const double track_bytes = Rate(offset, write) * static_cast<double>(kRev) / 1e9;
  const double sector = std::fmod(static_cast<double>(offset) / track_bytes, 1.0);
  const double head = static_cast<double>(t % kRev) / static_cast<double>(kRev);
  return static_cast<uint64_t>(std::fmod(sector - head + 1.0, 1.0) * kRev);
}

uint64_t HeadBusy(const DiskTiming& t) {
  DeviceStats s;
  t.ExportStats(&s);
  return s.busy_ns.at("head");
}

TEST(DiskTimingTest, RevolutionAndSeekCurve) {
  DiskTiming t(SmallDisk(), kCapacity);
  EXPECT_EQ(t.RevolutionNs(), kRev);
  EXPECT_EQ(t.SeekNs(0), 0u);
  EXPECT_EQ(t.SeekNs(1.0), kFullSeek);
  EXPECT_EQ(t.SeekNs(0.25), kMinSeek + (kFullSeek - kMinSeek) / 2);
  EXPECT_NEAR(static_cast<double>(t.SeekNs(0.01)), 1'400'000.0, 1.0);
  EXPECT_LT(t.SeekNs(0.01), t.SeekNs(0.5));
}

TEST(DiskTimingTest, TransferRateFallsFromOuterToInnerDiameter) {
  DiskTiming t(SmallDisk(), kCapacity);
  EXPECT_DOUBLE_EQ(t.RateAt(0, false), kOdRead);
  EXPECT_DOUBLE_EQ(t.RateAt(kCapacity / 2, false), kOdRead * 0.75);
  EXPECT_DOUBLE_EQ(t.RateAt(kCapacity, false), kOdRead * kIdRatio);
  EXPECT_DOUBLE_EQ(t.RateAt(0, true), kOdWrite);
  EXPECT_DOUBLE_EQ(t.RateAt(kCapacity, true), kOdWrite * kIdRatio);
}

TEST(DiskTimingTest, StreamingAtTheInnerDiameterTakesLonger) {
  // Two continuing 1 MB reads near each edge: the second pays command +
  // transfer only, and the transfer takes 1 / id_ratio times as long inside.
  DiskTiming od(SmallDisk(), kCapacity), id(SmallDisk(), kCapacity);
  const uint64_t id_start = kCapacity - 2 * kMB;
  const uint64_t od_first = od.Schedule(Req(IoOp::kRead, 0, kMB), 0);
  const uint64_t id_first = id.Schedule(Req(IoOp::kRead, id_start, kMB), 0);
  const uint64_t od_ns = od.Schedule(Req(IoOp::kRead, kMB, kMB), od_first) - od_first;
  const uint64_t id_ns =
      id.Schedule(Req(IoOp::kRead, id_start + kMB, kMB), id_first) - id_first;
  EXPECT_EQ(od_ns, kCmd + TransferNs(kMB, kMB));
  EXPECT_EQ(id_ns, kCmd + TransferNs(id_start + kMB, kMB));
  EXPECT_NEAR(static_cast<double>(id_ns - kCmd) / static_cast<double>(od_ns - kCmd),
              1.0 / kIdRatio, 0.01);
}

TEST(DiskTimingTest, SequentialReadPaysNoSeek) {
  DiskTiming t(SmallDisk(), kCapacity);
  const uint64_t first = t.Schedule(Req(IoOp::kRead, 5 * kMB, kMB), 0);
  // The stream continues where the last request ended: command + transfer.
  const uint64_t second = t.Schedule(Req(IoOp::kRead, 6 * kMB, kMB), first);
  EXPECT_EQ(second, first + kCmd + TransferNs(6 * kMB, kMB));
  // Even after the host paused.
  const uint64_t later = second + 3'333'333;
  EXPECT_EQ(t.Schedule(Req(IoOp::kRead, 7 * kMB, kMB), later),
            later + kCmd + TransferNs(7 * kMB, kMB));
}

TEST(DiskTimingTest, SequentialWriteUsesTheWriteRate) {
  DiskTiming t(SmallDisk(), kCapacity);
  const uint64_t first = t.Schedule(Req(IoOp::kWrite, 0, kMB), 0);
  const uint64_t second = t.Schedule(Req(IoOp::kWrite, kMB, kMB), first);
  EXPECT_EQ(second, first + kCmd + TransferNs(kMB, kMB, /*write=*/true));
  EXPECT_GT(second - first, kCmd + TransferNs(kMB, kMB));  // slower than reading
}

TEST(DiskTimingTest, FirstRequestAtTheHeadPaysRotationOnly) {
  DiskTiming t(SmallDisk(), kCapacity);
  // The head starts at offset 0: no seek, but the sector must come round.
  const uint64_t done = t.Schedule(Req(IoOp::kRead, 0, kMB), 0);
  EXPECT_NEAR(static_cast<double>(done),
              static_cast<double>(kCmd + RotationNs(0, kCmd) + TransferNs(0, kMB)), 2.0);
}

TEST(DiskTimingTest, NonContinuingRequestPaysSeekAndRotation) {
  DiskTiming t(SmallDisk(), kCapacity);
  const uint64_t first = t.Schedule(Req(IoOp::kRead, 0, kMB), 0);
  const uint64_t target = kCapacity / 4;
  const uint64_t submit = first + 1'234'567;
  const uint64_t seek = Seek(Pos(target) - Pos(kMB));
  const uint64_t positioned = submit + kCmd + seek;
  const uint64_t expected =
      positioned + RotationNs(target, positioned) + TransferNs(target, kMB);
  const uint64_t done = t.Schedule(Req(IoOp::kRead, target, kMB), submit);
  EXPECT_NEAR(static_cast<double>(done), static_cast<double>(expected), 2.0);
  // Whatever the rotation, it is less than a turn.
  EXPECT_GE(done, submit + kCmd + seek + TransferNs(target, kMB));
  EXPECT_LT(done, submit + kCmd + seek + kRev + TransferNs(target, kMB));
}

// positioning_scale multiplies the seek and the rotational wait, and
// leaves the command and the transfer as they were.
TEST(DiskTimingTest, PositioningScaleShrinksSeekAndRotationOnly) {
  DiskParams quick = SmallDisk();
  quick.positioning_scale = 0.125;
  DiskTiming t(quick, kCapacity);
  const uint64_t first = t.Schedule(Req(IoOp::kRead, 0, kMB), 0);
  EXPECT_NEAR(static_cast<double>(first),
              static_cast<double>(kCmd) + 0.125 * static_cast<double>(RotationNs(0, kCmd)) +
                  static_cast<double>(TransferNs(0, kMB)),
              2.0);
  const uint64_t target = kCapacity / 4;
  const uint64_t submit = first + 1'234'567;
  const uint64_t seek = Seek(Pos(target) - Pos(kMB));
  const double positioning =
      static_cast<double>(seek + RotationNs(target, submit + kCmd + seek));
  const uint64_t done = t.Schedule(Req(IoOp::kRead, target, kMB), submit);
  EXPECT_NEAR(static_cast<double>(done),
              static_cast<double>(submit + kCmd + TransferNs(target, kMB)) + 0.125 * positioning,
              2.0);
  // A stream pays no positioning, scaled or not.
  EXPECT_EQ(t.Schedule(Req(IoOp::kRead, target + kMB, kMB), done),
            done + kCmd + TransferNs(target + kMB, kMB));
}

TEST(DiskTimingTest, TwoReadersSubmittedTogetherSerializeOnTheHead) {
  const uint64_t a_off = 0, b_off = kCapacity / 2;
  DiskTiming alone(SmallDisk(), kCapacity);
  const uint64_t b_alone = alone.Schedule(Req(IoOp::kRead, b_off, kMB), 0);

  DiskTiming t(SmallDisk(), kCapacity);
  const uint64_t a = t.Schedule(Req(IoOp::kRead, a_off, kMB), 0);
  const uint64_t b = t.Schedule(Req(IoOp::kRead, b_off, kMB), 0);
  // B's seek starts only when A's transfer is done.
  const uint64_t seek = Seek(Pos(b_off) - Pos(a_off + kMB));
  EXPECT_NEAR(static_cast<double>(b),
              static_cast<double>(a + seek + RotationNs(b_off, a + seek) +
                                  TransferNs(b_off, kMB)),
              2.0);
  EXPECT_GE(b, a + seek + TransferNs(b_off, kMB));
  EXPECT_GT(b, b_alone);
}

TEST(DiskTimingTest, ExportsHeadBusyTime) {
  DiskTiming t(SmallDisk(), kCapacity);
  EXPECT_EQ(HeadBusy(t), 0u);
  // The head is busy from when the command is decoded until the transfer
  // ends; positioning counts, idle time does not.
  const uint64_t a = t.Schedule(Req(IoOp::kRead, 0, kMB), 0);
  EXPECT_EQ(HeadBusy(t), a - kCmd);
  const uint64_t submit = a + 50'000'000;
  const uint64_t b = t.Schedule(Req(IoOp::kRead, kMB, kMB), submit);
  EXPECT_EQ(HeadBusy(t), (a - kCmd) + (b - submit - kCmd));
}

TEST(DiskTimingTest, ZoneManagementCostsOnlyTheCommand) {
  DiskTiming t(SmallDisk(), kCapacity);
  const uint64_t first = t.Schedule(Req(IoOp::kWrite, 0, kMB), 0);
  EXPECT_EQ(t.Schedule(Req(IoOp::kReset, 0, kMB), first), first + kCmd);
  EXPECT_EQ(t.Schedule({.op = IoOp::kFlush}, first), first + kCmd);
  EXPECT_EQ(t.Schedule(Req(IoOp::kFinish, 0, 0), first), first + kCmd);
  EXPECT_EQ(HeadBusy(t), first - kCmd);
  // None of them moved the head: the write stream continues without a seek.
  EXPECT_EQ(t.Schedule(Req(IoOp::kWrite, kMB, kMB), first),
            first + kCmd + TransferNs(kMB, kMB, /*write=*/true));
}

TEST(DiskTimingTest, HeadBusyTimeIsSplitByIoClass) {
  DiskTiming t(SmallDisk(), kCapacity);
  TimedRequest read = Req(IoOp::kRead, kCapacity / 3, kMB);
  read.io_class = IoClass::kUserRead;
  TimedRequest write = Req(IoOp::kWrite, kCapacity / 2, kMB);
  write.io_class = IoClass::kCompaction;
  const uint64_t r = t.Schedule(read, 0);
  t.Schedule(write, 0);
  DeviceStats s;
  t.ExportStats(&s);
  EXPECT_EQ(s.busy_ns_by_class[static_cast<int>(IoClass::kUserRead)], r - kCmd);
  EXPECT_GT(s.busy_ns_by_class[static_cast<int>(IoClass::kCompaction)], 0u);
  EXPECT_EQ(s.busy_ns_by_class[static_cast<int>(IoClass::kUserRead)] +
                s.busy_ns_by_class[static_cast<int>(IoClass::kCompaction)],
            s.busy_ns.at("head"));
}

// --- Write-back cache --------------------------------------------------------

constexpr uint64_t kZone = 4 * kMB;
constexpr double kLink = 500e6;

DiskParams CachedDisk(uint64_t cache_bytes) {
  DiskParams p = SmallDisk();
  p.write_cache_bytes = cache_bytes;
  p.link_bytes_per_s = kLink;
  return p;
}

TimedRequest ZoneReq(IoOp op, uint32_t zone, uint64_t in_zone, uint64_t length) {
  return {.op = op, .zone = zone, .offset = zone * kZone + in_zone, .length = length};
}

uint64_t LinkNs(uint64_t length) {
  return static_cast<uint64_t>(std::llround(static_cast<double>(length) * 1e9 / kLink));
}

uint64_t Destages(const DiskTiming& t) {
  DeviceStats s;
  t.ExportStats(&s);
  return s.destages;
}

TEST(DiskWriteCacheTest, CachedWriteCompletesAfterTheLinkOnly) {
  DiskTiming t(CachedDisk(8 * kMB), kCapacity);
  const uint64_t far = kCapacity / 2 / kZone;
  EXPECT_EQ(t.Schedule(ZoneReq(IoOp::kWrite, far, 0, kMB), 0), kCmd + LinkNs(kMB));
  EXPECT_EQ(t.dirty_bytes(), kMB);
  EXPECT_EQ(HeadBusy(t), 0u);
  EXPECT_EQ(Destages(t), 0u);
}

TEST(DiskWriteCacheTest, FlushWritesAZoneRunWithOnePositioning) {
  // Two zones written in turns by a host that keeps the disk busy (every
  // request queued at once): write-through repositions at every switch,
  // the cache writes each zone's run in one go.
  const uint32_t a = 10, b = 2000;
  auto workload = [&](DiskTiming& t) {
    for (uint64_t i = 0; i < 4; ++i) {
      t.Schedule(ZoneReq(IoOp::kWrite, a, i * kMB / 4, kMB / 4), 0);
      t.Schedule(ZoneReq(IoOp::kWrite, b, i * kMB / 4, kMB / 4), 0);
    }
    return t.Schedule({.op = IoOp::kFlush}, 0);
  };
  DiskTiming through(SmallDisk(), kCapacity);
  DiskTiming cached(CachedDisk(8 * kMB), kCapacity);
  workload(through);
  const uint64_t flushed = workload(cached);
  EXPECT_EQ(Destages(cached), 2u);
  EXPECT_EQ(cached.dirty_bytes(), 0u);
  // Each run: at most a seek and a turn, then its transfer.
  const uint64_t per_run_max = kFullSeek + kRev;
  EXPECT_LE(HeadBusy(cached), 2 * per_run_max + TransferNs(a * kZone, kMB, true) +
                                  TransferNs(b * kZone, kMB, true));
  EXPECT_LT(HeadBusy(cached) * 2, HeadBusy(through));
  // The flush returns once the media holds everything.
  EXPECT_GE(flushed, HeadBusy(cached));
}

TEST(DiskWriteCacheTest, AdjacentZonesDestageAsOneStream) {
  DiskTiming t(CachedDisk(32 * kMB), kCapacity);
  for (uint32_t z = 100; z < 104; ++z) t.Schedule(ZoneReq(IoOp::kWrite, z, 0, kZone), 0);
  const uint64_t flushed = t.Schedule({.op = IoOp::kFlush}, 0);
  EXPECT_EQ(Destages(t), 4u);
  uint64_t transfer = 0;
  for (uint32_t z = 100; z < 104; ++z) transfer += TransferNs(z * kZone, kZone, true);
  // One positioning for the four runs: they follow one another on the media.
  EXPECT_LE(HeadBusy(t), transfer + kFullSeek + kRev);
  EXPECT_GE(flushed, transfer);
}

TEST(DiskWriteCacheTest, FullCacheDestagesTheOldestRunFirst) {
  DiskTiming t(CachedDisk(2 * kMB), kCapacity);
  t.Schedule(ZoneReq(IoOp::kWrite, 1, 0, kMB), 0);
  t.Schedule(ZoneReq(IoOp::kWrite, 900, 0, kMB), 0);
  EXPECT_EQ(t.dirty_bytes(), 2 * kMB);
  EXPECT_EQ(HeadBusy(t), 0u);
  // No room: zone 1's run goes to the media, and the write waits for it.
  const uint64_t done = t.Schedule(ZoneReq(IoOp::kWrite, 1800, 0, kMB), 0);
  EXPECT_EQ(Destages(t), 1u);
  EXPECT_EQ(t.dirty_bytes(), 2 * kMB);
  EXPECT_GE(done, kCmd + TransferNs(kZone, kMB, true));
  // Zone 900's run is still cached: a read of it needs no head.
  const uint64_t busy = HeadBusy(t);
  EXPECT_EQ(t.Schedule(ZoneReq(IoOp::kRead, 900, kMB / 2, 4096), 0), kCmd + LinkNs(4096));
  EXPECT_EQ(HeadBusy(t), busy);
  // Zone 1's data is on the media now: reading it moves the head.
  t.Schedule(ZoneReq(IoOp::kRead, 1, 0, 4096), 0);
  EXPECT_GT(HeadBusy(t), busy);
}

TEST(DiskWriteCacheTest, IdleHeadDestagesBeforeTheNextRequest) {
  DiskTiming t(CachedDisk(8 * kMB), kCapacity);
  const uint64_t written = t.Schedule(ZoneReq(IoOp::kWrite, 50, 0, kMB), 0);
  // A second later the head has long written the run back.
  const uint64_t submit = written + 1'000'000'000;
  const uint64_t read = t.Schedule(ZoneReq(IoOp::kRead, 50, 0, 4096), submit);
  EXPECT_EQ(Destages(t), 1u);
  EXPECT_EQ(t.dirty_bytes(), 0u);
  // The read found the head at the run's end, not in the cache.
  EXPECT_GT(read, submit + kCmd + LinkNs(4096));
}

TEST(DiskWriteCacheTest, ResetDropsTheZonesCachedData) {
  DiskTiming t(CachedDisk(8 * kMB), kCapacity);
  t.Schedule(ZoneReq(IoOp::kWrite, 7, 0, kMB), 0);
  t.Schedule(ZoneReq(IoOp::kReset, 7, 0, kMB), 0);
  EXPECT_EQ(t.dirty_bytes(), 0u);
  EXPECT_EQ(t.Schedule({.op = IoOp::kFlush}, 0), kCmd);
  EXPECT_EQ(HeadBusy(t), 0u);
  EXPECT_EQ(Destages(t), 0u);
}

TEST(DiskWriteCacheTest, WriteLargerThanTheCacheGoesThrough) {
  DiskTiming t(CachedDisk(kMB), kCapacity);
  const uint64_t done = t.Schedule(ZoneReq(IoOp::kWrite, 3, 0, 2 * kMB), 0);
  EXPECT_EQ(t.dirty_bytes(), 0u);
  EXPECT_GE(done, kCmd + TransferNs(3 * kZone, 2 * kMB, true));
  EXPECT_EQ(HeadBusy(t), done - kCmd);
}

}  // namespace
}  // namespace zonestack::device
