#include "device/nand_timing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "device/presets.h"
#include "small_nand.h"

namespace zonestack::device {
namespace {

// A small SSD with round numbers (small_nand.h), so every expected time
// below follows from its constants by hand.
using namespace small_nand;  // NOLINT: the test's vocabulary
constexpr uint64_t kUnitsPerBlock = kBlockBytes / kUnit;
// A wide zone holds two blocks per die.
constexpr uint64_t kZoneSize = 2 * kBlockBytes * kDies;

TimedRequest Req(IoOp op, uint32_t zone, uint64_t in_zone, uint64_t length,
                 uint64_t zone_size = kZoneSize, CellMode mode = CellMode::kTlc) {
  return {.op = op, .zone = zone, .offset = zone * zone_size + in_zone,
          .length = length, .cell_mode = mode};
}

DeviceStats Export(const NandTiming& t) {
  DeviceStats s;
  t.ExportStats(&s);
  return s;
}

TEST(NandTimingTest, WideZoneStripesUnitsChannelFirst) {
  NandTiming t(SmallNand(), kZoneSize);
  // Consecutive units go to consecutive channels, then to the next way.
  std::vector<uint32_t> dies;
  for (uint64_t u = 0; u < 5; ++u) dies.push_back(t.DieOf(0, u * kUnit));
  EXPECT_EQ(dies, (std::vector<uint32_t>{0, 1, 2, 3, 0}));
  for (uint32_t d : dies) EXPECT_LT(d, kDies);
  EXPECT_NE(dies[0] % kChannels, dies[1] % kChannels);
}

TEST(NandTimingTest, NarrowZonesLiveOnOneDieEach) {
  NandTiming t(SmallNand(/*dies_per_zone=*/1), kZoneSize);
  for (uint32_t zone = 0; zone < 8; ++zone) {
    EXPECT_EQ(t.DieOf(zone, 0), zone % kDies);
    EXPECT_EQ(t.DieOf(zone, 7 * kUnit), zone % kDies);
  }
}

TEST(NandTimingTest, ReadCostsCommandSenseChannelAndLink) {
  NandTiming t(SmallNand(), kZoneSize);
  const uint64_t submit = 1'000'000;
  EXPECT_EQ(t.Schedule(Req(IoOp::kRead, 0, 0, kUnit), submit),
            submit + kCmd + kRead + kXfer + kLink);
}

TEST(NandTimingTest, InternalReadSkipsTheHostLink) {
  NandTiming t(SmallNand(), kZoneSize);
  TimedRequest r = Req(IoOp::kRead, 0, 0, kUnit);
  r.internal = true;
  EXPECT_EQ(t.Schedule(r, 0), kCmd + kRead + kXfer);
  EXPECT_EQ(Export(t).busy_ns.at("link_read"), 0u);
}

TEST(NandTimingTest, WriteReturnsWhenTheDieTakesTheUnit) {
  NandTiming t(SmallNand(), kZoneSize);
  // The data crosses the link and the channel; the program runs afterwards.
  EXPECT_EQ(t.Schedule(Req(IoOp::kWrite, 0, 0, kUnit), 0), kCmd + kLink + kXfer);
  EXPECT_EQ(Export(t).busy_ns.at("die0"), kProg);
}

TEST(NandTimingTest, PartialUnitIsNotProgrammedUntilComplete) {
  NandTiming t(SmallNand(), kZoneSize);
  const uint64_t half = kUnit / 2;
  t.Schedule(Req(IoOp::kWrite, 0, 0, half), 0);
  EXPECT_EQ(Export(t).busy_ns.at("die0"), 0u);
  t.Schedule(Req(IoOp::kWrite, 0, half, half), 100'000);
  EXPECT_EQ(Export(t).busy_ns.at("die0"), kProg);
}

TEST(NandTimingTest, ReadWaitsBehindProgramOnSameDie) {
  NandTiming t(SmallNand(), kZoneSize);
  // Unit 0 lives on die 0, whose program runs from w until w + kProg.
  const uint64_t w = t.Schedule(Req(IoOp::kWrite, 0, 0, kUnit), 0);
  ASSERT_EQ(w, kCmd + kLink + kXfer);
  // Unit 1 is on die 1 (another channel): its read does not wait.
  EXPECT_EQ(t.Schedule(Req(IoOp::kRead, 0, kUnit, kUnit), w),
            w + kCmd + kRead + kXfer + kLink);
  // A read of die 0 senses only once the program is done.
  EXPECT_EQ(t.Schedule(Req(IoOp::kRead, 0, 0, kUnit), w), w + kProg + kRead + kXfer + kLink);
}

// Four units to one narrow zone (one die) take kCmd + kLink + kXfer until
// the first program starts, then the die's single buffer makes each later
// unit wait for the previous program: done = kCmd + kLink + kXfer + 3 kProg.
TEST(NandTimingTest, WritersOnDifferentDiesOverlap) {
  NandTiming t(SmallNand(/*dies_per_zone=*/1), kZoneSize);
  ASSERT_NE(t.DieOf(0, 0), t.DieOf(1, 0));
  const uint64_t a = t.Schedule(Req(IoOp::kWrite, 0, 0, 4 * kUnit), 0);
  const uint64_t b = t.Schedule(Req(IoOp::kWrite, 1, 0, 4 * kUnit), 0);
  EXPECT_EQ(a, kCmd + kLink + kXfer + 3 * kProg);
  // B's data follows A's four units over the shared host link, then its
  // die programs in parallel with A's.
  EXPECT_EQ(b, kCmd + 5 * kLink + kXfer + 3 * kProg);
  EXPECT_LT(b - a, kProg);
}

TEST(NandTimingTest, WritersOnTheSameDieSerializeOnTheProgram) {
  NandTiming t(SmallNand(/*dies_per_zone=*/1), kZoneSize);
  const uint32_t other = kDies;  // wraps around to die 0
  ASSERT_EQ(t.DieOf(0, 0), t.DieOf(other, 0));
  const uint64_t a = t.Schedule(Req(IoOp::kWrite, 0, 0, 4 * kUnit), 0);
  const uint64_t b = t.Schedule(Req(IoOp::kWrite, other, 0, 4 * kUnit), 0);
  EXPECT_EQ(a, kCmd + kLink + kXfer + 3 * kProg);
  // Die 0 programs A's four units, then B's; B returns as its last starts.
  EXPECT_EQ(b, kCmd + kLink + kXfer + 7 * kProg);
}

// Throughput of a write stream the host keeps queued (every unit submitted
// at once) is set by its bottleneck resource. Per unit:
//   narrow zone (one die, one channel): max(kProg, link, channel)
//   wide zone (all dies):  max(kProg / dies, link, channel / channels)
// so the wide zone is faster by the ratio of the two.
double NarrowOverWide(const NandParams& wide_params, uint64_t link_ns, uint64_t xfer_ns,
                      uint64_t prog_ns, uint64_t units) {
  NandParams narrow_params = wide_params;
  narrow_params.geometry.dies_per_zone = 1;
  NandTiming wide(wide_params, kZoneSize * 64);
  NandTiming narrow(narrow_params, kZoneSize * 64);
  uint64_t wide_done = 0, narrow_done = 0;
  for (uint64_t u = 0; u < units; ++u) {
    TimedRequest r = Req(IoOp::kWrite, 0, u * kUnit, kUnit, kZoneSize * 64);
    wide_done = std::max(wide_done, wide.Schedule(r, 0));
    narrow_done = std::max(narrow_done, narrow.Schedule(r, 0));
  }
  const double narrow_per_unit = static_cast<double>(std::max({prog_ns, link_ns, xfer_ns}));
  const double wide_per_unit = std::max({static_cast<double>(prog_ns) / kDies,
                                         static_cast<double>(link_ns),
                                         static_cast<double>(xfer_ns) / kChannels});
  const double expected = narrow_per_unit / wide_per_unit;
  const double measured =
      static_cast<double>(narrow_done) / static_cast<double>(wide_done);
  EXPECT_NEAR(measured, expected, 0.02 * expected)
      << "narrow " << narrow_done << " ns, wide " << wide_done << " ns";
  return measured;
}

TEST(NandTimingTest, NarrowZoneIsSlowerByDieParallelismWhenProgramBound) {
  // kProg / 4 dies = 25 us per unit beats link (5 us) and channels (5 us):
  // the factor is the number of dies.
  const double f = NarrowOverWide(SmallNand(), kLink, kXfer, kProg, 256);
  EXPECT_GT(f, 3.5);
}

TEST(NandTimingTest, NarrowZoneIsSlowerByLinkBoundFactorWhenLinkBound) {
  NandParams p = SmallNand();
  p.channel_bytes_per_s = 512e6;  // 8 us per unit, 4 us over two channels
  const uint64_t prog = 12'500;   // 3.125 us over four dies
  p.tlc = Uniform(kRead, prog, kErase);
  // The wide zone is held to the link's 5 us per unit: factor 12.5 / 5.
  const double f = NarrowOverWide(p, kLink, 8'000, prog, 256);
  EXPECT_LT(f, 3.0);
}

// ZnH2 Table 2: QLC pages L, CL, CU, U have their own read and program
// latencies. A unit's page type is its page index on its die, modulo 4.
class NandTimingQlcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::optional<Preset> p = FindPreset("znh2");
    ASSERT_TRUE(p.has_value());
    params_ = p->nand;
    zone_size_ = p->info.zone_size;
    dies_ = params_.geometry.num_dies();
    unit_ = params_.geometry.unit_bytes();
    ASSERT_EQ(params_.qlc.page_types, 4u);
  }
  // The k-th unit on die 0 of wide zone 0.
  uint64_t DieZeroUnit(uint64_t k) const { return k * dies_ * unit_; }

  NandParams params_;
  uint64_t zone_size_ = 0;
  uint64_t dies_ = 0;
  uint64_t unit_ = 0;
};

TEST_F(NandTimingQlcTest, ReadsPayTheirPageTypesLatency) {
  const uint64_t xfer = static_cast<uint64_t>(unit_ * 1e9 / params_.channel_bytes_per_s);
  const uint64_t link = static_cast<uint64_t>(unit_ * 1e9 / params_.host_read_bytes_per_s);
  std::vector<uint64_t> latencies;
  for (uint32_t type = 0; type < 4; ++type) {
    NandTiming t(params_, zone_size_);
    ASSERT_EQ(t.DieOf(0, DieZeroUnit(type)), 0u);
    const uint64_t done = t.Schedule(
        Req(IoOp::kRead, 0, DieZeroUnit(type), unit_, zone_size_, CellMode::kQlc), 0);
    EXPECT_EQ(done, params_.command_ns + params_.qlc.read_ns[type] + xfer + link)
        << "page type " << type;
    latencies.push_back(done);
  }
  // L < CL < CU < U.
  EXPECT_TRUE(std::is_sorted(latencies.begin(), latencies.end()));
  EXPECT_LT(latencies.front(), latencies.back());
  // The cycle repeats with the fifth page on the die.
  NandTiming t(params_, zone_size_);
  EXPECT_EQ(t.Schedule(Req(IoOp::kRead, 0, DieZeroUnit(4), unit_, zone_size_, CellMode::kQlc),
                       0),
            latencies[0]);
}

TEST_F(NandTimingQlcTest, ProgramsPayTheirPageTypesLatency) {
  for (uint32_t type = 0; type < 4; ++type) {
    NandTiming t(params_, zone_size_);
    t.Schedule(Req(IoOp::kWrite, 0, DieZeroUnit(type), unit_, zone_size_, CellMode::kQlc), 0);
    EXPECT_EQ(Export(t).busy_ns.at("die0"), params_.qlc.program_ns[type])
        << "page type " << type;
  }
  EXPECT_LT(params_.qlc.program_ns[0], params_.qlc.program_ns[3]);
}

TEST_F(NandTimingQlcTest, SlcZonesHaveOneLatency) {
  for (uint32_t type = 0; type < 4; ++type) {
    NandTiming t(params_, zone_size_);
    t.Schedule(Req(IoOp::kWrite, 0, DieZeroUnit(type), unit_, zone_size_, CellMode::kSlc), 0);
    EXPECT_EQ(Export(t).busy_ns.at("die0"), params_.slc.program_ns[0]);
  }
}

// ZnH2 section 3.2.1: a block in SLC mode holds a quarter of what it holds
// in QLC, so erasing the same bytes of an SLC zone takes four times the
// blocks. 64 dies x 64 blocks' worth of QLC data: one block per die in QLC.
TEST_F(NandTimingQlcTest, SlcZoneResetErasesFourTimesTheBlocksOfQlc) {
  const uint64_t bytes = dies_ * params_.geometry.block_bytes * params_.geometry.planes;
  NandTiming qlc(params_, zone_size_);
  qlc.Schedule(Req(IoOp::kReset, 0, 0, bytes, zone_size_, CellMode::kQlc), 0);
  NandTiming slc(params_, zone_size_);
  slc.Schedule(Req(IoOp::kReset, 0, 0, bytes, zone_size_, CellMode::kSlc), 0);
  EXPECT_EQ(Export(qlc).erases, dies_);
  EXPECT_EQ(Export(slc).erases, 4 * dies_);
}

TEST(NandTimingTest, EmptyResetCostsOnlyTheCommand) {
  NandTiming t(SmallNand(), kZoneSize);
  EXPECT_EQ(t.Schedule(Req(IoOp::kReset, 0, 0, 0), 500), 500 + kCmd);
  const DeviceStats s = Export(t);
  EXPECT_EQ(s.erases, 0u);
  for (uint32_t d = 0; d < kDies; ++d) EXPECT_EQ(s.busy_ns.at("die" + std::to_string(d)), 0u);
}

TEST(NandTimingTest, ResetErasesOnlyTheDiesThatWereWritten) {
  NandTiming t(SmallNand(), kZoneSize);
  // Three units touched dies 0..2, one block each, erased in parallel.
  EXPECT_EQ(t.Schedule(Req(IoOp::kReset, 0, 0, 3 * kUnit), 0), kCmd + kErase);
  const DeviceStats s = Export(t);
  EXPECT_EQ(s.erases, 3u);
  EXPECT_EQ(s.busy_ns.at("die0"), kErase);
  EXPECT_EQ(s.busy_ns.at("die3"), 0u);
}

TEST(NandTimingTest, FullZoneResetErasesEveryBlock) {
  NandTiming t(SmallNand(), kZoneSize);
  // Two blocks per die, each die erasing its two one after the other.
  EXPECT_EQ(t.Schedule(Req(IoOp::kReset, 0, 0, kZoneSize), 0), kCmd + 2 * kErase);
  EXPECT_EQ(Export(t).erases, 2u * kDies);
}

TEST(NandTimingTest, PartialResetErasesOnlyTheBlocksHoldingData) {
  NandTiming t(SmallNand(), kZoneSize);
  // One block's worth of units on every die plus one more unit, which lands
  // on die 0's second block: die 0 erases two blocks, the others one.
  const uint64_t units = kUnitsPerBlock * kDies + 1;
  EXPECT_EQ(t.Schedule(Req(IoOp::kReset, 0, 0, units * kUnit), 0), kCmd + 2 * kErase);
  const DeviceStats s = Export(t);
  EXPECT_EQ(s.erases, uint64_t{kDies} + 1);
  EXPECT_EQ(s.busy_ns.at("die0"), 2 * kErase);
  EXPECT_EQ(s.busy_ns.at("die1"), kErase);
}

TEST(NandTimingTest, ResetWaitsForPendingProgram) {
  NandTiming t(SmallNand(), kZoneSize);
  const uint64_t w = t.Schedule(Req(IoOp::kWrite, 0, 0, kUnit), 0);
  EXPECT_EQ(t.Schedule(Req(IoOp::kReset, 0, 0, kUnit), w), w + kProg + kErase);
}

TEST(NandTimingTest, ExportsBusyTimePerResource) {
  NandTiming t(SmallNand(), kZoneSize);
  t.Schedule(Req(IoOp::kWrite, 0, 0, kUnit), 0);             // die 0, channel 0
  t.Schedule(Req(IoOp::kRead, 0, kUnit, kUnit), 1'000'000);  // die 1, channel 1
  const DeviceStats s = Export(t);
  EXPECT_EQ(s.busy_ns.size(), kDies + kChannels + 2);
  EXPECT_EQ(s.busy_ns.at("die0"), kProg);
  EXPECT_EQ(s.busy_ns.at("die1"), kRead);
  EXPECT_EQ(s.busy_ns.at("die2"), 0u);
  EXPECT_EQ(s.busy_ns.at("channel0"), kXfer);
  EXPECT_EQ(s.busy_ns.at("channel1"), kXfer);
  EXPECT_EQ(s.busy_ns.at("link_write"), kLink);
  EXPECT_EQ(s.busy_ns.at("link_read"), kLink);
}

TEST(NandTimingTest, ManagementCommandsCostOnlyTheCommand) {
  NandTiming t(SmallNand(), kZoneSize);
  EXPECT_EQ(t.Schedule({.op = IoOp::kFlush}, 7), 7 + kCmd);
  EXPECT_EQ(t.Schedule(Req(IoOp::kFinish, 0, 0, 0), 7), 7 + kCmd);
  EXPECT_EQ(t.Schedule(Req(IoOp::kManage, 0, 0, 0), 7), 7 + kCmd);
}

}  // namespace
}  // namespace zonestack::device
