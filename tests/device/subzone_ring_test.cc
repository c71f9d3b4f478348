// SubZone Ring (SplitZNS section 4.4.1): the ring itself (W1-W6, R1-R3),
// then a device with the ring: reads served from it, drain rounds of one
// unit per chip, resets, and the capacitor-backed drain at a power cut.
#include "device/subzone_ring.h"

#include <gtest/gtest.h>

#include <memory>
#include <numeric>
#include <vector>

#include "device/emulated_device.h"
#include "device_test_util.h"
#include "zone_conformance_fixture.h"

namespace zonestack::device {
namespace {

using testing_util::Pattern;
using testing_util::ReadBack;
using testing_util::WritePattern;

std::vector<uint8_t> Bytes(uint8_t first, size_t n) {
  std::vector<uint8_t> v(n);
  std::iota(v.begin(), v.end(), first);
  return v;
}

std::vector<uint8_t> Concat(std::vector<uint8_t> a, const std::vector<uint8_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// --- The ring ------------------------------------------------------------------

TEST(SubzoneRingTest, ReadsComeFromTheSubzonesRingArray) {
  SubzoneRing ring(/*capacity=*/64, /*chips=*/2, /*unit=*/8);
  const std::vector<uint8_t> data = Bytes(0, 20);
  ring.Append({3, 1}, 0, 0, data);  // units of 8, 8 and 4 bytes
  EXPECT_EQ(ring.used(), 20u);
  EXPECT_EQ(ring.ActualWritePointer({3, 1}), 0u);
  std::vector<uint8_t> out(12, 0xff);
  EXPECT_EQ(ring.Read({3, 1}, 5, out), 12u);
  EXPECT_EQ(out, Bytes(5, 12));
  // Past what was written nothing comes from the ring.
  std::vector<uint8_t> tail(8, 0xff);
  EXPECT_EQ(ring.Read({3, 1}, 16, tail), 4u);
  EXPECT_EQ(std::vector<uint8_t>(tail.begin(), tail.begin() + 4), Bytes(16, 4));
  std::vector<uint8_t> other(4);
  EXPECT_EQ(ring.Read({3, 2}, 0, other), 0u);
}

TEST(SubzoneRingTest, DrainRoundTakesOneCompleteUnitFromEachChip) {
  SubzoneRing ring(64, 2, 8);
  ring.Append({0, 0}, 0, 0, Bytes(0, 16));    // chip 0: two units
  ring.Append({1, 5}, 1, 0, Bytes(100, 4));   // chip 1: a partial unit
  ring.Append({2, 0}, 0, 0, Bytes(200, 8));   // chip 0: one unit, after zone 0's
  std::vector<SubzoneRing::Drained> round = ring.DrainRound();
  ASSERT_EQ(round.size(), 1u);  // chip 1 has no complete unit
  EXPECT_EQ(round[0].key, (SubzoneRing::Key{0, 0}));
  EXPECT_EQ(round[0].chip, 0);
  EXPECT_EQ(round[0].offset, 0u);
  EXPECT_EQ(round[0].data, Bytes(0, 8));
  EXPECT_EQ(ring.ActualWritePointer({0, 0}), 8u);
  // The drained unit is on flash now: the ring no longer serves it.
  std::vector<uint8_t> out(16);
  EXPECT_EQ(ring.Read({0, 0}, 0, out), 8u);
  ring.Append({1, 5}, 1, 4, Bytes(104, 4));  // completes chip 1's unit
  round = ring.DrainRound();
  ASSERT_EQ(round.size(), 2u);
  EXPECT_EQ(round[0].key, (SubzoneRing::Key{0, 0}));  // FIFO per chip
  EXPECT_EQ(round[0].offset, 8u);
  EXPECT_EQ(round[1].key, (SubzoneRing::Key{1, 5}));
  EXPECT_EQ(round[1].data, Bytes(100, 8));
  round = ring.DrainRound();
  ASSERT_EQ(round.size(), 1u);
  EXPECT_EQ(round[0].key, (SubzoneRing::Key{2, 0}));
  EXPECT_TRUE(ring.DrainRound().empty());
  EXPECT_EQ(ring.used(), 0u);
}

TEST(SubzoneRingTest, FullMeansTheNextWriteDoesNotFit) {
  SubzoneRing ring(16, 2, 8);
  EXPECT_FALSE(ring.Full(16));
  EXPECT_TRUE(ring.Full(17));
  ring.Append({0, 0}, 0, 0, Bytes(0, 12));
  EXPECT_FALSE(ring.Full(4));
  EXPECT_TRUE(ring.Full(8));
}

TEST(SubzoneRingTest, SealMakesAPartialUnitDrainable) {
  SubzoneRing ring(64, 1, 8);
  ring.Append({0, 0}, 0, 0, Bytes(0, 4));
  EXPECT_TRUE(ring.DrainRound().empty());
  ring.Seal({0, 0});
  std::vector<SubzoneRing::Drained> round = ring.DrainRound();
  ASSERT_EQ(round.size(), 1u);
  EXPECT_EQ(round[0].data, Bytes(0, 4));
}

TEST(SubzoneRingTest, DropForgetsASubzoneAndItsQueuedUnits) {
  SubzoneRing ring(64, 1, 8);
  ring.Append({0, 0}, 0, 0, Bytes(0, 16));
  ring.Append({0, 1}, 0, 0, Bytes(50, 8));
  ring.Drop({0, 0});
  EXPECT_EQ(ring.used(), 8u);
  std::vector<uint8_t> out(8);
  EXPECT_EQ(ring.Read({0, 0}, 0, out), 0u);
  std::vector<SubzoneRing::Drained> round = ring.DrainRound();
  ASSERT_EQ(round.size(), 1u);
  EXPECT_EQ(round[0].key, (SubzoneRing::Key{0, 1}));
  EXPECT_TRUE(ring.DrainRound().empty());
}

TEST(SubzoneRingTest, DrainAllGivesEverySubzonesBytesInOrder) {
  SubzoneRing ring(64, 2, 8);
  ring.Append({0, 0}, 0, 8, Bytes(8, 12));  // 8 bytes were on flash already
  ring.Append({0, 1}, 1, 0, Bytes(60, 3));
  std::vector<SubzoneRing::Drained> all = ring.DrainAll();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].offset, 8u);
  EXPECT_EQ(all[0].data, Bytes(8, 8));
  EXPECT_EQ(all[1].offset, 16u);
  EXPECT_EQ(all[1].data, Bytes(16, 4));
  EXPECT_EQ(all[2].key, (SubzoneRing::Key{0, 1}));
  EXPECT_EQ(all[2].data, Bytes(60, 3));
  EXPECT_EQ(ring.used(), 0u);
  EXPECT_TRUE(ring.DrainRound().empty());
}

// --- A device with the ring ----------------------------------------------------

constexpr uint64_t kBlock = conformance::kBlock;
const IoContext kCtx;

// The conformance model's split zones (4 subzones of 12 KiB, 4 chips) with
// a ring of one 4 KiB unit per chip: a fifth unit needs a drain round.
class SubzoneRingDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(/*ring=*/true); }
  void Open(bool ring) {
    EmulatorOptions opts;
    opts.info = conformance::SplitZnsInfo();
    opts.subzone_ring_bytes = ring ? 4 * kBlock : 0;
    opts.program_unit_bytes = kBlock;
    auto dev = EmulatedDevice::Create(std::move(opts));
    ASSERT_TRUE(dev.ok()) << dev.status();
    dev_ = std::move(*dev);
    ASSERT_OK(dev_->SplitZone(0, kCtx));
  }
  uint64_t SubStart(uint32_t sub) { return sub * dev_->info().subzone_size(); }
  absl::Status WriteAt(uint64_t offset, uint64_t len, uint8_t seed) {
    return WritePattern(*dev_, offset, len, seed, kCtx);
  }
  std::vector<uint8_t> ReadBytes(uint64_t offset, uint64_t len) {
    return ReadBack(*dev_, offset, len, kCtx);
  }

  std::unique_ptr<EmulatedDevice> dev_;
};

