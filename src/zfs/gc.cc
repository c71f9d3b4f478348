// Garbage collection: victims (greedy or cost-benefit), the forced and
// background runs. Live extents move with MoveExtents (relocation.cc).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "zfs/volume_impl.h"

namespace zonestack::zfs {
namespace {

using device::IoClass;

// How long the GC thread sleeps when nothing wakes it, on the volume's
// clock.
constexpr uint64_t kGcPeriodNs = 200'000'000;

// How often the GC thread asks the devices for zones that failed without
// a command of zfs failing on them (zone_retire.cc).
constexpr int kFailedZoneReportTicks = 5;  // of the periods

}  // namespace

bool VolumeImpl::BelowGcThreshold(uint32_t device) const {
  const Member& m = members_[device];
  // Empty zones kept for the WAL/cache pool are not free for general data.
  const uint32_t reserve = PoolReserve(device, DeviceViews());
  const size_t usable = m.empty.size() > reserve ? m.empty.size() - reserve : 0;
  return options_.gc_free_zone_threshold >= 0 && m.data_zones > 0 && usable <= options_.gc_free_zone_threshold * m.data_zones;
}

std::vector<uint32_t> VolumeImpl::GcVictims(uint32_t device) const {
  const Member& m = members_[device];
  struct Scored {
    uint32_t zone;
    double score;  // higher is collected first
  };
  std::vector<Scored> scored;
  const double now = static_cast<double>(NowUs());
  for (uint32_t zone = 0; zone < m.zones.size(); ++zone) {
    const ZoneUse& z = m.zones[zone];
    if (z.role != ZoneRole::kData || z.leased || !z.full() || z.valid >= z.written) continue;
    const double u = static_cast<double>(z.valid) / static_cast<double>(z.capacity);
    double score = 1.0 - u;  // greedy: the least valid data to move
    if (options_.gc_cost_benefit) {
      // Rosenblum and Ousterhout: benefit (1-u) * age over cost (1+u).
      const double age = std::max(1.0, now - static_cast<double>(z.last_write_us));
      score = (1.0 - u) * age / (1.0 + u);
    }
    scored.push_back({zone, score});
  }
  std::sort(scored.begin(), scored.end(),
            [](const Scored& a, const Scored& b) { return a.score > b.score; });
  std::vector<uint32_t> out;
  for (const Scored& s : scored) out.push_back(s.zone);
  return out;
}

absl::StatusOr<GcStats> VolumeImpl::CollectGarbage(bool force) {
  if (auto s = CheckWritable(); !s.ok()) return s;
  absl::MutexLock gc(&gc_mu_);
  GcStats stats;
  for (uint32_t d = 0; d < members_.size(); ++d) {
    std::vector<uint32_t> victims;
    {
      absl::MutexLock lock(&mu_);
      if (!force && !BelowGcThreshold(d)) continue;
      victims = GcVictims(d);
    }
    for (uint32_t zone : victims) {
      std::vector<std::shared_ptr<FileMeta>> owners;
      bool movable = true;
      {
        absl::MutexLock lock(&mu_);
        if (!force && !BelowGcThreshold(d)) break;
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
      const uint64_t zone_size = members_[d].info.zone_size;
      bool failed = false;
      for (const auto& f : owners) {
        uint64_t moved = 0;
        absl::Status s = MoveExtents(
            f, [&](const Extent& x) { return x.device == d && x.offset / zone_size == zone; }, d,
            {.purpose = Purpose::kGc, .io_class = IoClass::kGc}, &moved);
        stats.bytes_relocated += moved;
        if (!s.ok() && s.code() != absl::StatusCode::kAborted) {
          failed = true;  // out of room to move into: stop this device
          break;
        }
      }
      if (failed) break;
      absl::MutexLock lock(&mu_);
      if (members_[d].zones[zone].valid == 0) {
        members_[d].maybe_dead.insert(zone);
        ResetDeadZones();
        if (members_[d].zones[zone].written == 0) ++stats.zones_reclaimed;
      }
    }
  }
  return stats;
}

void VolumeImpl::StartGc() {
  gc_thread_ = std::thread([this] { GcLoop(); });
}

void VolumeImpl::GcLoop() {
  for (int tick = 0;; ++tick) {
    {
      const uint64_t deadline = clock_->NowNs() + kGcPeriodNs;
      absl::MutexLock l(&gc_wake_mu_);
      auto woken = [this]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return gc_stop_ || gc_wanted_; };
      AwaitUntil(gc_wake_mu_, absl::Condition(&woken), deadline);
      if (gc_stop_) return;
      gc_wanted_ = false;
    }
    bool needed = false;
    {
      absl::MutexLock lock(&mu_);
      for (uint32_t d = 0; d < members_.size(); ++d) needed |= BelowGcThreshold(d);
    }
    // Failures of a background run are not lost: a GC that cannot move a
    // zone's data leaves the zone as it was, and the next run tries again.
    if (needed) (void)CollectGarbage(/*force=*/false);
    HandleFailedZones(/*report_zones=*/tick % kFailedZoneReportTicks == 0);
  }
}

}  // namespace zonestack::zfs
