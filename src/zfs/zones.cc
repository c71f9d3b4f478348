// Zone accounting and allocation: which zones hold what, leases for
// writers, the active-zone budget, and resets of zones nothing lives in.
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "zfs/volume_impl.h"

namespace zonestack::zfs {
namespace {

using device::IoClass;
using device::IoContext;

// How long a writer waits for the active-zone budget (every active zone is
// leased by another writer) before it reports the volume full.
constexpr absl::Duration kZoneWait = absl::Seconds(10);

}  // namespace

uint32_t VolumeImpl::MaxActive(uint32_t device) const {
  const Member& m = members_[device];
  const uint32_t limit = m.info.max_active_zones != 0 ? m.info.max_active_zones
                         : m.info.max_open_zones != 0 ? m.info.max_open_zones
                                                       : m.info.num_zones;
  return limit > m.reserved_active ? limit - m.reserved_active : 0;
}

std::vector<policy::DeviceView> VolumeImpl::DeviceViews() const {
  std::vector<policy::DeviceView> views;
  for (const Member& m : members_) {
    policy::DeviceView v;
    v.name = m.info.name;
    v.is_ssd = m.is_ssd;
    v.zone_capacity = m.info.zone_capacity;
    v.empty_zones = static_cast<uint32_t>(m.empty.size());
    v.data_zones = m.data_zones;
    v.free_bytes = m.empty.size() * m.info.zone_capacity;
    for (uint32_t z : m.partial) v.free_bytes += m.zones[z].capacity - m.zones[z].written;
    views.push_back(v);
  }
  return views;
}

void VolumeImpl::AddValid(const Extent& x) {
  Member& m = members_[x.device];
  const uint32_t zone = ZoneOf(x);
  ZoneUse& z = m.zones[zone];
  z.valid += Physical(x);
  const uint64_t end = x.offset % m.info.zone_size + Physical(x);
  if (end > z.written) {
    if (z.written == 0) m.empty.erase(zone);
    z.written = end;
    if (z.full()) {
      m.partial.erase(zone);
    } else {
      m.partial.insert(zone);
    }
  }
  // A zone mount found offline or read-only keeps its role: it must never
  // be written, finished or reset, whatever data it still holds.
  if (z.role == ZoneRole::kFree) z.role = ZoneRole::kData;
}

void VolumeImpl::ReleaseExtents(const std::vector<Extent>& extents) {
  for (const Extent& x : extents) {
    ZoneUse& z = members_[x.device].zones[ZoneOf(x)];
    z.valid -= std::min(z.valid, Physical(x));
    if (z.valid == 0) members_[x.device].maybe_dead.insert(ZoneOf(x));
  }
}

uint32_t VolumeImpl::GcReserve(uint32_t device) const {
  const Member& m = members_[device];
  return m.info.num_zones >= 8 ? 1 : 0;
}

void VolumeImpl::ResetDeadZones() {
  if (read_only_) return;
  const IoContext ctx{IoClass::kGc};
  for (uint32_t d = 0; d < members_.size(); ++d) {
    Member& m = members_[d];
    std::set<uint32_t> candidates;
    candidates.swap(m.maybe_dead);
    for (uint32_t zone : candidates) {
      ZoneUse& z = m.zones[zone];
      if (z.leased) {
        m.maybe_dead.insert(zone);  // looked at again on release
        continue;
      }
      if (z.role != ZoneRole::kData || z.valid != 0 || z.written == 0) continue;
      // A failed reset leaves the zone as it was; the next pass retries.
      if (!m.dev->ResetZone(zone, ctx).ok()) {
        m.maybe_dead.insert(zone);
        continue;
      }
      z.written = 0;
      z.group = kNoGroup;
      z.role = ZoneRole::kFree;
      m.partial.erase(zone);
      m.empty.insert(zone);
    }
  }
  zone_released_.SignalAll();
}

bool VolumeImpl::FinishCheapestZone(uint32_t device) {
  Member& m = members_[device];
  uint32_t best = UINT32_MAX;
  uint64_t best_left = UINT64_MAX;
  for (uint32_t zone : m.partial) {
    const ZoneUse& z = m.zones[zone];
    if (z.leased) continue;
    if (z.capacity - z.written < best_left) {
      best_left = z.capacity - z.written;
      best = zone;
    }
  }
  if (best == UINT32_MAX) return false;
  if (!m.dev->FinishZone(best, {IoClass::kOther}).ok()) return false;
  m.zones[best].written = m.zones[best].capacity;
  m.partial.erase(best);
  return true;
}

absl::StatusOr<Lease> VolumeImpl::TryAcquire(const FileMeta& file,
                                             std::optional<uint32_t> only_device, bool for_gc,
                                             bool* busy_zones) {
  policy::PlacementDecision d = options_.placement->Place(file.hint, DeviceViews());
  if (only_device) d.devices = {*only_device};
  for (uint32_t dev : d.devices) {
    if (dev >= members_.size()) continue;
    Member& m = members_[dev];
    // A zone of the same group with room left comes first.
    for (uint32_t zone : m.partial) {
      ZoneUse& z = m.zones[zone];
      if (z.group != d.group || z.leased) continue;
      z.leased = true;
      const uint64_t start = m.dev->ZoneStart(zone);
      return Lease{dev, zone, start + z.written, start + z.capacity};
    }
    if (m.empty.size() <= (for_gc ? 0 : GcReserve(dev))) continue;
    // A new zone becomes active; make room under the active limit by
    // finishing the partly written zone with the least room left.
    while (m.partial.size() >= MaxActive(dev)) {
      if (!FinishCheapestZone(dev)) {
        *busy_zones = true;
        break;
      }
    }
    if (m.partial.size() >= MaxActive(dev)) continue;
    const uint32_t zone = *m.empty.begin();
    ZoneUse& z = m.zones[zone];
    m.empty.erase(zone);
    m.partial.insert(zone);  // counts as active from now on
    z.role = ZoneRole::kData;
    z.group = d.group;
    z.leased = true;
    pending_.push_back({.type = OpType::kSetZoneGroup, .device = dev, .zone = zone,
                        .group = d.group});
    const uint64_t start = m.dev->ZoneStart(zone);
    return Lease{dev, zone, start, start + z.capacity};
  }
  // No zone of its own group and no empty zone anywhere: rather than fail
  // with room left, share another group's partly written zone (lifetimes
  // mix, which GC can sort out later).
  for (uint32_t dev : d.devices) {
    if (dev >= members_.size()) continue;
    Member& m = members_[dev];
    for (uint32_t zone : m.partial) {
      ZoneUse& z = m.zones[zone];
      if (z.leased || z.group == kNoGroup || z.full()) continue;
      z.leased = true;
      const uint64_t start = m.dev->ZoneStart(zone);
      return Lease{dev, zone, start + z.written, start + z.capacity};
    }
  }
  std::string where;
  for (uint32_t dev : d.devices) absl::StrAppend(&where, where.empty() ? "" : ", ", members_[dev].info.name);
  return absl::ResourceExhaustedError(
      absl::StrCat("no space left on the volume for ", file.hint.name, ": no empty zone on ",
                   where.empty() ? "any device" : where));
}

absl::StatusOr<Lease> VolumeImpl::AcquireZone(const FileMeta& file,
                                              std::optional<uint32_t> only_device, bool for_gc) {
  if (auto s = CheckWritable(); !s.ok()) return s;
  bool tried_gc = false;
  const absl::Time deadline = absl::Now() + kZoneWait;
  while (true) {
    absl::Status status;
    {
      absl::MutexLock lock(&mu_);
      bool busy = false;
      auto lease = TryAcquire(file, only_device, for_gc, &busy);
      if (lease.ok()) return lease;
      status = lease.status();
      if (busy && absl::Now() < deadline) {
        // Empty zones exist but every active zone is leased: wait for one.
        zone_released_.WaitWithDeadline(&mu_, deadline);
        continue;
      }
    }
    if (tried_gc || for_gc) return status;
    // Full: reclaim dead space synchronously once, then try again.
    tried_gc = true;
    auto gc = CollectGarbage(/*force=*/true);
    if (!gc.ok() || gc->zones_reclaimed == 0) return status;
  }
}

void VolumeImpl::ReleaseZone(const Lease& lease) {
  absl::MutexLock lock(&mu_);
  Member& m = members_[lease.device];
  ZoneUse& z = m.zones[lease.zone];
  z.leased = false;
  const uint64_t written = lease.next - m.dev->ZoneStart(lease.zone);
  if (written > z.written) z.written = written;
  if (z.written == 0) {
    // Leased but never written: the zone is empty again.
    m.partial.erase(lease.zone);
    m.empty.insert(lease.zone);
    z.group = kNoGroup;
    z.role = ZoneRole::kFree;
  } else if (z.full()) {
    m.partial.erase(lease.zone);
  }
  if (z.valid == 0) m.maybe_dead.insert(lease.zone);
  ResetDeadZones();
  zone_released_.SignalAll();
}

}  // namespace zonestack::zfs