TEST_F(SubzoneRingDeviceTest, WritesAreServedFromTheRingUntilDrained) {
  ASSERT_OK(WriteAt(SubStart(0), kBlock, 1));
  ASSERT_OK(WriteAt(SubStart(1), 2 * kBlock, 2));
  EXPECT_EQ(ReadBytes(SubStart(0), kBlock), Pattern(kBlock, 1));
  EXPECT_EQ(ReadBytes(SubStart(1), 2 * kBlock), Pattern(2 * kBlock, 2));
  DeviceStats s = dev_->Stats();
  EXPECT_EQ(s.ring_read_bytes, 3 * kBlock);
  EXPECT_EQ(s.ring_drain_rounds, 0u);
  // Two more units overflow the ring: each finds it full and drains a round.
  ASSERT_OK(WriteAt(SubStart(2), kBlock, 3));
  ASSERT_OK(WriteAt(SubStart(0) + kBlock, 2 * kBlock, 4));
  s = dev_->Stats();
  EXPECT_GT(s.ring_drain_rounds, 0u);
  EXPECT_GT(s.ring_drained_bytes, 0u);
  // Every byte reads back, from the chips or from the ring.
  EXPECT_EQ(ReadBytes(SubStart(0), kBlock), Pattern(kBlock, 1));
  EXPECT_EQ(ReadBytes(SubStart(0) + kBlock, 2 * kBlock), Pattern(2 * kBlock, 4));
  EXPECT_EQ(ReadBytes(SubStart(1), 2 * kBlock), Pattern(2 * kBlock, 2));
  EXPECT_EQ(ReadBytes(SubStart(2), kBlock), Pattern(kBlock, 3));
  EXPECT_EQ(ReadBytes(SubStart(3), kBlock), std::vector<uint8_t>(kBlock, 0));
  // The round drained a unit of subzones 0, 1 and 2: only subzone 0's
  // last two blocks and subzone 1's second are still in the ring.
  EXPECT_EQ(dev_->Stats().ring_read_bytes - s.ring_read_bytes, 3 * kBlock);
}

