// Vocabulary of the device layer: zones, their states and types, cell modes,
// device geometry and the I/O context every request carries.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace zonestack::device {

// Zone conditions as the NVMe ZNS command set and ZBC/ZAC define them.
// The numeric values are the ones Linux reports (uapi/linux/blkzoned.h).
enum class ZoneState : uint8_t {
  kNotWritePointer = 0x0,  // conventional zone: no write pointer
  kEmpty = 0x1,
  kImplicitlyOpened = 0x2,
  kExplicitlyOpened = 0x3,
  kClosed = 0x4,
  kReadOnly = 0xD,
  kFull = 0xE,
  kOffline = 0xF,
};

enum class ZoneType : uint8_t {
  kConventional = 1,              // random writes, no write pointer
  kSequentialWriteRequired = 2,   // ZNS zones, host-managed SMR
  kSequentialWritePreferred = 3,  // host-aware SMR (ZoneTier)
};

// How the NAND cells of a zone are programmed (ZnH2 HZNS, section 3.2).
// A disk reports kNone.
enum class CellMode : uint8_t { kNone = 0, kSlc = 1, kTlc = 3, kQlc = 4 };

// Which specification the device follows where ZNS and ZBC differ
// (closing an opened zone with nothing written, reads beyond the write
// pointer, reads across zone boundaries).
enum class Protocol : uint8_t { kZns, kZbc };

// What an I/O is for. Statistics are kept per class, and timing models may
// schedule by class (SplitZNS's read scheduler favors user reads).
enum class IoClass : uint8_t {
  kWal,
  kFlush,
  kCompaction,
  kUserRead,
  kMigration,
  kGc,
  kCache,
  kMetadata,
  kOther,
};
inline constexpr int kNumIoClasses = 9;

const char* ToString(ZoneState s);
const char* ToString(ZoneType t);
const char* ToString(CellMode m);
const char* ToString(IoClass c);

struct IoContext {
  IoClass io_class = IoClass::kOther;
  // A read the host's page cache may serve, at any byte offset and length
  // (the caller did not ask for direct I/O). Honored only by devices whose
  // DeviceInfo::host_cache is set; others require block-aligned reads and
  // ignore it.
  bool host_cache = false;
};

// One zone as a zone report describes it. All positions are in bytes from
// the start of the device.
struct ZoneInfo {
  uint32_t index = 0;
  uint64_t start = 0;
  uint64_t size = 0;           // distance to the next zone's start
  uint64_t capacity = 0;       // writable bytes (<= size); depends on cell mode
  // start + bytes written; meaningless for kConventional, and not valid
  // (ZNS, ZBC) for kReadOnly and kOffline, whose value is device-specific.
  uint64_t write_pointer = 0;
  ZoneType type = ZoneType::kSequentialWriteRequired;
  ZoneState state = ZoneState::kEmpty;
  CellMode cell_mode = CellMode::kNone;
  // A split zone (SplitZNS section 4.2) reports how many subzones it has
  // (ZonedDevice::ReportSubzones describes them); 0 for a wide zone. A
  // split zone has no write pointer of its own: write_pointer stays at
  // start, and each subzone has one.
  uint32_t subzones = 0;
  // A sequential-write-preferred (host-aware SMR) zone's condition: false
  // while the zone is "sequential" (every write so far landed at its write
  // pointer), true once a non-sequential write (NSW) was redirected to the
  // media cache, until the drive's cleaning rewrote the zone or a reset
  // emptied it (ZBC's NON_SEQ bit; ZoneTier, "Host-Aware SMR Zones";
  // docs/emulator.md, "Host-aware SMR"). Always false for other zone types.
  bool non_sequential = false;

  bool IsSplit() const { return subzones != 0; }
  bool IsOpen() const {
    return state == ZoneState::kImplicitlyOpened ||
           state == ZoneState::kExplicitlyOpened;
  }
  bool IsActive() const { return IsOpen() || state == ZoneState::kClosed; }
};

