// A scheme: one paper's (or one baseline's) way of placing, migrating and
// caching data. zfs calls it through the placement seam it defines
// (zfs/placement.h); the RocksDB glue feeds its LSM view with hints. How
// schemes are found by name and configured: scheme_registry.h.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "policy/gear_compaction.h"
#include "policy/lsm_view.h"
#include "policy/ssd_cache_index.h"
#include "zfs/placement.h"

namespace zonestack::policy {

// zfs's placement seam, which every scheme implements.
using zfs::DeviceView;
using zfs::FileHint;
using zfs::FileKind;
using zfs::Lifetime;
using zfs::Migration;
using zfs::PlacementDecision;
using zfs::PlacementPolicy;
using zfs::SstOrigin;

// What a scheme gets from whoever makes it, besides its options.
struct SchemeEnv {
  LsmView::Clock now_us;  // for the view and rate windows; null = the steady clock
};

class Scheme : public PlacementPolicy {
 public:
  LsmView& view() { return view_; }
  // Whether the scheme reads RocksDB's hints beyond a file's kind and
  // lifetime (levels, compactions, reads): the glue then attaches its hint
  // listener, and one DB at a time uses the volume.
  virtual bool hinted() const { return true; }
  // What the scheme does when a hinted scheme's hints never arrive (a
  // program passing only a file system URI): a clause for the warning the
  // glue prints then, e.g. "every SST counts as level 0".
  virtual std::string without_hints() const { return "it places files by their kind only"; }
  // Non-null when the scheme caches HDD blocks in SSD cache zones.
  virtual SsdCacheIndex* cache() { return nullptr; }
  // Called once the SSD cache is attached, with the capacity of its zones.
  virtual void CacheAttached(uint64_t /*zone_capacity*/) {}
  // Whether the scheme places SSTs by the temperature RocksDB gives them:
  // the glue then has RocksDB mark last-level SSTs cold.
  virtual bool places_by_temperature() const { return false; }
  // How often each of the scheme's rules fired so far, by name (AUTO's
  // raises and lowers of m, HHZS's migrations by kind), so an experiment
  // can tell which rules its result rests on. Thread-safe.
  virtual std::map<std::string, int64_t> counters() const { return {}; }
  // Non-null when the scheme needs GearDB's compaction driver (GearDB
  // 3.2-3.3, docs/geardb.md): the glue then runs the driver with these
  // options and reports what it did into the counters.
  struct GearSetup {
    GearOptions options;
    GearCounters* counters = nullptr;
    // The driver's current window (slice index), which the scheme's
    // placement reads (GearOptions::window_zones); null: none.
    std::atomic<uint32_t>* window = nullptr;
  };
  virtual std::optional<GearSetup> gear() { return std::nullopt; }
  // The free-zone fraction below which zfs's background GC runs on this
  // scheme's volumes when the config names no "gc" (MountOptions::
  // gc_free_zone_threshold); nullopt: the glue's default.
  virtual std::optional<double> gc_threshold() const { return std::nullopt; }
  // Whether each SST should fill one subzone (SplitZNS 5.1.2: "The SSTable
  // size is set equal to the subzone size"): the glue then sizes RocksDB's
  // SSTs to the volume's subzones.
  virtual bool sst_per_subzone() const { return false; }

 protected:
  explicit Scheme(const SchemeEnv& env) : view_(env.now_us) {}
  LsmView view_;
};

}  // namespace zonestack::policy
