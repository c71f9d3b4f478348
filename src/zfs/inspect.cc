// Read-only views of a volume for zsctl and tests, and the consistency
// check (fsck).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "zfs/volume_impl.h"

namespace zonestack::zfs {

std::vector<DeviceSpace> VolumeImpl::Space() const {
  absl::MutexLock lock(&mu_);
  std::vector<DeviceSpace> out;
  for (const Member& m : members_) {
    DeviceSpace s;
    s.name = m.info.name;
    s.zones = m.info.num_zones;
    s.empty_zones = static_cast<uint32_t>(m.empty.size());
    for (const ZoneUse& z : m.zones) {
      if (z.role != ZoneRole::kData && z.role != ZoneRole::kFree && z.role != ZoneRole::kCache) {
        continue;
      }
      ++s.data_zones;
      s.capacity_bytes += z.capacity;
      s.valid_bytes += z.valid;
      s.written_bytes += z.written;
    }
    // Empty zones count at the capacity an implicit open gives them: on an
    // HZNS device the capacity grows as zones are opened in QLC (ZnH2 4.2).
    s.free_bytes = m.empty.size() * m.default_capacity();
    for (uint32_t z : m.partial) s.free_bytes += m.zones[z].capacity - m.zones[z].written;
    out.push_back(s);
  }
  return out;
}

std::vector<ZoneReport> VolumeImpl::Zones() const {
  absl::MutexLock lock(&mu_);
  std::vector<ZoneReport> out;
  for (uint32_t d = 0; d < members_.size(); ++d) {
    auto zones = members_[d].dev->ReportZones(0, members_[d].info.num_zones);
    if (!zones.ok()) continue;
    for (const device::ZoneInfo& zi : *zones) {
      const ZoneUse& z = members_[d].zones[zi.index];
      // The device's write pointer is the truth about what was written.
      // A split zone has no write pointer of its own: its subzones' sum.
      const uint64_t written = zi.IsSplit() ? z.written
                               : zi.state == device::ZoneState::kFull ? zi.capacity
                               : zi.type == device::ZoneType::kConventional
                                   ? 0
                                   : zi.write_pointer - zi.start;
      out.push_back({d, zi, z.role, z.group, z.pool || z.role == ZoneRole::kCache, z.valid,
                     written});
    }
  }
  return out;
}

std::vector<FileInfo> VolumeImpl::Files() const {
  absl::MutexLock lock(&mu_);
  std::vector<FileInfo> out;
  for (const auto& [id, f] : files_) {
    FileInfo info;
    info.id = id;
    info.names = f->names;
    info.size = f->size.load();
    info.hint = f->hint;
    absl::ReaderMutexLock fl(&f->mu);
    for (const Extent& x : f->extents) {
      info.extents.push_back({x.device, ZoneOf(x), x.offset, x.length});
    }
    out.push_back(std::move(info));
  }
  return out;
}

std::vector<std::string> VolumeImpl::Check() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> problems;
  auto problem = [&](auto&&... parts) { problems.push_back(absl::StrCat(parts...)); };
  // Expected valid bytes per zone, and every extent by position.
  std::vector<std::vector<uint64_t>> valid(members_.size());
  struct Placed {
    uint64_t start, end, file;
  };
  std::vector<std::vector<Placed>> placed(members_.size());
  for (uint32_t d = 0; d < members_.size(); ++d) valid[d].resize(members_[d].zones.size());
  for (const auto& [name, id] : names_) {
    if (!files_.contains(id)) problem("name ", name, " refers to missing file ", id);
    if (!dirs_.contains(ParentDir(name)) && ParentDir(name) != "/") {
      problem("file ", name, " is in missing directory ", ParentDir(name));
    }
  }
  for (const auto& [id, f] : files_) {
    const std::string name = f->names.empty() ? absl::StrCat("#", id) : f->names[0];
    if (f->names.empty()) problem("file #", id, " has no name");
    absl::ReaderMutexLock fl(&f->mu);
    uint64_t sum = 0;
    for (const Extent& x : f->extents) {
      sum += x.length;
      if (x.device >= members_.size()) {
        problem(name, ": extent on missing device ", x.device);
        continue;
      }
      const Member& m = members_[x.device];
      const uint32_t zone = ZoneOf(x);
      if (zone >= m.zones.size()) {
        problem(name, ": extent at ", x.offset, " beyond device ", x.device);
        continue;
      }
      const ZoneUse& z = m.zones[zone];
      const uint64_t in_zone = x.offset % m.info.zone_size;
      auto zi = m.dev->ReportZone(zone);
      if (zi.ok() && zi->state == device::ZoneState::kOffline) {
        problem(name, ": extent in device ", x.device, " zone ", zone, " which is offline (data lost)");
      } else if (zi.ok() && zi->state == device::ZoneState::kReadOnly) {
        problem(name, ": extent in device ", x.device, " zone ", zone, " which is read-only");
      } else if (z.role != ZoneRole::kData) {
        problem(name, ": extent in device ", x.device, " zone ", zone, " which is not a data zone");
      }
      if (x.offset % m.info.block_size != 0) problem(name, ": unaligned extent at ", x.offset);
      if (in_zone + Physical(x) > z.capacity) {
        problem(name, ": extent at ", x.offset, " crosses the end of zone ", zone);
      }
      if (zi.ok() && zi->IsSplit()) {
        // In a split zone: below its subzone's write pointer, as the device
        // reports it.
        auto subs = m.dev->ReportSubzones(zone);
        const int32_t slot = SubzoneSlot(x.device, x.offset);
        if (!subs.ok() || slot < 0 || static_cast<size_t>(slot) >= subs->size()) {
          problem(name, ": extent at ", x.offset, " in split zone ", zone,
                  " whose subzones cannot be reported");
        } else if (x.offset + Physical(x) > (*subs)[slot].write_pointer) {
          problem(name, ": extent at device ", x.device, " offset ", x.offset, " ends beyond the ",
                  "write pointer ", (*subs)[slot].write_pointer, " of subzone ", slot,
                  " of zone ", zone, " (data lost)");
        }
        if (!split_logged_[x.device].contains(zone)) {
          problem(name, ": extent in split zone ", zone, " which the log never split");
        }
      } else if (zi.ok() && x.offset + Physical(x) > zi->write_pointer &&
          zi->state != device::ZoneState::kFull && zi->state != device::ZoneState::kOffline) {
        problem(name, ": extent at device ", x.device, " offset ", x.offset, " ends beyond the ",
                "write pointer ", zi->write_pointer, " of zone ", zone, " (data lost)");
      }
      valid[x.device][zone] += Physical(x);
      placed[x.device].push_back({x.offset, x.offset + Physical(x), id});
    }
    if (sum + f->staged.size() != f->size.load()) {
      problem(name, ": size ", f->size.load(), " but its extents hold ", sum, " bytes and ",
              f->staged.size(), " are staged");
    }
  }
  for (uint32_t d = 0; d < members_.size(); ++d) {
    auto& p = placed[d];
    std::sort(p.begin(), p.end(), [](const Placed& a, const Placed& b) { return a.start < b.start; });
    for (size_t i = 1; i < p.size(); ++i) {
      if (p[i].start < p[i - 1].end) {
        problem("device ", d, ": extents of files #", p[i - 1].file, " and #", p[i].file,
                " overlap at ", p[i].start);
      }
    }
    const Member& m = members_[d];
    uint32_t pool = 0, cache = 0;
    for (uint32_t zone = 0; zone < m.zones.size(); ++zone) {
      const ZoneUse& z = m.zones[zone];
      if (z.role == ZoneRole::kCache) ++cache;
      if (z.role == ZoneRole::kCache || (z.role == ZoneRole::kData && z.pool)) ++pool;
      // Deleted files still open for reading keep their zones' bytes valid.
      if (z.valid < valid[d][zone]) {
        problem("device ", d, " zone ", zone, ": accounted ", z.valid, " valid bytes, files hold ",
                valid[d][zone]);
      }
      auto zi = m.dev->ReportZone(zone);
      if (!zi.ok()) {
        problem("device ", d, " zone ", zone, ": ", zi.status().message());
        continue;
      }
      const uint64_t wp = zi->state == device::ZoneState::kFull ? zi->capacity
                                                                : zi->write_pointer - zi->start;
      if (zi->IsSplit() != z.split()) {
        problem("device ", d, " zone ", zone, ": the device says it is ",
                zi->IsSplit() ? "split" : "not split", ", zfs the opposite");
        continue;
      }
      if (z.split()) {
        auto subs = m.dev->ReportSubzones(zone);
        for (size_t i = 0; subs.ok() && i < subs->size() && i < z.subzones.size(); ++i) {
          const device::SubzoneInfo& si = (*subs)[i];
          const SubzoneUse& s = z.subzones[i];
          if (!s.leased && si.write_pointer - si.start != s.written) {
            problem("device ", d, " zone ", zone, " subzone ", i, ": write pointer at ",
                    si.write_pointer - si.start, " but zfs counts ", s.written, " bytes written");
          }
        }
        continue;
      }
      if (z.role == ZoneRole::kData && !z.leased && wp != z.written &&
          zi->type != device::ZoneType::kConventional) {
        problem("device ", d, " zone ", zone, ": write pointer at ", wp, " but zfs counts ",
                z.written, " bytes written");
      }
    }
    if (pool != m.pool_zones || cache != m.cache_zones) {
      problem("device ", d, ": ", pool, " pool zones (", cache, " cache) but zfs counts ",
              m.pool_zones, " (", m.cache_zones, ")");
    }
  }
  return problems;
}

