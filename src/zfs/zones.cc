// Zone accounting and allocation: which zones hold what, leases for
// writers, the active-zone budget, and resets of zones nothing lives in.
#include "absl/strings/str_cat.h"
#include "zfs/volume_impl.h"

namespace zonestack::zfs {
namespace {

using device::IoClass;
using device::IoContext;

// How long a writer waits for the active-zone budget (every active zone is
// leased by another writer, each in the middle of a write) before it
// reports the volume full, on the volume's clock.
constexpr uint64_t kZoneWaitNs = 10'000'000'000;

// How long a writer that finds no room, after GC, waits for other writers'
// work to give zones back (RocksDB deletes a compaction's inputs when its
// outputs are done) before it reports the volume full.
constexpr uint64_t kSpaceWaitNs = 2'000'000'000;

// A writer that needs an active zone when all are leased first takes one
// from a writer idle this long; failing that it waits this long for a
// release, then takes the zone of the writer idle the longest. Writers in
// the middle of a write, GC and migration are never preempted.
constexpr uint64_t kIdleLeaseUs = 100'000;
constexpr uint64_t kReleaseWaitNs = 20'000'000;

// DeviceView::bytes_written may be this old.
constexpr uint64_t kStatsRefreshUs = 20'000;

}  // namespace

uint32_t VolumeImpl::MaxActive(uint32_t device) const {
  const Member& m = members_[device];
  const uint32_t limit = m.info.max_active_zones != 0 ? m.info.max_active_zones
                         : m.info.max_open_zones != 0 ? m.info.max_open_zones
                                                       : m.info.num_zones;
  return limit > m.reserved_active ? limit - m.reserved_active : 0;
}

std::vector<DeviceView> VolumeImpl::DeviceViews() const {
  const uint64_t now = NowUs();
  std::vector<DeviceView> views;
  for (const Member& m : members_) {
    DeviceView v;
    v.name = m.info.name;
    v.info = &m.info;
    v.is_ssd = m.info.is_ssd();
    v.zone_capacity = m.info.zone_capacity;
    v.empty_zones = static_cast<uint32_t>(m.empty.size());
    v.data_zones = m.data_zones;
    v.free_bytes = m.empty.size() * m.default_capacity();
    for (uint32_t z : m.partial) v.free_bytes += m.zones[z].capacity - m.zones[z].written;
    if (m.mixed_modes()) {
      for (const ZoneUse& z : m.zones) {
        if (z.role != ZoneRole::kData && z.role != ZoneRole::kCache) continue;
        (z.cell_mode == device::CellMode::kSlc ? v.slc_written_bytes : v.native_written_bytes) +=
            z.written;
      }
      const auto index = static_cast<uint32_t>(views.size());  // this member's
      v.active_native_zones = ActiveZonesIn(index, m.info.native_cell_mode);
    }
    v.pool_zones = m.pool_zones;
    v.cache_zones = m.cache_zones;
    for (const ZoneUse& z : m.zones) v.split_zones += z.split() ? 1 : 0;
    v.free_subzones = FreeSubzones(static_cast<uint32_t>(views.size()));
    if (now >= m.bytes_written_until_us) {
      m.bytes_written = m.dev->Stats().Total().write_bytes;
      m.bytes_written_until_us = now + kStatsRefreshUs;
    }
    v.bytes_written = m.bytes_written;
    views.push_back(v);
  }
  return views;
}

void VolumeImpl::AddValid(const Extent& x) {
  Member& m = members_[x.device];
  const uint32_t zone = ZoneOf(x);
  ZoneUse& z = m.zones[zone];
  z.valid += Physical(x);
  if (z.split()) {
    // A split zone's subzones count their own bytes (subzones.cc); the
    // zone is in neither the empty nor the partial set.
    SubzoneUse& s = z.subzones[SubzoneSlot(x.device, x.offset)];
    s.valid += Physical(x);
    const uint64_t end = x.offset - RegionAt(x.device, x.offset).start + Physical(x);
    if (end > s.written && !s.full && !z.retired) {
      if (m.split_open.contains(zone)) z.written += end - s.written;
      s.written = end;
    }
    return;
  }
  const uint64_t end = x.offset % m.info.zone_size + Physical(x);
  // A retired zone (zone_retire.cc) never becomes partly written again: a
  // write that landed just before the zone failed only adds valid bytes.
  if (end > z.written && !z.retired) {
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
    if (z.split()) {
      SubzoneUse& s = z.subzones[SubzoneSlot(x.device, x.offset)];
      s.valid -= std::min(s.valid, Physical(x));
      if (s.valid == 0) members_[x.device].maybe_dead.insert(ZoneOf(x));
    }
    if (z.valid == 0) members_[x.device].maybe_dead.insert(ZoneOf(x));
  }
}

uint32_t VolumeImpl::GcReserve(uint32_t device) const {
  if (!options_.placement->allows_gc()) return 0;  // no GC will need it
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
      if (z.split()) {
        if (!ResetDeadSubzones(d, zone)) m.maybe_dead.insert(zone);
        continue;
      }
      if (z.leased) {
        m.maybe_dead.insert(zone);  // looked at again on release
        continue;
      }
      if (z.role != ZoneRole::kData || z.valid != 0 || z.written == 0) continue;
      if (!ReleasesDurable()) {
        m.maybe_dead.insert(zone);  // the next pass retries
        continue;
      }
      // A failed reset leaves the zone as it was; the next pass retries,
      // unless the zone failed (read-only, offline) and is retired.
      if (!m.dev->ResetZone(zone, ctx).ok()) {
        if (!RetireIfFailed(d, zone)) m.maybe_dead.insert(zone);
        continue;
      }
      ZoneEmptied(d, zone);
    }
  }
  zone_released_.SignalAll();
}

