#include "policy/ssd_cache_index.h"

namespace zonestack::policy {

CacheLocation* SsdCacheIndex::Find(const BlockAddress& block) {
  auto sst = table_.find(block.sst);
  if (sst == table_.end()) return nullptr;
  auto it = sst->second.find(block.offset);
  return it == sst->second.end() ? nullptr : &it->second;
}

std::optional<CacheLocation> SsdCacheIndex::Admit(const BlockAddress& block, uint32_t size) {
  absl::MutexLock lock(&mu_);
  CacheLocation* cached = Find(block);
  if (cached && (!refresh_ || fifo_.empty() || cached->zone == fifo_.back().id)) {
    ++stats_.rejected;
    return std::nullopt;
  }
  if (fifo_.empty()) return std::nullopt;
  Zone& active = fifo_.back();
  if (active.capacity - active.used < size) return std::nullopt;
  const CacheLocation loc{active.id, active.used, size};
  active.used += size;
  active.blocks.push_back(block);
  ++fifo_entries_;
  if (cached) {
    // Refreshed: its old FIFO entry goes stale, as eviction skips a block
    // that lies in another zone than the one evicted.
    stats_.cached_bytes = stats_.cached_bytes - cached->size + size;
    *cached = loc;
    ++stats_.refreshed;
    return loc;
  }
  table_[block.sst][block.offset] = loc;
  ++stats_.admitted;
  ++stats_.cached_blocks;
  stats_.cached_bytes += size;
  return loc;
}

void SsdCacheIndex::SetRefresh(bool on) {
  absl::MutexLock lock(&mu_);
  refresh_ = on;
}

bool SsdCacheIndex::ShouldRefresh(const CacheLocation& loc) const {
  absl::MutexLock lock(&mu_);
  return refresh_ && !fifo_.empty() && loc.zone != fifo_.back().id;
}

void SsdCacheIndex::SetSecondChance(size_t ghost_blocks) {
  absl::MutexLock lock(&mu_);
  ghost_capacity_ = ghost_blocks;
  if (ghost_blocks == 0) {
    ghost_.clear();
    ghost_fifo_.clear();
  }
}

bool SsdCacheIndex::PassesAdmission(const BlockAddress& block) {
  absl::MutexLock lock(&mu_);
  if (ghost_capacity_ == 0) return true;
  if (ghost_.erase(block) > 0) return true;
  // A cached block evicted again is one refresh hands back: it was
  // admitted before.
  if (Find(block)) return true;
  ++stats_.first_sightings;
  const uint64_t n = ++sightings_;
  ghost_[block] = n;
  ghost_fifo_.emplace_back(block, n);
  while (ghost_fifo_.size() > ghost_capacity_) {
    const auto [old, old_n] = ghost_fifo_.front();
    ghost_fifo_.pop_front();
    auto it = ghost_.find(old);
    if (it != ghost_.end() && it->second == old_n) ghost_.erase(it);
  }
  return false;
}

void SsdCacheIndex::OpenZone(uint64_t zone, uint64_t capacity) {
  absl::MutexLock lock(&mu_);
  fifo_.push_back(Zone{zone, capacity, 0, {}});
}

void SsdCacheIndex::Forget(SstBlocks& blocks, SstBlocks::iterator block) {
  --stats_.cached_blocks;
  stats_.cached_bytes -= block->second.size;
  blocks.erase(block);
}

std::optional<uint64_t> SsdCacheIndex::EvictOldestZone() {
  absl::MutexLock lock(&mu_);
  if (fifo_.empty()) return std::nullopt;
  Zone zone = std::move(fifo_.front());
  fifo_.pop_front();
  fifo_entries_ -= zone.blocks.size();
  for (const BlockAddress& b : zone.blocks) {
    auto sst = table_.find(b.sst);
    if (sst == table_.end()) continue;
    auto it = sst->second.find(b.offset);
    // A block dropped and admitted again lies in a newer zone: keep it.
    if (it == sst->second.end() || it->second.zone != zone.id) continue;
    Forget(sst->second, it);
    ++stats_.evicted_blocks;
    if (sst->second.empty()) table_.erase(sst);
  }
  ++stats_.evicted_zones;
  return zone.id;
}

std::optional<CacheLocation> SsdCacheIndex::Lookup(const BlockAddress& block) {
  absl::MutexLock lock(&mu_);
  if (const CacheLocation* loc = Find(block)) {
    ++stats_.hits;
    return *loc;
  }
  ++stats_.misses;
  return std::nullopt;
}

void SsdCacheIndex::DropSst(uint64_t number) {
  absl::MutexLock lock(&mu_);
  auto sst = table_.find(number);
  if (sst == table_.end()) return;
  for (const auto& [offset, loc] : sst->second) {
    --stats_.cached_blocks;
    stats_.cached_bytes -= loc.size;
  }
  // The FIFO entries stay until their zone is evicted; eviction skips them.
  table_.erase(sst);
}

size_t SsdCacheIndex::zones() const {
  absl::MutexLock lock(&mu_);
  return fifo_.size();
}

CacheStats SsdCacheIndex::stats() const {
  absl::MutexLock lock(&mu_);
  CacheStats s = stats_;
  s.memory_bytes = table_.size() * kSstEntryBytes + s.cached_blocks * kTableEntryBytes +
                   fifo_entries_ * kFifoEntryBytes + ghost_fifo_.size() * kGhostEntryBytes;
  return s;
}

}  // namespace zonestack::policy