absl::StatusOr<uint32_t> VolumeImpl::ReadCrc(uint32_t device, uint64_t offset,
                                             uint64_t length) const {
  const Member& m = members_[device];
  const uint64_t bs = m.info.block_size;
  std::vector<uint8_t> buf;
  uint32_t crc = 0;
  for (uint64_t done = 0; done < length;) {
    const uint64_t n = std::min<uint64_t>(length - done, 1 << 20);
    buf.resize((n + bs - 1) / bs * bs);  // device reads are whole blocks
    if (auto s = m.dev->Read(offset + done, buf, {device::IoClass::kMetadata}); !s.ok()) {
      return s;
    }
    crc = DataCrc(crc, buf.data(), static_cast<size_t>(n));
    done += n;
  }
  return crc;
}

std::vector<std::string> VolumeImpl::CheckData() const {
  std::vector<std::string> problems;
  for (const FileInfo& f : Files()) {
    const std::string name = f.names.empty() ? absl::StrCat("#", f.id) : f.names[0];
    std::vector<Extent> extents;
    {
      absl::MutexLock lock(&mu_);
      auto it = files_.find(f.id);
      if (it == files_.end()) continue;  // deleted meanwhile
      absl::ReaderMutexLock fl(&it->second->mu);
      extents = it->second->extents;
    }
    for (const Extent& x : extents) {
      auto crc = ReadCrc(x.device, x.offset, x.length);
      if (!crc.ok()) {
        problems.push_back(absl::StrCat(name, ": extent at device ", x.device, " offset ",
                                        x.offset, " cannot be read: ", crc.status().message()));
      } else if (*crc != x.crc) {
        problems.push_back(absl::StrCat(name, ": checksum mismatch in the ", x.length,
                                        " bytes at device ", x.device, " offset ", x.offset,
                                        " (data corrupt)"));
      }
    }
  }
  return problems;
}

absl::StatusOr<std::vector<std::string>> VolumeImpl::DumpLog() const {
  absl::MutexLock lock(&mu_);
  return log_->Dump();
}

MetadataLogTotals VolumeImpl::LogTotals() const {
  absl::MutexLock lock(&mu_);
  return log_ ? log_->totals() : MetadataLogTotals{};
}

}  // namespace zonestack::zfs
