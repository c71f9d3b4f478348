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
// RocksDB's small files that live long (IDENTITY, CURRENT, OPTIONS, LOCK):
// apart from the MANIFEST and info LOG, whose zones die as they roll over.
// Among them, each of these few KiB kept a zone of 4 MiB alive for good
// on a volume without GC (docs/geardb.md, "1. Per-level zones").
inline constexpr uint32_t kGearSmallFilesGroup = 0xFFFF'FF00;
// With window zones (GearOptions::window_zones) a windowed level has a
// group per key slice: kGearFirstLevelGroup + level + kGearLevelGroups *
// slice.
inline constexpr uint32_t kGearLevelGroups = 64;
inline uint32_t GearGroup(int level, uint32_t slice) {
  return kGearFirstLevelGroup + static_cast<uint32_t>(level < 0 ? 0 : level) +
         kGearLevelGroups * slice;
}
// The level whose SSTs a zone of `group` holds; -1 for the other groups.
inline int GearLevelOfGroup(uint32_t group) {
  return group < kGearFirstLevelGroup || group == kGearSmallFilesGroup
             ? -1
             : static_cast<int>((group - kGearFirstLevelGroup) % kGearLevelGroups);
}

// How levels' compaction windows are chosen (3.2); docs/geardb.md, "2.".
enum class GearWindowing {
  // The paper's windows by age, on RocksDB's key-ordered levels: each
  // level from L1 on sweeps its SSTs in key order from a cursor, so
  // L_(i+1) is written, and rewritten, in the order of L_i's sweep: its
  // oldest SSTs lie just ahead of L_i's cursor, and its zones die oldest
  // first. L_(i+1)'s window is its first 1/k of bytes ahead of L_i's
  // cursor; L_i's victims, just after that cursor, overlap only it, and
  // the cascade's outputs go down only over it.
  kAge,
  // Ours: the key space cut into k slices of the largest level's bytes;
  // every windowed level has the current slice as its window, and the
  // window rotates slice by slice.
  kKeySlices,
};

struct GearOptions {
  GearWindowing windows = GearWindowing::kAge;
  uint32_t k = 4;  // a window is 1/k of a level's key range (3.2, Equation 2)
  // Levels below this have the whole level as their window (the paper:
  // L0 and L1, one zone each in its study).
  uint32_t whole_window_levels = 2;
  // A window step also takes the next level's SSTs inside the window that
  // lie between the level's sweep cursor and the victim (and after the
  // window's last victim), so that a sweep of a window rewrites all of the
  // next level's part of it and that level's zones die whole
  // (docs/geardb.md, "What differs"). false: RocksDB's overlap only.
  bool sweep_gaps = true;
  // Passive compactions (3.3's cascade) after a window or active step.
  // false: window steps only (docs/geardb.md, "What differs").
  bool cascade = true;
  // false (the paper, 3.2): one zone group per level, whose one writing
  // zone takes the runs of every slice. true (ours): the zones of a level
  // from whole_window_levels on hold SSTs of one key slice only (a
  // placement group per level and slice), so that a window's zones die
  // whole when its sweep passes them; each group then holds whole zones
  // of its own, k writing zones per level (docs/geardb.md).
  // Only with kKeySlices windows.
  bool window_zones = false;
  // LevelDB's write slowdown: how long each write waits while L0 holds
  // level0_slowdown_writes_trigger SSTs (LevelDB: 1 ms). A time, so a
  // scaled run whose writes each take far longer than LevelDB's (the
  // emulated disk's positioning is not scaled) feels it far less
  // (docs/geardb.md, "The random load at the scaled size").
  double slowdown_ms = 1.0;
  // The writer that seals a MemTable waits while the volume's empty zones
  // are fewer than one driver step may need (its step_bytes in zones, and
  // one more) and the driver has work: a step under way or due. LevelDB's
  // stop holds L0 only, so a writer that outruns the driver fills the disk
  // with the levels it has not yet compacted, and a put fails for space
  // that the next steps would have freed (docs/geardb.md, "4. No GC,
  // ever"). false: only LevelDB's slowdown and stop.
  bool space_hold = true;
};

// One data zone holding SSTs of one level.
struct GearZone {
  uint32_t device = 0;
  uint32_t zone = 0;
  int level = 0;
  uint64_t written_bytes = 0;  // falls when the zone was reset and reused
  std::vector<uint64_t> ssts;  // live SSTs with data in it; not empty
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

struct GearStep;

// The compaction windows (3.2), by age or by key slices (GearWindowing).
// By age: one slice (all keys) and a cursor per level. By key slices: the
// key space is cut into k slices holding about equal bytes of the largest
// level; every level from whole_window_levels on has the same slice as its
// window, so a victim inside one level's window overlaps only the next
// level's window (3.3's confinement). The window rotates slice by slice (round robin);
// after the last slice the cuts are taken again from the tree if the
// slices no longer hold about equal bytes. Each level sweeps its part of
// a window in key order from a cursor kept per level and slice. Levels
// above whole_window_levels have the whole level as their window; their
// victims are still taken inside the current slice when the level below
// has windows. Not thread-safe: one driver owns it.
class GearWindows {
 public:
  explicit GearWindows(GearOptions options) : options_(options) {}

