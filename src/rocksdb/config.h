// What a "zonestack://" URI names: the devices of one zfs volume, how to
// place files on them, whether to format, and RocksDB options for OpenDb.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "policy/schemes.h"

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
  // A policy::MakePlacementPolicy name, or with a scheme the scheme's name.
  std::string placement = "lifetime";
  // An HHZS-paper scheme (policy/schemes.h) to mount the volume with, fed
  // by OpenDb's hint listener; it replaces `placement`.
  std::optional<policy::SchemeOptions> scheme;
  // Capacity of the LRU block cache OpenDb builds (in front of the SSD
  // cache if the scheme caches; see OpenDb). Unset: a caching scheme's
  // block cache takes the caller's capacity (RocksDB's 8 MiB default
  // unless the caller chose one), and otherwise the caller's cache stays.
  std::optional<uint64_t> block_cache_bytes;
  FormatMode format = FormatMode::kIfNeeded;
  // zfs::MountOptions::flush_to_devices: "flush": "devices" (default) or
  // "none" (Flush does nothing, as in ZenFS; for comparisons).
  bool flush_to_devices = true;
  std::map<std::string, std::string> rocksdb_options;  // name -> value, for OpenDb
};

// Parses a ZoneStack URI; the "zonestack://" scheme is optional.
//   zonestack://PATH.json           a JSON config file (ParseConfigJson)
//   zonestack://DEVURI[;DEVURI...]  device URIs (device::OpenDevice) separated
//                                   by ';'; placement "hybrid" if more than
//                                   one device, else "lifetime"; format if
//                                   needed; no RocksDB options.
// Errors are InvalidArgument naming the URI (NotFound for a missing file).
absl::StatusOr<ZoneStackConfig> ParseUri(const std::string& uri);

// Parses a JSON config, `source` naming it in errors:
//   {"devices": ["emu:zn540?zones=64", ...],          required, non-empty
//    "placement": "lifetime" | "hybrid" | SCHEME,     default as for URIs;
//                                   a scheme name is {"scheme": {"name": SCHEME}}
//    "scheme": {"name": SCHEME, ...} | SCHEME,       optional, see below
//    "block_cache_bytes": 8388608,                    optional, > 0
//    "format": "if-needed" | "always" | "never",      default "if-needed"
//    "flush": "devices" | "none",                     default "devices"
//    "rocksdb": {"write_buffer_size": "4194304", ...}}  strings, numbers, bools
// SCHEME is one of policy::SchemeNames() (hhzs, p, p+m, p+m+c, b1..b4,
// b3+m, auto, tiered). The scheme object's other keys set the fields of
// policy::SchemeOptions; rates are in MiB/s:
//   "sst_bytes" (> 0), "wal_cache_zones" (>= 0), "migration_mib_per_sec"
//   (>= 0), "hdd_random_read_iops" (> 0), "level_threshold" (>= 0),
//   "ssd_write_mib_per_sec" (> 0), "decision_interval_ms" (> 0),
//   "hdd_read_window_ms" (> 0); unset fields keep SchemeOptions' defaults.
// "placement" and "scheme" may both be given only if they name the same
// scheme. Unknown keys are an error, so a typo is not silently ignored.
absl::StatusOr<ZoneStackConfig> ParseConfigJson(const std::string& text,
                                                const std::string& source);

// The identity of the volume a config names: its device list. Two URIs
// naming the same devices (a JSON file and a device list) name one volume.
std::string VolumeKey(const ZoneStackConfig& config);

// How a config places data: the placement name, or the scheme with its
// options. A mounted volume is reused only by configs with the same key.
std::string PlacementKey(const ZoneStackConfig& config);

}  // namespace zonestack::rocks
