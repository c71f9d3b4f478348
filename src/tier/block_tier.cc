// The block tier's I/O path (ZoneTier Fig. 4): a request reaches one of
// four end points, an SSD tier slot, the CF-Cache, a drive zone in place,
// or the drive's media cache (an NSW the drive journals).
#include "tier/block_tier.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace zonestack::tier {
namespace {

const device::IoContext kUserRead{.io_class = device::IoClass::kUserRead};
const device::IoContext kUserWrite{.io_class = device::IoClass::kOther};
const device::IoContext kCacheCtx{.io_class = device::IoClass::kCache};

}  // namespace

BlockTier::BlockTier(device::ZonedDevice* ssd, device::ZonedDevice* drive, const TierOptions& o,
                     device::Clock* clock, std::unique_ptr<TierMapping> mapping)
    : ssd_(ssd),
      drive_(drive),
      o_(o),
      clock_(clock),
      block_(drive->info().block_size),
      extent_(mapping->geometry().extent_bytes),
      zone_(drive->info().zone_size),
      capacity_(drive->info().capacity_bytes()),
      num_extents_(mapping->geometry().num_extents),
      num_slots_(mapping->geometry().num_slots),
      cache_blocks_(mapping->geometry().cache_blocks),
      slot_base_(mapping->geometry().MetadataBytes()),
      cache_base_(slot_base_ + num_slots_ * extent_),
      mapping_(std::move(mapping)),
      placement_(num_extents_, o.placement),
      written_(capacity_ / block_, false),
      written_per_extent_(num_extents_, 0) {
  absl::MutexLock l(&mu_);
  for (uint32_t s = static_cast<uint32_t>(num_slots_); s-- > 0;) {
    if (mapping_->SlotExtent(s) == kNone) free_slots_.push_back(s);
  }
  std::vector<bool> used(cache_blocks_, false);
  for (const auto& [lblock, cblock] : mapping_->cache()) {
    used[cblock] = true;
    NoteCached(lblock, cblock);
  }
  for (uint64_t c = cache_blocks_; c-- > 0;) {
    if (!used[c]) free_cache_.push_back(c);
  }
}

absl::StatusOr<std::unique_ptr<BlockTier>> BlockTier::Open(device::ZonedDevice* ssd,
                                                           device::ZonedDevice* drive,
                                                           const TierOptions& o,
                                                           device::Clock* clock) {
  const device::DeviceInfo& si = ssd->info();
  const device::DeviceInfo& di = drive->info();
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("block tier ", o.name, ": ", why));
  };
  if (si.num_conventional_zones != si.num_zones) {
    return bad("the SSD must have conventional zones only (conv=N with N = zones): the tier "
               "and the CF-Cache update blocks in place");
  }
  if (si.block_size != di.block_size) return bad("the SSD and the drive differ in block size");
  if (o.device_managed_drive == di.host_aware()) {
    return bad(o.device_managed_drive ? "needs a device-managed drive (smr=dm)"
                                      : "needs a host-aware SMR drive (st8000as0022, smr=ha)");
  }
  if (o.extents_per_zone == 0 || di.zone_size % o.extents_per_zone != 0 ||
      (di.zone_size / o.extents_per_zone) % di.block_size != 0) {
    return bad("extents_per_zone must split a zone into whole blocks");
  }
  if ((o.host_aware || o.cache_policy == CachePolicy::kCleaningFriendly) &&
      (o.extents_per_zone != 1 || o.device_managed_drive)) {
    return bad("host-aware tiering and the CF-Cache need zone-sized extents on a host-aware drive");
  }
  MappingGeometry g;
  g.block_size = di.block_size;
  g.extent_bytes = di.zone_size / o.extents_per_zone;
  g.num_extents = di.capacity_bytes() / g.extent_bytes;
  g.num_slots = o.ssd_tier_bytes / g.extent_bytes;
  g.cache_blocks = o.cache_bytes / di.block_size;
  g.log_blocks = std::max<uint64_t>(2, o.log_blocks);
  const uint64_t need = g.MetadataBytes() + g.num_slots * g.extent_bytes +
                        g.cache_blocks * g.block_size;
  if (need > si.capacity_bytes()) {
    return bad(absl::StrCat("needs ", need, " bytes of SSD (metadata, ", g.num_slots,
                            " slots, ", g.cache_blocks, " cache blocks); the SSD has ",
                            si.capacity_bytes()));
  }
  auto mapping = TierMapping::Open(ssd, g);
  if (!mapping.ok()) return mapping.status();
  return std::unique_ptr<BlockTier>(new BlockTier(ssd, drive, o, clock, std::move(*mapping)));
}

