#include "device/slc_cache.h"

#include "device/slc_cap.h"

namespace zonestack::device {

SlcCache::SlcCache(const DeviceInfo& info)
    : native_(info.native_cell_mode),
      bits_(static_cast<uint64_t>(info.native_cell_mode)),
      total_(info.zone_capacity * info.num_zones),
      zones_(info.num_zones) {}

int64_t SlcCache::LruSlcZone(int64_t except) const {
  int64_t best = -1;
  for (size_t z = 0; z < zones_.size(); ++z) {
    const ZoneState& s = zones_[z];
    if (!s.slc || s.written == 0 || static_cast<int64_t>(z) == except) continue;
    if (best < 0 || s.last_access < zones_[best].last_access) best = static_cast<int64_t>(z);
  }
  return best;
}

CellMode SlcCache::PlaceWrite(uint32_t zone, uint64_t length, std::vector<uint32_t>* migrate) {
  ZoneState& z = zones_[zone];
  z.last_access = ++clock_;
  // A fresh zone starts in SLC; a zone already migrated stays native.
  if (z.written == 0) z.slc = true;
  if (!z.slc) return native_;
  // The cache is full: the firmware moves the coldest other SLC zones out
  // first (FEMU's DM mode migrates synchronously on the write); when no
  // other zone is left, this zone itself goes to the native mode.
  uint64_t pending = 0;  // SLC bytes of the victims chosen so far
  std::vector<bool> chosen(zones_.size(), false);
  while (true) {
    const uint64_t slc_after = slc_bytes_ - pending + length;
    const uint64_t slc_flash = slc_after * bits_;
    const uint64_t native_after = native_bytes_ + pending;
    if (SlcWithinCap(slc_flash, native_after + slc_flash, total_)) return CellMode::kSlc;
    int64_t victim = -1;
    for (size_t i = 0; i < zones_.size(); ++i) {
      const ZoneState& s = zones_[i];
      if (!s.slc || s.written == 0 || i == zone || chosen[i]) continue;
      if (victim < 0 || s.last_access < zones_[victim].last_access) victim = static_cast<int64_t>(i);
    }
    if (victim < 0) break;
    chosen[victim] = true;
    pending += zones_[victim].written;
    migrate->push_back(static_cast<uint32_t>(victim));
  }
  if (z.written > 0) migrate->push_back(zone);
  else z.slc = false;
  return native_;
}

void SlcCache::Wrote(uint32_t zone, uint64_t length) {
  ZoneState& z = zones_[zone];
  z.written += length;
  (z.slc ? slc_bytes_ : native_bytes_) += length;
}

void SlcCache::Migrated(uint32_t zone) {
  ZoneState& z = zones_[zone];
  if (!z.slc) return;
  z.slc = false;
  slc_bytes_ -= z.written;
  native_bytes_ += z.written;
}

void SlcCache::Touched(uint32_t zone) { zones_[zone].last_access = ++clock_; }

void SlcCache::Reset(uint32_t zone) { RolledBack(zone, 0); }

void SlcCache::RolledBack(uint32_t zone, uint64_t written) {
  ZoneState& z = zones_[zone];
  if (written >= z.written) return;
  (z.slc ? slc_bytes_ : native_bytes_) -= z.written - written;
  z.written = written;
  if (written == 0) z.slc = false;
}

int64_t SlcCache::IdleVictim(uint32_t target_percent) const {
  const uint64_t slc_flash = slc_bytes_ * bits_;
  const uint64_t cap = SlcCapPercent(native_bytes_ + slc_flash, total_);
  if (slc_flash * 100 * 100 <= uint64_t{cap} * target_percent * total_) return -1;
  return LruSlcZone(-1);
}

}  // namespace zonestack::device
