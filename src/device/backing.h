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

// Not thread-safe: the device serializes calls.
class Backing {
 public:
  virtual ~Backing() = default;
  // Bytes never written, or discarded, read as zeroes.
  virtual absl::Status Read(uint64_t offset, std::span<uint8_t> dst) = 0;
  virtual absl::Status Write(uint64_t offset, std::span<const uint8_t> src) = 0;
  virtual absl::Status Discard(uint64_t offset, uint64_t length) = 0;
  // The durable state of one zone, persisted where the backing can.
  virtual absl::Status SaveZone(const ZoneInfo&) { return absl::OkStatus(); }
  // The zone table saved by an earlier process, if any.
  virtual std::optional<std::vector<ZoneInfo>> LoadedZones() const {
    return std::nullopt;
  }
};

// Per-zone buffers that grow as the zone is written.
std::unique_ptr<Backing> NewMemoryBacking(const DeviceInfo& info);

// Opens `path`, creating it for `info` if it does not exist. An existing
// file made for another geometry is an error that names both.
absl::StatusOr<std::unique_ptr<Backing>> OpenFileBacking(const std::string& path,
                                                         const DeviceInfo& info);

}  // namespace zonestack::device