  // Brings the windows in line with the tree and with `zones` (every zone
  // holding a live SST): counts the zones reset since the last call, and
  // cuts the key space into slices if it has no cuts yet and the largest
  // level holds at least k SSTs (until then one window covers all keys).
  void Update(const GearLevels& levels, const std::vector<GearZone>& zones);
  // The window is released (its level had nothing left in it to compact):
  // the next slice forms the window; after the last one the key space is
  // cut again from `levels` if a slice of the largest level holds more
  // than twice its share of the bytes (or there are fewer than k slices).
  void Rotate(const GearLevels& levels);

  // Whether `sst` of `level` lies in (overlaps) its level's window.
  bool InWindow(int level, const GearSst& sst) const;
  // Whether `sst` lies wholly inside the current window's key range.
  bool Inside(const GearSst& sst) const;
  // The current window's key range: [lo, hi), no hi = to the end.
  const std::string& lo() const { return lo_; }
  const std::optional<std::string>& hi() const { return hi_; }
  uint32_t window() const { return window_; }
  uint32_t slices() const { return static_cast<uint32_t>(cuts_.size()) + 1; }
  // The keys where a slice begins (the first one excepted), ascending.
  const std::vector<std::string>& cuts() const { return cuts_; }
  // The largest key `level` compacted in the current window this round;
  // none at its start.
  std::optional<std::string> Cursor(int level) const;
  void Advance(int level, const std::string& key);
  // A step ran: its input level's cursor moves to the step's. With age
  // windows, a step of L_i that swept over L_(i+1)'s cursor lets the
  // cascade take its outputs ahead of that cursor (Pulled).
  void Advance(const GearStep& step);
  // Age windows: where `level`'s cursor was when the last step of the
  // level above swept over it (origin: the next level's window lies ahead
  // of it), and how far passive steps since took that step's outputs on
  // down (at); none when the cascade may take none of them. A none key is
  // the start of the key space.
  struct Pull {
    std::optional<std::string> origin, at;
  };
  std::optional<Pull> Pulled(int level) const;

  uint64_t zones_released() const { return zones_released_; }
  uint64_t windows_released() const { return windows_released_; }
  uint64_t windows_formed() const { return windows_formed_; }
  uint64_t cuts_taken() const { return cuts_taken_; }

 private:
  using ZoneKey = std::pair<uint32_t, uint32_t>;
  void Cut(const GearLevels& levels);
  bool Balanced(const GearLevels& levels) const;
  void SetRange();

  const GearOptions options_;
  std::vector<std::string> cuts_;
  uint32_t window_ = 0;
  std::string lo_;
  std::optional<std::string> hi_;
  std::map<std::pair<int, uint32_t>, std::string> cursors_;  // (level, slice)
  std::map<int, Pull> pulled_;  // age windows: Pulled()
  std::map<ZoneKey, uint64_t> zones_;  // SST zones seen, with bytes written
  uint64_t zones_released_ = 0, windows_released_ = 0, windows_formed_ = 0, cuts_taken_ = 0;
};

struct GearLimits {
  uint32_t l0_trigger = 4;       // L0 SSTs that start an active compaction
  uint64_t base_bytes = 256 << 20;  // L1's limit
  double multiplier = 10;        // each level's limit over the one above
  int num_levels = 7;
  // A window step takes the level's next SSTs in the window, in key order,
  // while their bytes and their overlap below stay within this (RocksDB's
  // max_compaction_bytes); 0: one victim per step. The last output of a
  // step ends inside the next victim's range and the next step writes it
  // again: with one victim (about three outputs) per step that first copy
  // was a third of every zone the sweep wrote (docs/geardb.md, "2.").
  uint64_t step_bytes = 0;
  uint64_t Limit(int level) const;
};

struct GearStep {
  enum class Kind {
    kActive,       // L0 into L1
    kWindow,       // a window SST whose overlap below lies in that window
    kDump,         // a window SST with nothing below it
    kOutOfWindow,  // a window SST overlapping SSTs outside the next window
                   // (one cut at cuts taken before, straddling a slice)
    kPassive,      // new outputs cascading into the next level's window
  };
  Kind kind = Kind::kActive;
  int input_level = 0;
  int output_level = 1;
  // SSTs of input_level, contiguous in key order; for a window step then
  // the next level's SSTs of the sweep's gap (GearOptions::sweep_gaps).
  std::vector<uint64_t> inputs;
  uint64_t out_of_window_bytes = 0;  // of SSTs below it outside the window
  uint64_t gap_bytes = 0;            // of the gap's SSTs
  // A window step (with age windows, a passive one too): the cursor of
  // input_level once it succeeded (GearWindows::Advance)...
  std::optional<std::string> cursor;
  // ... and what the step swept of input_level's key space: (from,
  // cursor], from none = the start; to the end of the key space when
  // to_end (it took the next level's SSTs after its last victim).
  std::optional<std::string> from;
  bool to_end = false;
};
const char* GearStepName(GearStep::Kind kind);

// The next compaction: an active one when L0 has l0_trigger SSTs, else a
// window compaction of the level furthest over its limit: its next SST in
// key order inside the window after its cursor (round robin). A level
// with nothing left in the window rotates the window (docs/geardb.md).
std::optional<GearStep> PlanStep(const GearLevels& levels, GearWindows& windows,
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
