// What zsbench measures besides operations: device counters over a phase,
// and samples of the volume over time (space by LSM level, zone use).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "device/device_stats.h"
#include "device/zoned_device.h"
#include "zfs/volume.h"

namespace zonestack::zsbench {

// One device's traffic and busy time over a phase.
struct DeviceDelta {
  std::string name;
  std::map<std::string, device::IoCounters> by_class;  // "wal", "flush", ...
  device::IoCounters total;
  // Busy share of the phase: of the head on a disk, mean over dies on an SSD.
  double busy_fraction = 0;
  uint64_t zone_resets = 0;
  uint64_t erases = 0;
  uint64_t destages = 0;  // a disk's write-cache runs written to the media
  // Commands the emulator finished after their modeled completion, and by
  // how much in all (DeviceStats::late_commands): nonzero means the
  // device ran slower than its model.
  uint64_t late_commands = 0;
  uint64_t late_ns = 0;
  // A disk head's busy share of the phase by I/O class ("user_read", ...).
  std::map<std::string, double> busy_by_class;
};

DeviceDelta Delta(const std::string& name, const device::DeviceStats& before,
                  const device::DeviceStats& after);

// The volume at one moment.
struct VolumeSample {
  double t = 0;  // seconds since the phase started
  // Per device: bytes of live file data by what holds them: "wal", "L0".."L6",
  // "sst" (level unknown), "manifest", "other".
  std::vector<std::map<std::string, uint64_t>> space;
  // Per device: written data zones by valid fraction, in 10 buckets.
  std::vector<std::vector<uint32_t>> zone_utilization;
  // Per device, since the device was opened: bytes written by GC and by
  // migration (relocation).
  std::vector<uint64_t> gc_bytes, migration_bytes;
  // RocksDB tickers since the phase started (stalls, cache hits, ...).
  std::map<std::string, uint64_t> rocksdb;
};

// `levels` maps SST paths to their LSM level (from RocksDB's live file
// metadata), for files whose hint carries no level.
VolumeSample SampleVolume(const zfs::Volume& volume, double t,
                          const std::map<std::string, int>& levels = {});

// Valid fraction of every written data zone, per device (GearDB Fig. 4/17).
std::vector<std::vector<double>> ZoneUtilization(const zfs::Volume& volume);

}  // namespace zonestack::zsbench
