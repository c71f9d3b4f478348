// Subzones in the NAND timing model, with a manual clock: a subzone's
// reads, programs and erases use its one chip; the SubZone Ring
// acknowledges writes over the host link alone and programs a unit on
// every chip at once when it drains.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "device/clock.h"
#include "device/emulated_device.h"
#include "device/nand_timing.h"
#include "device_test_util.h"
#include "small_nand.h"

namespace zonestack::device {
namespace {

// The small SSD of small_nand.h (4 chips); zones of 4 subzones, each one
// 64 KiB block of one chip.
using namespace small_nand;  // NOLINT: the test's vocabulary
constexpr uint64_t kSubzone = kBlockBytes;
constexpr uint64_t kZoneSize = 4 * kSubzone;
constexpr uint64_t kStart = 1'000'000'000;
const IoContext kCtx;

DeviceInfo SplitSsdInfo() {
  DeviceInfo info;
  info.name = "small-split-ssd";
  info.zone_size = kZoneSize;
  info.zone_capacity = kZoneSize;
  info.num_zones = 4;
  info.native_cell_mode = info.default_cell_mode = CellMode::kTlc;
  info.supports_subzones = true;
  info.subzones_per_zone = 4;
  return info;
}

class SubzoneTimingTest : public ::testing::Test {
 protected:
  // `ring_units`: the SubZone Ring's size in units; 0 = no ring.
  // `prefetch_units`: the Read Prefetcher's buffer; 0 = no prefetcher.
  void Open(uint64_t ring_units, uint64_t prefetch_units = 0) {
    EmulatorOptions opts;
    opts.info = SplitSsdInfo();
    opts.timing = std::make_unique<NandTiming>(SmallNand(), kZoneSize);
    opts.subzone_ring_bytes = ring_units * kUnit;
    opts.program_unit_bytes = kUnit;
    opts.prefetch_bytes = prefetch_units * kUnit;
    clock_ = std::make_shared<ManualClock>(kStart);
    opts.clock = clock_;
    auto dev = EmulatedDevice::Create(std::move(opts));
    ASSERT_TRUE(dev.ok()) << dev.status();
    dev_ = std::move(*dev);
    ASSERT_OK(dev_->SplitZone(0, kCtx));
  }
  // Writes one unit at subzone `sub`'s write pointer; returns its latency.
  uint64_t WriteUnit(uint32_t sub) {
    auto subs = dev_->ReportSubzones(0);
    EXPECT_TRUE(subs.ok());
    const uint64_t t = clock_->NowNs();
    EXPECT_OK(dev_->Write((*subs)[sub].write_pointer, buf_, kCtx));
    return clock_->NowNs() - t;
  }
  uint64_t ReadUnit(uint64_t offset, IoClass io_class = IoClass::kOther) {
    const uint64_t t = clock_->NowNs();
    EXPECT_OK(dev_->Read(offset, buf_, IoContext{.io_class = io_class}));
    return clock_->NowNs() - t;
  }
  uint64_t Busy(const std::string& name) { return dev_->Stats().busy_ns.at(name); }