void VolumeImpl::ZoneEmptied(uint32_t device, uint32_t zone) {
  ++zones_emptied_;
  Member& m = members_[device];
  ZoneUse& z = m.zones[zone];
  if (z.role == ZoneRole::kCache) {
    --m.cache_zones;
    if (!z.full()) --m.cache_active;
    --m.pool_zones;
  } else if (z.pool) {
    --m.pool_zones;  // back among the general zones
  }
  z.written = 0;
  z.group = kNoGroup;
  z.role = ZoneRole::kFree;
  z.pool = false;
  z.subzones.clear();  // a split zone merged back
  m.split_open.erase(zone);
  // A reset zone comes back in the default mode (HZNS: SLC). On a device
  // of one mode the zone keeps the capacity the device reported.
  if (m.mixed_modes()) {
    z.cell_mode = m.info.default_cell_mode;
    z.capacity = m.default_capacity();
  }
  m.partial.erase(zone);
  m.empty.insert(zone);
}

uint32_t VolumeImpl::ActiveZonesIn(uint32_t device, device::CellMode mode) const {
  const Member& m = members_[device];
  uint32_t n = 0;
  for (uint32_t zone : m.partial) n += m.zones[zone].cell_mode == mode ? 1 : 0;
  return n;
}

bool VolumeImpl::OpenInMode(uint32_t device, uint32_t zone, device::CellMode mode) {
  Member& m = members_[device];
  ZoneUse& z = m.zones[zone];
  // A device of one mode: the zone keeps what the device reported.
  if (!m.mixed_modes()) return true;
  if (mode == device::CellMode::kNone || mode == m.info.default_cell_mode ||
      !m.info.SupportsCellMode(mode)) {
    z.cell_mode = m.info.default_cell_mode;
    z.capacity = m.default_capacity();
    return mode == device::CellMode::kNone || mode == m.info.default_cell_mode;
  }
  // A mode other than the default needs an explicit open (HZNS, ZnH2
  // 3.2.2), and must stay within the device's limits for it.
  const uint32_t limit = m.info.max_active_qlc_zones;
  if (mode == device::CellMode::kQlc && limit != 0 && ActiveZonesIn(device, mode) >= limit) {
    return false;
  }
  if (!m.dev->OpenZone(zone, mode, {IoClass::kOther}).ok()) return false;
  z.cell_mode = mode;
  z.capacity = m.info.ZoneCapacityFor(mode);
  return true;
}

uint32_t VolumeImpl::PoolReserve(uint32_t device,
                                 const std::vector<DeviceView>& views) const {
  const uint32_t size = options_.placement->PoolZones(device, views);
  const uint32_t used = members_[device].pool_zones;
  return size > used ? size - used : 0;
}

uint32_t VolumeImpl::ActiveZones(uint32_t device) const {
  const Member& m = members_[device];
  return static_cast<uint32_t>(m.partial.size() + m.split_open.size()) + m.cache_active;
}

