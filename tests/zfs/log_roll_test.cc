// The metadata log's roll when a device command in the middle of it fails
// while the host keeps running (an I/O error, not a crash): nothing the log
// acknowledges afterwards may be lost at the next mount. A device decorator
// fails chosen writes.
#include <functional>

#include <gtest/gtest.h>

#include "zfs_test_util.h"

namespace zonestack::zfs {
namespace {

using namespace testing_util;

// Forwards to `inner`, except for writes `fail` picks: those fail once
// `fail` returns true, after making every earlier write durable (as another
// thread's flush could have).
class FailingWrites : public device::ZonedDevice {
 public:
  FailingWrites(std::shared_ptr<device::ZonedDevice> inner,
                std::function<bool(uint64_t offset)> fail)
      : inner_(std::move(inner)), fail_(std::move(fail)) {}

  const device::DeviceInfo& info() const override { return inner_->info(); }
  absl::StatusOr<std::vector<device::ZoneInfo>> ReportZones(uint32_t first,
                                                            uint32_t count) const override {
    return inner_->ReportZones(first, count);
  }
  absl::Status Read(uint64_t offset, std::span<uint8_t> dst,
                    const device::IoContext& ctx) override {
    return inner_->Read(offset, dst, ctx);
  }
  absl::Status Write(uint64_t offset, std::span<const uint8_t> src,
                     const device::IoContext& ctx) override {
    if (fail_(offset)) {
      (void)inner_->Flush(ctx);
      return absl::InternalError("injected write error");
    }
    return inner_->Write(offset, src, ctx);
  }
  absl::StatusOr<uint64_t> Append(uint32_t zone, std::span<const uint8_t> src,
                                  const device::IoContext& ctx) override {
    return inner_->Append(zone, src, ctx);
  }
  using ZonedDevice::OpenZone;
  absl::Status OpenZone(uint32_t zone, device::CellMode mode,
                        const device::IoContext& ctx) override {
    return inner_->OpenZone(zone, mode, ctx);
  }
  absl::Status CloseZone(uint32_t zone, const device::IoContext& ctx) override {
    return inner_->CloseZone(zone, ctx);
  }
  absl::Status FinishZone(uint32_t zone, const device::IoContext& ctx) override {
    return inner_->FinishZone(zone, ctx);
  }
  absl::Status ResetZone(uint32_t zone, const device::IoContext& ctx) override {
    return inner_->ResetZone(zone, ctx);
  }
  absl::Status Flush(const device::IoContext& ctx) override { return inner_->Flush(ctx); }
  device::DeviceStats Stats() const override { return inner_->Stats(); }

 private:
  std::shared_ptr<device::ZonedDevice> inner_;
  std::function<bool(uint64_t)> fail_;
};

class LogRollTest : public testing::TestWithParam<int> {};

// The log starts in metadata zone 1 and rolls to zone 2: header, then the
// snapshot a block later. Parameter: which of the two writes fails.
TEST_P(LogRollTest, OpsAcknowledgedAfterAFailedRollSurviveRemount) {
  auto raw = OpenDev("emu:zn540?zones=16&scale=1/2048&timing=none");
  ASSERT_OK(Volume::Format({raw}));
  const uint64_t target = raw->ZoneStart(2) + GetParam() * raw->info().block_size;
  int failures = 1;
  auto dev = std::make_shared<FailingWrites>(
      raw, [&](uint64_t offset) { return offset == target && failures-- > 0; });
  {
    ASSERT_OK_AND_ASSIGN(auto vol, Volume::Mount({dev}));
    int i = 0;
    absl::Status failed;
    for (; i < 400 && failed.ok(); ++i) failed = vol->CreateDir("/d" + std::to_string(i));
    ASSERT_FALSE(failed.ok()) << "the roll never failed";
    // Whatever is acknowledged from now on must be durable.
    for (int j = 0; j < 20; ++j) {
      if (vol->CreateDir("/after" + std::to_string(j)).ok()) continue;
      ADD_FAILURE() << "the log did not recover from a failed roll";
    }
  }
  ASSERT_OK_AND_ASSIGN(auto vol, Volume::Mount({raw}));
  for (int j = 0; j < 20; ++j) EXPECT_OK(vol->Stat("/after" + std::to_string(j)));
  ExpectConsistent(*vol);
}

INSTANTIATE_TEST_SUITE_P(FailedWrite, LogRollTest, testing::Values(0, 1),
                         [](const testing::TestParamInfo<int>& p) {
                           return p.param == 0 ? "Header" : "Snapshot";
                         });

}  // namespace
}  // namespace zonestack::zfs
