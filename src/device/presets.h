// Device presets: the papers' devices with their geometry, timing model
// parameters and the published figures the models are calibrated to.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "device/disk_timing.h"
#include "device/nand_timing.h"
#include "device/zone.h"

namespace zonestack::device {

// Figures measured on the real device (fio, 1 MiB sequential and 4 KiB
// random requests at queue depth 1), in MiB/s and IO/s.
struct PublishedFigures {
  std::string source;
  double seq_read_mib_s = 0;
  double seq_write_mib_s = 0;
  double rand_read_iops = 0;
};

struct Preset {
  std::string name;
  std::string description;
  DeviceInfo info;  // full-size geometry
  bool is_disk = false;
  NandParams nand;
  DiskParams disk;
  PublishedFigures published;
  // Conventional zones as a fraction of all zones (HM-SMR: about 1%).
  double conventional_fraction = 0;
  // A host-aware SMR drive's media cache at full size (scaled with the
  // zones); 0 for every other device.
  uint64_t media_cache_bytes = 0;
};

const std::vector<Preset>& Presets();
std::optional<Preset> FindPreset(std::string_view name);
// "zn540, st14000nm0007, ..." for error messages.
std::string PresetNames();

}  // namespace zonestack::device
