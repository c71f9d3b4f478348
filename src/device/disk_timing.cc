#include "device/disk_timing.h"

#include <cmath>

namespace zonestack::device {

DiskTiming::DiskTiming(const DiskParams& params, uint64_t capacity_bytes)
    : params_(params), capacity_(capacity_bytes) {}

uint64_t DiskTiming::SeekNs(double distance) const {
  if (distance <= 0) return 0;
  const double span = static_cast<double>(params_.full_seek_ns - params_.min_seek_ns);
  return params_.min_seek_ns + static_cast<uint64_t>(span * std::sqrt(distance));
}

uint64_t DiskTiming::RevolutionNs() const { return 60'000'000'000ull / params_.rpm; }

double DiskTiming::RateAt(uint64_t offset, bool write) const {
  const double pos = static_cast<double>(offset) / static_cast<double>(capacity_);
  const double od = write ? params_.od_write_bytes_per_s : params_.od_read_bytes_per_s;
  return od * (1.0 - (1.0 - params_.id_ratio) * pos);
}

uint64_t DiskTiming::Schedule(const TimedRequest& r, uint64_t submit_ns) {
  const uint64_t start = submit_ns + params_.command_ns;
  if (r.op != IoOp::kRead && r.op != IoOp::kWrite) return start;
  const bool write = r.op == IoOp::kWrite;
  const double rate = RateAt(r.offset, write);
  const uint64_t transfer =
      static_cast<uint64_t>(std::llround(static_cast<double>(r.length) * 1e9 / rate));
  const uint64_t begin = std::max(start, head_.avail_ns);
  uint64_t positioned = begin;
  if (r.offset != next_offset_) {
    const double target = static_cast<double>(r.offset) / static_cast<double>(capacity_);
    positioned += SeekNs(std::fabs(target - head_pos_));
    // Wait for the target sector to come under the head. A sector's angle
    // follows from how many tracks' worth of bytes precede it.
    const uint64_t rev = RevolutionNs();
    const double track_bytes = rate * static_cast<double>(rev) / 1e9;
    const double sector_angle = std::fmod(static_cast<double>(r.offset) / track_bytes, 1.0);
    const double head_angle =
        static_cast<double>(positioned % rev) / static_cast<double>(rev);
    const double wait = std::fmod(sector_angle - head_angle + 1.0, 1.0);
    positioned += static_cast<uint64_t>(wait * static_cast<double>(rev));
  }
  const uint64_t done = positioned + transfer;
  head_.Reserve(begin, done - begin);
  head_pos_ = static_cast<double>(r.offset + r.length) / static_cast<double>(capacity_);
  next_offset_ = r.offset + r.length;
  return done;
}

void DiskTiming::ExportStats(DeviceStats* stats) const {
  stats->busy_ns["head"] = head_.busy_ns;
}

}  // namespace zonestack::device
