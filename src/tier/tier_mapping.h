// The block tier's crash-consistent mapping (docs/zonetier.md, "Mapping"):
// which extents live in SSD tier slots, and which logical blocks the
// CF-Cache holds. Kept in memory, persisted on the SSD as a log of
// checksummed records after a checksummed checkpoint; Open recovers it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "device/zoned_device.h"

namespace zonestack::tier {

inline constexpr uint32_t kNoSlot = UINT32_MAX;
inline constexpr uint64_t kNone = UINT64_MAX;

// Calls piece(pos, done, n) for each piece of [offset, offset + size) that
// stays inside one `unit` (a zone, an extent), in order; stops at the
// first error.
template <typename Piece>
absl::Status ForEachPiece(uint64_t offset, uint64_t size, uint64_t unit, Piece&& piece) {
  for (uint64_t done = 0; done < size;) {
    const uint64_t pos = offset + done;
    const uint64_t n = std::min<uint64_t>(size - done, unit - pos % unit);
    if (auto s = piece(pos, done, n); !s.ok()) return s;
    done += n;
  }
  return absl::OkStatus();
}

// The shape the mapping was formatted with; Open refuses another one
// (a tier opened with other sizes would read slots and blocks wrongly).
struct MappingGeometry {
  uint64_t block_size = 4096;
  uint64_t extent_bytes = 0;
  uint64_t num_extents = 0;
  uint64_t num_slots = 0;
  uint64_t cache_blocks = 0;
  uint64_t log_blocks = 0;
  bool operator==(const MappingGeometry&) const = default;

  // Blocks one checkpoint takes (header + slot table + cache table).
  uint64_t CheckpointBlocks() const;
  // Bytes of SSD the metadata takes from offset 0: two checkpoint areas,
  // then the log.
  uint64_t MetadataBytes() const {
    return (2 * CheckpointBlocks() + log_blocks) * block_size;
  }
};

// What recovery found, for reports and tests.
struct RecoveryInfo {
  bool formatted = false;     // the SSD was blank: a new, empty mapping
  uint64_t generation = 0;    // checkpoint the mapping was rebuilt from
  uint64_t log_records = 0;   // records replayed after it
  bool torn_checkpoint = false;  // a newer checkpoint never made durable was skipped
};

// Not thread-safe: the block tier serializes every call.
//
// Every mutation changes the in-memory state at once and queues a record;
// Persist writes queued records to the SSD (volatile until the SSD's Flush),
// Commit persists and flushes. A caller must not reuse what a mutation
// freed (a slot, a cache block) until Commit has returned: before that, a
// power cut can bring the old mapping back.
class TierMapping {
 public:
  // Recovers the mapping from `ssd` (formats a blank one). Corruption
  // (a checksum failing where the record was once durable) is DataLoss
  // naming the block; a geometry other than the one on the SSD is
  // InvalidArgument.
  static absl::StatusOr<std::unique_ptr<TierMapping>> Open(device::ZonedDevice* ssd,
                                                           const MappingGeometry& g);

  const MappingGeometry& geometry() const { return g_; }
  const RecoveryInfo& recovery() const { return recovery_; }

  // The slot holding `extent`, or kNoSlot while it lives on the drive.
  uint32_t SlotOf(uint64_t extent) const { return extent_slot_[extent]; }
  // The extent slot `slot` holds (kNone: free) and the end (bytes from
  // the extent's start) of the data in it; beyond it the extent reads zeros.
  uint64_t SlotExtent(uint32_t slot) const { return slots_[slot].extent; }
  uint64_t SlotValidEnd(uint32_t slot) const { return slots_[slot].valid_end; }
  // The cache block holding logical block `lblock`, or kNone.
  uint64_t CacheBlockOf(uint64_t lblock) const {
    auto it = cache_.find(lblock);
    return it == cache_.end() ? kNone : it->second;
  }
  const std::unordered_map<uint64_t, uint64_t>& cache() const { return cache_; }

  // `extent` now lives in `slot` with `valid_end` bytes of data; the cache
  // entries of its blocks are dropped (merged into the slot).
  void Place(uint64_t extent, uint32_t slot, uint64_t valid_end);
  // The extent in `slot` lives on the drive again; the slot is free.
  void Home(uint32_t slot);
  void SetValidEnd(uint32_t slot, uint64_t valid_end);
  void CacheMap(uint64_t lblock, uint64_t cblock);
  void CacheUnmap(uint64_t lblock);

  // Writes the queued records (a full log becomes a checkpoint, flushed).
  absl::Status Persist();
  // Persist, then the SSD's Flush: everything so far is durable.
  absl::Status Commit();

  uint64_t records_logged() const { return records_logged_; }
  uint64_t checkpoints() const { return checkpoints_; }

 private:
  struct Slot {
    uint64_t extent = kNone;
    uint64_t valid_end = 0;
  };
  enum RecordType : uint8_t { kPlace = 1, kHome = 2, kValidEnd = 3, kMap = 4, kUnmap = 5 };
  struct Record {
    uint8_t type = 0;
    uint32_t a = 0;
    uint64_t b = 0;
    uint64_t c = 0;
  };

  TierMapping(device::ZonedDevice* ssd, const MappingGeometry& g);
  absl::Status Recover();
  // Whether a checkpoint header records this mapping's geometry.
  bool SameGeometry(const std::vector<uint8_t>& header) const;
  absl::Status Format();
  absl::Status Apply(const Record& r);  // replay and live mutations alike
  void Queue(const Record& r);
  absl::Status WriteCheckpoint(uint64_t generation);
  absl::Status WriteLogBlock();
  uint64_t CheckpointOffset(uint64_t generation) const;
  uint64_t LogOffset(uint64_t seq) const;

  device::ZonedDevice* const ssd_;
  const MappingGeometry g_;
  RecoveryInfo recovery_;
  std::vector<uint32_t> extent_slot_;
  std::vector<Slot> slots_;
  std::unordered_map<uint64_t, uint64_t> cache_;
  uint64_t generation_ = 0;
  uint64_t log_seq_ = 0;                // the log block being filled
  std::vector<Record> block_records_;   // records in that block so far
  std::vector<Record> queued_;          // not yet written
  uint64_t records_logged_ = 0;
  uint64_t checkpoints_ = 0;
};

// Reads and writes on the SSD split at its zone boundaries (a conventional
// zone takes no write across its end; ZNS reads do not cross zones).
absl::Status SsdRead(device::ZonedDevice* ssd, uint64_t offset, std::span<uint8_t> dst,
                     const device::IoContext& ctx);
absl::Status SsdWrite(device::ZonedDevice* ssd, uint64_t offset, std::span<const uint8_t> src,
                      const device::IoContext& ctx);

}  // namespace zonestack::tier