uint32_t BlockTier::SlotOf(uint64_t extent) const {
  absl::MutexLock l(&mu_);
  return mapping_->SlotOf(extent);
}

uint64_t BlockTier::cached_blocks() const {
  absl::MutexLock l(&mu_);
  return mapping_->cache().size();
}

TierStats BlockTier::Stats() const {
  absl::MutexLock l(&mu_);
  TierStats s = stats_;
  s.caf = placement_.critical_access_frequency();
  return s;
}

absl::StatusOr<device::ZoneInfo> BlockTier::DriveZone(uint64_t offset) const {
  return drive_->ReportZone(drive_->ZoneOf(offset));
}

absl::Status BlockTier::DriveWrite(uint64_t offset, std::span<const uint8_t> src,
                                   device::IoClass c) {
  return drive_->Write(offset, src, device::IoContext{.io_class = c});
}

void BlockTier::MarkWritten(uint64_t offset, uint64_t len) {
  for (uint64_t b = offset / block_; b < (offset + len) / block_; ++b) {
    if (!written_[b]) {
      written_[b] = true;
      ++written_per_extent_[b * block_ / extent_];
    }
  }
}

void BlockTier::NoteCached(uint64_t lblock, uint64_t /*cblock*/) {
  const auto zone = static_cast<uint32_t>(lblock * block_ / zone_);
  cached_by_zone_[zone].insert(lblock);
  zone_last_use_[zone] = ++tick_;
  lru_.push_front(lblock);
  lru_pos_[lblock] = lru_.begin();
}

void BlockTier::NoteUncached(uint64_t lblock) {
  const auto zone = static_cast<uint32_t>(lblock * block_ / zone_);
  auto it = cached_by_zone_.find(zone);
  if (it != cached_by_zone_.end()) {
    it->second.erase(lblock);
    if (it->second.empty()) {
      cached_by_zone_.erase(it);
      zone_last_use_.erase(zone);
    }
  }
  if (auto p = lru_pos_.find(lblock); p != lru_pos_.end()) {
    lru_.erase(p->second);
    lru_pos_.erase(p);
  }
}

absl::Status BlockTier::ReleaseCachedLocked(const std::vector<uint64_t>& lblocks) {
  std::vector<uint64_t> freed;
  for (uint64_t lb : lblocks) {
    const uint64_t cb = mapping_->CacheBlockOf(lb);
    if (cb == kNone) continue;
    mapping_->CacheUnmap(lb);
    NoteUncached(lb);
    freed.push_back(cb);
  }
  // A freed block is reused only once its unmap is durable: before that a
  // power cut would bring back a mapping to whatever was written over it.
  if (auto s = mapping_->Commit(); !s.ok()) return s;
  free_cache_.insert(free_cache_.end(), freed.begin(), freed.end());
  return absl::OkStatus();
}

absl::Status BlockTier::CheckRange(const char* what, uint64_t offset, uint64_t size) const {
  if (offset % block_ != 0 || size % block_ != 0 || offset > capacity_ ||
      size > capacity_ - offset) {
    return absl::InvalidArgumentError(absl::StrCat("block tier: ", what, " of ", size,
                                                   " bytes at ", offset, " is unaligned or "
                                                   "past the capacity ", capacity_));
  }
  return absl::OkStatus();
}

absl::Status BlockTier::Read(uint64_t offset, std::span<uint8_t> dst) {
  if (auto s = CheckRange("read", offset, dst.size()); !s.ok()) return s;
  absl::MutexLock l(&mu_);
  ++stats_.reads;
  if (auto s = ForEachPiece(offset, dst.size(), extent_,
                            [&](uint64_t pos, uint64_t done, uint64_t n)
                                ABSL_NO_THREAD_SAFETY_ANALYSIS {
                              placement_.Record(pos / extent_, AccessKind::kRead);
                              return ReadExtentLocked(pos, dst.subspan(done, n));
                            });
      !s.ok()) {
    return s;
  }
  EndRequestLocked();
  return absl::OkStatus();
}

