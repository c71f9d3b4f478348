// HHZS (Li et al., "Efficient LSM-Tree Key-Value Data Management on Hybrid
// SSD/HDD Zoned Storage"): write-guided placement (3.3), workload-aware
// migration (3.4) and application-hinted caching (3.5), each switchable,
// giving the breakdown schemes of Exp#2: p, p+m, p+m+c (= hhzs).
#include <algorithm>
#include <atomic>
#include <optional>
#include <utility>

#include "policy/hhzs_placement.h"
#include "policy/scheme_common.h"
#include "policy/scheme_registry.h"

namespace zonestack::policy {
namespace {

class HhzsScheme : public HintedScheme {
 public:
  HhzsScheme(std::string name, HhzsOptions options, const SchemeEnv& env, bool migration,
             bool caching)
      : HintedScheme(std::move(name), std::move(options), env),
        migration_(migration),
        caching_(caching) {
    cache_.SetRefresh(options_.cache_refresh);
  }

  SsdCacheIndex* cache() override { return caching_ ? &cache_ : nullptr; }
  // The ghost list of second-chance admission remembers as many blocks
  // as the pool caches (RocksDB's 4 KiB data blocks).
  void CacheAttached(uint64_t zone_capacity) override {
    constexpr uint64_t kDataBlockBytes = 4096;
    if (options_.cache_second_chance) {
      cache_.SetSecondChance(std::max<uint64_t>(
          1, uint64_t{options_.wal_cache_zones} * zone_capacity / kDataBlockBytes));
    }
  }
  double MigrationRate() const override {
    return migration_ ? options_.migration_bytes_per_sec : 0;
  }

  uint32_t PoolZones(uint32_t device, const std::vector<DeviceView>& devices) const override {
    return device == FirstSsd(devices) ? options_.wal_cache_zones : 0;
  }

  // 3.3 step 4: WAL in the SSD's WAL/cache pool; SSTs of a flush (i),
  // SSTs below L_t (ii), and L_t's while its reserved SSD zones last (iii),
  // on the SSD; the rest on the HDD.
  PlacementDecision Place(const FileHint& file, const std::vector<DeviceView>& devices) override {
    bool sst_ssd_first = false;
    const auto ssd = FirstSsd(devices);
    if (ssd && (file.kind == FileKind::kSst || SstNumber(file.name) >= 0)) {
      const Tiering plan = Plan(devices);
      const int level = SstLevel(file);
      sst_ssd_first = file.origin == SstOrigin::kFlush || plan.ToSsd(level) ||
                      SpareFits(plan, level, devices[*ssd], PoolZones(*ssd, devices));
    }
    return Decide(file, devices, sst_ssd_first, /*wal_pool=*/true);
  }

  std::optional<Migration> NextMigration(const std::vector<DeviceView>& devices) override {
    if (!migration_) return std::nullopt;
    const auto ssd = FirstSsd(devices);
    const auto hdd = FirstHdd(devices);
    if (!ssd || !hdd || !DecisionDue()) return std::nullopt;
    const Tiering plan = Plan(devices);
    const uint64_t now = view_.NowMicros();
    std::optional<SstInfo> worst_on_ssd, best_on_hdd;
    for (SstInfo& sst : view_.Ssts()) {
      if (!Migratable(sst)) continue;
      // Popularity migration is for "frequently read SSTs": an HDD SST
      // nobody has read would only take SSD space from one that is.
      if (!sst.on_ssd && sst.reads == 0) continue;
      auto& pick = sst.on_ssd ? worst_on_ssd : best_on_hdd;
      const bool better = !pick || (sst.on_ssd ? Ranks(*pick, sst, now) : Ranks(sst, *pick, now));
      if (better) pick = std::move(sst);
    }
    const int64_t free_zones = FreeSsdZones(devices[*ssd], PoolZones(*ssd, devices));
    const bool read_bound = ReadBound();
    // spare_migration: while reads are HDD-bound, SSTs in spare zones (free
    // beyond what the writes at or below L_t are about to take) may stay;
    // see PopularityMigration.
    const bool spare_kept = options_.spare_migration && read_bound &&
                            free_zones >= static_cast<int64_t>(plan.PendingZones());
    if (!spare_kept) {
      if (auto m = CapacityMigration(plan, worst_on_ssd, *hdd)) return m;
    }
    if (auto m = FinishSwap(plan, free_zones, *ssd)) return m;
    if (!read_bound) {
      ++popularity_not_read_bound_;
      return std::nullopt;
    }
    return PopularityMigration(plan, free_zones, worst_on_ssd, best_on_hdd, *ssd, *hdd, now);
  }

