#include "policy/hhzs_options.h"

#include "policy/scheme_registry.h"

namespace zonestack::policy {

const OptionTable<HhzsOptions>& HhzsOptionTable() {
  constexpr double kMiB = 1 << 20;
  static const auto* table = [] {
    auto* t = new OptionTable<HhzsOptions>;
    (*t).Integer("wal_cache_zones", &HhzsOptions::wal_cache_zones, 0, UINT32_MAX,
                 "SSD zones of the WAL/cache pool (HHZS 3.2)")
        .Number("migration_mib_per_sec", &HhzsOptions::migration_bytes_per_sec, true,
                "migration copy rate, MiB/s; 0 = no migration (HHZS 3.4)", kMiB)
        .Integer("decision_interval_ms", &HhzsOptions::decision_interval_us, 1, UINT64_MAX / 1000,
                 "migration decides at most once per this many ms", 1000)
        .Number("hdd_random_read_iops", &HhzsOptions::hdd_random_read_iops, false,
                "HDD random reads/s; popularity migration starts above half of it")
        .Integer("hdd_read_window_ms", &HhzsOptions::hdd_read_window_us, 1, UINT64_MAX / 1000,
                 "window of the HDD read rate, ms", 1000)
        .Integer("level_threshold", &HhzsOptions::level_threshold, 0, 64,
                 "h of Bh and B3+M: SSTs below L_h on the SSD (b1..b4 take it from the name)")
        .Choice("priority", &HhzsOptions::priority,
                {{"level", SstPriority::kLevelFirst}, {"read_rate", SstPriority::kReadRateFirst}},
                "migration order: \"level\" (the paper's) or \"read_rate\" first")
        .Integer("min_tiering_level", &HhzsOptions::min_tiering_level, 0, 64,
                 "HHZS: the lowest tiering level t (1 = the authors' code; 0 = ours)")
        .Bool("exclude_hdd_inputs", &HhzsOptions::exclude_hdd_inputs,
              "HHZS: A_i leaves out HDD inputs of running compactions (ours; off = the paper)")
        .Bool("spare_migration", &HhzsOptions::spare_migration,
              "HHZS: SSTs beyond the plan move up only into spare zones and stay while reads "
              "are HDD-bound (ours; off = the paper)")
        .Bool("spare_placement", &HhzsOptions::spare_placement,
              "HHZS: L_t SSTs beyond the reservation to spare SSD zones while reads are "
              "HDD-bound (ours; off = the paper)")
        .Bool("cache_second_chance", &HhzsOptions::cache_second_chance,
              "HHZS caching: admit a block on its second eviction (ours; off = the paper)")
        .Bool("cache_refresh", &HhzsOptions::cache_refresh,
              "HHZS caching: rewrite a hit block at the FIFO tail (ours; off = the paper)")
        .Number("ssd_write_mib_per_sec", &HhzsOptions::ssd_write_bytes_per_sec, false,
                "AUTO: the SSD's sequential write throughput, MiB/s", kMiB)
        .Integer("initial_max_level", &HhzsOptions::initial_max_level, 0, 4,
                 "AUTO: the maximum SSD level at start (4 = SpanDB's; 1 = ours)");
    return t;
  }();
  return *table;
}

absl::StatusOr<std::shared_ptr<Scheme>> MakeHhzsPaperScheme(const std::string& name,
                                                            const HhzsOptions& options,
                                                            const SchemeEnv& env) {
  return MakeScheme(SchemeConfig{name, HhzsOptionTable().Render(options)}, env);
}

}  // namespace zonestack::policy
