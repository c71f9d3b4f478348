// What a "zonestack://" URI names: the devices of one zfs volume, how to
// place files on them, whether to format, and RocksDB options for OpenDb.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "policy/scheme_registry.h"
#include "zfs/volume.h"

namespace zonestack::rocks {

inline constexpr char kUriScheme[] = "zonestack://";

enum class FormatMode {
  kIfNeeded,  // mount; format first only if the devices carry no volume
  kAlways,    // format whenever the volume is mounted (erases it)
  kNever,     // mount only; an unformatted device is an error
};

// RocksDB's default block cache size (BlockBasedTableOptions::block_cache).
inline constexpr uint64_t kDefaultBlockCacheBytes = 8 << 20;

struct ZoneStackConfig {
  std::vector<std::string> devices;  // device URIs, in format order
  // The scheme placing data (policy/scheme_registry.h) with its complete
  // options. A hinted scheme (Scheme::hinted) is fed by OpenDb's hint
  // listener. Default: "lifetime" on one device, "hybrid" on several.
  policy::SchemeConfig scheme{"lifetime"};
  // Capacity of the LRU block cache OpenDb builds (in front of the SSD
  // cache if the scheme caches; see OpenDb). Unset: a caching scheme's
  // block cache takes the caller's capacity (RocksDB's 8 MiB default
  // unless the caller chose one), and otherwise the caller's cache stays.
  std::optional<uint64_t> block_cache_bytes;
  FormatMode format = FormatMode::kIfNeeded;
  // zfs::MountOptions::flush: "flush": "host" (default: staged in host
  // memory, RocksDB's own file system's contract), "devices" (written to
  // the devices) or "none" (Flush does nothing, as in ZenFS; for
  // comparisons). "staging_root": where "host" stages (default /dev/shm).
  zfs::FlushMode flush = zfs::FlushMode::kHost;
  std::string staging_root = "/dev/shm";
  std::map<std::string, std::string> rocksdb_options;  // name -> value, for OpenDb
  // zfs's GC ("gc": {"threshold": 0.2, "victims": "greedy"}): background GC
  // once a device's empty zones fall to `threshold` of its data zones
  // (MountOptions::gc_free_zone_threshold), victims greedy or
  // cost-benefit. Unset: hinted schemes run no background GC, others at
  // zfs's default. A scheme that allows no GC (geardb without its "gc"
  // option) ignores it.
  std::optional<double> gc_threshold;
  bool gc_cost_benefit = false;
};

// Parses a ZoneStack URI; the "zonestack://" scheme is optional.
//   zonestack://PATH.json           a JSON config file (ParseConfigJson)
//   zonestack://DEVURI[;DEVURI...]  device URIs (device::OpenDevice) separated
//                                   by ';'; scheme "hybrid" if more than
//                                   one device, else "lifetime"; format if
//                                   needed; no RocksDB options.
// Errors are InvalidArgument naming the URI (NotFound for a missing file).
absl::StatusOr<ZoneStackConfig> ParseUri(const std::string& uri);

// Parses a JSON config, `source` naming it in errors:
//   {"devices": ["emu:zn540?zones=64", ...],          required, non-empty
//    "scheme": {"name": SCHEME, OPTION: VALUE, ...} | SCHEME,
//                                                      default as for URIs
//    "placement": SCHEME,                             the older name of "scheme"
//    "block_cache_bytes": 8388608,                    optional, > 0
//    "format": "if-needed" | "always" | "never",      default "if-needed"
//    "flush": "host" | "devices" | "none",            default "host"
//    "staging_root": "/dev/shm",                      where "host" stages
//    "rocksdb": {"write_buffer_size": "4194304", ...},  strings, numbers, bools
//    "gc": {"threshold": 0.2, "victims": "greedy" | "cost-benefit"}}
//                                                      threshold in [0, 1]
// SCHEME is a registered scheme (policy::SchemeNames(); `zsctl schemes`
// lists them with their options), which parses its own options. "placement"
// and "scheme" may both be given only if they name the same scheme with
// no options in "placement". Unknown keys are an error, so a typo is not
// silently ignored.
absl::StatusOr<ZoneStackConfig> ParseConfigJson(const std::string& text,
                                                const std::string& source);

// The identity of the volume a config names: its device list. Two URIs
// naming the same devices (a JSON file and a device list) name one volume.
std::string VolumeKey(const ZoneStackConfig& config);

// How a config places data: the scheme with its complete options. A
// mounted volume is reused only by configs with the same key.
std::string PlacementKey(const ZoneStackConfig& config);

}  // namespace zonestack::rocks
