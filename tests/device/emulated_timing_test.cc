// EmulatedDevice with a timing model and a manual clock: one thread's calls
// move simulated time by exactly the model's latency.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "device/backing.h"
#include "device/clock.h"
#include "device/emulated_device.h"
#include "device/nand_timing.h"
#include "device_test_util.h"
#include "small_nand.h"

namespace zonestack::device {
namespace {

// The small SSD of small_nand.h.
using namespace small_nand;  // NOLINT: the test's vocabulary
constexpr uint64_t kZoneSize = 512 * 1024;
constexpr uint64_t kStart = 1'000'000'000;  // the clock's time at open

// Four TLC zones of kZoneSize, timed by SmallNand().
DeviceInfo SmallSsdInfo() {
  DeviceInfo info;
  info.name = "small-ssd";
  info.zone_size = kZoneSize;
  info.zone_capacity = kZoneSize;
  info.num_zones = 4;
  info.native_cell_mode = info.default_cell_mode = CellMode::kTlc;
  return info;
}

class EmulatedDeviceTimingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EmulatorOptions opts;
    opts.info = SmallSsdInfo();
    opts.timing = std::make_unique<NandTiming>(SmallNand(), kZoneSize);
    clock_ = std::make_shared<ManualClock>(kStart);
    opts.clock = clock_;
    auto dev = EmulatedDevice::Create(std::move(opts));
    ASSERT_TRUE(dev.ok()) << dev.status();
    dev_ = std::move(*dev);
  }

  std::shared_ptr<ManualClock> clock_;
  std::unique_ptr<EmulatedDevice> dev_;
  std::vector<uint8_t> buf_ = std::vector<uint8_t>(kUnit, 0xab);
};

TEST_F(EmulatedDeviceTimingTest, SequentialCallsAdvanceTheClockByTheModelsLatency) {
  ASSERT_EQ(dev_->clock(), clock_.get());
  const IoContext ctx;
  // Unit 0 (die 0): link + channel, then the die takes it and programs.
  ASSERT_OK(dev_->Write(0, buf_, ctx));
  EXPECT_EQ(clock_->NowNs(), kStart + kCmd + kLink + kXfer);
  // Unit 1 is on die 1: the same latency again.
  ASSERT_OK(dev_->Write(kUnit, buf_, ctx));
  const uint64_t t1 = kStart + 2 * (kCmd + kLink + kXfer);
  EXPECT_EQ(clock_->NowNs(), t1);
  // Reading unit 1 waits for die 1's program, which began at
  // kStart + kCmd + kLink + kXfer + (kCmd + kLink + kXfer) = t1.
  ASSERT_OK(dev_->Read(kUnit, buf_, ctx));
  const uint64_t t2 = t1 + kProg + kRead + kXfer + kLink;
  EXPECT_EQ(clock_->NowNs(), t2);
  // Die 2 is idle: a plain read of an unwritten block.
  ASSERT_OK(dev_->Read(2 * kUnit, buf_, ctx));
  const uint64_t t3 = t2 + kCmd + kRead + kXfer + kLink;
  EXPECT_EQ(clock_->NowNs(), t3);
  // Resetting the zone erases one block on each of dies 0 and 1.
  ASSERT_OK(dev_->ResetZone(0, ctx));
  EXPECT_EQ(clock_->NowNs(), t3 + kCmd + kErase);
}

TEST_F(EmulatedDeviceTimingTest, RejectedCallsTakeNoTime) {
  const IoContext ctx;
  // Not at the write pointer.
  EXPECT_FALSE(dev_->Write(kUnit, buf_, ctx).ok());
  EXPECT_EQ(clock_->NowNs(), kStart);
  EXPECT_EQ(dev_->Stats().elapsed_ns, 0u);
}

TEST_F(EmulatedDeviceTimingTest, StatsReportBusyAndElapsedModelTime) {
  const IoContext ctx{.io_class = IoClass::kWal};
  ASSERT_OK(dev_->Write(0, buf_, ctx));          // die 0, channel 0
  ASSERT_OK(dev_->Read(2 * kUnit, buf_, ctx));   // die 2, channel 0
  ASSERT_OK(dev_->ResetZone(0, ctx));            // erases die 0's block
  const uint64_t elapsed = clock_->NowNs() - kStart;
  const DeviceStats s = dev_->Stats();
  EXPECT_EQ(s.elapsed_ns, elapsed);
  EXPECT_EQ(s.busy_ns.at("die0"), kProg + kErase);
  EXPECT_EQ(s.busy_ns.at("die1"), 0u);
  EXPECT_EQ(s.busy_ns.at("die2"), kRead);
  EXPECT_EQ(s.busy_ns.at("channel0"), 2 * kXfer);
  EXPECT_EQ(s.busy_ns.at("link_write"), kLink);
  EXPECT_EQ(s.busy_ns.at("link_read"), kLink);
  EXPECT_EQ(s.erases, 1u);
  EXPECT_EQ(s.zone_resets, 1u);
  const IoCounters& wal = s.by_class[static_cast<int>(IoClass::kWal)];
  EXPECT_EQ(wal.write_ops, 1u);
  EXPECT_EQ(wal.read_bytes, kUnit);
  // No resource can be busy longer than the time that passed.
  for (const auto& [name, ns] : s.busy_ns) EXPECT_LE(ns, s.elapsed_ns) << name;
  EXPECT_DOUBLE_EQ(s.BusyFraction("die"),
                   static_cast<double>(kProg + kErase + kRead) / 4 / elapsed);
  EXPECT_GT(s.BusyFraction("die"), 0.0);
  EXPECT_LE(s.BusyFraction("die"), 1.0);
}