  std::map<std::string, int64_t> counters() const override {
    return {{"capacity_migrations", capacity_migrations_.load()},
            {"popularity_migrations", popularity_migrations_.load()},
            {"popularity_not_read_bound", popularity_not_read_bound_.load()},
            {"popularity_no_hdd_sst", popularity_no_hdd_sst_.load()},
            {"popularity_no_room", popularity_no_room_.load()},
            {"swaps_out", swaps_out_.load()},
            {"swaps_in", swaps_in_.load()}};
  }

 private:
  Tiering Plan(const std::vector<DeviceView>& devices) const {
    const uint32_t ssd = *FirstSsd(devices);
    return ComputeTiering(view_.Counts(devices[ssd].zone_capacity, options_.exclude_hdd_inputs),
                          devices[ssd], PoolZones(ssd, devices), options_.min_tiering_level);
  }

  // spare_placement: an SST of L_t or below that the plan has no reserved
  // zone for may take a spare zone while reads are HDD-bound, as popularity
  // migration would move it there (and capacity migration keeps it there)
  // after it had been written to the HDD. Writing it to the SSD at once
  // saves the HDD both the write and the migration's read. A new SST is
  // counted as one zone (its size is not known yet).
  bool SpareFits(const Tiering& plan, int level, const DeviceView& ssd, uint32_t pool_zones) const {
    if (!options_.spare_placement || level > plan.level || !ReadBound()) return false;
    return FreeSsdZones(ssd, pool_zones) >= static_cast<int64_t>(plan.PendingZones()) + 1;
  }

  // SSD zones an SST may take now: the empty zones, less the pool zones
  // not in use yet (they stay the WAL's) and zfs's GC reserve.
  static int64_t FreeSsdZones(const DeviceView& ssd, uint32_t pool_zones) {
    const int64_t unused_pool = std::max<int64_t>(0, int64_t{pool_zones} - ssd.pool_zones);
    return int64_t{ssd.empty_zones} - unused_pool - kGcReserveZones;
  }

  // Capacity migration: L_t holds more SST zones on the SSD than reserved
  // for it, or an SST above L_t lies on the SSD. The lowest-priority SSD
  // SST goes to the HDD, but only if it is one of the offenders (as the
  // authors' code checks): when every offender is being compacted, a
  // low-level SST must not be pushed out in its stead.
  std::optional<Migration> CapacityMigration(const Tiering& plan,
                                             const std::optional<SstInfo>& worst_on_ssd,
                                             uint32_t hdd) {
    if (!worst_on_ssd) return std::nullopt;
    const bool lt_overfull = int64_t{plan.OnSsdAt(plan.level)} > plan.slots;
    const int level = worst_on_ssd->level;
    if (level > plan.level || (level == plan.level && lt_overfull)) {
      ++capacity_migrations_;
      return Migration{worst_on_ssd->path, hdd};
    }
    return std::nullopt;
  }

  // The second half of a swap: the HDD SST whose partner left the SSD
  // takes the zones that freed, if it is still there to move and fits.
  // One try.
  std::optional<Migration> FinishSwap(const Tiering& plan, int64_t free_zones, uint32_t ssd) {
    std::optional<uint64_t> number;
    {
      absl::MutexLock lock(&swap_mu_);
      std::swap(number, swap_in_);
    }
    if (!number) return std::nullopt;
    auto sst = view_.Sst(*number);
    if (!sst || sst->on_ssd || !Migratable(*sst)) return std::nullopt;
    if (free_zones < int64_t{plan.Zones(sst->size)}) return std::nullopt;
    ++swaps_in_;
    return Migration{sst->path, ssd};
  }

