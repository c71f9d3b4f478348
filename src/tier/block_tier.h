// ZoneTier's block tier (docs/zonetier.md): a block device of the SMR
// drive's capacity built from an SSD and a host-aware SMR drive. The SSD
// holds the mapping, a zone-granular tier of slots and the CF-Cache; every
// logical extent lives in a slot or at home on the drive, and the NSWs to
// drive zones the tier cannot avoid wait in the CF-Cache.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "device/clock.h"
#include "device/zoned_device.h"
#include "tier/tier_mapping.h"
#include "tier/zone_placement.h"

namespace zonestack::tier {

enum class CachePolicy {
  kLru,                // baselines: every write to a drive extent, block LRU eviction
  kCleaningFriendly,   // ZoneTier's CF-Cache (cf_cache.cc)
};
// What the CF-Cache does with an NSW a short gap ahead of a sequential
// zone's write pointer (ZoneTier Fig. 9).
enum class GapPolicy {
  kPad,     // fill the gap and write in place: the zone stays sequential
  kBypass,  // keep it in the CF-Cache until the write pointer reaches it
};

struct TierOptions {
  std::string name = "HA-256-CFC";
  // The tiering unit is the drive's zone split into this many extents:
  // 1 is zone-based tiering (256 MB zones); 4 and 2 are the DM baselines'
  // 64 MB and 128 MB extents.
  uint32_t extents_per_zone = 1;
  // Uses the drive's host-aware property: drive write pointers filter
  // intra-zone garbage at promotion, demotion resets the zone and writes
  // it sequentially, and placement weighs NSWs (ZoneTier). Off: the
  // HA-unaware baselines, which copy whole extents and write them in place.
  bool host_aware = true;
  // The drive must be device-managed (the DM baselines) or host-aware.
  bool device_managed_drive = false;
  CachePolicy cache_policy = CachePolicy::kCleaningFriendly;
  GapPolicy gap_policy = GapPolicy::kPad;
  uint32_t pad_limit_blocks = 8;
  // SSD space: the tier's slots (a whole number of extents) and the cache.
  uint64_t ssd_tier_bytes = 0;
  uint64_t cache_bytes = 0;
  uint64_t log_blocks = 64;
  // A placement period ends after this many requests (0: only RunPeriod).
  uint64_t period_requests = 1000;
  PlacementOptions placement;
  uint32_t lru_evict_batch = 32;  // blocks per LRU eviction
  uint64_t migration_chunk_bytes = 64 * 1024;
};

// One of the paper's Table 3 designs by name, with `base`'s sizes:
// DM-64-LRU, DM-128-LRU, DM-256-LRU, HA-256-LRU, HA-256-CFC (ZoneTier).
absl::StatusOr<TierOptions> TierScheme(const std::string& name, const TierOptions& base);
// "DM-64-LRU, ..." for messages.
std::string TierSchemeNames();
// The SSD sizes a caller left 0 set to their defaults for `drive`: the
// tier 10% of its capacity (whole zones), the cache 1% (whole blocks).
void SetDefaultSizes(const device::DeviceInfo& drive, TierOptions* o);

struct TierStats {
  uint64_t reads = 0, writes = 0;
  uint64_t ssd_tier_reads = 0, ssd_tier_writes = 0;   // requests served by slots
  uint64_t cache_read_hits = 0;                        // blocks
  uint64_t drive_read_blocks = 0;
  uint64_t sequential_writes = 0;                      // in place at a write pointer
  uint64_t drive_nsws = 0;                             // writes sent to a drive zone off its pointer
  uint64_t cache_admissions = 0, cache_overwrites = 0; // blocks
  uint64_t bypassed_nsws = 0;     // NSWs to non-sequential zones, straight to the drive
  uint64_t padded_writes = 0, padding_bytes = 0;
  uint64_t evictions = 0, evictions_sequential = 0, evicted_blocks = 0;
  uint64_t drained_runs = 0;      // cached runs written in place once the pointer reached them
  uint64_t promotions = 0, promoted_bytes = 0, filtered_bytes = 0;
  uint64_t merged_blocks = 0;     // cached blocks merged into promoted extents
  uint64_t demotions = 0, demotion_bytes = 0;
  uint64_t demotion_writes = 0, demotion_write_ns = 0, demotion_write_max_ns = 0;
  uint64_t periods = 0;
  double caf = 0;                 // the last period's Critical Access Frequency
  // SSD tier utilization efficiency: the share of occupied slot space
  // holding blocks the workload wrote, averaged over period ends.
  double utilization_sum = 0;
  uint64_t utilization_samples = 0;
  double utilization() const {
    return utilization_samples ? utilization_sum / static_cast<double>(utilization_samples) : 0;
  }
};

// Thread-safety: every method may be called from any thread; calls are
// serialized (one mutex), background placement included.
class BlockTier {
 public:
  // Opens the tier over `ssd` (conventional zones only: the tier and the
  // cache update blocks in place) and `drive`, recovering the mapping the
  // SSD holds or formatting a blank SSD. Neither device is owned; both
  // must outlive the tier. `clock` (may be null: no latency accounting)
  // times demotion writes.
  static absl::StatusOr<std::unique_ptr<BlockTier>> Open(device::ZonedDevice* ssd,
                                                         device::ZonedDevice* drive,
                                                         const TierOptions& options,
                                                         device::Clock* clock);

  uint64_t capacity() const { return capacity_; }
  uint32_t block_size() const { return block_; }
  const TierOptions& options() const { return o_; }