// One subzone of a split zone (SplitZNS section 4.2). Subzone `index` of
// split zone `zone` covers the bytes [start, start + size) of the zone,
// start = zone start + index * size (docs/emulator.md, "Split zones"); it
// is written at its own write pointer and lives on one chip.
struct SubzoneInfo {
  uint32_t zone = 0;
  uint32_t index = 0;
  uint64_t start = 0;
  uint64_t size = 0;
  uint64_t capacity = 0;
  uint64_t write_pointer = 0;
  // kEmpty, kImplicitlyOpened (written, and its split zone is open),
  // kClosed (written, its split zone is not open) or kFull.
  ZoneState state = ZoneState::kEmpty;
  // The chip the device gave the subzone at its first write (section 4.3);
  // -1 while it is empty.
  int32_t chip = -1;
};

// Fixed properties of a device.
struct DeviceInfo {
  std::string name;   // preset or device path, for messages
  std::string model;  // the real device this one models
  Protocol protocol = Protocol::kZns;
  uint32_t block_size = 4096;  // every offset and length is a multiple
  uint64_t zone_size = 0;
  uint64_t zone_capacity = 0;  // capacity of a zone in the native cell mode
  uint32_t num_zones = 0;
  uint32_t num_conventional_zones = 0;  // the lowest-numbered zones
  ZoneType sequential_zone_type = ZoneType::kSequentialWriteRequired;
  uint32_t max_open_zones = 0;    // 0 = no limit
  uint32_t max_active_zones = 0;  // 0 = no limit
  uint64_t max_append_bytes = 0;  // zone append size limit (ZASL); 0 = none
  // The densest mode the NAND is built for, and the mode implicit opens use.
  // For HZNS (ZnH2) the native mode is QLC, the default SLC, and QLC needs
  // an explicit open. Only the native mode and SLC are ever offered.
  CellMode native_cell_mode = CellMode::kNone;
  CellMode default_cell_mode = CellMode::kNone;
  bool supports_slc = false;  // zones may be opened in SLC mode
  uint32_t max_open_qlc_zones = 0;    // ZnH2's extra limits; 0 = no limit
  uint32_t max_active_qlc_zones = 0;
  bool supports_simple_copy = false;
  // SplitZone/MergeZone split a wide zone into per-chip subzones and back
  // (SplitZNS section 4.2): `subzones_per_zone` of them, one per chip.
  bool supports_subzones = false;
  uint32_t subzones_per_zone = 0;
  // Reads beyond the write pointer return zeroes (ZNS with DLFEAT) instead
  // of failing (ZBC with URSWRZ = 0).
  bool reads_beyond_wp_allowed = true;
  // Reads may span zone boundaries (ZBC; ZNS only with cross-zone read).
  bool cross_zone_reads_allowed = false;
  // Reads with IoContext::host_cache go through the host's page cache and
  // may start and end anywhere (a kernel block device read without
  // O_DIRECT). The emulator has no page cache to offer.
  bool host_cache = false;
  // What was written is still there after the process exits (a kernel
  // device, an emulator backed by a file); not for an emulator in memory.
  bool outlives_process = true;

  uint64_t capacity_bytes() const { return zone_size * num_zones; }
  // A subzone's share of a split zone, and of its writable capacity.
  uint64_t subzone_size() const { return zone_size / subzones_per_zone; }
  uint64_t subzone_capacity() const { return zone_capacity / subzones_per_zone; }
  // Flash (fast random reads) rather than a disk. Every layer asks this,
  // so an SSD is recognised in one place: a device with NAND cells.
  bool is_ssd() const { return native_cell_mode != CellMode::kNone; }
  // A host-aware SMR drive: its zones with a write pointer are sequential
  // write preferred, take writes anywhere and report whether they are
  // still sequential (ZoneInfo::non_sequential). Decided here, once, as
  // is_ssd(). A device-managed SMR drive is not host-aware: its host sees
  // conventional zones only.
  bool host_aware() const {
    return sequential_zone_type == ZoneType::kSequentialWritePreferred &&
           num_conventional_zones < num_zones;
  }
  // Capacity of a zone opened in `mode`: SLC stores one bit per cell where
  // the native mode stores several (ZnH2 section 3.2.1).
  uint64_t ZoneCapacityFor(CellMode mode) const;
  // Whether a zone may be opened in `mode`.
  bool SupportsCellMode(CellMode mode) const {
    return mode == native_cell_mode || (mode == CellMode::kSlc && supports_slc);
  }
};

}  // namespace zonestack::device