TEST_F(SubzoneRingDeviceTest, AFullRingDrainsOneUnitFromEveryChipAtOnce) {
  for (uint32_t sub = 0; sub < 4; ++sub) ASSERT_OK(WriteAt(SubStart(sub), kBlock, sub));
  EXPECT_EQ(dev_->Stats().ring_drain_rounds, 0u);
  ASSERT_OK(WriteAt(SubStart(0) + kBlock, kBlock, 9));
  const DeviceStats s = dev_->Stats();
  EXPECT_EQ(s.ring_drain_rounds, 1u);
  EXPECT_EQ(s.ring_drained_bytes, 4 * kBlock);  // wide-zone style: all four chips
  for (uint32_t sub = 0; sub < 4; ++sub) {
    EXPECT_EQ(ReadBytes(SubStart(sub), kBlock), Pattern(kBlock, sub)) << "subzone " << sub;
  }
}

TEST_F(SubzoneRingDeviceTest, ReadsStraddlingTheActualWritePointerAreWhole) {
  ASSERT_OK(WriteAt(SubStart(0), 2 * kBlock, 1));
  // Subzone 3's write finds the ring full and drains subzone 0's first unit.
  for (uint32_t sub = 1; sub < 4; ++sub) ASSERT_OK(WriteAt(SubStart(sub), kBlock, sub));
  ASSERT_EQ(dev_->Stats().ring_drain_rounds, 1u);
  const uint64_t before = dev_->Stats().ring_read_bytes;
  EXPECT_EQ(ReadBytes(SubStart(0), 2 * kBlock), Pattern(2 * kBlock, 1));
  EXPECT_EQ(dev_->Stats().ring_read_bytes - before, kBlock);
}

