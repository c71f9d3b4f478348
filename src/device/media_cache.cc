#include "device/media_cache.h"

#include <algorithm>
#include <cstring>

namespace zonestack::device {
namespace {

// Merges log positions of `block` bytes each into runs contiguous in the log.
std::vector<MediaCache::LogRun> RunsOf(std::vector<uint64_t> positions, uint64_t block) {
  std::sort(positions.begin(), positions.end());
  std::vector<MediaCache::LogRun> runs;
  for (uint64_t pos : positions) {
    if (!runs.empty() && runs.back().log_pos + runs.back().length == pos) {
      runs.back().length += block;
    } else {
      runs.push_back({pos, block});
    }
  }
  return runs;
}

}  // namespace

MediaCache::MediaCache(uint64_t capacity_bytes, uint32_t block_size, uint64_t zone_size)
    : capacity_(capacity_bytes), block_size_(block_size), zone_size_(zone_size) {}

uint64_t MediaCache::Append(uint64_t offset, std::span<const uint8_t> data) {
  const uint64_t at = log_head_;
  const uint32_t zone = static_cast<uint32_t>(offset / zone_size_);
  ZoneLog& z = zones_[zone];
  if (z.log_bytes == 0) z.first_seq = next_seq_;
  ++next_seq_;
  z.log_bytes += data.size();
  used_ += data.size();
  for (uint64_t pos = 0; pos < data.size(); pos += block_size_) {
    CachedBlock& b = blocks_[offset + pos];
    b.data.assign(data.begin() + static_cast<ptrdiff_t>(pos),
                  data.begin() + static_cast<ptrdiff_t>(pos + block_size_));
    // The log is a ring over the CMR region; a write that reaches its end
    // continues at its start.
    b.log_pos = (at + pos) % capacity_;
  }
  log_head_ = (at + data.size()) % capacity_;
  return at;
}

void MediaCache::OverlayBlocks(const std::map<uint64_t, CachedBlock>& blocks, uint64_t offset,
                               std::span<uint8_t> dst) {
  const uint64_t end = offset + dst.size();
  for (auto it = blocks.lower_bound(offset); it != blocks.end() && it->first < end; ++it) {
    const uint64_t n = std::min<uint64_t>(it->second.data.size(), end - it->first);
    std::memcpy(dst.data() + (it->first - offset), it->second.data.data(), n);
  }
}

void MediaCache::Overlay(uint64_t offset, std::span<uint8_t> dst) const {
  OverlayBlocks(blocks_, offset, dst);
}

std::vector<MediaCache::LogRun> MediaCache::RunsIn(uint64_t offset, uint64_t length,
                                                   uint64_t* hit_bytes) const {
  std::vector<uint64_t> positions;
  const uint64_t end = offset + length;
  for (auto it = blocks_.lower_bound(offset); it != blocks_.end() && it->first < end; ++it) {
    positions.push_back(it->second.log_pos);
  }
  *hit_bytes += positions.size() * block_size_;
  return RunsOf(std::move(positions), block_size_);
}

std::optional<uint32_t> MediaCache::OldestZone() const {
  std::optional<uint32_t> oldest;
  uint64_t seq = 0;
  for (const auto& [zone, log] : zones_) {
    if (!oldest || log.first_seq < seq) {
      oldest = zone;
      seq = log.first_seq;
    }
  }
  return oldest;
}

MediaCache::ZoneBlocks MediaCache::TakeZone(uint32_t zone) {
  ZoneBlocks out;
  out.zone = zone;
  auto log = zones_.find(zone);
  if (log == zones_.end()) return out;
  out.log_bytes = log->second.log_bytes;
  out.first_seq = log->second.first_seq;
  used_ -= out.log_bytes;
  zones_.erase(log);
  const uint64_t start = static_cast<uint64_t>(zone) * zone_size_;
  std::vector<uint64_t> positions;
  auto it = blocks_.lower_bound(start);
  while (it != blocks_.end() && it->first < start + zone_size_) {
    positions.push_back(it->second.log_pos);
    out.blocks.emplace(it->first, std::move(it->second));
    it = blocks_.erase(it);
  }
  out.runs = RunsOf(std::move(positions), block_size_);
  return out;
}

void MediaCache::Restore(ZoneBlocks taken) {
  if (taken.blocks.empty() && taken.log_bytes == 0) return;
  ZoneLog& z = zones_[taken.zone];
  // The restored writes are older than any the zone journaled since.
  z.first_seq = z.log_bytes == 0 ? taken.first_seq : std::min(z.first_seq, taken.first_seq);
  z.log_bytes += taken.log_bytes;
  used_ += taken.log_bytes;
  for (auto& [offset, block] : taken.blocks) blocks_.try_emplace(offset, std::move(block));
}

}  // namespace zonestack::device
