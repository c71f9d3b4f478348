// The bookkeeping of HHZS's application-hinted SSD cache (section 3.5):
// a mapping table from a cached block's HDD location (SST number, offset)
// to its place in an SSD cache zone, and a FIFO queue of cache zones whose
// oldest is evicted whole. No I/O here: the RocksDB glue writes and reads
// the blocks through zfs's cache zones and asks this index what to do.
// Thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace zonestack::policy {

// Where a cached block lies: a cache zone (as numbered by the caller) and
// a byte offset in it.
struct CacheLocation {
  uint64_t zone = 0;  // caller's id for the cache zone (e.g. device<<32|zone)
  uint64_t offset = 0;
  uint32_t size = 0;
};

struct BlockAddress {
  uint64_t sst = 0;     // SST file number
  uint64_t offset = 0;  // of the block in the SST
  bool operator==(const BlockAddress&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const BlockAddress& b) {
    return H::combine(std::move(h), b.sst, b.offset);
  }
};

struct CacheStats {
  uint64_t admitted = 0, rejected = 0, hits = 0, misses = 0;
  uint64_t evicted_zones = 0, evicted_blocks = 0;
  uint64_t cached_blocks = 0, cached_bytes = 0;
  uint64_t first_sightings = 0;  // evicted blocks second-chance admission held back
  uint64_t refreshed = 0;        // cached blocks written again at the FIFO tail
  size_t memory_bytes = 0;  // mapping table + FIFO queue (+ ghost list) (HHZS 3.6)
};

class SsdCacheIndex {
 public:
  // Admission: a block evicted from the block cache is cached only if its
  // SST lies on an HDD and it is not cached yet (the caller checks the
  // device; this checks the duplicate). Reserves room in the active zone
  // and returns where to write it, or nullopt (reject, or no active zone
  // with room: call OpenZone first). Only duplicates count as rejected;
  // with refresh on, a duplicate outside the active zone is moved to it.
  std::optional<CacheLocation> Admit(const BlockAddress& block, uint32_t size);
  // Second-chance admission (a departure from 3.5, off until called with
  // a nonzero size): an evicted block passes only if it was evicted before
  // within the last `ghost_blocks` first sightings, which a ghost list of
  // block addresses remembers. The paper's cache admits every evicted HDD
  // block, so blocks read once push out blocks read again; a cache of 1%
  // of the data under Zipf 0.9 turns over many times per run.
  void SetSecondChance(size_t ghost_blocks);
  // Whether a block just evicted from the block cache may be admitted; with
  // second chance on, a first sighting is remembered and refused.
  bool PassesAdmission(const BlockAddress& block);
  // Refresh (a departure from 3.5, off by default): a block hit outside
  // the active zone is written again at the FIFO tail when the block cache
  // evicts it next (FIFO with reinsertion), so a block read again outlives
  // the eviction of the zone it was first written to. Without it a cache
  // zone's blocks all leave together however often they are read, and the
  // hottest must come from the HDD again.
  void SetRefresh(bool on);
  // Whether the block cache should hand the block at `loc`, just hit, back
  // on its next eviction (refresh on and `loc` not in the active zone).
  bool ShouldRefresh(const CacheLocation& loc) const;
  // A new active cache zone with `capacity` bytes; it joins the FIFO tail.
  // REQUIRES: `zone` is not in the FIFO already.
  void OpenZone(uint64_t zone, uint64_t capacity);
  // The oldest cache zone, to evict; its blocks leave the mapping table
  // (FIFO eviction). nullopt when there is none.
  std::optional<uint64_t> EvictOldestZone();
  std::optional<CacheLocation> Lookup(const BlockAddress& block);
  // The SST was deleted (or moved to the SSD): its blocks are forgotten.
  // O(blocks of that SST): the mapping table is keyed by SST first.
  void DropSst(uint64_t sst);
  size_t zones() const;
  CacheStats stats() const;

  // memory_bytes accounting, per cached block and per SST (HHZS 3.6
  // counts the fields of each entry, not allocator overhead): a table
  // entry is the block's offset and its cache location; a FIFO entry is
  // the block's HDD location (the zone gives its cache location). Stale
  // FIFO entries (blocks dropped before their zone is evicted) still count.
  static constexpr size_t kTableEntryBytes = sizeof(uint64_t) + sizeof(CacheLocation);
  static constexpr size_t kFifoEntryBytes = sizeof(BlockAddress);
  // A ghost list entry: the address and its sighting number, in the map
  // and in its FIFO.
  static constexpr size_t kGhostEntryBytes = 2 * (sizeof(BlockAddress) + sizeof(uint64_t));

 private:
  struct Zone {
    uint64_t id = 0, capacity = 0, used = 0;
    std::vector<BlockAddress> blocks;  // FIFO queue entries of this zone
  };
  using SstBlocks = absl::flat_hash_map<uint64_t, CacheLocation>;  // offset -> location
  static constexpr size_t kSstEntryBytes = sizeof(uint64_t) + sizeof(SstBlocks);

  void Forget(SstBlocks& blocks, SstBlocks::iterator block) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The block's entry in the mapping table, or null.
  CacheLocation* Find(const BlockAddress& block) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  // The mapping table, keyed by SST and then by the block's offset in it,
  // so that DropSst does not scan every cached block.
  absl::flat_hash_map<uint64_t, SstBlocks> table_ ABSL_GUARDED_BY(mu_);
  std::deque<Zone> fifo_ ABSL_GUARDED_BY(mu_);  // front = oldest, back = active
  uint64_t fifo_entries_ ABSL_GUARDED_BY(mu_) = 0;
  CacheStats stats_ ABSL_GUARDED_BY(mu_);
  bool refresh_ ABSL_GUARDED_BY(mu_) = false;  // see SetRefresh
  // Second chance: first sightings, oldest first, numbered; the map holds
  // each remembered address's latest number. An address that passed
  // leaves the map, so its FIFO entry is stale and only pops.
  size_t ghost_capacity_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t sightings_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<BlockAddress, uint64_t> ghost_ ABSL_GUARDED_BY(mu_);
  std::deque<std::pair<BlockAddress, uint64_t>> ghost_fifo_ ABSL_GUARDED_BY(mu_);
};

}  // namespace zonestack::policy