bool VolumeImpl::RoomForActiveZone(uint32_t device) {
  // Finish the partly written zone with the least room left until one more
  // zone fits under the limit.
  while (ActiveZones(device) >= MaxActive(device)) {
    if (!FinishCheapestZone(device)) return false;
  }
  return true;
}

void VolumeImpl::NotifyPlaced(FileMeta& file, uint32_t device) {
  if (file.placed_device == device) return;
  file.placed_device = device;
  options_.placement->OnPlaced(file.hint, device, members_[device].info.is_ssd(), file.size.load());
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
  if (best == UINT32_MAX) {
    // Else an open split zone no writer is in, the one with the fewest
    // empty subzones: they take no writes until it is merged.
    uint32_t split = UINT32_MAX;
    size_t split_free = SIZE_MAX;
    for (uint32_t zone : m.split_open) {
      size_t free = 0;
      bool leased = false;
      for (const SubzoneUse& s : m.zones[zone].subzones) {
        leased = leased || s.leased;
        free += s.written == 0 && !s.full ? 1 : 0;
      }
      if (!leased && free < split_free) {
        split = zone;
        split_free = free;
      }
    }
    return split != UINT32_MAX && FinishSplitZone(device, split);
  }
  // A zone the device failed is retired, which frees its active slot too.
  if (!m.dev->FinishZone(best, {IoClass::kOther}).ok()) return RetireIfFailed(device, best);
  m.zones[best].written = m.zones[best].capacity;
  m.partial.erase(best);
  return true;
}

uint32_t VolumeImpl::PickEmptyZone(uint32_t device, const FileMeta& file) const {
  const Member& m = members_[device];
  const uint32_t run = m.info.is_ssd() ? 1 : options_.disk_run_zones;
  if (run <= 1) return *m.empty.begin();
  if (file.tail_device == device && m.empty.contains(file.tail_zone + 1)) {
    return file.tail_zone + 1;
  }
  // The first empty zone with run - 1 empty zones after it and no other
  // file's tail in the run - 1 zones before it (that file grows into it).
  // A bounded look: a fragmented disk falls back to the lowest empty zone.
  constexpr int kMaxCandidates = 256;
  int looked = 0;
  for (uint32_t zone : m.empty) {
    if (++looked > kMaxCandidates) break;
    bool clear = true;
    for (uint32_t i = 1; i < run && clear; ++i) {
      clear = m.empty.contains(zone + i) && !(zone >= i && m.partial.contains(zone - i));
    }
    if (clear) return zone;
  }
  return *m.empty.begin();
}

