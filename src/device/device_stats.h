// Counters a device keeps: traffic per I/O class, zone resets, NAND erases
// and programs per cell mode, and busy time per timing resource.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "device/zone.h"

namespace zonestack::device {

struct IoCounters {
  uint64_t read_ops = 0;
  uint64_t read_bytes = 0;
  uint64_t write_ops = 0;
  uint64_t write_bytes = 0;
};

struct DeviceStats {
  std::array<IoCounters, kNumIoClasses> by_class{};
  uint64_t zone_resets = 0;
  uint64_t zone_finishes = 0;
  uint64_t flushes = 0;
  uint64_t copy_bytes = 0;  // moved inside the device by Simple Copy
  // A disk's write cache: runs written from it to the media, and reads it
  // served without the media.
  uint64_t destages = 0;
  uint64_t cache_read_hits = 0;
  uint64_t erases = 0;      // erase operations (multi-plane erase = one)
  // Bytes programmed into NAND, indexed by CellMode's value (0..4), and of
  // them the bytes migration wrote: the host's migration writes and Simple
  // Copies (IoClass::kMigration) and a hidden SLC cache's moves to the
  // native mode.
  std::array<uint64_t, 5> programmed_bytes{};
  std::array<uint64_t, 5> migration_programmed_bytes{};
  uint64_t simple_copies = 0;        // Simple Copy commands
  // SplitZNS: zones split and merged, subzones reset; the SubZone Ring's
  // drain rounds, the bytes it programmed, and the read bytes it served;
  // the Read Prefetcher's prereads and the read bytes they served.
  uint64_t zone_splits = 0;
  uint64_t zone_merges = 0;
  uint64_t subzone_resets = 0;
  uint64_t ring_drain_rounds = 0;
  uint64_t ring_drained_bytes = 0;
  uint64_t ring_read_bytes = 0;
  uint64_t prefetch_reads = 0;
  uint64_t prefetch_read_bytes = 0;
  uint64_t prefetch_hit_bytes = 0;
  uint64_t slc_zone_migrations = 0;
  // Host-aware and device-managed SMR (docs/emulator.md, "Host-aware SMR"):
  // host writes the drive redirected to its media cache (NSWs) and their
  // bytes; read bytes the media cache served; the log bytes in use now;
  // cleaning runs started (and of them by the idle trigger); NSWs that
  // waited for cleaning because the log had no room; zones cleaned by
  // read-modify-write, the zone bytes those rewrote, the cached bytes they
  // moved home and the head time they took; cleanings a power cut tore
  // (the zone's blocks stayed in the cache).
  uint64_t nsw_writes = 0;
  uint64_t nsw_bytes = 0;
  uint64_t media_cache_read_bytes = 0;
  uint64_t media_cache_bytes = 0;
  uint64_t media_cache_cleanings = 0;
  uint64_t media_cache_idle_cleanings = 0;
  uint64_t media_cache_full_stalls = 0;
  uint64_t media_cache_cleaned_zones = 0;
  uint64_t media_cache_rmw_bytes = 0;
  uint64_t media_cache_cleaned_bytes = 0;
  uint64_t media_cache_cleaning_ns = 0;
  uint64_t media_cache_torn_cleanings = 0;  // zones a hidden SLC cache moved to the native mode
  // Page reads (one sense of a page) of QLC pages by page type: L, CL, CU,
  // U (ZnH2 Table 2). Counted by the NAND timing model.
  std::array<uint64_t, 4> qlc_page_reads{};
  // Busy time of each modeled resource ("die3", "channel1", "head", ...).
  std::map<std::string, uint64_t> busy_ns;
  // A disk head's busy time by what it was busy for (a destage counts for
  // the class of the data it writes).
  std::array<uint64_t, kNumIoClasses> busy_ns_by_class{};
  uint64_t elapsed_ns = 0;  // model time since the device was opened
  // Commands whose host-side work (copying the data, the kernel's page
  // faults, waiting for the device lock) finished after their modeled
  // completion, and by how much in all: the emulator could not keep the
  // model's pace for them (docs/emulator.md, "Keeping pace"). Always 0
  // on an untimed device.
  uint64_t late_commands = 0;
  uint64_t late_ns = 0;

  IoCounters Total() const;
  // Mean busy time of the resources whose names start with `prefix`,
  // as a fraction of the elapsed time (0 when nothing has elapsed).
  double BusyFraction(const std::string& prefix) const;
};

}  // namespace zonestack::device
