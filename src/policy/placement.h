// Placement: where a file's data goes. zfs asks; a policy answers. The
// policy sees files through the hints zfs passes and devices through a
// small read-only view, never zfs internals.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace zonestack::policy {

enum class FileKind : uint8_t { kWal, kSst, kManifest, kOther };

// RocksDB's write-lifetime hints (Env::WriteLifeTimeHint values).
enum class Lifetime : uint8_t {
  kNotSet = 0, kNone = 1, kShort = 2, kMedium = 3, kLong = 4, kExtreme = 5,
};

// What zfs knows about a file when it needs room for it.
struct FileHint {
  std::string name;
  FileKind kind = FileKind::kOther;
  Lifetime lifetime = Lifetime::kNotSet;
  int level = -1;  // LSM level of an SST when a hint told it; -1 if unknown
};

// One member device as placement sees it.
struct DeviceView {
  std::string name;
  bool is_ssd = false;          // NAND: fast random reads
  uint64_t zone_capacity = 0;
  uint32_t empty_zones = 0;     // zones a new zone can be opened from
  uint32_t data_zones = 0;      // all zones usable for data
  uint64_t free_bytes = 0;      // in empty zones and open zones' tails
};

struct PlacementDecision {
  // Devices to try, best first; zfs takes the first with room.
  std::vector<uint32_t> devices;
  // Files with the same group share zones; different groups never do.
  // Groups are how a policy separates lifetimes (and WAL from SSTs).
  uint32_t group = 0;
};

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  virtual std::string name() const = 0;
  // Called with zfs's allocation lock held: must be quick and must not call
  // back into zfs.
  virtual PlacementDecision Place(const FileHint& file,
                                  const std::vector<DeviceView>& devices) = 0;
};

// "lifetime": ZenFS-like placement on one device, files grouped by their
// write-lifetime hint. "hybrid": WAL and SSTs on the first SSD while it has
// room, then the HDD. Unknown names are an error listing the known ones.
absl::StatusOr<std::shared_ptr<PlacementPolicy>> MakePlacementPolicy(const std::string& name);

}  // namespace zonestack::policy
