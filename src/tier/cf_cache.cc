// Cleaning-friendly caching (ZoneTier, "Cleaning-Friendly Caching", Fig. 9,
// Table 2 "Evicting"): the CF-Cache turns the NSWs the tier cannot avoid
// into patterns the drive cleans cheaply. A drive's cleaning costs one
// read-modify-write per zone its NSWs touch, so:
// - NSW-aware admission: only an NSW that would turn a sequential zone
//   non-sequential is cached; one to a zone already non-sequential goes to
//   the drive (bypasses the cache), as it adds no zone to clean.
// - Padding vs bypassing: an NSW a short gap past a sequential zone's
//   write pointer is either padded (gap filled, written in place) or kept
//   in the cache until the pointer reaches it (GapPolicy).
// - Zone-aware eviction: a whole zone's cached blocks leave together,
//   preferring zones where they can be written in place, then zones
//   already non-sequential, then the least recently used zone.
#include <algorithm>
#include <tuple>

#include "tier/block_tier.h"

namespace zonestack::tier {
namespace {

const device::IoContext kCacheCtx{.io_class = device::IoClass::kCache};

}  // namespace

absl::Status BlockTier::CfcWriteLocked(uint64_t offset, std::span<const uint8_t> src) {
  const uint64_t blocks = src.size() / block_;
  for (uint64_t i = 0; i < blocks;) {
    const uint64_t lb = offset / block_ + i;
    const bool cached = mapping_->CacheBlockOf(lb) != kNone;
    uint64_t j = i + 1;
    while (j < blocks && (mapping_->CacheBlockOf(lb + (j - i)) != kNone) == cached) ++j;
    const uint64_t pos = offset + i * block_;
    const auto run = src.subspan(i * block_, (j - i) * block_);
    i = j;
    // A cached block is the newest copy: it is overwritten where it is.
    if (cached) {
      if (auto s = CacheWriteLocked(pos, run); !s.ok()) return s;
      continue;
    }
    auto z = DriveZone(pos);
    if (!z.ok()) return z.status();
    const auto zone = static_cast<uint32_t>(z->index);
    if (z->type == device::ZoneType::kConventional) {
      if (auto s = DriveWrite(pos, run, device::IoClass::kOther); !s.ok()) return s;
      continue;
    }
    if (!z->non_sequential && pos == z->write_pointer) {
      if (auto s = DriveWrite(pos, run, device::IoClass::kOther); !s.ok()) return s;
      ++stats_.sequential_writes;
      if (auto s = CfcDrainLocked(zone); !s.ok()) return s;
      continue;
    }
    const uint64_t gap = pos > z->write_pointer ? (pos - z->write_pointer) / block_ : 0;
    if (!z->non_sequential && pos > z->write_pointer && o_.gap_policy == GapPolicy::kPad &&
        gap <= o_.pad_limit_blocks) {
      if (auto s = PaddedWriteLocked(z->write_pointer, pos, run); !s.ok()) return s;
      if (auto s = CfcDrainLocked(zone); !s.ok()) return s;
      continue;
    }
    if (z->non_sequential) {
      if (auto s = DriveWrite(pos, run, device::IoClass::kOther); !s.ok()) return s;
      ++stats_.bypassed_nsws;
      ++stats_.drive_nsws;
      continue;
    }
    if (auto s = CacheWriteLocked(pos, run); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status BlockTier::PaddedWriteLocked(uint64_t wp, uint64_t offset,
                                          std::span<const uint8_t> src) {
  // The gap reads as zeros on the drive, or as the cache's copy.
  std::vector<uint8_t> buf(offset - wp + src.size(), 0);
  std::vector<uint64_t> merged;
  for (uint64_t p = wp; p < offset; p += block_) {
    const uint64_t cb = mapping_->CacheBlockOf(p / block_);
    if (cb == kNone) {
      stats_.padding_bytes += block_;
      continue;
    }
    auto part = std::span<uint8_t>(buf).subspan(p - wp, block_);
    if (auto s = SsdRead(ssd_, SsdCacheOffset(cb), part, kCacheCtx); !s.ok()) return s;
    merged.push_back(p / block_);
  }
  std::copy(src.begin(), src.end(), buf.begin() + static_cast<std::ptrdiff_t>(offset - wp));
  if (auto s = DriveWrite(wp, buf, device::IoClass::kOther); !s.ok()) return s;
  ++stats_.padded_writes;
  if (merged.empty()) return absl::OkStatus();
  // The cached blocks now sit below the pointer on the drive: once that
  // write is durable the cache lets them go (kept, they would leave later
  // as NSWs behind the pointer).
  if (auto s = drive_->Flush(kCacheCtx); !s.ok()) return s;
  return ReleaseCachedLocked(merged);
}

absl::Status BlockTier::CfcDrainLocked(uint32_t zone) {
  const uint64_t pad = o_.gap_policy == GapPolicy::kPad ? o_.pad_limit_blocks : 0;
  for (;;) {
    auto it = cached_by_zone_.find(zone);
    if (it == cached_by_zone_.end()) return absl::OkStatus();
    auto z = drive_->ReportZone(zone);
    if (!z.ok()) return z.status();
    const uint64_t wp_block = z->write_pointer / block_;
    const uint64_t first = *it->second.begin();
    if (z->non_sequential || first < wp_block || first - wp_block > pad) {
      return absl::OkStatus();
    }
    // A former NSW turned sequential: its run goes home in place.
    std::vector<uint64_t> run;
    for (uint64_t lb : it->second) {
      if (lb != first + run.size()) break;
      run.push_back(lb);
    }
    std::vector<uint8_t> buf((first - wp_block + run.size()) * block_, 0);
    for (size_t k = 0; k < run.size(); ++k) {
      auto part = std::span<uint8_t>(buf).subspan((first - wp_block + k) * block_, block_);
      if (auto s = SsdRead(ssd_, SsdCacheOffset(mapping_->CacheBlockOf(run[k])), part,
                           kCacheCtx);
          !s.ok()) {
        return s;
      }
    }
    if (auto s = DriveWrite(z->write_pointer, buf, device::IoClass::kCache); !s.ok()) return s;
    stats_.padding_bytes += (first - wp_block) * block_;
    ++stats_.drained_runs;
    if (auto s = drive_->Flush(kCacheCtx); !s.ok()) return s;
    if (auto s = ReleaseCachedLocked(run); !s.ok()) return s;
  }
}

absl::Status BlockTier::CfcEvictLocked() {
  if (cached_by_zone_.empty()) {
    return absl::ResourceExhaustedError("block tier: the CF-Cache is full and holds nothing");
  }
  // Rank: 0 = writable in place with little padding, 1 = zone already
  // non-sequential, 2 = any other; then least recently used.
  std::tuple<int, uint64_t, uint32_t> best{3, 0, 0};
  uint64_t best_wp = 0;
  for (const auto& [zone, blocks] : cached_by_zone_) {
    auto z = drive_->ReportZone(zone);
    if (!z.ok()) return z.status();
    const uint64_t wp_block = z->write_pointer / block_;
    const uint64_t first = *blocks.begin(), last = *blocks.rbegin();
    int rank = 2;
    if (z->non_sequential) {
      rank = 1;
    } else if (first >= wp_block && (last + 1 - wp_block) - blocks.size() <= o_.pad_limit_blocks) {
      rank = 0;
    }
    const std::tuple<int, uint64_t, uint32_t> key{rank, zone_last_use_[zone], zone};
    if (key < best) {
      best = key;
      best_wp = wp_block;
    }
  }
  const auto [rank, last_use, zone] = best;
  (void)last_use;
  std::vector<uint64_t> victims(cached_by_zone_[zone].begin(), cached_by_zone_[zone].end());
  if (rank != 0) return WriteBackLocked(std::move(victims));
  // The whole zone's cached blocks in one write at its pointer, gaps padded.
  std::vector<uint8_t> buf((victims.back() + 1 - best_wp) * block_, 0);
  for (uint64_t lb : victims) {
    auto part = std::span<uint8_t>(buf).subspan((lb - best_wp) * block_, block_);
    if (auto s = SsdRead(ssd_, SsdCacheOffset(mapping_->CacheBlockOf(lb)), part, kCacheCtx);
        !s.ok()) {
      return s;
    }
  }
  if (auto s = DriveWrite(best_wp * block_, buf, device::IoClass::kCache); !s.ok()) return s;
  stats_.padding_bytes += buf.size() - victims.size() * block_;
  if (auto s = drive_->Flush(kCacheCtx); !s.ok()) return s;
  ++stats_.evictions;
  ++stats_.evictions_sequential;
  stats_.evicted_blocks += victims.size();
  return ReleaseCachedLocked(victims);
}

}  // namespace zonestack::tier