// A memory backing whose writes take `delay_ns` of the manual clock, as
// host-side work (a page fault, a copy) takes real time.
class SlowBacking : public Backing {
 public:
  SlowBacking(const DeviceInfo& info, std::shared_ptr<ManualClock> clock, uint64_t delay_ns)
      : inner_(NewMemoryBacking(info)), clock_(std::move(clock)), delay_ns_(delay_ns) {}
  absl::Status Read(uint64_t offset, std::span<uint8_t> dst) override {
    return inner_->Read(offset, dst);
  }
  absl::Status Write(uint64_t offset, std::span<const uint8_t> src) override {
    clock_->Advance(delay_ns_);
    return inner_->Write(offset, src);
  }
  absl::Status Discard(uint64_t offset, uint64_t length) override {
    return inner_->Discard(offset, length);
  }

 private:
  std::unique_ptr<Backing> inner_;
  std::shared_ptr<ManualClock> clock_;
  uint64_t delay_ns_;
};

// The small SSD over a backing whose writes take `delay_ns`.
std::unique_ptr<EmulatedDevice> SlowDevice(std::shared_ptr<ManualClock> clock,
                                           uint64_t delay_ns, bool timed = true) {
  EmulatorOptions opts;
  opts.info = SmallSsdInfo();
  if (timed) opts.timing = std::make_unique<NandTiming>(SmallNand(), kZoneSize);
  opts.backing = std::make_unique<SlowBacking>(opts.info, clock, delay_ns);
  opts.clock = clock;
  auto dev = EmulatedDevice::Create(std::move(opts));
  return dev.ok() ? std::move(*dev) : nullptr;
}

// A one-unit write is modeled to complete after the command, the host
// link and the channel (its program runs after completion).
constexpr uint64_t kWriteNs = kCmd + kLink + kXfer;

TEST(LateCommandTest, WorkFinishedBeforeTheModeledCompletionIsOnTime) {
  auto clock = std::make_shared<ManualClock>(kStart);
  auto dev = SlowDevice(clock, kWriteNs - 1'000);
  ASSERT_NE(dev, nullptr);
  std::vector<uint8_t> buf(kUnit, 0xab);
  ASSERT_OK(dev->Write(0, buf, IoContext{}));
  ASSERT_OK(dev->Read(0, buf, IoContext{}));
  const DeviceStats s = dev->Stats();
  EXPECT_EQ(s.late_commands, 0u);
  EXPECT_EQ(s.late_ns, 0u);
}

TEST(LateCommandTest, WorkFinishedAfterTheModeledCompletionIsLate) {
  auto clock = std::make_shared<ManualClock>(kStart);
  auto dev = SlowDevice(clock, kWriteNs + 7'000);
  ASSERT_NE(dev, nullptr);
  std::vector<uint8_t> buf(kUnit, 0xab);
  ASSERT_OK(dev->Write(0, buf, IoContext{}));            // 7 us late
  ASSERT_OK(dev->Append(0, buf, IoContext{}).status());  // die 1: 7 us late
  ASSERT_OK(dev->Read(0, buf, IoContext{}));             // no backing write: on time
  const DeviceStats s = dev->Stats();
  EXPECT_EQ(s.late_commands, 2u);
  EXPECT_EQ(s.late_ns, 2 * 7'000u);
}

TEST(LateCommandTest, AnUntimedDeviceIsNeverLate) {
  auto clock = std::make_shared<ManualClock>(kStart);
  auto dev = SlowDevice(clock, 1'000'000, /*timed=*/false);
  ASSERT_NE(dev, nullptr);
  std::vector<uint8_t> buf(kUnit, 0xab);
  ASSERT_OK(dev->Write(0, buf, IoContext{}));
  EXPECT_EQ(dev->Stats().late_commands, 0u);
}

}  // namespace
}  // namespace zonestack::device