TEST_F(SubzoneRingDeviceTest, ResetOfSubzoneDropsWhatTheRingHeld) {
  ASSERT_OK(WriteAt(SubStart(0), 2 * kBlock, 1));
  ASSERT_OK(dev_->ResetSubzone(0, 0, kCtx));
  EXPECT_EQ(ReadBytes(SubStart(0), 2 * kBlock), std::vector<uint8_t>(2 * kBlock, 0));
  ASSERT_OK(WriteAt(SubStart(0), kBlock, 5));
  EXPECT_EQ(ReadBytes(SubStart(0), 2 * kBlock),
            Concat(Pattern(kBlock, 5), std::vector<uint8_t>(kBlock, 0)));
  // Nothing the reset dropped is drained later.
  for (uint32_t sub = 1; sub < 4; ++sub) ASSERT_OK(WriteAt(SubStart(sub), 2 * kBlock, sub));
  EXPECT_EQ(ReadBytes(SubStart(0) + kBlock, kBlock), std::vector<uint8_t>(kBlock, 0));
  EXPECT_EQ(ReadBytes(SubStart(0), kBlock), Pattern(kBlock, 5));
}

TEST_F(SubzoneRingDeviceTest, PowerCutDrainsFlushedRingDataAndLosesTheRest) {
  ASSERT_OK(WriteAt(SubStart(0), 2 * kBlock, 1));
  ASSERT_OK(WriteAt(SubStart(1), kBlock, 2));
  ASSERT_OK(dev_->Flush(kCtx));
  ASSERT_OK(WriteAt(SubStart(0) + 2 * kBlock, kBlock, 3));
  ASSERT_EQ(dev_->Stats().ring_drain_rounds, 0u);  // all of it still in the ring
  dev_->PowerCut();
  // The capacitor drained the ring: flushed data is on the chips.
  EXPECT_EQ(ReadBytes(SubStart(0), 2 * kBlock), Pattern(2 * kBlock, 1));
  EXPECT_EQ(ReadBytes(SubStart(1), kBlock), Pattern(kBlock, 2));
  EXPECT_EQ(dev_->Stats().ring_read_bytes, 0u);
  // What no Flush covered is gone, as on every zone.
  EXPECT_EQ(ReadBytes(SubStart(0) + 2 * kBlock, kBlock), std::vector<uint8_t>(kBlock, 0));
  auto subs = dev_->ReportSubzones(0);
  ASSERT_TRUE(subs.ok()) << subs.status();
  EXPECT_EQ((*subs)[0].write_pointer, SubStart(0) + 2 * kBlock);
  // Writing resumes at the durable write pointer, through the ring again.
  ASSERT_OK(WriteAt(SubStart(0) + 2 * kBlock, kBlock, 4));
  EXPECT_EQ(ReadBytes(SubStart(0), 3 * kBlock), Concat(Pattern(2 * kBlock, 1), Pattern(kBlock, 4)));
}

TEST_F(SubzoneRingDeviceTest, WithoutTheRingNothingIsServedFromIt) {
  Open(/*ring=*/false);
  ASSERT_OK(WriteAt(SubStart(0), 2 * kBlock, 1));
  EXPECT_EQ(ReadBytes(SubStart(0), 2 * kBlock), Pattern(2 * kBlock, 1));
  EXPECT_EQ(dev_->Stats().ring_read_bytes, 0u);
}

TEST(SubzoneRingOptionsTest, RingNeedsSubzonesAndAUnitPerChip) {
  EmulatorOptions opts;
  opts.info = conformance::ZnsInfo();
  opts.subzone_ring_bytes = 4 * kBlock;
  opts.program_unit_bytes = kBlock;
  EXPECT_EQ(EmulatedDevice::Create(std::move(opts)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EmulatorOptions small;
  small.info = conformance::SplitZnsInfo();
  small.subzone_ring_bytes = 3 * kBlock;
  small.program_unit_bytes = kBlock;
  EXPECT_EQ(EmulatedDevice::Create(std::move(small)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace zonestack::device
