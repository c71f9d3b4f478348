// Gives RocksDB options what a volume's scheme needs from RocksDB: the hint
// listener, the SSD block cache tier, cold last-level SSTs. OpenDb uses it;
// so does a program that opens its DB itself (the public
// zonestack::AttachHints), and the plugin's OPTIONS-file listener.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "glue/config.h"
#include "glue/hint_listener.h"
#include "glue/ssd_secondary_cache.h"
#include "glue/zs_file_system.h"
#include "policy/scheme.h"
#include "rocksdb/options.h"
#include "zfs/volume.h"

namespace zonestack::rocks {

// What AttachHints added; every pointer is null when the volume's scheme
// does not need it.
struct HintParts {
  std::shared_ptr<policy::Scheme> scheme;     // the volume's hinted scheme
  std::shared_ptr<SsdSecondaryCache> cache;   // if the scheme caches
  std::shared_ptr<HintListener> listener;     // if the scheme is hinted
};

// For the volume `config` names, mounted as `volume`, with `fs` a ZoneStack
// file system over it (the listener persists levels of moved SSTs through
// it): when the volume has a hinted scheme (FindScheme),
//  - adds a HintListener to options->listeners;
//  - if the scheme caches, installs a new LRU block cache whose secondary
//    cache is the volume's SsdSecondaryCache (other table options stay);
//    its capacity is the config's "block_cache_bytes", else that of the
//    options' block cache, else RocksDB's 8 MiB default;
//  - if it places by temperature, sets last_level_temperature = kCold
//    unless the options set a temperature.
// Without a hinted scheme, "block_cache_bytes" alone replaces the block
// cache with an LRU cache of that size.
// Errors: InvalidArgument when the options cannot hold the block cache (no
// block-based table, or no_block_cache); `options` is then unchanged.
absl::StatusOr<HintParts> AttachHints(const ZoneStackConfig& config,
                                      const std::shared_ptr<zfs::Volume>& volume,
                                      std::shared_ptr<ZoneStackFileSystem> fs,
                                      rocksdb::Options* options);

// The same from a URI (any form ParseUri takes), mounting the volume if no
// file system has. The listener's file system is options->env's when that
// is a ZoneStack file system over this volume, else a new one over it.
absl::StatusOr<HintParts> AttachHints(rocksdb::Options* options, const std::string& uri);

}  // namespace zonestack::rocks
