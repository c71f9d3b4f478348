// Split zones across power cuts (docs/emulator.md, "Split zones"): the
// split itself, subzone finishes and resets are durable when they return;
// subzone writes are durable after Flush, like every write; a cut leaves
// each split zone split, closed or full, with every subzone at its durable
// write pointer.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <vector>

#include "device/backing.h"
#include "device/emulated_device.h"
#include "device_test_util.h"
#include "zone_conformance_fixture.h"

namespace zonestack::device {
namespace {

using conformance::kBlock;
using conformance::SplitZnsInfo;
using testing_util::Pattern;
using testing_util::ReadBack;
using testing_util::WritePattern;

const IoContext kCtx;

class SplitZonePowerCutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EmulatorOptions opts;
    opts.info = SplitZnsInfo();
    auto dev = EmulatedDevice::Create(std::move(opts));
    ASSERT_TRUE(dev.ok()) << dev.status();
    dev_ = std::move(*dev);
  }
  uint64_t SubStart(uint32_t zone, uint32_t sub) {
    return dev_->ZoneStart(zone) + sub * dev_->info().subzone_size();
  }
  SubzoneInfo Sub(uint32_t zone, uint32_t sub) {
    auto subs = dev_->ReportSubzones(zone);
    EXPECT_TRUE(subs.ok()) << subs.status();
    return subs.ok() ? (*subs)[sub] : SubzoneInfo{};
  }
  ZoneInfo Zone(uint32_t zone) {
    auto z = dev_->ReportZone(zone);
    EXPECT_TRUE(z.ok()) << z.status();
    return z.ok() ? *z : ZoneInfo{};
  }
  absl::Status WriteAt(uint64_t offset, uint64_t len, uint8_t seed) {
    return WritePattern(*dev_, offset, len, seed, kCtx);
  }
  std::vector<uint8_t> ReadBytes(uint64_t offset, uint64_t len) {
    return ReadBack(*dev_, offset, len, kCtx);
  }

  std::unique_ptr<EmulatedDevice> dev_;
};

TEST_F(SplitZonePowerCutTest, SplitZoneComesBackSplitAndClosed) {
  ASSERT_OK(dev_->SplitZone(0, kCtx));
  dev_->PowerCut();
  const ZoneInfo z = Zone(0);
  EXPECT_TRUE(z.IsSplit());
  EXPECT_EQ(z.state, ZoneState::kClosed);
  EXPECT_EQ(z.write_pointer, z.start);
  EXPECT_EQ(Sub(0, 0).state, ZoneState::kEmpty);
  // Still active: the active limit counts it (else the open limit would
  // be what refuses the last open).
  for (uint32_t i = 1; i < dev_->info().max_active_zones; ++i) {
    ASSERT_OK(dev_->OpenZone(i, kCtx));
  }
  EXPECT_EQ(GetZoneError(dev_->OpenZone(dev_->info().max_active_zones, kCtx)),
            ZoneError::kTooManyActive);
}

TEST_F(SplitZonePowerCutTest, FlushedSubzoneWritesSurviveAndLaterOnesAreLost) {
  ASSERT_OK(dev_->SplitZone(0, kCtx));
  ASSERT_OK(WriteAt(SubStart(0, 0), 2 * kBlock, 1));
  const int32_t chip = Sub(0, 0).chip;
  ASSERT_OK(dev_->Flush(kCtx));
  ASSERT_OK(WriteAt(SubStart(0, 0) + 2 * kBlock, kBlock, 2));
  ASSERT_OK(WriteAt(SubStart(0, 1), kBlock, 3));
  dev_->PowerCut();
  EXPECT_EQ(Sub(0, 0).write_pointer, SubStart(0, 0) + 2 * kBlock);
  EXPECT_EQ(Sub(0, 0).state, ZoneState::kClosed);
  EXPECT_EQ(Sub(0, 0).chip, chip);
  EXPECT_EQ(ReadBytes(SubStart(0, 0), 2 * kBlock), Pattern(2 * kBlock, 1));
  EXPECT_EQ(ReadBytes(SubStart(0, 0) + 2 * kBlock, kBlock), std::vector<uint8_t>(kBlock, 0));
  // Nothing of subzone 1 was durable: empty again, its chip released.
  EXPECT_EQ(Sub(0, 1).state, ZoneState::kEmpty);
  EXPECT_EQ(Sub(0, 1).chip, -1);
  EXPECT_EQ(ReadBytes(SubStart(0, 1), kBlock), std::vector<uint8_t>(kBlock, 0));
  // Writing goes on at the durable write pointer.
  ASSERT_OK(WriteAt(SubStart(0, 0) + 2 * kBlock, kBlock, 4));
  EXPECT_EQ(ReadBytes(SubStart(0, 0) + 2 * kBlock, kBlock), Pattern(kBlock, 4));
}

