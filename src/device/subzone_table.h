// The subzones of split zones (SplitZNS section 4.2): for each split zone,
// each subzone's write pointer, durable write pointer and chip, and the
// device-side chip allocator of section 4.3. The split zone itself (its
// state and its active/open resources) lives in ZoneStateMachine; this is
// the firmware's subzone-to-chip mapping table beside it.
//
// Not thread-safe: EmulatedDevice calls it under its lock.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "device/zone.h"

namespace zonestack::device {

class SubzoneTable {
 public:
  // `info` must have supports_subzones and subzones_per_zone chips' worth
  // of subzones per zone (one subzone per chip).
  explicit SubzoneTable(const DeviceInfo& info);

  uint32_t subzones_per_zone() const { return n_; }
  uint64_t subzone_size() const { return size_; }
  uint64_t subzone_capacity() const { return capacity_; }

  // Split and merge bookkeeping: a split zone starts with every subzone
  // empty; Merge forgets it (the caller checked AllEmpty).
  void Split(uint32_t zone);
  void Merge(uint32_t zone);
  bool IsSplit(uint32_t zone) const { return zones_.contains(zone); }

  // The subzone holding device byte `offset` of split zone `zone`.
  uint32_t SubzoneOf(uint32_t zone, uint64_t offset) const;
  uint64_t SubzoneStart(uint32_t zone, uint32_t subzone) const;
  // Bytes written to the subzone (its write pointer - its start).
  uint64_t Written(uint32_t zone, uint32_t subzone) const;
  // The subzone's chip; -1 while it is empty.
  int32_t ChipOf(uint32_t zone, uint32_t subzone) const;
  bool AllEmpty(uint32_t zone) const;
  // Every subzone empty or full: the split zone may be finished.
  bool AllInactive(uint32_t zone) const;
  // A subzone of `zone` is empty: a finished split zone may be reopened
  // for it.
  bool AnyEmpty(uint32_t zone) const;

  // Checks a write of `len` bytes at device byte `offset` against the
  // subzone's state and write pointer. The split zone's own state is the
  // state machine's to check.
  absl::Status CheckWrite(uint32_t zone, uint64_t offset, uint64_t len) const;
  // Applies a write CheckWrite accepted. The first write to an empty
  // subzone takes a chip from the allocator.
  void CommitWrite(uint32_t zone, uint64_t offset, uint64_t len);
  // FINISH of a subzone: full, durable with what was written.
  void Finish(uint32_t zone, uint32_t subzone);
  // Reset of a subzone: empty, its chip released. Returns the bytes that
  // were written.
  uint64_t Reset(uint32_t zone, uint32_t subzone);

  // Durability, as ZoneStateMachine's: MarkDurable keeps every subzone's
  // write pointer over a power cut; PowerCut rolls each subzone back to
  // its durable write pointer and returns the byte ranges it dropped
  // ({offset, length}). A subzone rolled back to empty loses its chip.
  void MarkDurable(uint32_t zone);
  std::vector<std::pair<uint64_t, uint64_t>> PowerCut();
  // The subzone's durable written bytes.
  uint64_t DurableWritten(uint32_t zone, uint32_t subzone) const;

  // The subzones of `zone` as a report shows them; `zone_open` says
  // whether the split zone is open (written subzones then show opened).
  std::vector<SubzoneInfo> Report(uint32_t zone, bool zone_open) const;

 private:
  struct Subzone {
    uint64_t written = 0;
    uint64_t durable = 0;
    bool full = false;
    bool durable_full = false;
    int32_t chip = -1;
  };
  // Section 4.3: a round-robin counter over the chips, skipping chips
  // other subzones of the same split zone hold.
  int32_t AllocateChip(const std::vector<Subzone>& siblings);

  const DeviceInfo info_;
  const uint32_t n_;
  const uint64_t size_;
  const uint64_t capacity_;
  std::map<uint32_t, std::vector<Subzone>> zones_;
  uint32_t next_chip_ = 0;
};

}  // namespace zonestack::device
