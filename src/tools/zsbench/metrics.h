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
  // An SSD's busy fraction of each chip ("die<i>" resources) in chip order
  // (SplitZNS 5.4's chip utilization); empty for disks.
  std::vector<double> busy_by_chip;
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
  // NAND (docs/emulator.md, SLC/QLC statistics): bytes programmed per cell
  // mode ("slc", "tlc", "qlc"), by host writes and by migration (the host's
  // migration writes and Simple Copies, a hidden SLC cache's moves); Simple
  // Copy commands and bytes; zones a hidden SLC cache moved to QLC; QLC
  // page reads by page type (L, CL, CU, U).
  struct Programmed {
    uint64_t host = 0;
    uint64_t migration = 0;
  };
  std::map<std::string, Programmed> programmed;
  uint64_t simple_copies = 0;
  uint64_t copy_bytes = 0;
  uint64_t slc_zone_migrations = 0;
  std::array<uint64_t, 4> qlc_page_reads{};
};

DeviceDelta Delta(const std::string& name, const device::DeviceStats& before,
                  const device::DeviceStats& after);

// Every device's counters now (empty without a volume), and each device's
// delta since such a snapshot: a phase's or a drain's traffic.
std::vector<device::DeviceStats> DeviceSnapshot(const zfs::Volume* volume);
std::vector<DeviceDelta> DeltasSince(const zfs::Volume* volume,
                                     const std::vector<device::DeviceStats>& before);

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
  // Per device: the capacity of its data zones as opened now (it grows as
  // an HZNS device's zones open in QLC, ZnH2 Fig. 4), the bytes written in
  // them, and of those the bytes in SLC zones.
  std::vector<uint64_t> capacity_bytes, used_bytes, slc_used_bytes;
  // RocksDB tickers since the phase started (stalls, cache hits, ...).
  std::map<std::string, uint64_t> rocksdb;
};

// `levels` maps SST paths to their LSM level (from RocksDB's live file
// metadata), for files whose hint carries no level.
VolumeSample SampleVolume(const zfs::Volume& volume, double t,
                          const std::map<std::string, int>& levels = {});

// Valid fraction of every written data zone, per device (GearDB Fig. 4/17).
std::vector<std::vector<double>> ZoneUtilization(const zfs::Volume& volume);

// One written data zone: its placement group (what a group holds is the
// scheme's: for geardb and log, 0 the WAL, 1 the MANIFEST and other files,
// 2 + n SSTs of level n; docs/geardb.md), its live and written bytes and
// its capacity.
struct ZoneUse {
  uint32_t group = 0;
  uint64_t valid_bytes = 0, written_bytes = 0, capacity = 0;
};
// Every written data zone, per device, in zone order.
std::vector<std::vector<ZoneUse>> WrittenZones(const zfs::Volume& volume);

}  // namespace zonestack::zsbench
