// The zone state machine of the NVMe ZNS command set and ZBC/ZAC: zone
// conditions, write pointers, open/active resources and their errors. It
// holds no data and does no timing; EmulatedDevice wraps it.
#pragma once

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "device/zone.h"

namespace zonestack::device {

// Not thread-safe: the owner serializes calls.
class ZoneStateMachine {
 public:
  explicit ZoneStateMachine(const DeviceInfo& info);

  const DeviceInfo& info() const { return info_; }
  const ZoneInfo& zone(uint32_t index) const { return zones_[index].info; }
  uint32_t open_zones() const { return open_; }
  uint32_t active_zones() const { return active_; }

  // Checks that `len` bytes may be written at `offset` (any zone type),
  // including the resources an implicit open would need. No side effects.
  absl::Status CheckWrite(uint64_t offset, uint64_t len) const;
  // Applies a write CheckWrite accepted: implicit open (closing another
  // implicitly opened zone at the open limit), write pointer advance, and
  // the transition to full at the zone capacity.
  void CommitWrite(uint64_t offset, uint64_t len);

  // Host-aware SMR (ZoneTier, "Sequential Write and NSW"): whether a write
  // at `offset` is a non-sequential write (NSW): it targets a
  // sequential-write-preferred zone and is not at the write pointer of a
  // sequential zone (a write to a non-sequential or full zone always is).
  // CommitWrite of an NSW marks the zone non-sequential; its write pointer
  // then tracks the end of the highest block written. MarkSequential is
  // the end of the drive's cleaning of the zone: sequential again, the
  // write pointer where it was (the end of its valid data).
  bool IsNonSequentialWrite(uint64_t offset) const;
  void MarkSequential(uint32_t zone);

  // Checks a read of `len` bytes at `offset`.
  absl::Status CheckRead(uint64_t offset, uint64_t len) const;

  // Zone management actions; each fails with the spec's error and leaves
  // the zone unchanged when the action is not valid in its state.
  absl::Status Open(uint32_t zone, CellMode mode);
  absl::Status Close(uint32_t zone);
  absl::Status Finish(uint32_t zone);
  absl::Status Reset(uint32_t zone);

  // SplitZNS split zones (section 4.2). Split takes an empty zone to an
  // explicitly opened split zone with `subzones` subzones, with the
  // resources an explicit open needs; Merge takes an active or full split
  // zone back to an empty wide zone (the caller checked its subzones are
  // empty). Other states: kInvalidTransition. A split zone's state is the
  // one its resources follow: a write to one of its subzones needs it to
  // take writes, and opens it implicitly when it is closed.
  absl::Status Split(uint32_t zone, uint32_t subzones);
  absl::Status Merge(uint32_t zone);
  absl::Status CheckSubzoneWrite(uint32_t zone) const;
  void CommitSubzoneWrite(uint32_t zone);

  // Conditions only the device sets (media failure), for fault injection.
  void SetReadOnly(uint32_t zone);
  void SetOffline(uint32_t zone);

  // Durability of write pointers: Flush makes every write pointer durable;
  // PowerCut rolls each zone back to its durable write pointer. After a
  // power cut no zone is open (the spec's power-cycle behavior).
  void MarkAllDurable();
  void MarkDurable(uint32_t zone);
  void PowerCut();
  // The durable state of every zone, and the inverse used when a device is
  // reopened from its backing file.
  std::vector<ZoneInfo> DurableZones() const;
  ZoneInfo DurableZone(uint32_t zone) const;
  void RestoreDurable(const std::vector<ZoneInfo>& zones);
  // RestoreDurable, then the write cache a dead process left: each
  // sequential zone comes back at its cached write pointer (closed, or full
  // at its capacity) while its durable write pointer stays where a power
  // cut would return it. `cached_wps` has one entry a zone; entries not
  // past the durable write pointer change nothing.
  void Restore(const std::vector<ZoneInfo>& durable, const std::vector<uint64_t>& cached_wps);

  // The bytes of `zone` written so far (write pointer - start), or the
  // whole zone for a conventional zone.
  uint64_t WrittenBytes(uint32_t zone) const;

 private:
  struct Zone {
    ZoneInfo info;
    uint64_t durable_wp = 0;
    bool durable_full = false;
    uint64_t open_seq = 0;  // order of implicit opens, for auto-close
  };

  bool IsSequential(const Zone& z) const {
    return z.info.type != ZoneType::kConventional;
  }
  bool CountsResources(const Zone& z) const {
    return z.info.type == ZoneType::kSequentialWriteRequired;
  }
  absl::Status CheckZoneIndex(uint32_t zone) const;
  // The zone a management `action` targets, with `where` describing it for
  // errors; conventional zones take no zone management.
  absl::StatusOr<Zone*> ManagedZone(uint32_t index, const char* action, std::string* where);
  // Resources for taking zone `z` to an open state in `mode`, counting an
  // implicitly opened zone the device may close at the open limit.
  absl::Status CheckOpenResources(const Zone& z, CellMode mode) const;
  void AcquireOpen(uint32_t zone, ZoneState target, CellMode mode);
  // At the open limit, closes the implicitly opened zone AutoCloseVictim
  // names to make room for another open.
  void AutoCloseIfAtLimit();
  uint32_t AutoCloseVictim() const;
  void ReleaseResources(Zone& z);
  void SetState(Zone& z, ZoneState s);
  void ResetToEmpty(Zone& z);
  bool IsQlc(const Zone& z) const {
    return z.info.cell_mode == CellMode::kQlc &&
           info_.default_cell_mode != CellMode::kQlc;
  }

  DeviceInfo info_;
  std::vector<Zone> zones_;
  uint32_t open_ = 0;
  uint32_t active_ = 0;
  uint32_t open_qlc_ = 0;
  uint32_t active_qlc_ = 0;
  uint64_t next_open_seq_ = 0;
  std::set<std::pair<uint64_t, uint32_t>> implicitly_open_;  // (seq, zone)
  uint32_t auto_close_cursor_;  // ZBC: where the next auto-close search starts
};

}  // namespace zonestack::device
