// EmulatedDevice::PowerOff / PowerOffAfter / PowerOn: a power loss that
// lasts until the device is powered on again, so the host's teardown after
// a simulated crash cannot write (PowerCut is the same cut, instantly
// followed by power-on; backing_test.cc covers what a cut keeps).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "device/emulated_device.h"
#include "device/zoned_device.h"
#include "device_test_util.h"

namespace zonestack::device {
namespace {

using testing_util::Pattern;

constexpr uint64_t kBlock = 4096;
const IoContext kCtx;

class PowerOffTest : public testing::Test {
 protected:
  void SetUp() override {
    auto dev = OpenDevice("emu:zn540?zones=8&scale=1/256&timing=none&conv=1");
    ASSERT_TRUE(dev.ok()) << dev.status();
    dev_ = std::move(*dev);
    emu_ = dynamic_cast<EmulatedDevice*>(dev_.get());
    ASSERT_NE(emu_, nullptr);
  }
  uint64_t Start(uint32_t zone) const { return dev_->ZoneStart(zone); }
  absl::Status WriteAt(uint64_t offset, uint64_t len, uint8_t seed) {
    return dev_->Write(offset, Pattern(len, seed), kCtx);
  }
  uint64_t Written(uint32_t zone) {
    auto z = dev_->ReportZone(zone);
    EXPECT_TRUE(z.ok()) << z.status();
    return z.ok() ? z->write_pointer - z->start : 0;
  }

  std::unique_ptr<ZonedDevice> dev_;
  EmulatedDevice* emu_ = nullptr;
};

TEST_F(PowerOffTest, EveryCommandFailsUnavailableWhileOff) {
  ASSERT_OK(WriteAt(Start(2), kBlock, 1));
  ASSERT_OK(dev_->Flush(kCtx));
  emu_->PowerOff();
  EXPECT_TRUE(emu_->powered_off());
  std::vector<uint8_t> buf(kBlock);
  EXPECT_EQ(dev_->Read(Start(2), buf, kCtx).code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(WriteAt(Start(2) + kBlock, kBlock, 2).code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(dev_->Append(3, buf, kCtx).status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(dev_->Flush(kCtx).code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(dev_->ResetZone(2, kCtx).code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(dev_->FinishZone(2, kCtx).code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(dev_->OpenZone(4, kCtx).code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(dev_->CloseZone(2, kCtx).code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(dev_->ReportZones(0, 8).status().code(), absl::StatusCode::kUnavailable);
}

TEST_F(PowerOffTest, PowerOnRestoresTheDurableStateOnly) {
  ASSERT_OK(WriteAt(Start(2), 2 * kBlock, 1));
  ASSERT_OK(dev_->Flush(kCtx));
  ASSERT_OK(WriteAt(Start(2) + 2 * kBlock, kBlock, 2));  // lost
  emu_->PowerOff();
  (void)WriteAt(Start(2) + 2 * kBlock, kBlock, 3);  // refused
  (void)dev_->Flush(kCtx);                          // refused
  emu_->PowerOn();
  EXPECT_FALSE(emu_->powered_off());
  EXPECT_EQ(Written(2), 2 * kBlock);
  std::vector<uint8_t> buf(3 * kBlock);
  ASSERT_OK(dev_->Read(Start(2), buf, kCtx));
  std::vector<uint8_t> want = Pattern(2 * kBlock, 1);
  want.resize(3 * kBlock, 0);
  EXPECT_EQ(buf, want);
  EXPECT_OK(WriteAt(Start(2) + 2 * kBlock, kBlock, 4));
}

TEST_F(PowerOffTest, PowerOffAfterCutsBeforeTheNextCommandPastTheBudget) {
  emu_->PowerOffAfter(2);
  ASSERT_OK(WriteAt(Start(2), kBlock, 1));
  ASSERT_OK(dev_->Flush(kCtx));
  EXPECT_FALSE(emu_->powered_off());
  EXPECT_EQ(WriteAt(Start(2) + kBlock, kBlock, 2).code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(emu_->powered_off());
  emu_->PowerOn();
  EXPECT_EQ(Written(2), kBlock);
}

TEST_F(PowerOffTest, PowerOffAfterDropsUnflushedWrites) {
  emu_->PowerOffAfter(1);
  ASSERT_OK(WriteAt(Start(2), kBlock, 1));
  EXPECT_FALSE(dev_->Flush(kCtx).ok());  // the power goes before the flush
  emu_->PowerOn();
  EXPECT_EQ(Written(2), 0u);
}

TEST_F(PowerOffTest, ReadsDoNotCountAgainstThePowerOffBudget) {
  ASSERT_OK(WriteAt(Start(2), kBlock, 1));
  emu_->PowerOffAfter(1);
  std::vector<uint8_t> buf(kBlock);
  for (int i = 0; i < 3; ++i) ASSERT_OK(dev_->Read(Start(2), buf, kCtx));
  EXPECT_OK(dev_->Flush(kCtx));
  EXPECT_FALSE(dev_->Flush(kCtx).ok());
}

TEST_F(PowerOffTest, PowerCutLeavesTheDeviceOn) {
  ASSERT_OK(WriteAt(Start(2), kBlock, 1));
  emu_->PowerCut();
  EXPECT_FALSE(emu_->powered_off());
  EXPECT_OK(WriteAt(Start(2), kBlock, 2));
}

TEST_F(PowerOffTest, DestroyingAPoweredOffDeviceDoesNotFlush) {
  const std::string dir = testing::TempDir();
  const std::string uri =
      "emu:zn540?zones=8&scale=1/256&timing=none&file=" + dir + "/power_off_test.img";
  std::remove((dir + "/power_off_test.img").c_str());
  {
    auto dev = OpenDevice(uri);
    ASSERT_TRUE(dev.ok()) << dev.status();
    ASSERT_OK((*dev)->Write((*dev)->ZoneStart(1), Pattern(kBlock, 1), kCtx));
    ASSERT_OK((*dev)->Flush(kCtx));
    ASSERT_OK((*dev)->Write((*dev)->ZoneStart(1) + kBlock, Pattern(kBlock, 2), kCtx));
    dynamic_cast<EmulatedDevice*>(dev->get())->PowerOff();
  }  // destroyed while off: the unflushed block must stay lost
  auto dev = OpenDevice(uri);
  ASSERT_TRUE(dev.ok()) << dev.status();
  auto z = (*dev)->ReportZone(1);
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ(z->write_pointer - z->start, kBlock);
  dev->reset();
  std::remove((dir + "/power_off_test.img").c_str());
}

}  // namespace
}  // namespace zonestack::device
