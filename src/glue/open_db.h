// One call that sets a RocksDB up on ZoneStack: devices, volume, options.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "policy/scheme.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "zfs/volume.h"

namespace zonestack::rocks {

class GearDriver;
class HintListener;
class SsdSecondaryCache;

// Opens the DB at `db_path` (an absolute zfs path) on the volume that
// `config_path_or_uri` names (a "zonestack://" URI, or the same without the
// scheme, e.g. a JSON config path; see config.h), mounting and formatting
// the volume as its config says. Options are `base`, then
// create_if_missing = true and (unless `base` sets one)
// compaction_readahead_size = 2 MiB, then the config's "rocksdb" options; `env` is
// replaced by one over the ZoneStack file system, wrapping base.env.
//
// On a volume with a hinted scheme (Scheme::hinted(): every scheme but
// "lifetime" and "hybrid") the DB is set up for it:
//  - a HintListener feeding the scheme's LSM view is added to the
//    listeners, and re-syncs the view with the live SSTs after the open;
//  - if the scheme caches, the block cache becomes a new LRU cache whose
//    secondary cache is the volume's SsdSecondaryCache (the other table
//    options stay the caller's); its capacity is the config's
//    "block_cache_bytes", else that of the caller's block cache;
//  - for a scheme placing by temperature ("tiered"), last_level_temperature
//    = kCold unless the caller or the config set a temperature.
//  - for "geardb", automatic compactions are off and a GearDriver picks
//    every compaction until the DB is closed (docs/geardb.md); the
//    comparator must be RocksDB's bytewise one (InvalidArgument otherwise).
// Without a hinted scheme, "block_cache_bytes" alone replaces the block cache
// with an LRU cache of that size. Only one DB at a time may use a
// volume's scheme (ClaimScheme).
//
// The returned DB owns that Env (and through it the file system and a
// reference to the volume); delete the DB before Unmount of the volume.
// Errors: InvalidArgument for a bad URI, config, option or path, or a
// block cache the config cannot have (a table format without one);
// FailedPrecondition if another DB uses the volume's scheme; the volume's
// mount error; RocksDB's open error mapped by ToAbslStatus.
absl::StatusOr<std::unique_ptr<rocksdb::DB>> OpenDb(const std::string& config_path_or_uri,
                                                    const std::string& db_path,
                                                    rocksdb::Options base = {});

// What OpenDb set up around a DB, for tools that report on it (cache and
// migration statistics: cache->stats(), volume->migration_stats()).
struct DbParts {
  std::shared_ptr<zfs::Volume> volume;
  std::shared_ptr<policy::Scheme> scheme;     // null without a scheme
  std::shared_ptr<SsdSecondaryCache> cache;   // null unless the scheme caches
  std::shared_ptr<HintListener> listener;     // null without a scheme
  GearDriver* gear_driver = nullptr;          // the geardb scheme's (docs/geardb.md)
};

// The parts of a DB OpenDb returned; nullopt for any other DB. Valid while
// the DB is open.
std::optional<DbParts> PartsOf(const rocksdb::DB& db);

// Applies option strings, name -> value, to `options`. A name is a
// DBOptions or ColumnFamilyOptions field as an OPTIONS file spells it
// ("max_background_jobs", "write_buffer_size",
// "block_based_table_factory" = "{block_size=8192}"). InvalidArgument
// names an unknown option or a value that does not parse.
absl::Status ApplyRocksDbOptions(const std::map<std::string, std::string>& values,
                                 rocksdb::Options* options);

}  // namespace zonestack::rocks
