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

uint64_t DiskTiming::LinkNs(uint64_t length) const {
  return static_cast<uint64_t>(
      std::llround(static_cast<double>(length) * 1e9 / params_.link_bytes_per_s));
}

uint64_t DiskTiming::MediaTransfer(uint64_t earliest, uint64_t offset, uint64_t length,
                                   bool write, IoClass io_class) {
  const double rate = RateAt(offset, write);
  const uint64_t transfer =
      static_cast<uint64_t>(std::llround(static_cast<double>(length) * 1e9 / rate));
  const uint64_t begin = std::max(earliest, head_.avail_ns);
  uint64_t positioned = begin;
  if (offset != next_offset_) {
    const double target = static_cast<double>(offset) / static_cast<double>(capacity_);
    const uint64_t seek = SeekNs(std::fabs(target - head_pos_));
    // Wait for the target sector to come under the head. A sector's angle
    // follows from how many tracks' worth of bytes precede it.
    const uint64_t rev = RevolutionNs();
    const double track_bytes = rate * static_cast<double>(rev) / 1e9;
    const double sector_angle = std::fmod(static_cast<double>(offset) / track_bytes, 1.0);
    const double head_angle =
        static_cast<double>((positioned + seek) % rev) / static_cast<double>(rev);
    const double wait = std::fmod(sector_angle - head_angle + 1.0, 1.0);
    const double positioning = static_cast<double>(seek) + wait * static_cast<double>(rev);
    positioned += static_cast<uint64_t>(positioning * params_.positioning_scale);
  }
  const uint64_t done = positioned + transfer;
  head_.Reserve(begin, done - begin);
  busy_by_class_[static_cast<int>(io_class)] += done - begin;
  head_pos_ = static_cast<double>(offset + length) / static_cast<double>(capacity_);
  next_offset_ = offset + length;
  return done;
}

uint64_t DiskTiming::Destage(std::map<uint32_t, DirtyRun>::iterator it, uint64_t earliest) {
  const DirtyRun run = it->second;
  dirty_.erase(it);
  dirty_bytes_ -= run.length;
  ++destages_;
  return MediaTransfer(earliest, run.offset, run.length, /*write=*/true, run.io_class);
}

uint64_t DiskTiming::DestageOldest(uint64_t earliest) {
  auto oldest = dirty_.begin();
  for (auto it = dirty_.begin(); it != dirty_.end(); ++it) {
    if (it->second.seq < oldest->second.seq) oldest = it;
  }
  return Destage(oldest, earliest);
}

uint64_t DiskTiming::CacheWrite(const TimedRequest& r, uint64_t start) {
  // Too large to cache, or continuing nothing the cache holds for its zone
  // (a rewrite after a reset): the older run goes first.
  if (r.length > params_.write_cache_bytes) {
    return MediaTransfer(start, r.offset, r.length, /*write=*/true, r.io_class);
  }
  uint64_t room_at = start;
  auto it = dirty_.find(r.zone);
  if (it != dirty_.end() && it->second.offset + it->second.length != r.offset) {
    room_at = std::max(room_at, Destage(it, start));
  }
  while (dirty_bytes_ + r.length > params_.write_cache_bytes) {
    room_at = std::max(room_at, DestageOldest(start));
  }
  DirtyRun& run = dirty_[r.zone];
  if (run.length == 0) {
    run.offset = r.offset;
    run.seq = next_seq_++;
    run.io_class = r.io_class;
  }
  run.length += r.length;
  dirty_bytes_ += r.length;
  return std::max(start + LinkNs(r.length), room_at);
}

uint64_t DiskTiming::Schedule(const TimedRequest& r, uint64_t submit_ns) {
  const uint64_t start = submit_ns + params_.command_ns;
  // The head destages while no request is waiting for it: at most one run
  // overlaps the arrival, as a drive finishes the write it started.
  while (!dirty_.empty() && head_.avail_ns < submit_ns) DestageOldest(head_.avail_ns);
  switch (r.op) {
    case IoOp::kRead: {
      auto it = dirty_.find(r.zone);
      if (it != dirty_.end() && r.offset >= it->second.offset &&
          r.offset + r.length <= it->second.offset + it->second.length) {
        ++cache_read_hits_;
        return start + LinkNs(r.length);
      }
      return MediaTransfer(start, r.offset, r.length, /*write=*/false, r.io_class);
    }
    case IoOp::kWrite:
      if (params_.write_cache_bytes == 0) {
        return MediaTransfer(start, r.offset, r.length, /*write=*/true, r.io_class);
      }
      return CacheWrite(r, start);
    case IoOp::kFlush: {
      // In offset order: adjacent runs (a file's zones) follow one another
      // without repositioning.
      uint64_t done = start;
      while (!dirty_.empty()) {
        auto first = dirty_.begin();
        for (auto it = dirty_.begin(); it != dirty_.end(); ++it) {
          if (it->second.offset < first->second.offset) first = it;
        }
        done = std::max(done, Destage(first, start));
      }
      return done;
    }
    case IoOp::kReset: {
      // Data of a reset zone need never reach the media.
      auto it = dirty_.find(r.zone);
      if (it != dirty_.end()) {
        dirty_bytes_ -= it->second.length;
        dirty_.erase(it);
      }
      return start;
    }
    default:
      return start;
  }
}

void DiskTiming::ExportStats(DeviceStats* stats) const {
  stats->busy_ns["head"] = head_.busy_ns;
  stats->busy_ns_by_class = busy_by_class_;
  stats->destages = destages_;
  stats->cache_read_hits = cache_read_hits_;
}

}  // namespace zonestack::device
