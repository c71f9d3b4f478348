// Garbage collection of one device: victims (greedy or cost-benefit) and
// their live extents moved out with MoveExtents (relocation.cc). Runs are
// serialized and driven by the mover (mover.cc).
#include <algorithm>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "zfs/volume_impl.h"

namespace zonestack::zfs {
namespace {

using device::IoClass;

}  // namespace

bool VolumeImpl::BelowGcThreshold(uint32_t device) const {
  if (!options_.placement->allows_gc()) return false;
  const Member& m = members_[device];
  // Empty zones kept for the WAL/cache pool are not free for general data.
  const uint32_t reserve = PoolReserve(device, DeviceViews());
  size_t usable = m.empty.size() > reserve ? m.empty.size() - reserve : 0;
  // Empty subzones are free space too, as ZenFS (which SplitZNS extends)
  // counts every zone's unwritten capacity: they take the next SSTs of
  // their levels without migration (subzones.cc).
  if (m.info.supports_subzones) usable += FreeSubzones(device) / m.info.subzones_per_zone;
  return options_.gc_free_zone_threshold >= 0 && m.data_zones > 0 && usable <= options_.gc_free_zone_threshold * m.data_zones;
}

std::vector<uint32_t> VolumeImpl::GcVictims(uint32_t device, GcTrigger trigger) const {
  const bool force = trigger != GcTrigger::kThreshold;
  const Member& m = members_[device];
  struct Scored {
    uint32_t zone;
    // Split zones go after every wide zone: their empty subzones are not
    // garbage but room the next SSTs reuse (subzones.cc).
    bool split;
    double score;  // higher is collected first
  };
  std::vector<Scored> scored;
  const double now = static_cast<double>(NowUs());
  for (uint32_t zone = 0; zone < m.zones.size(); ++zone) {
    const ZoneUse& z = m.zones[zone];
    if (z.role != ZoneRole::kData || z.leased || !z.full() || z.valid >= z.written) continue;
    // Moving a split zone's live SSTs into other subzones frees no space
    // (its empty subzones were free already): only a volume out of room
    // for a wide zone's file (force) takes one, to get a wide zone back,
    // and only when its SSTs fit in other split zones (CollectDevice).
    if (z.split() && !force) continue;
    const double u = static_cast<double>(z.valid) / static_cast<double>(z.capacity);
    double score = 1.0 - u;  // greedy: the least valid data to move
    if (options_.gc_cost_benefit && trigger != GcTrigger::kWriterOutOfRoom) {
      // Rosenblum and Ousterhout: benefit (1-u) * age over cost (1+u).
      const double age = std::max(1.0, now - static_cast<double>(z.last_write_us));
      score = (1.0 - u) * age / (1.0 + u);
    }
    scored.push_back({zone, z.split(), score});
  }
  std::sort(scored.begin(), scored.end(),
            [](const Scored& a, const Scored& b) {
              return a.split != b.split ? b.split : a.score > b.score;
            });
  std::vector<uint32_t> out;
  for (const Scored& s : scored) out.push_back(s.zone);
  return out;
}

bool VolumeImpl::NeedsGc() const {
  absl::MutexLock lock(&mu_);
  for (uint32_t d = 0; d < members_.size(); ++d) {
    if (BelowGcThreshold(d)) return true;
  }
  return false;
}

void VolumeImpl::CollectDevice(uint32_t d, GcTrigger trigger, GcStats* stats) {
  const bool force = trigger != GcTrigger::kThreshold;
  std::vector<uint32_t> victims;
  {
    absl::MutexLock lock(&mu_);
    if (!force && !BelowGcThreshold(d)) return;
    victims = GcVictims(d, trigger);
  }
  for (uint32_t zone : victims) {
    std::vector<std::shared_ptr<FileMeta>> owners;
    bool movable = true;
    {
      absl::MutexLock lock(&mu_);
      if (!force && !BelowGcThreshold(d)) return;
      // Checked at each victim: earlier ones took empty subzones.
      if (members_[d].zones[zone].split() && !SplitVictimFrees(d, zone)) continue;
      const uint64_t zone_size = members_[d].info.zone_size;
      for (const auto& [id, f] : files_) {
        absl::ReaderMutexLock fl(&f->mu);
        const bool here = std::any_of(f->extents.begin(), f->extents.end(), [&](const Extent& x) {
          return x.device == d && x.offset / zone_size == zone;
        });
        if (!here) continue;
        if (f->writer_open) movable = false;
        owners.push_back(f);
      }
    }
    if (!movable) continue;
    {
      // A split victim's reset subzones must not take what is moved out.
      absl::MutexLock lock(&mu_);
      members_[d].collecting = zone;
    }
    absl::Cleanup not_collecting = [&] {
      absl::MutexLock lock(&mu_);
      members_[d].collecting = UINT32_MAX;
    };
    const uint64_t zone_size = members_[d].info.zone_size;
    for (const auto& f : owners) {
      uint64_t moved = 0;
      absl::Status s = MoveExtents(
          f, [&](const Extent& x) { return x.device == d && x.offset / zone_size == zone; }, d,
          {.purpose = Purpose::kGc, .io_class = IoClass::kGc}, &moved);
      stats->bytes_relocated += moved;
      if (!s.ok() && s.code() != absl::StatusCode::kAborted) {  // out of room to move into
        stats->stopped = absl::Status(
            s.code(), absl::StrCat("moving live data out of zone ", zone, " of ",
                                   members_[d].info.name, ": ", s.message()));
        return;
      }
    }
    std::move(not_collecting).Invoke();
    absl::MutexLock lock(&mu_);
    if (members_[d].zones[zone].valid == 0) {
      members_[d].maybe_dead.insert(zone);
      ResetDeadZones();
      if (members_[d].zones[zone].written == 0) ++stats->zones_reclaimed;
    }
  }
}

}  // namespace zonestack::zfs
