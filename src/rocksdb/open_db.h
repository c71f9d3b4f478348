// One call that sets a RocksDB up on ZoneStack: devices, volume, options.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"

namespace zonestack::rocks {

// Opens the DB at `db_path` (an absolute zfs path) on the volume that
// `config_path_or_uri` names (a "zonestack://" URI, or the same without the
// scheme, e.g. a JSON config path; see config.h), mounting and formatting
// the volume as its config says. Options are `base`, then
// create_if_missing = true and (unless `base` sets one)
// compaction_readahead_size = 2 MiB, then the config's "rocksdb" options; `env` is
// replaced by one over the ZoneStack file system, wrapping base.env.
//
// The returned DB owns that Env (and through it the file system and a
// reference to the volume); delete the DB before Unmount of the volume.
// Errors: InvalidArgument for a bad URI, config, option or path; the
// volume's mount error; RocksDB's open error mapped by ToAbslStatus.
absl::StatusOr<std::unique_ptr<rocksdb::DB>> OpenDb(const std::string& config_path_or_uri,
                                                    const std::string& db_path,
                                                    rocksdb::Options base = {});

// Applies option strings, name -> value, to `options`. A name is a
// DBOptions or ColumnFamilyOptions field as an OPTIONS file spells it
// ("max_background_jobs", "write_buffer_size",
// "block_based_table_factory" = "{block_size=8192}"). InvalidArgument
// names an unknown option or a value that does not parse.
absl::Status ApplyRocksDbOptions(const std::map<std::string, std::string>& values,
                                 rocksdb::Options* options);

}  // namespace zonestack::rocks
