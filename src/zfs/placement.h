// The placement seam: where a file's data goes. zfs asks; a policy (a
// scheme of src/policy) answers. zfs defines this interface and owns the
// hint vocabulary in it, because zfs persists it in its metadata records
// (format.cc decodes every byte of it strictly); a policy sees files
// through these hints and devices through DeviceView, never zfs internals.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "device/zone.h"


namespace zonestack::zfs {

// The values are zfs's on-disk encoding (docs/format.md): never renumber.
enum class FileKind : uint8_t { kWal = 0, kSst = 1, kManifest = 2, kOther = 3 };

// Which hint announced a new SST (HHZS 3.1): a flushing hint, or a
// compaction hint. The level does not tell: an intra-L0 compaction writes
// L0 SSTs too.
enum class SstOrigin : uint8_t { kUnknown, kFlush, kCompaction };

// RocksDB's write-lifetime hints (Env::WriteLifeTimeHint values), which
// are also zfs's on-disk encoding.
enum class Lifetime : uint8_t {
  kNotSet = 0, kNone = 1, kShort = 2, kMedium = 3, kLong = 4, kExtreme = 5,
};

// What zfs knows about a file when it needs room for it.
struct FileHint {
  std::string name;
  FileKind kind = FileKind::kOther;
  Lifetime lifetime = Lifetime::kNotSet;
  int level = -1;  // LSM level of an SST when a hint told it; -1 if unknown
  SstOrigin origin = SstOrigin::kUnknown;  // while it is written; not persisted
  // RocksDB's FileOptions::temperature (kUnknown=0, kHot=4, kWarm=8,
  // kCold=12); RocksDB's own tiered storage marks last-level SSTs cold.
  uint8_t temperature = 0;
};

// One member device as placement sees it.
struct DeviceView {
  std::string name;
  // The device's own facts (DeviceInfo: is_ssd(), cell modes, Simple Copy,
  // zone limits), decided by the device; null in tests that make views by
  // hand. Lives as long as the volume.
  const device::DeviceInfo* info = nullptr;
  bool is_ssd = false;          // info->is_ssd(): NAND, fast random reads
  uint64_t zone_capacity = 0;
  uint32_t empty_zones = 0;     // zones a new zone can be opened from
  uint32_t data_zones = 0;      // all zones usable for data
  uint64_t free_bytes = 0;      // in empty zones and open zones' tails
  uint32_t pool_zones = 0;      // zones of the WAL/cache pool in use (WAL + cache)
  uint32_t cache_zones = 0;     // of which cache zones (HHZS 3.5)
  uint64_t bytes_written = 0;   // by every I/O class since the device opened
  // SLC/QLC devices (HZNS, ZnH2 3.2): bytes written in data zones opened
  // in SLC and in the native mode, and the native-mode zones zfs holds
  // active (opened, not yet full). The device's QLC limits are in `info`.
  uint64_t slc_written_bytes = 0;
  uint64_t native_written_bytes = 0;
  uint32_t active_native_zones = 0;
  // Devices with subzones (SplitZNS 4.2, info->supports_subzones): zones
  // zfs holds split, and empty subzones of split zones still open for
  // writes (a new subzone needs no new split while there are some).
  uint32_t split_zones = 0;
  uint32_t free_subzones = 0;
};

struct PlacementDecision {
  // Devices to try, best first; zfs takes the first with room.
  std::vector<uint32_t> devices;
  // Files with the same group share zones; different groups do only when
  // the volume has no empty zone and the group's zones are full, and only
  // if the policy allows GC (which can sort the lifetimes out later).
  // Groups are how a policy separates lifetimes (and WAL from SSTs).
  uint32_t group = 0;
  // Take zones from the device's WAL/cache pool (HHZS 3.2) rather than the
  // general zones; falls back to general zones when the pool is exhausted.
  bool pool = false;
  // The cell mode a new zone is opened in (HZNS, ZnH2 3.3.2); kNone: the
  // device's default (implicit opens). Ignored by devices without it.
  device::CellMode cell_mode = device::CellMode::kNone;
  // Write the file into a subzone of its own (SplitZNS 4.3): one chip's
  // share of a split zone, sized for one SST, reset when the file dies.
  // zfs splits an empty zone when no split zone has an empty subzone, and
  // falls back to a zone of `group` when it cannot (no empty zone, the
  // active-zone budget) or the device has no subzones. A file larger than
  // its subzone goes on in another one.
  bool use_subzone = false;
};

// A background move of one file to another device (HHZS 3.4). zfs runs it
// rate-limited with Volume::Relocate.
struct Migration {
  std::string path;
  uint32_t to_device = 0;
};

// A background move of data between cell modes on one device (ZnH2
// 3.3.1: SLC to QLC): live extents in zones of another mode, chosen by the
// policy's CellMigrationPriority, about `bytes` of them, into zones opened
// in `to_mode`.
struct CellMigration {
  uint32_t device = 0;
  device::CellMode to_mode = device::CellMode::kQlc;
  uint64_t bytes = 0;
  // Copy inside the device (NVMe Simple Copy) when it supports it; false:
  // read to the host and write back.
  bool simple_copy = true;
};

// One live extent a cell migration may move, as the policy sees it.
struct ExtentCandidate {
  const FileHint* file = nullptr;
  uint32_t device = 0;
  uint32_t zone = 0;
  uint64_t bytes = 0;
  device::CellMode zone_mode = device::CellMode::kNone;
  // The zone's reclaim ratio: its invalid bytes over its capacity.
  double zone_reclaim_ratio = 0;
};

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  virtual std::string name() const = 0;
  // Called with zfs's allocation lock held: must be quick and must not call
  // back into zfs.
  virtual PlacementDecision Place(const FileHint& file,
                                  const std::vector<DeviceView>& devices) = 0;