absl::Status BlockTier::ReadExtentLocked(uint64_t offset, std::span<uint8_t> dst) {
  const uint64_t extent = offset / extent_;
  const uint32_t slot = mapping_->SlotOf(extent);
  if (slot == kNoSlot) return ReadDriveLocked(offset, dst, device::IoClass::kUserRead);
  ++stats_.ssd_tier_reads;
  const uint64_t rel = offset - extent * extent_;
  const uint64_t valid = mapping_->SlotValidEnd(slot);
  const uint64_t n = rel >= valid ? 0 : std::min<uint64_t>(dst.size(), valid - rel);
  std::fill(dst.begin() + static_cast<std::ptrdiff_t>(n), dst.end(), 0);
  if (n == 0) return absl::OkStatus();
  return SsdRead(ssd_, SsdSlotOffset(slot) + rel, dst.subspan(0, n), kUserRead);
}

absl::Status BlockTier::ReadDriveLocked(uint64_t offset, std::span<uint8_t> dst,
                                        device::IoClass io_class) {
  const device::IoContext ctx{.io_class = io_class};
  const uint64_t blocks = dst.size() / block_;
  for (uint64_t i = 0; i < blocks;) {
    const uint64_t lb = offset / block_ + i;
    const uint64_t cb = mapping_->CacheBlockOf(lb);
    uint64_t j = i + 1;
    if (cb == kNone) {
      while (j < blocks && mapping_->CacheBlockOf(lb + (j - i)) == kNone) ++j;
      auto part = dst.subspan(i * block_, (j - i) * block_);
      if (auto s = drive_->Read(offset + i * block_, part, ctx); !s.ok()) return s;
      stats_.drive_read_blocks += j - i;
    } else {
      // A run of blocks that lie one after another in the cache too.
      while (j < blocks && mapping_->CacheBlockOf(lb + (j - i)) == cb + (j - i)) ++j;
      auto part = dst.subspan(i * block_, (j - i) * block_);
      if (auto s = SsdRead(ssd_, SsdCacheOffset(cb), part, ctx); !s.ok()) return s;
      stats_.cache_read_hits += j - i;
      if (o_.cache_policy == CachePolicy::kLru && io_class == device::IoClass::kUserRead) {
        for (uint64_t k = i; k < j; ++k) {
          auto p = lru_pos_.find(lb + (k - i));
          if (p != lru_pos_.end()) lru_.splice(lru_.begin(), lru_, p->second);
        }
      }
    }
    i = j;
  }
  return absl::OkStatus();
}

absl::Status BlockTier::Write(uint64_t offset, std::span<const uint8_t> src) {
  if (auto s = CheckRange("write", offset, src.size()); !s.ok()) return s;
  absl::MutexLock l(&mu_);
  ++stats_.writes;
  if (auto s = ForEachPiece(offset, src.size(), extent_,
                            [&](uint64_t pos, uint64_t done, uint64_t n)
                                ABSL_NO_THREAD_SAFETY_ANALYSIS {
                              auto st = WriteExtentLocked(pos, src.subspan(done, n));
                              if (st.ok()) MarkWritten(pos, n);
                              return st;
                            });
      !s.ok()) {
    return s;
  }
  EndRequestLocked();
  return absl::OkStatus();
}

absl::Status BlockTier::WriteExtentLocked(uint64_t offset, std::span<const uint8_t> src) {
  const uint64_t extent = offset / extent_;
  const uint32_t slot = mapping_->SlotOf(extent);
  if (slot != kNoSlot) {
    // Sequential if the drive would have taken it at its write pointer.
    const bool seq = offset - extent * extent_ == mapping_->SlotValidEnd(slot);
    placement_.Record(extent, seq ? AccessKind::kSequentialWrite : AccessKind::kNsw);
    ++stats_.ssd_tier_writes;
    return WriteSlotLocked(slot, offset, src);
  }
  bool seq = false;
  if (drive_->info().host_aware()) {
    auto z = DriveZone(offset);
    if (!z.ok()) return z.status();
    seq = z->type == device::ZoneType::kConventional ||
          (!z->non_sequential && z->write_pointer == offset);
  }
  placement_.Record(extent, seq ? AccessKind::kSequentialWrite : AccessKind::kNsw);
  if (cache_blocks_ == 0) return DriveWrite(offset, src, device::IoClass::kOther);
  return o_.cache_policy == CachePolicy::kLru ? LruWriteLocked(offset, src)
                                              : CfcWriteLocked(offset, src);
}

