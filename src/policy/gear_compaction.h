// GearDB's compaction windows and gear compaction (Yao et al., FAST 2019,
// sections 3.2 and 3.3), on the LSM-tree as plain data: levels of SSTs
// with user-key ranges, and zones with the level and the SSTs they hold.
// The RocksDB glue takes the snapshots and carries the steps out
// (glue/gear_driver.h); nothing here knows RocksDB or zfs. How this maps
// onto RocksDB and what differs from the paper: docs/geardb.md.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace zonestack::policy {

// GearDB's zone layout (3.1) in zfs's placement groups: the WAL, the
// MANIFEST and other files, then one group per LSM level.
inline constexpr uint32_t kGearWalGroup = 0;
inline constexpr uint32_t kGearOtherGroup = 1;
inline constexpr uint32_t kGearFirstLevelGroup = 2;
// The level whose SSTs a zone of `group` holds; -1 for the other groups.
inline int GearLevelOfGroup(uint32_t group) {
  return group < kGearFirstLevelGroup ? -1 : static_cast<int>(group - kGearFirstLevelGroup);
}

struct GearOptions {
  uint32_t k = 4;  // a window is 1/k of a level's zones (3.2, Equation 2)
  // Levels below this have the whole level as their window (the paper:
  // L0 and L1, one zone each in its study).
  uint32_t whole_window_levels = 2;
};

// One data zone holding SSTs of one level.
struct GearZone {
  uint32_t device = 0;
  uint32_t zone = 0;
  int level = 0;
  uint64_t written_bytes = 0;  // falls when the zone was reset and reused
  std::vector<uint64_t> ssts;  // live SSTs with data in it; not empty
};

// The windows of every level, kept from one snapshot of the zones to the
// next. Not thread-safe: one driver owns it.
class GearWindows {
 public:
  explicit GearWindows(GearOptions options) : options_(options) {}

  // Brings the windows in line with `zones` (every zone holding a live
  // SST). A window zone gone from the snapshot, moved to another level or
  // written from the start again was released (its SSTs all died and zfs
  // reset it); a level whose window has no zone left takes the ceil(n/k)
  // oldest of its n zones (age: the smallest SST number in the zone).
  void Update(const std::vector<GearZone>& zones);

  bool InWindow(uint64_t sst) const { return window_ssts_.contains(sst); }
  // The window's zones of `level`, (device, zone), in age order.
  std::vector<std::pair<uint32_t, uint32_t>> WindowZones(int level) const;
  uint64_t zones_released() const { return zones_released_; }
  uint64_t windows_released() const { return windows_released_; }
  uint64_t windows_formed() const { return windows_formed_; }

 private:
  struct Member {
    uint64_t age = 0;            // smallest SST number when it joined
    uint64_t written_bytes = 0;  // the most seen
  };
  using ZoneKey = std::pair<uint32_t, uint32_t>;

  const GearOptions options_;
  std::map<int, std::map<ZoneKey, Member>> windows_;  // by level
  std::set<uint64_t> window_ssts_;
  uint64_t zones_released_ = 0, windows_released_ = 0, windows_formed_ = 0;
};

// One live SST as the plan sees it.
struct GearSst {
  uint64_t number = 0;
  uint64_t size = 0;
  std::string smallest, largest;  // user keys, compared bytewise
  bool being_compacted = false;
};

// The tree: SSTs per level; L1 and up sorted by key without overlaps (as
// RocksDB keeps them).
using GearLevels = std::vector<std::vector<GearSst>>;

struct GearLimits {
  uint32_t l0_trigger = 4;       // L0 SSTs that start an active compaction
  uint64_t base_bytes = 256 << 20;  // L1's limit
  double multiplier = 10;        // each level's limit over the one above
  int num_levels = 7;
  uint64_t Limit(int level) const;
};

struct GearStep {
  enum class Kind {
    kActive,       // L0 into L1
    kWindow,       // a window SST whose overlap below lies in that window
    kDump,         // a window SST with nothing below it
    kOutOfWindow,  // a window SST overlapping SSTs outside the next window
    kPassive,      // new outputs cascading into the next level's window
  };
  Kind kind = Kind::kActive;
  int input_level = 0;
  int output_level = 1;
  std::vector<uint64_t> inputs;  // SSTs of input_level, contiguous in key order
  uint64_t out_of_window_bytes = 0;  // of SSTs below it outside the window
};
const char* GearStepName(GearStep::Kind kind);

// The next compaction: an active one when L0 has l0_trigger SSTs, else a
// window compaction of the lowest level over its limit (victim order in
// docs/geardb.md), else none.
std::optional<GearStep> PlanStep(const GearLevels& levels, const GearWindows& windows,
                                 const GearLimits& limits, const GearOptions& options);

// Passive compactions after a step wrote `outputs` into `level` (3.3): if
// `level` is over its limit and the next level holds at least its window
// size, the outputs that overlap only the next level's window, or nothing
// there, go down; one step per run of them adjacent in key order. Empty
// when the cascade stops here.
std::vector<GearStep> PlanCascade(const GearLevels& levels, int level,
                                  const std::vector<uint64_t>& outputs,
                                  const GearWindows& windows, const GearLimits& limits,
                                  const GearOptions& options);

// What gear compaction did, by name (steps of each kind, bytes, window
// releases), for Scheme::counters(). Thread-safe.
class GearCounters {
 public:
  void Add(const std::string& name, int64_t n) ABSL_LOCKS_EXCLUDED(mu_);
  void Set(const std::string& name, int64_t n) ABSL_LOCKS_EXCLUDED(mu_);
  std::map<std::string, int64_t> Snapshot() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, int64_t> counts_ ABSL_GUARDED_BY(mu_);
};

}  // namespace zonestack::policy
