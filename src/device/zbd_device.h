// A real Linux zoned block device (NVMe ZNS namespace, ZBC/ZAC SMR disk,
// null_blk) behind ZonedDevice, through libzbd: O_DIRECT I/O, and reads
// through the page cache where the caller allows it (IoContext::host_cache).
#pragma once

#include <array>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "device/zoned_device.h"

namespace zonestack::device {

enum class ZbdCommand;  // zbd_translate.h

// Zone state, write pointers and errors are the kernel's: every call is one
// or more kernel commands, and a failure's typed zone error is read off the
// zone's reported state (zbd_translate.h). DeviceInfo comes from the device:
// zone size, capacity (of the first sequential zone), zone count, open and
// active limits (sysfs), block size (the physical block size, so every
// write is a whole number of media blocks) and the append limit
// (queue/zone_append_max_bytes).
//
// Protocol: NVMe devices follow ZNS; everything else (SCSI/ATA SMR,
// null_blk) returns an opened zone with nothing written to empty on close,
// as ZBC does. Reads beyond the write pointer read zeroes on NVMe and
// null_blk, and are refused on SCSI disks (URSWRZ is usually 0). Reads may
// cross zones: the block layer splits every I/O at zone boundaries.
// Writes may not: split, one half could land and the other fail, so a
// write crossing a zone is refused with kBoundary before it is issued.
//
// What is emulated, because Linux offers no user-space equivalent:
// Append reads the zone's write pointer and writes there, serialized per
// zone by this object (so appends race only with other processes, which
// must not write the device). Cell modes, Simple Copy and subzones are
// kUnsupported. Flush is fdatasync, which sends a cache flush.
//
// Thread-safety: as ZonedDevice; all methods may be called concurrently.
class ZbdDevice : public ZonedDevice {
 public:
  // Opens `path` (e.g. /dev/nvme0n1) for exclusive O_DIRECT read/write.
  // NotFound if it does not exist; InvalidArgument if it is not a zoned
  // block device or its zone layout is not one ZonedDevice can describe
  // (conventional zones after sequential ones, zones of mixed sizes);
  // the open's errno otherwise (e.g. busy when mounted).
  static absl::StatusOr<std::unique_ptr<ZbdDevice>> Open(const std::string& path);
  ~ZbdDevice() override;

  const DeviceInfo& info() const override { return info_; }
  absl::StatusOr<std::vector<ZoneInfo>> ReportZones(uint32_t first,
                                                    uint32_t count) const override;
  absl::Status Read(uint64_t offset, std::span<uint8_t> dst, const IoContext& ctx) override;
  absl::Status Write(uint64_t offset, std::span<const uint8_t> src,
                     const IoContext& ctx) override;
  absl::StatusOr<uint64_t> Append(uint32_t zone, std::span<const uint8_t> src,
                                  const IoContext& ctx) override;
  using ZonedDevice::OpenZone;
  absl::Status OpenZone(uint32_t zone, CellMode mode, const IoContext& ctx) override;
  absl::Status CloseZone(uint32_t zone, const IoContext& ctx) override;
  absl::Status FinishZone(uint32_t zone, const IoContext& ctx) override;
  absl::Status ResetZone(uint32_t zone, const IoContext& ctx) override;
  absl::Status Flush(const IoContext& ctx) override;
  DeviceStats Stats() const override;

 private:
  ZbdDevice(int fd, int cached_fd, DeviceInfo info);
  // Argument checks every read and write gets before reaching the kernel:
  // offset and length multiples of `granularity` (the block size, or 1
  // for reads through the page cache), inside the device.
  absl::Status CheckRange(const char* what, uint64_t offset, uint64_t len,
                          uint32_t granularity) const;
  // pread from `fd` (pwrite to fd_) through a bounce buffer where `data`
  // is not aligned to `alignment` (the block size for O_DIRECT, 1 for the
  // page cache); returns the failing command's translated error.
  absl::Status ReadFrom(int fd, uint32_t alignment, uint64_t offset, std::span<uint8_t> dst);
  absl::Status WriteDirect(uint64_t offset, std::span<const uint8_t> src);
  absl::Status ZoneAction(ZbdCommand cmd, uint32_t zone);
  // The error for a failed command, with the zone's state after it.
  absl::Status CommandError(ZbdCommand cmd, int err, uint64_t offset, uint64_t len) const;
  void Count(const IoContext& ctx, bool write, uint64_t bytes);

  const int fd_;         // O_DIRECT, exclusive: every write and direct read
  const int cached_fd_;  // buffered, read-only; -1 where host_cache is off
  const DeviceInfo info_;
  const uint64_t opened_at_ns_;
  // Appends to one zone are serialized by these, striped by zone index.
  std::array<absl::Mutex, 64> append_mu_;
  mutable absl::Mutex stats_mu_;
  DeviceStats stats_ ABSL_GUARDED_BY(stats_mu_);
};

}  // namespace zonestack::device
