// Where an emulated device keeps its bytes: memory, or a sparse file that
// also keeps the zone table so the device survives process restarts
// (docs/format.md, "Emulator backing file").
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "device/zone.h"

namespace zonestack::device {

// A zone as a backing keeps it: the durable state (what a power cut keeps)
// and the write pointer of the device's volatile write cache, which a
// process death keeps but a power cut loses. The two are equal when
// nothing is unflushed.
struct SavedZone {
  ZoneInfo durable;
  uint64_t cached_write_pointer = 0;
};

// Not thread-safe: the device serializes calls.
class Backing {
 public:
  virtual ~Backing() = default;
  // Bytes never written, or discarded, read as zeroes.
  virtual absl::Status Read(uint64_t offset, std::span<uint8_t> dst) = 0;
  virtual absl::Status Write(uint64_t offset, std::span<const uint8_t> src) = 0;
  virtual absl::Status Discard(uint64_t offset, uint64_t length) = 0;
  // The state of one zone, persisted where the backing can. Called on
  // every write to a sequential zone (the cached write pointer moves), so
  // it must be cheap.
  virtual absl::Status SaveZone(const SavedZone&) { return absl::OkStatus(); }
  // Whether the backing outlives the process (a file). A file keeps no
  // split zones yet, so the emulator splits zones only over memory.
  virtual bool persistent() const { return false; }
  // The zone table saved by an earlier process, if any.
  virtual std::optional<std::vector<SavedZone>> LoadedZones() const {
    return std::nullopt;
  }
};

struct MemoryBackingOptions {
  // Bytes a thread of the backing keeps resident ahead of each zone's
  // write position, so first-touch page faults stay out of the writes
  // (FillAhead, docs/emulator.md "Keeping pace"). 0: no thread.
  uint64_t fill_ahead = 0;
  // Fresh zone mappings kept ready, their first `fill_ahead` bytes
  // resident, for zones written for the first time.
  uint32_t spare_zones = 0;
  // Without fill-ahead: a write past the resident part of its zone makes
  // this many more bytes resident at once (MADV_POPULATE_WRITE), so fresh
  // memory costs one call per step instead of a page fault per page.
  // 0: pages fault one at a time.
  uint64_t populate_step = 0;
};

// One zone-sized mapping per zone that holds data.
std::unique_ptr<Backing> NewMemoryBacking(const DeviceInfo& info,
                                          const MemoryBackingOptions& options = {});

// Memory for every zone taken and its capacity made resident before the
// device opens (the URI's memory=reserve), so no write in the device's
// life touches fresh memory; an emptied zone keeps its memory. The price
// is num_zones x zone_capacity bytes of host memory held from the start.
// ResourceExhausted, naming both sizes, when the host's available memory
// (MemAvailable) is smaller.
absl::StatusOr<std::unique_ptr<Backing>> NewReservedMemoryBacking(const DeviceInfo& info);

// Opens `path` for `info` and locks it (flock) for as long as the backing
// lives, so one device file has one user at a time. A missing or empty
// file is made into a new, empty device; anything else must be a whole
// device file for `info`. Errors name the file: FailedPrecondition when
// another open holds it (naming the holder's pid and command line),
// InvalidArgument for a file made for another geometry (naming both), one
// shorter than its geometry needs (naming both sizes), or not a device
// file at all.
absl::StatusOr<std::unique_ptr<Backing>> OpenFileBacking(const std::string& path,
                                                         const DeviceInfo& info);

}  // namespace zonestack::device
