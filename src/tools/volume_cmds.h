// zsctl's volume commands: mkfs, info, ls, df, zones, fsck, dump.
#pragma once

#include <string>
#include <vector>

namespace zonestack::tools {

struct VolumeArgs {
  std::vector<std::string> devices;  // device URIs in volume order
  std::string path = "/";            // for ls
  bool recursive = false;            // for ls
  bool all_zones = false;            // for zones: also empty ones
  uint32_t metadata_zones = 2;       // for mkfs
};

// Each returns the process exit code and prints to stdout (errors to
// stderr). All but mkfs mount read-only.
int Mkfs(const VolumeArgs& args);
int Info(const VolumeArgs& args);
int Ls(const VolumeArgs& args);
int Df(const VolumeArgs& args);
int ZonesCmd(const VolumeArgs& args);
int Fsck(const VolumeArgs& args);
int Dump(const VolumeArgs& args);

}  // namespace zonestack::tools
