// Hard disk timing: one actuator, a seek curve over the distance the head
// travels, rotational position, a transfer rate that falls from the outer
// to the inner diameter, and optionally a write-back cache.
#pragma once

#include <array>
#include <map>

#include "device/timing_model.h"

namespace zonestack::device {

struct DiskParams {
  uint32_t rpm = 7200;
  double od_read_bytes_per_s = 220e6;   // media rate at the outer diameter
  double od_write_bytes_per_s = 220e6;
  double id_ratio = 0.55;               // inner-diameter rate / outer rate
  // seek(d) = min + (full - min) * sqrt(d), d = fraction of the full stroke
  // (the square-root curve of short, acceleration-bound seeks; Ruemmler and
  // Wilkes, as in DiskSim's HPL model).
  uint64_t min_seek_ns = 600'000;
  uint64_t full_seek_ns = 8'000'000;
  uint64_t command_ns = 50'000;
  // Seek and rotational waits are multiplied by this (1: the drive's). A
  // device scaled down by K shrinks zones and files but not positioning,
  // so a file K times smaller pays the same seek for K times less
  // transfer; positioning = 1/K keeps the real drive's ratio of
  // positioning to transfer per file and per zone (docs/emulator.md).
  double positioning_scale = 1.0;
  // Write-back cache (0: write-through). A cached write completes once it
  // crossed the host link; the head writes it later (destage), one zone's
  // dirty run at a time: on a cache flush, when the cache is full, or while
  // the head is otherwise idle.
  uint64_t write_cache_bytes = 0;
  double link_bytes_per_s = 600e6;  // SATA 6 Gb/s
};

// The device's byte range is spread over the whole stroke whatever its
// size, so a scaled-down emulated disk keeps the seek distances of the real
// one. A request that starts where the previous one ended pays neither seek
// nor rotation (read-ahead and write caching keep the stream going).
class DiskTiming : public TimingModel {
 public:
  DiskTiming(const DiskParams& params, uint64_t capacity_bytes);
  uint64_t Schedule(const TimedRequest& r, uint64_t submit_ns) override;
  void ExportStats(DeviceStats* stats) const override;

  const DiskParams& params() const { return params_; }
  uint64_t SeekNs(double distance) const;
  uint64_t RevolutionNs() const;
  // Media rate at `offset`.
  double RateAt(uint64_t offset, bool write) const;
  uint64_t dirty_bytes() const { return dirty_bytes_; }

 private:
  // Bytes a zone holds in the write cache, not yet on the media: contiguous,
  // since a zone is written at its write pointer.
  struct DirtyRun {
    uint64_t offset = 0;
    uint64_t length = 0;
    uint64_t seq = 0;  // order of first caching: destage oldest first
    IoClass io_class = IoClass::kOther;  // of the first write: one file's
  };

  // Moves the head to `offset` (no earlier than `earliest`) and transfers
  // `length` bytes; returns when the transfer ends.
  uint64_t MediaTransfer(uint64_t earliest, uint64_t offset, uint64_t length, bool write,
                         IoClass io_class);
  // Writes one zone's dirty run to the media; returns when it is done.
  uint64_t Destage(std::map<uint32_t, DirtyRun>::iterator it, uint64_t earliest);
  uint64_t DestageOldest(uint64_t earliest);
  uint64_t LinkNs(uint64_t length) const;
  uint64_t CacheWrite(const TimedRequest& r, uint64_t start);

  DiskParams params_;
  uint64_t capacity_;
  Timeline head_;
  double head_pos_ = 0;  // fraction of the stroke
  uint64_t next_offset_ = UINT64_MAX;  // where the last transfer ended
  std::map<uint32_t, DirtyRun> dirty_;  // by zone
  uint64_t dirty_bytes_ = 0;
  uint64_t next_seq_ = 0;
  std::array<uint64_t, kNumIoClasses> busy_by_class_{};
  uint64_t destages_ = 0;
  uint64_t cache_read_hits_ = 0;
};

}  // namespace zonestack::device