  std::shared_ptr<ManualClock> clock_;
  std::unique_ptr<EmulatedDevice> dev_;
  std::vector<uint8_t> buf_ = std::vector<uint8_t>(kUnit, 0xab);
};

TEST_F(SubzoneTimingTest, SubzoneProgramsReadsAndErasesUseOnlyItsChip) {
  Open(0);
  for (int i = 0; i < 3; ++i) WriteUnit(2);  // the first chip allocated: die 0
  ASSERT_EQ(dev_->ReportSubzones(0)->at(2).chip, 0);
  EXPECT_EQ(Busy("die0"), 3 * kProg);
  EXPECT_EQ(Busy("channel0"), 3 * kXfer);
  for (const char* idle : {"die1", "die2", "die3", "channel1"}) EXPECT_EQ(Busy(idle), 0u) << idle;
  clock_->Advance(10 * kProg);
  ReadUnit(2 * kSubzone + kUnit);
  EXPECT_EQ(Busy("die0"), 3 * kProg + kRead);
  ASSERT_OK(dev_->ResetSubzone(0, 2, kCtx));
  EXPECT_EQ(Busy("die0"), 3 * kProg + kRead + kErase);
  EXPECT_EQ(dev_->Stats().erases, 1u);  // one block, on one chip
  for (const char* idle : {"die1", "die2", "die3"}) EXPECT_EQ(Busy(idle), 0u) << idle;
}

TEST_F(SubzoneTimingTest, WithoutTheRingASubzoneWritesAtOneChipsPace) {
  Open(0);
  EXPECT_EQ(WriteUnit(0), kCmd + kLink + kXfer);
  // The chip's one-unit buffer is busy until its program is done.
  uint64_t rest = 0;
  for (int i = 0; i < 3; ++i) rest += WriteUnit(0);
  EXPECT_GE(rest, 3 * kProg - 3 * (kCmd + kLink + kXfer));
}

TEST_F(SubzoneTimingTest, TheRingAcknowledgesSubzoneWritesOverTheLink) {
  Open(2 * kZoneSize / kUnit);  // twice a wide zone, as the paper's device
  for (int i = 0; i < 4; ++i) EXPECT_EQ(WriteUnit(0), kCmd + kLink);
  EXPECT_EQ(Busy("die0"), 0u);  // nothing programmed yet
  // A read of buffered data needs no chip either.
  EXPECT_EQ(ReadUnit(kUnit), kCmd + kLink);
  EXPECT_EQ(Busy("die0"), 0u);
}

TEST_F(SubzoneTimingTest, AFullRingProgramsAUnitOnEveryChipAtOnce) {
  Open(4);  // one unit per chip
  for (uint32_t sub = 0; sub < 4; ++sub) EXPECT_EQ(WriteUnit(sub), kCmd + kLink);
  // The fifth unit waits for a drain round: the four units cross the two
  // channels two by two, and the four chips program in parallel.
  EXPECT_EQ(WriteUnit(0), kCmd + 2 * kXfer);
  for (const char* die : {"die0", "die1", "die2", "die3"}) EXPECT_EQ(Busy(die), kProg) << die;
  const DeviceStats s = dev_->Stats();
  EXPECT_EQ(s.ring_drain_rounds, 1u);
  EXPECT_EQ(s.ring_drained_bytes, 4 * kUnit);
}

// --- Read Prefetcher ---------------------------------------------------------

TEST_F(SubzoneTimingTest, CompactionReadPrereadsTheNextBytesOfOtherCompactedSubzones) {
  Open(0, /*prefetch_units=*/4);
  for (int i = 0; i < 8; ++i) WriteUnit(0);  // chip 0
  for (int i = 0; i < 8; ++i) WriteUnit(1);  // chip 1
  clock_->Advance(100 * kProg);
  const uint64_t flash_read = kCmd + kRead + kXfer + kLink;
  // Subzone 1's compaction starts; nothing else is being compacted yet.
  EXPECT_EQ(ReadUnit(kSubzone, IoClass::kCompaction), flash_read);
  EXPECT_EQ(dev_->Stats().prefetch_reads, 0u);
  // Subzone 0's first read goes to chip 0, and chip 1 prereads subzone 1
  // from its read pointer meanwhile.
  EXPECT_EQ(ReadUnit(0, IoClass::kCompaction), flash_read);
  DeviceStats s = dev_->Stats();
  EXPECT_EQ(s.prefetch_reads, 1u);
  EXPECT_EQ(s.prefetch_read_bytes, 4 * kUnit);
  EXPECT_EQ(Busy("die1"), 8 * kProg + 5 * kRead);  // its programs, one read, four prereads
  clock_->Advance(10 * kRead);
  // Subzone 1's next four units come from the buffer: the link only.
  for (int i = 1; i <= 4; ++i) {
    EXPECT_EQ(ReadUnit(kSubzone + i * kUnit, IoClass::kCompaction), kCmd + kLink) << i;
  }
  s = dev_->Stats();
  EXPECT_EQ(s.prefetch_hit_bytes, 4 * kUnit);
  // The last of those emptied the buffer, which subzone 0's reads refill.
  EXPECT_EQ(ReadUnit(kSubzone + 5 * kUnit, IoClass::kCompaction), flash_read);
  EXPECT_EQ(dev_->Stats().prefetch_reads, 2u);  // subzone 0, on chip 0
  // A query reads from flash (R2) and leaves the buffer to the compaction.
  clock_->Advance(10 * kRead);
  EXPECT_EQ(ReadUnit(kUnit, IoClass::kUserRead), flash_read);
  EXPECT_EQ(dev_->Stats().prefetch_hit_bytes, 4 * kUnit);
  EXPECT_EQ(ReadUnit(kUnit, IoClass::kCompaction), kCmd + kLink);
}

TEST_F(SubzoneTimingTest, WithoutThePrefetcherCompactionReadsUseOneChip) {
  Open(0);
  for (int i = 0; i < 4; ++i) WriteUnit(0);
  for (int i = 0; i < 4; ++i) WriteUnit(1);
  clock_->Advance(100 * kProg);
  const uint64_t flash_read = kCmd + kRead + kXfer + kLink;
  EXPECT_EQ(ReadUnit(kSubzone, IoClass::kCompaction), flash_read);
  EXPECT_EQ(ReadUnit(0, IoClass::kCompaction), flash_read);
  EXPECT_EQ(ReadUnit(kSubzone + kUnit, IoClass::kCompaction), flash_read);
  EXPECT_EQ(dev_->Stats().prefetch_reads, 0u);
}

// --- Read Scheduler ------------------------------------------------------------

// A compaction's 8-unit read of chip 0 is queued, then a query reads chip
// 0 at the same moment.
uint64_t QueryBehindCompaction(bool read_scheduler, IoClass query_class, int32_t query_chip) {
  NandParams p = SmallNand();
  p.read_scheduler = read_scheduler;
  NandTiming t(p, kZoneSize);
  t.Schedule({.op = IoOp::kRead, .zone = 0, .offset = 0, .length = 8 * kUnit,
              .cell_mode = CellMode::kTlc, .io_class = IoClass::kCompaction, .chip = 0},
             0);
  return t.Schedule({.op = IoOp::kRead, .zone = 0, .offset = 8 * kUnit, .length = kUnit,
                     .cell_mode = CellMode::kTlc, .io_class = query_class, .chip = query_chip},
                    0);
}

TEST(ReadSchedulerTest, QueryReadPassesQueuedCompactionReads) {
  // It waits for the sense in progress and for the transfer in progress
  // on the channel, no more.
  EXPECT_EQ(QueryBehindCompaction(true, IoClass::kUserRead, 0),
            kCmd + 2 * kRead + 2 * kXfer + kLink);
  // Without the scheduler it waits for all eight senses.
  EXPECT_GE(QueryBehindCompaction(false, IoClass::kUserRead, 0), kCmd + 9 * kRead);
}

TEST(ReadSchedulerTest, OnlyQueryReadsOfSubzonesGoFirst) {
  EXPECT_GE(QueryBehindCompaction(true, IoClass::kCompaction, 0), kCmd + 9 * kRead);
  // A wide zone's read (no chip) keeps its place; unit 8 lies on die 0 too.
  EXPECT_GE(QueryBehindCompaction(true, IoClass::kUserRead, -1), kCmd + 9 * kRead);
}

}  // namespace
}  // namespace zonestack::device
