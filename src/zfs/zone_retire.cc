// Zones the device fails. A zone that went read-only or offline (worn-out
// media: ZNS status 0x1BA and 0x1BB) is retired: never allocated, written,
// finished or reset again. Mount keeps such zones out of use from their
// device state, which the device keeps (VolumeImpl::Recover); this file
// does the same for a mounted volume, moves the live data out of read-only
// zones (they stay readable) and names the files an offline zone took data
// from, so no read returns anything but the data or an error.
#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "device/zone_error.h"
#include "zfs/volume_impl.h"

namespace zonestack::zfs {
namespace {

using device::ZoneError;
using device::ZoneState;

// `error` with `context` in front of its message. The code and payloads
// stay, so a typed zone error keeps its type.
absl::Status WithContext(const absl::Status& error, const std::string& context) {
  absl::Status out(error.code(), absl::StrCat(context, ": ", error.message()));
  error.ForEachPayload(
      [&](absl::string_view url, const absl::Cord& payload) { out.SetPayload(url, payload); });
  return out;
}

// REQUIRES: the volume's mu_ (it guards the names).
std::string NameOf(const FileMeta& f) {
  return f.names.empty() ? absl::StrCat("file #", f.id) : f.names.front();
}

}  // namespace

bool VolumeImpl::RetireIfFailed(uint32_t device, uint32_t zone) {
  ZoneUse& z = members_[device].zones[zone];
  if (z.offline) return true;
  auto zi = members_[device].dev->ReportZone(zone);
  if (!zi.ok()) return z.retired;
  if (zi->state != ZoneState::kReadOnly && zi->state != ZoneState::kOffline) return z.retired;
  RetireZone(device, zone, zi->state == ZoneState::kOffline);
  return true;
}

void VolumeImpl::RetireZone(uint32_t device, uint32_t zone, bool offline) {
  Member& m = members_[device];
  ZoneUse& z = m.zones[zone];
  if (z.retired) {
    z.offline |= offline;  // a read-only zone may still go offline
    return;
  }
  z.retired = true;
  z.offline = offline;
  if (z.role == ZoneRole::kCache) {
    --m.cache_zones;
    --m.pool_zones;
    if (!z.full()) --m.cache_active;
  } else if (z.pool) {
    --m.pool_zones;
  }
  // Label and metadata zones keep their role (the metadata log reports its
  // own write errors); a data zone leaves the data zones as at mount.
  if (z.role == ZoneRole::kData || z.role == ZoneRole::kFree || z.role == ZoneRole::kCache) {
    if (m.data_zones > 0) --m.data_zones;
    z.role = ZoneRole::kLabel;  // not for data, as Recover marks it
  }
  z.group = kNoGroup;
  z.pool = false;
  m.empty.erase(zone);
  m.partial.erase(zone);  // no longer active on the device
  m.split_open.erase(zone);
  m.maybe_dead.erase(zone);
  zone_released_.SignalAll();
  // The GC thread moves the live data of a read-only zone out.
  mover_.WakeGc();
}

absl::Status VolumeImpl::WriteFailed(FileMeta& file, Lease* lease, const absl::Status& error) {
  absl::MutexLock lock(&mu_);
  const std::string name = NameOf(file);
  const uint32_t device = lease->device, zone = lease->zone;
  if (!RetireIfFailed(device, zone)) {
    EndWriteLocked(*lease, lease->next);  // the writer keeps its lease, idle
    return WithContext(error, name);
  }
  if (lease->subzone >= 0) {
    UnleaseSubzone(device, zone, static_cast<uint32_t>(lease->subzone));
  } else {
    Unlease(device, zone);
  }
  *lease = {};
  if (!members_[device].zones[zone].offline) return absl::OkStatus();
  absl::ReaderMutexLock fl(&file.mu);
  const bool lost = std::any_of(file.extents.begin(), file.extents.end(), [&](const Extent& x) {
    return x.device == device && ZoneOf(x) == zone;
  });
  if (!lost) return absl::OkStatus();
  return device::MakeZoneError(
      ZoneError::kOffline, absl::StrCat(name, ": data written to device ", device, " (",
                                        members_[device].info.name, ") zone ", zone,
                                        " is lost: the zone went offline"));
}

absl::Status VolumeImpl::ReadFailed(const FileMeta& file, const absl::Status& error) {
  absl::MutexLock lock(&mu_);
  const std::string name = NameOf(file);
  if (device::GetZoneError(error) != ZoneError::kOffline) return WithContext(error, name);
  std::set<std::pair<uint32_t, uint32_t>> zones;
  {
    absl::ReaderMutexLock fl(&file.mu);
    for (const Extent& x : file.extents) zones.insert({x.device, ZoneOf(x)});
  }
  std::string lost;
  for (const auto& [d, z] : zones) {
    if (!RetireIfFailed(d, z) || !members_[d].zones[z].offline) continue;
    absl::StrAppend(&lost, lost.empty() ? "" : ", ", "device ", d, " (", members_[d].info.name,
                    ") zone ", z);
  }
  if (lost.empty()) return WithContext(error, name);
  return device::MakeZoneError(ZoneError::kOffline,
                               absl::StrCat(name, ": data lost: offline ", lost));
}

void VolumeImpl::HandleFailedZones(bool report_zones) {
  if (read_only_) return;
  std::vector<std::pair<uint32_t, uint32_t>> read_only_with_data;
  for (uint32_t d = 0; d < members_.size(); ++d) {
    std::optional<std::vector<device::ZoneInfo>> report;
    if (report_zones) {
      auto zones = members_[d].dev->ReportZones(0, members_[d].info.num_zones);
      if (zones.ok()) report = std::move(*zones);
    }
    absl::MutexLock lock(&mu_);
    for (const device::ZoneInfo& zi : report.value_or(std::vector<device::ZoneInfo>{})) {
      if (zi.state == ZoneState::kReadOnly || zi.state == ZoneState::kOffline) {
        RetireZone(d, zi.index, zi.state == ZoneState::kOffline);
      }
    }
    const std::vector<ZoneUse>& zones = members_[d].zones;
    for (uint32_t z = 0; z < zones.size(); ++z) {
      if (zones[z].retired && !zones[z].offline && zones[z].valid > 0) {
        read_only_with_data.push_back({d, z});
      }
    }
  }
  for (const auto& [d, z] : read_only_with_data) EvacuateZone(d, z);
}

void VolumeImpl::EvacuateZone(uint32_t device, uint32_t zone) {
  const auto here = [&](const Extent& x) { return x.device == device && ZoneOf(x) == zone; };
  std::vector<std::shared_ptr<FileMeta>> owners;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [id, f] : files_) {
      if (f->writer_open) continue;  // moved once its writer closes it
      absl::ReaderMutexLock fl(&f->mu);
      if (std::any_of(f->extents.begin(), f->extents.end(), here)) owners.push_back(f);
    }
  }
  for (const auto& f : owners) {
    // The same device first, so placement stays as the policy chose;
    // another device only when this one has no room.
    std::vector<uint32_t> targets = {device};
    for (uint32_t d = 0; d < members_.size(); ++d) {
      if (d != device) targets.push_back(d);
    }
    for (uint32_t to : targets) {
      uint64_t moved = 0;
      const absl::Status s =
          MoveExtents(f, here, to,
                      {.purpose = Purpose::kMigration,
                       .io_class = device::IoClass::kGc,
                       .notify_placed = to != device},
                      &moved);
      // Anything but no room (a read error, the file changed) is retried
      // at the GC thread's next pass.
      if (!absl::IsResourceExhausted(s)) break;
    }
  }
}

}  // namespace zonestack::zfs