TEST_F(SplitZonePowerCutTest, FinishedSubzonesAndSplitZonesAreDurable) {
  ASSERT_OK(dev_->SplitZone(0, kCtx));
  ASSERT_OK(WriteAt(SubStart(0, 2), kBlock, 5));
  ASSERT_OK(dev_->FinishSubzone(0, 2, kCtx));  // no Flush: finishing is durable
  ASSERT_OK(dev_->FinishZone(0, kCtx));
  dev_->PowerCut();
  EXPECT_EQ(Zone(0).state, ZoneState::kFull);
  EXPECT_TRUE(Zone(0).IsSplit());
  EXPECT_EQ(Sub(0, 2).state, ZoneState::kFull);
  EXPECT_EQ(ReadBytes(SubStart(0, 2), kBlock), Pattern(kBlock, 5));
}

TEST_F(SplitZonePowerCutTest, AReopenedSplitZoneComesBackClosedWithItsSubzones) {
  ASSERT_OK(dev_->SplitZone(0, kCtx));
  ASSERT_OK(WriteAt(SubStart(0, 0), kBlock, 5));
  ASSERT_OK(WriteAt(SubStart(0, 1), kBlock, 6));
  ASSERT_OK(dev_->FinishSubzone(0, 0, kCtx));
  ASSERT_OK(dev_->FinishSubzone(0, 1, kCtx));
  ASSERT_OK(dev_->FinishZone(0, kCtx));
  ASSERT_OK(dev_->ResetSubzone(0, 1, kCtx));
  ASSERT_OK(dev_->OpenZone(0, kCtx));  // no Flush: reactivation is durable
  dev_->PowerCut();
  EXPECT_EQ(Zone(0).state, ZoneState::kClosed);
  EXPECT_TRUE(Zone(0).IsSplit());
  EXPECT_EQ(Sub(0, 0).state, ZoneState::kFull);
  EXPECT_EQ(Sub(0, 1).state, ZoneState::kEmpty);
  EXPECT_EQ(ReadBytes(SubStart(0, 0), kBlock), Pattern(kBlock, 5));
  // Closed, it takes a subzone write as any closed split zone does.
  ASSERT_OK(WriteAt(SubStart(0, 1), kBlock, 7));
  EXPECT_EQ(ReadBytes(SubStart(0, 1), kBlock), Pattern(kBlock, 7));
}

TEST_F(SplitZonePowerCutTest, SubzoneResetAndMergeAreDurable) {
  ASSERT_OK(dev_->SplitZone(0, kCtx));
  ASSERT_OK(dev_->SplitZone(1, kCtx));
  ASSERT_OK(WriteAt(SubStart(0, 0), kBlock, 6));
  ASSERT_OK(dev_->Flush(kCtx));
  ASSERT_OK(dev_->ResetSubzone(0, 0, kCtx));
  ASSERT_OK(dev_->MergeZone(1, kCtx));
  dev_->PowerCut();
  EXPECT_EQ(Sub(0, 0).state, ZoneState::kEmpty);
  EXPECT_EQ(ReadBytes(SubStart(0, 0), kBlock), std::vector<uint8_t>(kBlock, 0));
  EXPECT_FALSE(Zone(1).IsSplit());
  EXPECT_EQ(Zone(1).state, ZoneState::kEmpty);
}

TEST_F(SplitZonePowerCutTest, PowerLossInTheMiddleLeavesAConsistentSplitZone) {
  ASSERT_OK(dev_->SplitZone(0, kCtx));
  ASSERT_OK(WriteAt(SubStart(0, 0), kBlock, 1));
  ASSERT_OK(dev_->Flush(kCtx));
  // The power goes at the second of these writes.
  dev_->PowerOffAfter(1);
  ASSERT_OK(WriteAt(SubStart(0, 0) + kBlock, kBlock, 2));
  EXPECT_EQ(WriteAt(SubStart(0, 1), kBlock, 3).code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(dev_->ResetSubzone(0, 0, kCtx).code(), absl::StatusCode::kUnavailable);
  dev_->PowerOn();
  EXPECT_TRUE(Zone(0).IsSplit());
  EXPECT_EQ(Zone(0).state, ZoneState::kClosed);
  EXPECT_EQ(Sub(0, 0).write_pointer, SubStart(0, 0) + kBlock);
  EXPECT_EQ(ReadBytes(SubStart(0, 0), kBlock), Pattern(kBlock, 1));
  EXPECT_EQ(Sub(0, 1).state, ZoneState::kEmpty);
}

TEST(SplitZoneFileTest, FileBackedDeviceDoesNotSplitZones) {
  const std::string path = ::testing::TempDir() + "/split_zone_file_test.img";
  std::filesystem::remove(path);
  EmulatorOptions opts;
  opts.info = SplitZnsInfo();
  auto backing = OpenFileBacking(path, opts.info);
  ASSERT_TRUE(backing.ok()) << backing.status();
  opts.backing = std::move(*backing);
  auto dev = EmulatedDevice::Create(std::move(opts));
  ASSERT_TRUE(dev.ok()) << dev.status();
  const absl::Status s = (*dev)->SplitZone(0, kCtx);
  EXPECT_EQ(GetZoneError(s), ZoneError::kUnsupported) << s;
  EXPECT_TRUE(testing_util::Contains(s, "file")) << s;
  EXPECT_FALSE((*dev)->ReportZone(0)->IsSplit());
  dev->reset();
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace zonestack::device