absl::StatusOr<Lease> VolumeImpl::TryAcquire(FileMeta& file,
                                             std::optional<uint32_t> only_device,
                                             Purpose purpose, device::CellMode mode,
                                             bool reclaim_tried, std::vector<uint32_t>* busy_devices,
                                             bool* reclaim) {
  const std::vector<DeviceView> views = DeviceViews();
  PlacementDecision d = options_.placement->Place(file.hint, views);
  if (only_device) d.devices = {*only_device};
  // Only a zone of `mode` will do; else the policy's mode for a new zone.
  const bool mode_required = mode != device::CellMode::kNone;
  const device::CellMode open_mode = mode_required ? mode : d.cell_mode;
  auto mode_fits = [&](const ZoneUse& z) { return !mode_required || z.cell_mode == mode; };
  // GC and migration copy into general zones: the pool is for the WAL and
  // the cache.
  const bool want_pool = d.pool && purpose == Purpose::kWrite;
  auto grant = [&](uint32_t dev, uint32_t zone, uint64_t written) {
    Member& m = members_[dev];
    ZoneUse& z = m.zones[zone];
    z.leased = true;
    z.holder = file.hint.name;
    z.lease_id = next_lease_id_++;
    // A file writer may be preempted until it starts a write; GC and
    // migration copy without pause and keep their zone.
    z.idle = purpose == Purpose::kWrite;
    z.idle_since_us = NowUs();
    file.tail_device = dev;
    file.tail_zone = zone;
    if (purpose == Purpose::kWrite) NotifyPlaced(file, dev);
    const uint64_t start = m.dev->ZoneStart(zone);
    return Lease{dev, zone, z.lease_id, start + written, start + z.capacity};
  };
  // A subzone of its own when the policy asks for one (SplitZNS 4.3) and
  // a device offers it; else the file takes a zone of its group below.
  if (d.use_subzone && !mode_required) {
    for (uint32_t dev : d.devices) {
      if (dev >= members_.size()) continue;
      if (auto lease = LeaseSubzone(file, dev, d.group, purpose, views)) return *lease;
    }
  }
  for (uint32_t dev : d.devices) {
    if (dev >= members_.size()) continue;
    Member& m = members_[dev];
    // A zone of the same group with room left comes first.
    for (uint32_t zone : m.partial) {
      const ZoneUse& z = m.zones[zone];
      if (z.group != d.group || z.leased || !mode_fits(z)) continue;
      return grant(dev, zone, z.written);
    }
    // A new zone: from the pool while it has room (HHZS 3.2), else from the
    // general zones, which leave the pool's unused zones and GC's reserve.
    const uint32_t pool_size = options_.placement->PoolZones(dev, views);
    const bool from_pool = want_pool && m.pool_zones < pool_size;
    if (want_pool && !from_pool && pool_size > 0 && m.cache_zones > 0 && !reclaim_tried &&
        cache_reclaimer_) {
      // The pool is full and holds cache zones: the WAL goes first, so the
      // cache gives one back (FIFO eviction, HHZS 3.5) before the WAL
      // spills into the general zones.
      *reclaim = true;
      return absl::UnavailableError("the WAL/cache pool is full");
    }
    const uint32_t keep = purpose == Purpose::kGc ? 0
                          : from_pool           ? GcReserve(dev)
                                                : GcReserve(dev) + PoolReserve(dev, views);
    if (m.empty.size() <= keep) continue;
    if (!RoomForActiveZone(dev)) {
      busy_devices->push_back(dev);
      continue;
    }
    const uint32_t zone = PickEmptyZone(dev, file);
    // The device may refuse a mode (its limits): a writer then takes the
    // default mode, a move that needs the mode looks elsewhere.
    if (!OpenInMode(dev, zone, open_mode) &&
        (mode_required || !OpenInMode(dev, zone, device::CellMode::kNone))) {
      continue;
    }
    ZoneUse& z = m.zones[zone];
    m.empty.erase(zone);
    m.partial.insert(zone);  // counts as active from now on
    z.role = ZoneRole::kData;
    z.group = d.group;
    z.pool = from_pool;
    if (from_pool) ++m.pool_zones;
    pending_.push_back(ZoneGroupOp(dev, zone, d.group, from_pool));
    return grant(dev, zone, 0);
  }
  // No zone of its own group and no empty zone anywhere: rather than fail
  // with room left, share another group's partly written zone (lifetimes
  // mix, which GC can sort out later). Not without GC: nothing would sort
  // them out, and the shared zone lives as long as its longest-lived
  // extent (GearDB's small files' or L0's zone pinned by L4 SSTs, which
  // the layout then never frees whole): the write fails instead.
  if (options_.placement->allows_gc()) {
    for (uint32_t dev : d.devices) {
      if (dev >= members_.size()) continue;
      Member& m = members_[dev];
      for (uint32_t zone : m.partial) {
        const ZoneUse& z = m.zones[zone];
        if (z.leased || z.group == kNoGroup || z.full() || !mode_fits(z)) continue;
        return grant(dev, zone, z.written);
      }
    }
  }
  std::string where, busy_where;
  for (uint32_t dev : d.devices) {
    if (dev >= members_.size()) continue;
    const Member& m = members_[dev];
    absl::StrAppend(&where, where.empty() ? "" : ", ", m.info.name);
    if (m.empty.empty() || ActiveZones(dev) < MaxActive(dev)) continue;
    // Empty zones left, but every active zone is a writer's: the caller
    // waits for one, and says so if it waited in vain.
    uint32_t leased = 0;
    std::string holders;  // which files hold them, to tell a leak from a burst
    for (uint32_t zone : m.partial) {
      if (!m.zones[zone].leased) continue;
      ++leased;
      absl::StrAppend(&holders, holders.empty() ? "" : " ", m.zones[zone].holder);
    }
    absl::StrAppend(&busy_where, busy_where.empty() ? "" : ", ", m.info.name, " (", leased,
                    " of its ", MaxActive(dev), " active zones held by open writers, ",
                    m.empty.size(), " empty zones; held by: ", holders, ")");
  }
  if (!busy_where.empty()) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "no zone to write ", file.hint.name, ": every active zone is being written on ",
        busy_where));
  }
  return absl::ResourceExhaustedError(
      absl::StrCat("no space left on the volume for ", file.hint.name, ": no empty zone on ",
                   where.empty() ? "any device" : where));
}