  // What zfs tells the policy (all under zfs's lock: quick, no callbacks).
  // `file`'s data now lies (wholly or in its newest extent) on `device`:
  // its first zone was acquired there, a relocation finished, or mount
  // found it there.
  virtual void OnPlaced(const FileHint& /*file*/, uint32_t /*device*/, bool /*device_is_ssd*/,
                        uint64_t /*size*/) {}
  // `file` lost its last name.
  virtual void OnRemoved(const FileHint& /*file*/) {}

  // Zones of `device` set aside for the WAL/cache pool: general (non-pool)
  // allocations leave that many minus the pool zones in use empty.
  virtual uint32_t PoolZones(uint32_t /*device*/, const std::vector<DeviceView>& /*devices*/) const {
    return 0;
  }

  // The next background migration, or none. Called from zfs's migration
  // thread without zfs's lock, about twice a second.
  virtual std::optional<Migration> NextMigration(const std::vector<DeviceView>& /*devices*/) {
    return std::nullopt;
  }
  // Bytes per second migration may copy; 0 = no migration thread.
  virtual double MigrationRate() const { return 0; }

  // Whether zfs may collect garbage (copy live extents out of partly dead
  // zones) on the volume, in the background or before reporting no space.
  // A policy whose layout frees zones whole (GearDB 3.2) says no: a write
  // that finds no room then fails at once, and GC never hides a layout
  // that stopped freeing zones.
  virtual bool allows_gc() const { return true; }

  // Cell migration (ZnH2 3.3.1). zfs asks every CellMigrationPeriodNs()
  // (0: never) for the next one, without its lock, from its own thread.
  virtual uint64_t CellMigrationPeriodNs() const { return 0; }
  virtual std::optional<CellMigration> NextCellMigration(
      const std::vector<DeviceView>& /*devices*/) {
    return std::nullopt;
  }
  // How urgently `x` should move, higher first; nullopt leaves it where it
  // is. Called under zfs's lock: quick, no callbacks.
  virtual std::optional<double> CellMigrationPriority(const ExtentCandidate& /*x*/) const {
    return std::nullopt;
  }
};

// ZenFS's lifetime-based placement (LDP): the WAL in a group of its own,
// MANIFEST and other files in another, and one group per write-lifetime
// hint, so that a zone holds data that dies at about the same time.
// Without ZenFS's cross-lifetime matching: a zone only ever takes one
// lifetime. Inline: schemes use it without linking zfs.
inline uint32_t LifetimeGroup(const FileHint& f) {
  if (f.kind == FileKind::kWal) return 0;
  if (f.kind == FileKind::kManifest || f.kind == FileKind::kOther) return 1;
  return 2 + static_cast<uint32_t>(f.lifetime);
}
// zfs's placement when a mount names none: every device in order, files
// grouped by LifetimeGroup.
std::shared_ptr<PlacementPolicy> MakeLifetimePlacement();

}  // namespace zonestack::zfs
