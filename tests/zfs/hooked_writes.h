// A device decorator for zfs tests: every write first runs a hook, which
// may block (a writer caught in the middle of a write) or fail the write
// by returning an error. Everything else forwards to the inner device.
#pragma once

#include <functional>
#include <memory>

#include "device/zoned_device.h"

namespace zonestack::zfs::testing_util {

class HookedWrites : public device::ZonedDevice {
 public:
  using Hook = std::function<absl::Status(uint64_t offset)>;
  HookedWrites(std::shared_ptr<device::ZonedDevice> inner, Hook before_write)
      : inner_(std::move(inner)), before_write_(std::move(before_write)) {}

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
    if (auto s = before_write_(offset); !s.ok()) return s;
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
  Hook before_write_;
};

}  // namespace zonestack::zfs::testing_util