  // Offsets and lengths are multiples of block_size(); a range past
  // capacity() is InvalidArgument. Written data is durable once a later
  // Flush returns (the contract of a disk with a write cache).
  absl::Status Read(uint64_t offset, std::span<uint8_t> dst);
  absl::Status Write(uint64_t offset, std::span<const uint8_t> src);
  absl::Status Flush();
  // Ends a placement period now: CAF ranking, demotions, promotions.
  absl::Status RunPeriod();

  TierStats Stats() const;
  const RecoveryInfo& recovery() const { return mapping_->recovery(); }
  // Where each extent lives, for tests: kNoSlot for the drive.
  uint32_t SlotOf(uint64_t extent) const;
  uint64_t cached_blocks() const;

 private:
  BlockTier(device::ZonedDevice* ssd, device::ZonedDevice* drive, const TierOptions& o,
            device::Clock* clock, std::unique_ptr<TierMapping> mapping);
  absl::Status Validate() const;

  // block_tier.cc: the I/O path to the four end points.
  // InvalidArgument unless [offset, offset + size) is whole blocks inside
  // the capacity.
  absl::Status CheckRange(const char* what, uint64_t offset, uint64_t size) const;
  absl::Status ReadExtentLocked(uint64_t offset, std::span<uint8_t> dst)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status WriteExtentLocked(uint64_t offset, std::span<const uint8_t> src)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status WriteSlotLocked(uint32_t slot, uint64_t offset, std::span<const uint8_t> src)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Reads drive blocks, each from the cache where it holds them.
  absl::Status ReadDriveLocked(uint64_t offset, std::span<uint8_t> dst,
                               device::IoClass io_class) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status DriveWrite(uint64_t offset, std::span<const uint8_t> src, device::IoClass c);
  // Writes blocks into the cache: in place where cached, else admitted
  // (evicting by the policy when full).
  absl::Status CacheWriteLocked(uint64_t offset, std::span<const uint8_t> src)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<device::ZoneInfo> DriveZone(uint64_t offset) const;
  uint64_t SsdSlotOffset(uint32_t slot) const { return slot_base_ + slot * extent_; }
  uint64_t SsdCacheOffset(uint64_t cblock) const { return cache_base_ + cblock * block_; }
  void MarkWritten(uint64_t offset, uint64_t len) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void NoteCached(uint64_t lblock, uint64_t cblock) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void NoteUncached(uint64_t lblock) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Drops cached blocks: unmapped, committed, then free for reuse.
  absl::Status ReleaseCachedLocked(const std::vector<uint64_t>& lblocks)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // cf_cache.cc: NSW-aware admission, padding/bypassing, zone-aware
  // eviction, and draining a zone's cached run its write pointer reached.
  absl::Status CfcWriteLocked(uint64_t offset, std::span<const uint8_t> src)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status CfcEvictLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status CfcDrainLocked(uint32_t zone) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status PaddedWriteLocked(uint64_t wp, uint64_t offset, std::span<const uint8_t> src)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // lru_cache.cc: the baselines' caching.
  absl::Status LruWriteLocked(uint64_t offset, std::span<const uint8_t> src)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status LruEvictLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Writes cached blocks home (sorted runs) and releases them.
  absl::Status WriteBackLocked(std::vector<uint64_t> lblocks) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // zone_tiering.cc: promotion (garbage filtering, merging) and demotion
  // (write pointer reset, sequential write).
  absl::Status RunPeriodLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status PromoteLocked(uint64_t extent) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status DemoteLocked(uint64_t extent) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SampleUtilizationLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void EndRequestLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  device::ZonedDevice* const ssd_;
  device::ZonedDevice* const drive_;
  const TierOptions o_;
  device::Clock* const clock_;
  const uint32_t block_;
  const uint64_t extent_;
  const uint64_t zone_;
  const uint64_t capacity_;
  const uint64_t num_extents_;
  const uint64_t num_slots_;
  const uint64_t cache_blocks_;
  const uint64_t slot_base_;
  const uint64_t cache_base_;

  mutable absl::Mutex mu_;
  std::unique_ptr<TierMapping> mapping_ ABSL_GUARDED_BY(mu_);
  ZonePlacement placement_ ABSL_GUARDED_BY(mu_);
  std::vector<uint32_t> free_slots_ ABSL_GUARDED_BY(mu_);
  std::vector<uint64_t> free_cache_ ABSL_GUARDED_BY(mu_);
  // The cache by drive zone (zone-aware eviction) with each zone's last
  // use, and by block recency (LRU).
  std::map<uint32_t, std::set<uint64_t>> cached_by_zone_ ABSL_GUARDED_BY(mu_);
  std::unordered_map<uint32_t, uint64_t> zone_last_use_ ABSL_GUARDED_BY(mu_);
  std::list<uint64_t> lru_ ABSL_GUARDED_BY(mu_);  // front: most recent
  std::unordered_map<uint64_t, std::list<uint64_t>::iterator> lru_pos_ ABSL_GUARDED_BY(mu_);
  uint64_t tick_ ABSL_GUARDED_BY(mu_) = 0;
  // Blocks the workload wrote (for the utilization efficiency only; not
  // persisted), and their count per extent.
  std::vector<bool> written_ ABSL_GUARDED_BY(mu_);
  std::vector<uint32_t> written_per_extent_ ABSL_GUARDED_BY(mu_);
  uint64_t requests_ ABSL_GUARDED_BY(mu_) = 0;
  // The first error of a period run between requests (Flush reports it).
  absl::Status period_error_ ABSL_GUARDED_BY(mu_);
  TierStats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace zonestack::tier