absl::StatusOr<Lease> VolumeImpl::AcquireZone(FileMeta& file,
                                              std::optional<uint32_t> only_device,
                                              Purpose purpose, device::CellMode mode) {
  if (auto s = CheckWritable(); !s.ok()) return s;
  // While GC keeps emptying zones the writer asks it again (other writers
  // may take what one run frees); once a run empties none, the writer
  // stops asking and the error it returns says why.
  bool gc_exhausted = false;
  std::string gc_outcome;
  bool reclaim_tried = false;
  bool waited = false;
  const uint64_t deadline = clock_->NowNs() + kZoneWaitNs;
  uint64_t space_deadline = 0;  // set when the volume is first found full
  while (true) {
    absl::Status status;
    std::function<bool()> reclaim_one;
    {
      absl::MutexLock lock(&mu_);
      bool reclaim = false;
      std::vector<uint32_t> busy;
      auto lease = TryAcquire(file, only_device, purpose, mode, reclaim_tried, &busy, &reclaim);
      if (lease.ok()) return lease;
      status = lease.status();
      if (reclaim) {
        reclaim_one = cache_reclaimer_;
      } else if (!busy.empty()) {
        // Empty zones exist but every active zone is leased. A writer idle
        // long enough (or, once we waited, the one idle the longest) gives
        // its zone back; else wait for a release.
        const uint64_t now_us = NowUs();
        const uint64_t idle_before = waited ? now_us : now_us - std::min(now_us, kIdleLeaseUs);
        bool revoked = false;
        for (uint32_t dev : busy) revoked = revoked || RevokeIdleLease(dev, idle_before);
        if (revoked) continue;
        const uint64_t now = clock_->NowNs();
        if (now < deadline) {
          zone_released_.WaitWithTimeout(&mu_,
                                         TimeUntil(std::min(deadline, now + kReleaseWaitNs)));
          waited = true;
          continue;
        }
      }
    }
    if (reclaim_one) {
      // Without mu_: the cache releases its zone through ReleaseCacheZone.
      reclaim_tried = true;
      (void)reclaim_one();
      continue;
    }
    if (purpose != Purpose::kWrite || !absl::IsResourceExhausted(status)) return status;
    if (!gc_exhausted && options_.placement->allows_gc()) {
      // Full: reclaim dead space synchronously, then try again.
      auto gc = mover_.CollectGarbage(GcTrigger::kWriterOutOfRoom);
      if (gc.ok() && gc->zones_reclaimed > 0) continue;
      gc_exhausted = true;
      if (!gc.ok()) {
        gc_outcome = absl::StrCat("GC failed: ", gc.status().message());
      } else if (!gc->stopped.ok()) {
        gc_outcome = absl::StrCat("GC emptied no zone: ", gc->stopped.message());
      } else if (gc->bytes_relocated > 0) {
        gc_outcome = "GC emptied no zone (those it moved data out of still hold live data)";
      } else {
        gc_outcome = "GC found no full zone with dead data it could collect";
      }
    }
    const auto full = [&](const absl::Status& s) {
      if (gc_outcome.empty()) return s;
      return absl::Status(s.code(), absl::StrCat(s.message(), "; ", gc_outcome));
    };
    // Still full. Space that files about to die hold comes back without
    // GC: RocksDB deletes a compaction's inputs once its outputs are
    // written, so with many compactions at once the volume is fullest just
    // before they end. A writer waits for such a release, as it waits for
    // an active zone, before it reports the volume full.
    // Only while another writer is at work (nothing else frees space that
    // fast) and on the real clock (a simulated one may not move while
    // this writer waits).
    // A volume a writer already waited on in vain, with no zone emptied
    // since, is full: the next writers fail at once.
    absl::MutexLock lock(&mu_);
    if (!real_clock_ || full_at_emptied_ == zones_emptied_ || !OtherWriterLeases(file)) {
      return full(status);
    }
    const uint64_t now = clock_->NowNs();
    if (space_deadline == 0) space_deadline = now + kSpaceWaitNs;
    if (now >= space_deadline) {
      full_at_emptied_ = zones_emptied_;
      return full(status);
    }
    zone_released_.WaitWithTimeout(&mu_, TimeUntil(std::min(space_deadline, now + kReleaseWaitNs)));
    waited = true;
  }
}

