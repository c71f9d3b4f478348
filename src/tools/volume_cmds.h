// zsctl's volume commands: mkfs, info, ls, df, zones, fsck, dump, rm, rmdir, put.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace zonestack::zfs {
class Volume;
}

namespace zonestack::tools {

struct VolumeArgs {
  std::vector<std::string> devices;  // device URIs in volume order (-d)
  // Or the volume as zsbench and OpenDb name it: a zonestack:// URI or a
  // config.json (rocks::ParseUri). Only its devices are used.
  std::string volume;
  std::string path = "/";            // for ls; the volume's path for put
  std::string host_file;             // for put
  std::vector<std::string> paths;    // for rm, rmdir
  bool recursive = false;            // for ls, rm
  bool all_zones = false;            // for zones: also empty ones
  bool subzones = false;             // for zones: each split zone's subzones
  uint32_t metadata_zones = 2;       // for mkfs
  bool repair = false;               // for fsck: Volume::Repair first
  bool metadata_only = false;        // for fsck: do not read file data
};

// The volume's device URIs, from -d or from --volume (exactly one of them).
absl::StatusOr<std::vector<std::string>> DeviceUris(const VolumeArgs& args);

// Each returns the process exit code and prints to stdout (errors to
// stderr). mkfs formats; rm and rmdir mount read-write (and delete through
// the volume, so the zones their data held are reset); the others mount
// read-only.
int Mkfs(const VolumeArgs& args);
int Info(const VolumeArgs& args);
int Ls(const VolumeArgs& args);
int Df(const VolumeArgs& args);
int ZonesCmd(const VolumeArgs& args);
// What `zsctl zones` prints of a mounted volume: a row per zone (empty
// free zones only with `all`): device, zone, state, role, placement group,
// live and written MiB, and the subzone count of a split zone. With
// `subzones`, each split zone's subzones follow it (SplitZNS 4.2): index,
// state, the chip the device gave it (- while empty), written and live KiB.
std::string ZoneTable(const zfs::Volume& v, bool all, bool subzones);
int Fsck(const VolumeArgs& args);
int Dump(const VolumeArgs& args);
// Checks the metadata and (unless metadata_only) reads every file's data
// against its checksums: exit 0 clean, 2 problems found. With `repair`,
// runs Volume::Repair first (read-write) and prints what it found and did.
// Deletes files (with `recursive`, directories and all they hold); every
// path is tried, and the exit code is 1 if any failed.
int Rm(const VolumeArgs& args);
// Deletes empty directories.
int Rmdir(const VolumeArgs& args);
// Copies host_file into the volume at `path` (replacing a file there), for
// what a RocksDB program reads through its file system, such as an OPTIONS
// file for db_bench --options_file.
int Put(const VolumeArgs& args);

}  // namespace zonestack::tools
