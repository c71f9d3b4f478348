// Hard disk timing: one actuator, a seek curve over the distance the head
// travels, rotational position, and a transfer rate that falls from the
// outer to the inner diameter.
#pragma once

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

 private:
  DiskParams params_;
  uint64_t capacity_;
  Timeline head_;
  double head_pos_ = 0;  // fraction of the stroke
  uint64_t next_offset_ = UINT64_MAX;  // where the last transfer ended
};

}  // namespace zonestack::device