  // Popularity migration: the highest-priority HDD SST moves to the SSD if
  // the SSD's free zones exceed the demand of the levels below L_t;
  // otherwise it is swapped with the lowest-priority SSD SST if that one
  // ranks below it and its zones make room: this call moves the SSD SST
  // out, the next one moves the HDD SST in.
  //
  // The paper moves when the empty zones exceed the demand below L_t, even
  // an SST the plan has no room for (above L_t, or at L_t with its reserved
  // zones used up), which capacity migration then sends back.
  // spare_migration (ours) moves such an SST only into spare zones, free
  // beyond the writes in flight at or below L_t, and capacity migration
  // leaves it there while reads stay HDD-bound and the spare lasts.
  std::optional<Migration> PopularityMigration(const Tiering& plan, int64_t free_zones,
                                               const std::optional<SstInfo>& worst_on_ssd,
                                               const std::optional<SstInfo>& best_on_hdd,
                                               uint32_t ssd, uint32_t hdd, uint64_t now) {
    if (!best_on_hdd) {
      ++popularity_no_hdd_sst_;
      return std::nullopt;
    }
    // The paper's SST takes one zone ("more empty zones than the demand");
    // a longer one needs its own zones on top of the demand.
    const uint32_t zones = plan.Zones(best_on_hdd->size);
    const bool fits_plan = plan.ToSsd(best_on_hdd->level, zones);
    const bool spare_only = options_.spare_migration && !fits_plan;
    const int64_t needed =
        static_cast<int64_t>((spare_only ? plan.PendingZones() : plan.DemandBelowT()) + zones);
    if (free_zones >= needed) {
      ++popularity_migrations_;
      return Migration{best_on_hdd->path, ssd};
    }
    // A swap whose SSD half frees too few zones for the HDD half (an SST of
    // several zones, from an intra-L0 compaction) would only evict.
    if (worst_on_ssd && Ranks(*best_on_hdd, *worst_on_ssd, now) &&
        free_zones + int64_t{plan.Zones(worst_on_ssd->size)} >= int64_t{zones}) {
      absl::MutexLock lock(&swap_mu_);
      swap_in_ = best_on_hdd->number;
      ++swaps_out_;
      return Migration{worst_on_ssd->path, hdd};
    }
    ++popularity_no_room_;
    return std::nullopt;
  }

  const bool migration_;
  const bool caching_;
  SsdCacheIndex cache_;
  absl::Mutex swap_mu_;
  std::optional<uint64_t> swap_in_ ABSL_GUARDED_BY(swap_mu_);  // a swap's HDD half
  std::atomic<int64_t> capacity_migrations_{0}, popularity_migrations_{0};
  // Decisions that reached popularity migration and moved nothing, by why:
  // reads not HDD-bound, no HDD SST with reads to move, or neither a move
  // (too few free zones beyond the demand) nor a swap (no SSD SST ranks
  // below it, or it frees too few zones).
  std::atomic<int64_t> popularity_not_read_bound_{0}, popularity_no_hdd_sst_{0},
      popularity_no_room_{0};
  std::atomic<int64_t> swaps_out_{0}, swaps_in_{0};
};

}  // namespace

// p+m+c is hhzs by its Exp#2 name.
ZONESTACK_SCHEMES(hhzs) {
  struct Variant {
    const char* name;
    bool migration, caching;
    const char* summary;
  };
  for (const Variant& v : {
           Variant{"hhzs", true, true, "HHZS: hinted placement, migration and SSD caching (P+M+C)"},
           Variant{"p+m+c", true, true, "HHZS (Exp#2's name for it)"},
           Variant{"p", false, false, "HHZS's write-guided placement alone (Exp#2)"},
           Variant{"p+m", true, false, "HHZS's placement and migration (Exp#2)"},
       }) {
    const bool migration = v.migration, caching = v.caching;
    registry.Add(SchemeSpecFor<HhzsOptions>(
        v.name, v.summary, HhzsOptionTable(), HhzsOptions{},
        [migration, caching](const std::string& name, HhzsOptions o, const SchemeEnv& env) {
          return std::make_shared<HhzsScheme>(name, std::move(o), env, migration, caching);
        }));
  }
}

}  // namespace zonestack::policy
