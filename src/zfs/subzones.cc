// zfs's subzone allocator (SplitZNS sections 4.2-4.3): split zones, one
// subzone per writer, finish when the writer closes, reset when the last
// live extent in a subzone dies, merge back into a wide zone when every
// subzone is empty. Which chip a subzone lives on is the device's choice
// (its round-robin chip allocator, at the subzone's first write, never a
// chip another subzone of the same split zone holds); the host's part of
// the chip allocation is to fill one split zone before opening the next,
// so that concurrent writers land on distinct chips.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "zfs/volume_impl.h"

namespace zonestack::zfs {
namespace {

using device::IoClass;
using device::IoContext;

// Subzones of `z` in use: written, full or leased (the paper's "capacity
// usage" of a split zone).
uint32_t SubzonesInUse(const ZoneUse& z) {
  uint32_t n = 0;
  for (const SubzoneUse& s : z.subzones) n += s.written > 0 || s.full || s.leased ? 1 : 0;
  return n;
}

// A subzone a new writer may take: empty, not finished, not leased.
bool Writable(const SubzoneUse& s) { return s.written == 0 && !s.full && !s.leased; }

}  // namespace

VolumeImpl::Region VolumeImpl::RegionAt(uint32_t device, uint64_t offset) const {
  const Member& m = members_[device];
  const auto zone = static_cast<uint32_t>(offset / m.info.zone_size);
  const ZoneUse& z = m.zones[zone];
  const uint64_t zone_start = static_cast<uint64_t>(zone) * m.info.zone_size;
  if (!z.split()) return {zone_start, zone_start + z.written};
  const auto sub = static_cast<uint32_t>(SubzoneSlot(device, offset));
  const uint64_t start = zone_start + sub * m.info.subzone_size();
  return {start, start + z.subzones[sub].written};
}

uint32_t VolumeImpl::FreeSubzones(uint32_t device) const {
  // Open split zones' and finished ones' alike: a finished split zone is
  // reopened for its reset subzones (ReopenSplitZone).
  const Member& m = members_[device];
  // DeviceViews() asks on every allocation: no scan where no zone splits.
  if (!m.info.supports_subzones) return 0;
  uint32_t n = 0;
  for (const ZoneUse& z : m.zones) {
    if (!z.split() || z.retired) continue;
    for (const SubzoneUse& s : z.subzones) n += Writable(s) ? 1 : 0;
  }
  return n;
}

bool VolumeImpl::SplitVictimFrees(uint32_t device, uint32_t zone) const {
  const Member& m = members_[device];
  uint32_t live = 0;
  for (const SubzoneUse& s : m.zones[zone].subzones) live += s.valid > 0 ? 1 : 0;
  // Empty subzones of the other split zones, open or finished (a finished
  // one is reopened for them), as FreeSubzones counts them.
  uint32_t elsewhere = 0;
  for (uint32_t other = 0; other < m.zones.size() && elsewhere < live; ++other) {
    const ZoneUse& z = m.zones[other];
    if (other == zone || !z.split() || z.retired) continue;
    for (const SubzoneUse& s : z.subzones) elsewhere += Writable(s) ? 1 : 0;
  }
  return live <= elsewhere;
}

uint32_t VolumeImpl::MostUsedSplitZone(uint32_t device, bool open) const {
  const Member& m = members_[device];
  uint32_t best = UINT32_MAX, best_used = 0;
  for (uint32_t zone = 0; zone < m.zones.size(); ++zone) {
    const ZoneUse& z = m.zones[zone];
    if (!z.split() || z.retired || zone == m.collecting || m.split_open.contains(zone) != open) {
      continue;
    }
    if (std::none_of(z.subzones.begin(), z.subzones.end(), Writable)) continue;
    const uint32_t used = SubzonesInUse(z);
    if (best == UINT32_MAX || used > best_used) {
      best = zone;
      best_used = used;
    }
  }
  return best;
}

uint32_t VolumeImpl::ReopenSplitZone(uint32_t device) {
  const uint32_t best = MostUsedSplitZone(device, /*open=*/false);
  if (best == UINT32_MAX || !RoomForActiveZone(device)) return UINT32_MAX;
  Member& m = members_[device];
  ZoneUse& z = m.zones[best];
  if (!m.dev->OpenZone(best, z.cell_mode, {IoClass::kOther}).ok()) {
    RetireIfFailed(device, best);
    return UINT32_MAX;
  }
  m.split_open.insert(best);
  // An open split zone counts the bytes its subzones hold (a finished one
  // counts as full).
  z.written = 0;
  for (const SubzoneUse& s : z.subzones) z.written += s.written;
  return best;
}

std::optional<Lease> VolumeImpl::LeaseSubzone(FileMeta& file, uint32_t device, uint32_t group,
                                              Purpose purpose,
                                              const std::vector<DeviceView>& views) {
  Member& m = members_[device];
  if (!m.info.supports_subzones) return std::nullopt;
  // The greedy subzone allocator (4.3): the open split zone with the most
  // subzones in use, so writers share a split zone and the device's chip
  // allocator gives each a chip of its own.
  uint32_t best = MostUsedSplitZone(device, /*open=*/true);
  // Else a finished split zone whose reset subzones take SSTs again: the
  // space a dead SST leaves is reused without GC (4.3), and no empty zone
  // is split while one of those waits.
  if (best == UINT32_MAX) best = ReopenSplitZone(device);
  // GC emptying a split zone takes no newly split zone: that would trade
  // one zone for another and move every live SST for nothing. Without an
  // empty subzone elsewhere the SST goes to a wide zone.
  if (best == UINT32_MAX && purpose == Purpose::kGc && m.collecting != UINT32_MAX &&
      m.zones[m.collecting].split()) {
    return std::nullopt;
  }
  if (best == UINT32_MAX) {
    // Split an empty zone, within the same reserves as a new wide zone.
    // GC may take an empty zone for a new wide zone, but splits one only
    // when another is left: the victim's other live files need a wide
    // zone, and a GC run that splits the last empty zone for one SST
    // leaves them nowhere to go, frees nothing, and leaves every later GC
    // run without an empty zone too.
    const uint32_t keep = purpose == Purpose::kGc ? 1 : GcReserve(device) + PoolReserve(device, views);
    if (m.empty.size() <= keep || !RoomForActiveZone(device)) return std::nullopt;
    const uint32_t zone = *m.empty.begin();
    if (!m.dev->SplitZone(zone, {IoClass::kOther}).ok()) {
      RetireIfFailed(device, zone);
      return std::nullopt;
    }
    ZoneUse& z = m.zones[zone];
    m.empty.erase(zone);
    m.split_open.insert(zone);
    z.role = ZoneRole::kData;
    z.group = group;
    z.written = 0;
    z.subzones.assign(m.info.subzones_per_zone, SubzoneUse{});
    // Logged before any record that puts an extent in it.
    pending_.push_back({.type = OpType::kSplitZone, .device = device, .zone = zone});
    split_logged_[device].insert(zone);
    best = zone;
  }
  ZoneUse& z = m.zones[best];
  uint32_t sub = 0;
  while (!Writable(z.subzones[sub])) ++sub;
  SubzoneUse& s = z.subzones[sub];
  s.leased = true;
  s.holder = file.hint.name;
  s.lease_id = next_lease_id_++;
  file.tail_device = device;
  file.tail_zone = best;
  if (purpose == Purpose::kWrite) NotifyPlaced(file, device);
  const uint64_t start = m.dev->ZoneStart(best) + sub * m.info.subzone_size();
  return Lease{device, best, s.lease_id, start, start + m.info.subzone_capacity(),
               static_cast<int32_t>(sub)};
}

bool VolumeImpl::FinishSplitZone(uint32_t device, uint32_t zone) {
  Member& m = members_[device];
  ZoneUse& z = m.zones[zone];
  if (!m.dev->FinishZone(zone, {IoClass::kOther}).ok()) return RetireIfFailed(device, zone);
  m.split_open.erase(zone);
  z.written = z.capacity;
  return true;
}

void VolumeImpl::UnleaseSubzone(uint32_t device, uint32_t zone, uint32_t subzone) {
  Member& m = members_[device];
  ZoneUse& z = m.zones[zone];
  SubzoneUse& s = z.subzones[subzone];
  s.leased = false;
  s.lease_id = 0;
  s.holder.clear();
  if (z.retired) {
    zone_released_.SignalAll();
    return;
  }
  // The paper finishes a subzone when its SST is written: one file per
  // subzone, so the subzone dies whole with it.
  if (s.written > 0 && !s.full) {
    if (m.dev->FinishSubzone(zone, subzone, {IoClass::kOther}).ok()) {
      s.full = true;
      s.written = m.info.subzone_capacity();
    } else {
      RetireIfFailed(device, zone);
    }
  }
  if (s.valid == 0) m.maybe_dead.insert(zone);
  // No empty subzone left for a writer: the split zone gives its active
  // zone back.
  bool any_writable = false, any_leased = false;
  for (const SubzoneUse& t : z.subzones) {
    any_writable = any_writable || Writable(t);
    any_leased = any_leased || t.leased;
  }
  if (!z.retired && m.split_open.contains(zone) && !any_writable && !any_leased) {
    FinishSplitZone(device, zone);
  }
  ResetDeadZones();
  zone_released_.SignalAll();
}

bool VolumeImpl::ResetDeadSubzones(uint32_t device, uint32_t zone) {
  Member& m = members_[device];
  ZoneUse& z = m.zones[zone];
  if (z.retired) return true;
  const IoContext ctx{IoClass::kGc};
  bool ok = true, all_empty = true;
  for (uint32_t i = 0; i < z.subzones.size(); ++i) {
    SubzoneUse& s = z.subzones[i];
    if (s.leased) {
      all_empty = false;
      continue;
    }
    if (s.valid == 0 && (s.written > 0 || s.full)) {
      // The paper's MERGE of a subzone: erased on its chip alone.
      if (!ReleasesDurable()) {  // the next pass retries
        ok = false;
        all_empty = false;
        continue;
      }
      if (!m.dev->ResetSubzone(zone, i, ctx).ok()) {
        if (RetireIfFailed(device, zone)) return true;
        ok = false;
        all_empty = false;
        continue;
      }
      s = SubzoneUse{};
    }
    all_empty = all_empty && s.written == 0 && !s.full;
  }
  if (!all_empty) {
    if (m.split_open.contains(zone)) {
      z.written = 0;
      for (const SubzoneUse& s : z.subzones) z.written += s.written;
    }
    return ok;
  }
  // Every subzone is empty: the paper's RESET of a split zone makes it an
  // empty wide zone again, for wide or split use, and frees its active
  // zone.
  if (!m.dev->MergeZone(zone, ctx).ok()) return RetireIfFailed(device, zone);
  ZoneEmptied(device, zone);
  return ok;
}

absl::Status VolumeImpl::LoadSubzones(uint32_t device) {
  Member& m = members_[device];
  if (!m.info.supports_subzones) return absl::OkStatus();
  auto zones = m.dev->ReportZones(0, m.info.num_zones);
  if (!zones.ok()) return zones.status();
  for (const device::ZoneInfo& zi : *zones) {
    if (!zi.IsSplit()) continue;
    ZoneUse& z = m.zones[zi.index];
    auto subs = m.dev->ReportSubzones(zi.index);
    if (!subs.ok()) return subs.status();
    z.subzones.assign(subs->size(), SubzoneUse{});
    z.written = 0;
    for (const device::SubzoneInfo& si : *subs) {
      SubzoneUse& s = z.subzones[si.index];
      s.full = si.state == device::ZoneState::kFull;
      s.written = si.write_pointer - si.start;
      z.written += s.written;
    }
    if (zi.state == device::ZoneState::kFull) {
      z.written = z.capacity;
    } else if (zi.state != device::ZoneState::kReadOnly &&
               zi.state != device::ZoneState::kOffline) {
      m.split_open.insert(zi.index);
    }
  }
  return absl::OkStatus();
}

absl::Status VolumeImpl::FinishOrphanSubzones(uint32_t device) {
  Member& m = members_[device];
  for (uint32_t zone : std::vector<uint32_t>(m.split_open.begin(), m.split_open.end())) {
    ZoneUse& z = m.zones[zone];
    bool any_writable = false;
    for (uint32_t i = 0; i < z.subzones.size(); ++i) {
      SubzoneUse& s = z.subzones[i];
      // Written by a writer a crash or unmount ended: it holds that one
      // file's data, so it takes no other file's.
      if (s.written > 0 && !s.full && s.valid > 0) {
        if (auto st = m.dev->FinishSubzone(zone, i, {IoClass::kMetadata}); !st.ok()) return st;
        s.full = true;
        s.written = m.info.subzone_capacity();
      }
      any_writable = any_writable || Writable(s);
    }
    z.written = 0;
    for (const SubzoneUse& s : z.subzones) z.written += s.written;
    bool dead = false;
    for (const SubzoneUse& s : z.subzones) dead = dead || (s.valid == 0 && s.written > 0);
    if (!any_writable && !dead && !FinishSplitZone(device, zone)) {
      return absl::InternalError(absl::StrCat("finishing split zone ", zone, " of ",
                                              m.info.name, " failed"));
    }
  }
  return absl::OkStatus();
}

}  // namespace zonestack::zfs