bool VolumeImpl::OtherWriterLeases(const FileMeta& file) const {
  for (const Member& m : members_) {
    for (uint32_t zone : m.partial) {
      const ZoneUse& z = m.zones[zone];
      if (z.leased && z.holder != file.hint.name) return true;
    }
    for (uint32_t zone : m.split_open) {
      for (const SubzoneUse& s : m.zones[zone].subzones) {
        if (s.leased && s.holder != file.hint.name) return true;
      }
    }
  }
  return false;
}

void VolumeImpl::ReleaseZone(const Lease& lease) {
  absl::MutexLock lock(&mu_);
  Member& m = members_[lease.device];
  ZoneUse& z = m.zones[lease.zone];
  if (lease.subzone >= 0) {
    SubzoneUse& s = z.subzones[lease.subzone];
    if (!s.leased || s.lease_id != lease.id) return;
    EndWriteLocked(lease, lease.next);
    UnleaseSubzone(lease.device, lease.zone, lease.subzone);
    return;
  }
  // Revoked while its writer was idle: the zone is another lease's now.
  if (!z.leased || z.lease_id != lease.id) return;
  const uint64_t written = lease.next - m.dev->ZoneStart(lease.zone);
  if (written > z.written) z.written = written;
  Unlease(lease.device, lease.zone);
}

void VolumeImpl::Unlease(uint32_t device, uint32_t zone) {
  Member& m = members_[device];
  ZoneUse& z = m.zones[zone];
  z.leased = false;
  z.idle = false;
  z.lease_id = 0;
  if (z.retired) {  // out of use for good (zone_retire.cc)
    zone_released_.SignalAll();
    return;
  }
  if (z.written == 0) {
    // Leased but never written: the zone is empty again. One opened
    // explicitly in another mode holds the device's resources for that
    // mode until it is reset.
    if (z.cell_mode != m.info.default_cell_mode &&
        !m.dev->ResetZone(zone, {IoClass::kOther}).ok()) {
      RetireIfFailed(device, zone);
    }
    if (!z.retired) ZoneEmptied(device, zone);
  } else if (z.full()) {
    m.partial.erase(zone);
  }
  if (z.valid == 0) m.maybe_dead.insert(zone);
  ResetDeadZones();
  zone_released_.SignalAll();
}

bool VolumeImpl::RevokeIdleLease(uint32_t device, uint64_t idle_before_us) {
  Member& m = members_[device];
  uint32_t best = UINT32_MAX;
  for (uint32_t zone : m.partial) {
    const ZoneUse& z = m.zones[zone];
    if (!z.leased || !z.idle || z.retired || z.idle_since_us > idle_before_us) continue;
    if (best == UINT32_MAX || z.idle_since_us < m.zones[best].idle_since_us) best = zone;
  }
  if (best == UINT32_MAX) return false;
  Unlease(device, best);
  return true;
}

void VolumeImpl::EndWrite(const Lease& lease, uint64_t next) {
  absl::MutexLock lock(&mu_);
  EndWriteLocked(lease, next);
}

void VolumeImpl::EndWriteLocked(const Lease& lease, uint64_t next) {
  Member& m = members_[lease.device];
  ZoneUse& z = m.zones[lease.zone];
  if (lease.subzone >= 0) {
    // Subzone writers are never preempted: a split zone holds one active
    // zone for all its writers.
    SubzoneUse& s = z.subzones[lease.subzone];
    if (!s.leased || s.lease_id != lease.id) return;
    const uint64_t written =
        next - m.dev->ZoneStart(lease.zone) - lease.subzone * m.info.subzone_size();
    if (written > s.written) {
      if (m.split_open.contains(lease.zone)) z.written += written - s.written;
      s.written = written;
    }
    return;
  }
  if (!z.leased || z.lease_id != lease.id) return;
  const uint64_t written = next - m.dev->ZoneStart(lease.zone);
  if (written > z.written) z.written = written;
  z.idle = true;
  z.idle_since_us = NowUs();
}

bool VolumeImpl::BeginWrite(const Lease& lease) {
  absl::MutexLock lock(&mu_);
  ZoneUse& z = members_[lease.device].zones[lease.zone];
  if (lease.subzone >= 0) {
    const SubzoneUse& s = z.subzones[lease.subzone];
    return s.leased && s.lease_id == lease.id;
  }
  if (!z.leased || z.lease_id != lease.id) return false;
  z.idle = false;
  return true;
}

}  // namespace zonestack::zfs
