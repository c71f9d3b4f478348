// Timing models: each request reserves time on the resources it uses
// (dies, channels, the host link, a disk head) and gets a completion time.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "device/device_stats.h"
#include "device/zone.h"

namespace zonestack::device {

enum class IoOp : uint8_t {
  kRead,
  kWrite,
  kReset,   // length = bytes written in the zone before the reset
  kFinish,
  kFlush,
  kManage,  // open, close: state only
};

struct TimedRequest {
  IoOp op = IoOp::kRead;
  uint32_t zone = 0;
  uint64_t offset = 0;  // device byte offset
  uint64_t length = 0;
  CellMode cell_mode = CellMode::kNone;
  IoClass io_class = IoClass::kOther;
  bool internal = false;  // data stays inside the device (Simple Copy)
  // SplitZNS: a subzone's request uses this one chip (die) alone; -1: the
  // zone's striping.
  int32_t chip = -1;
  // Served from controller memory (SubZone Ring, prefetch buffer): only
  // the host link is used.
  bool buffered = false;
};

// A resource's timeline: when it is next free and how long it was busy.
struct Timeline {
  uint64_t avail_ns = 0;
  uint64_t busy_ns = 0;
  // Reserves `duration` starting no earlier than `earliest`; returns the
  // start time.
  uint64_t Reserve(uint64_t earliest, uint64_t duration) {
    const uint64_t start = std::max(earliest, avail_ns);
    avail_ns = start + duration;
    busy_ns += duration;
    return start;
  }
};

// Not thread-safe: the device serializes calls, then waits outside its lock.
class TimingModel {
 public:
  virtual ~TimingModel() = default;
  // Reserves what `r` needs from `submit_ns` on; returns its completion.
  virtual uint64_t Schedule(const TimedRequest& r, uint64_t submit_ns) = 0;
  // Adds busy time per resource and erase counts to `stats`.
  virtual void ExportStats(DeviceStats* stats) const = 0;
  // False for the instant model: callers need not consult a clock at all.
  virtual bool timed() const { return true; }
};

// Instant: every request completes when submitted. For functional tests.
class NoTiming : public TimingModel {
 public:
  uint64_t Schedule(const TimedRequest&, uint64_t submit_ns) override {
    return submit_ns;
  }
  void ExportStats(DeviceStats*) const override {}
  bool timed() const override { return false; }
};

}  // namespace zonestack::device
