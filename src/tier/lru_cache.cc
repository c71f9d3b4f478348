// The baselines' LRU caching (ZoneTier Table 3, "-LRU"): an SSD write cache
// blind to the drive's zones. Every write to an extent on the drive is
// cached; a full cache evicts its least recently used blocks, written home
// in place, wherever they fall (on a host-aware drive, mostly NSWs).
#include "tier/block_tier.h"

namespace zonestack::tier {

absl::Status BlockTier::LruWriteLocked(uint64_t offset, std::span<const uint8_t> src) {
  return CacheWriteLocked(offset, src);
}

absl::Status BlockTier::LruEvictLocked() {
  if (lru_.empty()) {
    return absl::ResourceExhaustedError("block tier: the LRU cache is full and holds nothing");
  }
  // A batch, so each eviction's drive and mapping flushes serve many blocks.
  std::vector<uint64_t> victims;
  for (auto it = lru_.rbegin(); it != lru_.rend() && victims.size() < o_.lru_evict_batch; ++it) {
    victims.push_back(*it);
  }
  return WriteBackLocked(std::move(victims));
}

}  // namespace zonestack::tier
