// Zone tiering (ZoneTier, "Zone Promotion", "Zone Demotion", Table 2
// "Promoting", "Demoting", "Merging"): at the end of each period the
// extents above the Critical Access Frequency move into SSD slots and the
// coldest slots move home.
// - Promotion copies only the zone's data below its write pointer: the
//   rest is intra-zone garbage (never written) that would waste SSD space
//   and copy time. Cached blocks of the zone are merged into the copy.
// - Demotion resets the drive zone's write pointer and writes the data back
//   from the zone's start, so the drive sees one sequential write instead
//   of NSWs for its media cache.
// Without host_aware (the baselines) whole extents are copied and written
// back in place.
#include <algorithm>

#include "tier/block_tier.h"

namespace zonestack::tier {
namespace {

const device::IoContext kMigrationCtx{.io_class = device::IoClass::kMigration};

}  // namespace

absl::Status BlockTier::RunPeriodLocked() {
  std::vector<bool> on_ssd(num_extents_, false);
  for (uint32_t s = 0; s < num_slots_; ++s) {
    if (mapping_->SlotExtent(s) != kNone) on_ssd[mapping_->SlotExtent(s)] = true;
  }
  const std::vector<PlannedMove> moves =
      placement_.EndPeriod(on_ssd, num_slots_, free_slots_.size());
  ++stats_.periods;
  for (const PlannedMove& m : moves) {
    if (m.demote != UINT64_MAX) {
      if (auto s = DemoteLocked(m.demote); !s.ok()) return s;
    }
    if (auto s = PromoteLocked(m.promote); !s.ok()) return s;
  }
  SampleUtilizationLocked();
  return absl::OkStatus();
}

void BlockTier::SampleUtilizationLocked() {
  const uint64_t occupied = num_slots_ - free_slots_.size();
  if (occupied == 0) return;
  uint64_t written = 0;
  for (uint32_t s = 0; s < num_slots_; ++s) {
    if (mapping_->SlotExtent(s) != kNone) written += written_per_extent_[mapping_->SlotExtent(s)];
  }
  stats_.utilization_sum +=
      static_cast<double>(written) / static_cast<double>(occupied * (extent_ / block_));
  ++stats_.utilization_samples;
}

absl::Status BlockTier::PromoteLocked(uint64_t extent) {
  if (free_slots_.empty()) return absl::OkStatus();
  const uint32_t slot = free_slots_.back();
  const uint64_t start = extent * extent_;
  const auto zone = static_cast<uint32_t>(start / zone_);
  auto z = drive_->ReportZone(zone);
  if (!z.ok()) return z.status();
  const bool sequential_zone = z->type != device::ZoneType::kConventional;
  // The extent's cached blocks: merged into the copy, then dropped.
  std::vector<uint64_t> cached;
  if (auto it = cached_by_zone_.find(zone); it != cached_by_zone_.end()) {
    for (uint64_t lb : it->second) {
      if (lb * block_ >= start && lb * block_ < start + extent_) cached.push_back(lb);
    }
  }
  uint64_t valid = extent_;
  if (o_.host_aware && sequential_zone) {
    valid = std::min(extent_, z->write_pointer - start);
    if (!cached.empty()) valid = std::max(valid, (cached.back() + 1) * block_ - start);
  }
  std::vector<uint8_t> buf;
  for (uint64_t pos = 0; pos < valid; pos += o_.migration_chunk_bytes) {
    buf.resize(std::min(o_.migration_chunk_bytes, valid - pos));
    if (auto s = ReadDriveLocked(start + pos, buf, device::IoClass::kMigration); !s.ok()) {
      return s;
    }
    if (auto s = SsdWrite(ssd_, SsdSlotOffset(slot) + pos, buf, kMigrationCtx); !s.ok()) {
      return s;
    }
  }
  std::vector<uint64_t> freed;
  for (uint64_t lb : cached) {
    freed.push_back(mapping_->CacheBlockOf(lb));
    NoteUncached(lb);
  }
  free_slots_.pop_back();
  mapping_->Place(extent, slot, valid);
  if (auto s = mapping_->Commit(); !s.ok()) return s;
  free_cache_.insert(free_cache_.end(), freed.begin(), freed.end());
  ++stats_.promotions;
  stats_.promoted_bytes += valid;
  stats_.filtered_bytes += extent_ - valid;
  stats_.merged_blocks += cached.size();
  // The drive's copy is garbage once the slot is durable: resetting the
  // zone now drops its media-cache blocks, which cleaning would otherwise
  // rewrite for nothing.
  if (o_.host_aware && sequential_zone) return drive_->ResetZone(zone, kMigrationCtx);
  return absl::OkStatus();
}

absl::Status BlockTier::DemoteLocked(uint64_t extent) {
  const uint32_t slot = mapping_->SlotOf(extent);
  if (slot == kNoSlot) return absl::OkStatus();
  const uint64_t start = extent * extent_;
  const auto zone = static_cast<uint32_t>(start / zone_);
  auto z = drive_->ReportZone(zone);
  if (!z.ok()) return z.status();
  const uint64_t valid = mapping_->SlotValidEnd(slot);
  if (o_.host_aware && z->type != device::ZoneType::kConventional) {
    if (auto s = drive_->ResetZone(zone, kMigrationCtx); !s.ok()) return s;
  }
  std::vector<uint8_t> buf;
  for (uint64_t pos = 0; pos < valid; pos += o_.migration_chunk_bytes) {
    buf.resize(std::min(o_.migration_chunk_bytes, valid - pos));
    if (auto s = SsdRead(ssd_, SsdSlotOffset(slot) + pos, buf, kMigrationCtx); !s.ok()) return s;
    const uint64_t t0 = clock_ ? clock_->NowNs() : 0;
    if (auto s = DriveWrite(start + pos, buf, device::IoClass::kMigration); !s.ok()) return s;
    const uint64_t ns = clock_ ? clock_->NowNs() - t0 : 0;
    ++stats_.demotion_writes;
    stats_.demotion_write_ns += ns;
    stats_.demotion_write_max_ns = std::max(stats_.demotion_write_max_ns, ns);
  }
  // Home only once the drive holds the data durably; the slot is reused
  // only once Home is durable.
  if (auto s = drive_->Flush(kMigrationCtx); !s.ok()) return s;
  mapping_->Home(slot);
  if (auto s = mapping_->Commit(); !s.ok()) return s;
  free_slots_.push_back(slot);
  ++stats_.demotions;
  stats_.demotion_bytes += valid;
  return absl::OkStatus();
}

}  // namespace zonestack::tier
