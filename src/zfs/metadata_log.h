// The metadata log: checksummed records appended to a metadata zone, which
// starts with a header and a snapshot of the whole state. When the zone
// fills, the log rolls to the other metadata zone: the old zone is finished
// (so the log never holds two active zones), then header, fresh snapshot,
// and the old zone is reset. Mount replays the newest zone whose snapshot
// is complete. Recovery tells a torn tail (the last record's write never
// completed: dropped, it was never acknowledged) from corruption (a record
// whose bytes changed after they were written): corruption is refused with
// the zone, offset and record index, never replayed around, unless the
// caller asks to salvage (zsctl fsck --repair).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "device/zoned_device.h"
#include "zfs/format.h"

namespace zonestack::zfs {

// What a metadata log wrote since it was opened: what each file operation
// costs the device beside the data (GearDB's analysis weighs it on a disk).
struct MetadataLogTotals {
  uint64_t records = 0;         // records written, snapshots included
  uint64_t bytes = 0;           // written: records padded to blocks, zone headers
  uint64_t flushes = 0;         // device flushes that made records durable
  uint64_t rolls = 0;           // rolls to a fresh zone with a new snapshot
  uint64_t snapshot_bytes = 0;  // of `bytes`, the snapshots' (padded)
};

// Not thread-safe: the volume serializes calls.
class MetadataLog {
 public:
  using SnapshotFn = std::function<absl::StatusOr<std::vector<Op>>()>;

  // Writes an empty log (sequence 1, empty snapshot) into zones[0] and
  // resets the others.
  static absl::Status Format(device::ZonedDevice* dev, const std::vector<uint32_t>& zones,
                             const VolumeId& id);

  struct RecoverOptions {
    bool read_only = false;
    // Replay every record that can be read, skipping corrupt ones, and
    // report them in Recovered::problems instead of failing.
    bool salvage = false;
  };
  struct Recovered {
    std::unique_ptr<MetadataLog> log;
    std::vector<Op> ops;      // the snapshot's, then every later record's
    uint64_t records = 0;     // records replayed after the snapshot
    bool torn_tail = false;   // the last record was torn and is dropped
    std::vector<std::string> problems;  // salvage: what was skipped
  };
  // Finds the newest zone with a complete snapshot and replays it.
  // DataLoss, naming the zone, offset and record, for corrupt metadata.
  static absl::StatusOr<Recovered> Recover(device::ZonedDevice* dev,
                                           const std::vector<uint32_t>& zones,
                                           const VolumeId& id, const RecoverOptions& options);

  // Appends `ops` as one record: on the device when it returns, and with
  // `durable` also past a power cut (a device flush). When the zone is
  // full, rolls to a new zone whose snapshot is `snapshot()` (the state
  // before `ops`).
  absl::Status Append(const std::vector<Op>& ops, const SnapshotFn& snapshot,
                      bool durable = true);
  // Starts a new zone with a fresh snapshot now (a repair's clean log).
  absl::Status Rewrite(const SnapshotFn& snapshot);

  // Every record of the current zone, described.
  absl::StatusOr<std::vector<std::string>> Dump() const;

  uint32_t active_zone() const { return zones_[active_]; }
  const MetadataLogTotals& totals() const { return totals_; }

 private:
  MetadataLog(device::ZonedDevice* dev, std::vector<uint32_t> zones, const VolumeId& id,
              size_t active, uint64_t sequence, uint64_t write_offset, uint64_t next_index);
  absl::Status WriteRecord(const Record& r, bool durable = true);
  absl::Status Roll(const SnapshotFn& snapshot);

  device::ZonedDevice* dev_;
  std::vector<uint32_t> zones_;
  VolumeId id_;
  size_t active_;
  uint64_t sequence_;
  uint64_t write_offset_;  // device offset of the next record
  uint64_t next_index_;    // index of the next record in the active zone
  // A roll into zones_[active_] has begun but its snapshot is not durable
  // yet; zones_[previous_] holds the newest complete log.
  bool rolling_ = false;
  size_t previous_ = 0;
  MetadataLogTotals totals_;
};

}  // namespace zonestack::zfs