absl::Status BlockTier::WriteSlotLocked(uint32_t slot, uint64_t offset,
                                        std::span<const uint8_t> src) {
  const uint64_t rel = offset % extent_;
  const uint64_t valid = mapping_->SlotValidEnd(slot);
  if (rel > valid) {
    // The slot may hold an earlier extent's bytes past the valid end; the
    // gap must read as the zeros the drive zone would return.
    std::vector<uint8_t> zeros(rel - valid, 0);
    if (auto s = SsdWrite(ssd_, SsdSlotOffset(slot) + valid, zeros, kUserWrite); !s.ok()) {
      return s;
    }
  }
  if (auto s = SsdWrite(ssd_, SsdSlotOffset(slot) + rel, src, kUserWrite); !s.ok()) return s;
  if (rel + src.size() > valid) mapping_->SetValidEnd(slot, rel + src.size());
  return absl::OkStatus();
}

absl::Status BlockTier::CacheWriteLocked(uint64_t offset, std::span<const uint8_t> src) {
  for (uint64_t pos = 0; pos < src.size(); pos += block_) {
    const uint64_t lb = (offset + pos) / block_;
    const auto data = src.subspan(pos, block_);
    uint64_t cb = mapping_->CacheBlockOf(lb);
    if (cb != kNone) {
      if (auto s = SsdWrite(ssd_, SsdCacheOffset(cb), data, kCacheCtx); !s.ok()) return s;
      ++stats_.cache_overwrites;
      const auto zone = static_cast<uint32_t>(lb * block_ / zone_);
      zone_last_use_[zone] = ++tick_;
      if (auto p = lru_pos_.find(lb); p != lru_pos_.end()) {
        lru_.splice(lru_.begin(), lru_, p->second);
      }
      continue;
    }
    while (free_cache_.empty()) {
      auto s = o_.cache_policy == CachePolicy::kLru ? LruEvictLocked() : CfcEvictLocked();
      if (!s.ok()) return s;
    }
    cb = free_cache_.back();
    free_cache_.pop_back();
    if (auto s = SsdWrite(ssd_, SsdCacheOffset(cb), data, kCacheCtx); !s.ok()) return s;
    mapping_->CacheMap(lb, cb);
    NoteCached(lb, cb);
    ++stats_.cache_admissions;
  }
  return absl::OkStatus();
}

absl::Status BlockTier::WriteBackLocked(std::vector<uint64_t> lblocks) {
  std::sort(lblocks.begin(), lblocks.end());
  const uint64_t per_zone = zone_ / block_;
  std::vector<uint8_t> buf;
  for (size_t i = 0; i < lblocks.size();) {
    size_t j = i + 1;
    while (j < lblocks.size() && lblocks[j] == lblocks[j - 1] + 1 &&
           lblocks[j] / per_zone == lblocks[i] / per_zone) {
      ++j;
    }
    buf.resize((j - i) * block_);
    for (size_t k = i; k < j; ++k) {
      auto part = std::span<uint8_t>(buf).subspan((k - i) * block_, block_);
      if (auto s = SsdRead(ssd_, SsdCacheOffset(mapping_->CacheBlockOf(lblocks[k])), part,
                           kCacheCtx);
          !s.ok()) {
        return s;
      }
    }
    if (auto s = DriveWrite(lblocks[i] * block_, buf, device::IoClass::kCache); !s.ok()) {
      return s;
    }
    ++stats_.drive_nsws;
    i = j;
  }
  // Home before the cache lets go: the drive's in-place writes are
  // volatile until its Flush (its NSWs are durable already).
  if (auto s = drive_->Flush(kCacheCtx); !s.ok()) return s;
  stats_.evicted_blocks += lblocks.size();
  ++stats_.evictions;
  return ReleaseCachedLocked(lblocks);
}

absl::Status BlockTier::Flush() {
  absl::MutexLock l(&mu_);
  if (!period_error_.ok()) return period_error_;
  if (auto s = drive_->Flush(kCacheCtx); !s.ok()) return s;
  return mapping_->Commit();
}

void BlockTier::EndRequestLocked() {
  ++requests_;
  if (o_.period_requests != 0 && requests_ % o_.period_requests == 0) {
    // The request itself succeeded; a failed move (a device error) is
    // reported by every later Flush, so nothing after it counts as durable.
    if (auto s = RunPeriodLocked(); !s.ok() && period_error_.ok()) period_error_ = s;
  }
}

absl::Status BlockTier::RunPeriod() {
  absl::MutexLock l(&mu_);
  return RunPeriodLocked();
}

}  // namespace zonestack::tier
