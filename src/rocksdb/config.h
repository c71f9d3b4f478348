// What a "zonestack://" URI names: the devices of one zfs volume, how to
// place files on them, whether to format, and RocksDB options for OpenDb.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace zonestack::rocks {

inline constexpr char kUriScheme[] = "zonestack://";

enum class FormatMode {
  kIfNeeded,  // mount; format first only if the devices carry no volume
  kAlways,    // format whenever the volume is mounted (erases it)
  kNever,     // mount only; an unformatted device is an error
};

struct ZoneStackConfig {
  std::vector<std::string> devices;  // device URIs, in format order
  std::string placement = "lifetime";  // a policy::MakePlacementPolicy name
  FormatMode format = FormatMode::kIfNeeded;
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
//    "placement": "lifetime" | "hybrid",              default as for URIs
//    "format": "if-needed" | "always" | "never",      default "if-needed"
//    "rocksdb": {"write_buffer_size": "4194304", ...}}  strings, numbers, bools
// Unknown keys are an error, so a typo is not silently ignored.
absl::StatusOr<ZoneStackConfig> ParseConfigJson(const std::string& text,
                                                const std::string& source);

// The identity of the volume a config names: its device list. Two URIs
// naming the same devices (a JSON file and a device list) name one volume.
std::string VolumeKey(const ZoneStackConfig& config);

}  // namespace zonestack::rocks
