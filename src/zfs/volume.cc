// Format, mount and recovery, the commit path, and Volume's forwarding.
#include <chrono>
#include <random>

#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "zfs/volume_impl.h"

namespace zonestack::zfs {

// The label goes to zone 0: the first conventional zone where a device has
// them (they are the lowest-numbered), else a sequential zone that is then
// finished.
uint32_t LabelZone(const device::DeviceInfo&) { return 0; }

std::string DeviceName(const device::ZonedDevice& dev, size_t i) {
  return absl::StrCat("device ", i, " (", dev.info().name, ")");
}

namespace {

using device::IoClass;
using device::IoContext;
using device::ZoneType;

const IoContext kMeta{IoClass::kMetadata};

// How often a wait looks at a simulated clock (VolumeImpl::TimeUntil).
constexpr absl::Duration kSimulatedClockPoll = absl::Milliseconds(1);

std::shared_ptr<device::Clock> ClockOf(const MountOptions& options) {
  if (options.clock) return options.clock;
  return std::shared_ptr<device::Clock>(device::RealClock::Default(), [](device::Clock*) {});
}


// Metadata zones: the first `n` sequential zones after the label zone.
std::vector<uint32_t> PickMetaZones(const device::DeviceInfo& info, uint32_t n) {
  std::vector<uint32_t> zones;
  for (uint32_t z = std::max(info.num_conventional_zones, LabelZone(info) + 1);
       z < info.num_zones && zones.size() < n; ++z) {
    zones.push_back(z);
  }
  return zones;
}


absl::StatusOr<Label> ReadLabel(device::ZonedDevice& dev, size_t i) {
  const uint32_t z = LabelZone(dev.info());
  auto zi = dev.ReportZone(z);
  if (!zi.ok()) return zi.status();
  const uint32_t bs = dev.info().block_size;
  if (zi->type != ZoneType::kConventional && zi->write_pointer - zi->start < bs) {
    return absl::NotFoundError(absl::StrCat(
        DeviceName(dev, i), " is not formatted as a ZoneStack volume: its label zone is empty"));
  }
  std::vector<uint8_t> block(bs);
  if (auto s = dev.Read(zi->start, block, kMeta); !s.ok()) return s;
  auto label = DecodeLabel(block);
  if (!label.ok()) {
    const absl::StatusCode code = label.status().code() == absl::StatusCode::kNotFound
                                      ? absl::StatusCode::kNotFound
                                      : label.status().code();
    return absl::Status(code, absl::StrCat(DeviceName(dev, i),
                                           " is not formatted as a ZoneStack volume: ",
                                           label.status().message()));
  }
  return label;
}

}  // namespace

uint64_t SystemMicros() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

std::string ParentDir(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return "/";
  return path.substr(0, slash);
}

// ---------------------------------------------------------------- format

absl::Status Volume::Format(const std::vector<std::shared_ptr<device::ZonedDevice>>& devices,
                            const FormatOptions& options) {
  if (devices.empty()) return absl::InvalidArgumentError("a volume needs at least one device");
  if (options.metadata_zones < 2) {
    return absl::InvalidArgumentError("a volume needs at least 2 metadata zones");
  }
  Label label;
  std::random_device rd;
  for (auto& b : label.volume_id) b = static_cast<uint8_t>(rd());
  label.meta_device = 0;
  for (uint32_t i = 0; i < devices.size(); ++i) {
    if (devices[i]->info().is_ssd()) {
      label.meta_device = i;
      break;
    }
  }
  for (const auto& d : devices) {
    const auto& info = d->info();
    label.members.push_back({info.zone_size, info.num_zones, info.block_size});
  }
  device::ZonedDevice& meta = *devices[label.meta_device];
  label.meta_zones = PickMetaZones(meta.info(), options.metadata_zones);
  for (uint32_t i = 0; i < devices.size(); ++i) {
    const auto& info = devices[i]->info();
    const uint32_t reserved = 1 + (i == label.meta_device ? options.metadata_zones : 0);
    if (info.num_zones < info.num_conventional_zones + reserved + 2 ||
        (i == label.meta_device && label.meta_zones.size() < options.metadata_zones)) {
      return absl::InvalidArgumentError(absl::StrCat(
          DeviceName(*devices[i], i), " has too few sequential zones for a volume (",
          info.num_zones - info.num_conventional_zones, "; needs ", reserved + 2, ")"));
    }
  }
  for (uint32_t i = 0; i < devices.size(); ++i) {
    device::ZonedDevice& dev = *devices[i];
    const auto& info = dev.info();
    for (uint32_t z = info.num_conventional_zones; z < info.num_zones; ++z) {
      auto zi = dev.ReportZone(z);
      if (!zi.ok()) return zi.status();
      if (zi->state == device::ZoneState::kEmpty) continue;
      if (auto s = dev.ResetZone(z, kMeta); !s.ok()) return s;
    }
    label.member_index = i;
    const uint32_t lz = LabelZone(info);
    if (auto s = dev.Write(dev.ZoneStart(lz), EncodeLabel(label, info.block_size), kMeta);
        !s.ok()) {
      return s;
    }
    if (dev.ReportZone(lz)->type != ZoneType::kConventional) {
      if (auto s = dev.FinishZone(lz, kMeta); !s.ok()) return s;
    }
    if (auto s = dev.Flush(kMeta); !s.ok()) return s;
  }
  return MetadataLog::Format(&meta, label.meta_zones, label.volume_id);
}

// ---------------------------------------------------------------- mount

absl::StatusOr<std::vector<Member>> CheckMembers(
    const std::vector<std::shared_ptr<device::ZonedDevice>>& devices, Label* label) {
  if (devices.empty()) return absl::InvalidArgumentError("a volume needs at least one device");
  std::vector<Label> labels;
  for (size_t i = 0; i < devices.size(); ++i) {
    auto l = ReadLabel(*devices[i], i);
    if (!l.ok()) return l.status();
    labels.push_back(*l);
  }
  const Label& first = labels[0];
  for (size_t i = 0; i < devices.size(); ++i) {
    const Label& l = labels[i];
    if (l.volume_id != first.volume_id) {
      return absl::FailedPreconditionError(absl::StrCat(
          DeviceName(*devices[i], i), " belongs to volume ", FormatVolumeId(l.volume_id),
          ", not to volume ", FormatVolumeId(first.volume_id), " of device 0"));
    }
    if (l.member_index != i) {
      return absl::FailedPreconditionError(absl::StrCat(
          DeviceName(*devices[i], i), " is member ", l.member_index,
          " of the volume: give the devices in the order they were formatted"));
    }
  }
  if (first.members.size() != devices.size()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "volume ", FormatVolumeId(first.volume_id), " has ", first.members.size(),
        " member devices but ", devices.size(), " were given: member ", devices.size(),
        devices.size() + 1 < first.members.size() ? " and later ones are" : " is", " missing"));
  }
  std::vector<Member> members;
  for (size_t i = 0; i < devices.size(); ++i) {
    const auto& info = devices[i]->info();
    const MemberGeometry g{info.zone_size, info.num_zones, info.block_size};
    if (!(g == first.members[i])) {
      return absl::FailedPreconditionError(absl::StrCat(
          DeviceName(*devices[i], i), " has ", g.num_zones, " zones of ", g.zone_size,
          " bytes but the volume recorded ", first.members[i].num_zones, " zones of ",
          first.members[i].zone_size));
    }
    Member m;
    m.dev = devices[i];
    m.info = info;
    m.label_zone = LabelZone(info);
    members.push_back(std::move(m));
  }
  *label = first;
  return members;
}

absl::StatusOr<std::unique_ptr<Volume>> Volume::Mount(
    std::vector<std::shared_ptr<device::ZonedDevice>> devices, const MountOptions& options) {
  Label first;
  auto members = CheckMembers(devices, &first);
  if (!members.ok()) return members.status();
  MountOptions opts = options;
  if (!opts.placement) {
    opts.placement = MakeLifetimePlacement();
  }
  auto impl = std::make_unique<VolumeImpl>(std::move(*members), first, opts);
  if (auto s = impl->Recover(opts.read_only); !s.ok()) return s;
  if (auto s = impl->ApplyStaged(); !s.ok()) return s;
  if (!opts.read_only) {
    impl->mover().Start(/*migration=*/opts.placement->MigrationRate() > 0,
                        /*cell_migration=*/opts.placement->CellMigrationPeriodNs() > 0);
  }
  return std::unique_ptr<Volume>(new Volume(std::move(impl)));
}

VolumeImpl::VolumeImpl(std::vector<Member> members, const Label& label,
                       const MountOptions& options)
    : members_(std::move(members)),
      label_(label),
      options_(options),
      clock_(ClockOf(options)),
      real_clock_(dynamic_cast<device::RealClock*>(clock_.get()) != nullptr),
      mover_(*this) {
  for (const Member& m : members_) devices_.push_back(m.dev);
  flush_pending_.assign(members_.size(), false);
  split_logged_.resize(members_.size());
}

VolumeImpl::~VolumeImpl() {
  mover_.Stop();
  if (read_only_) return;
  for (Member& m : members_) (void)m.dev->Flush(kMeta);
  RemoveIdleStagingFiles();
  // Empty unless a writer was left open: then its staging file stays for
  // the next mount.
  if (!staging_dir_.empty()) ::rmdir(staging_dir_.c_str());
}

absl::Duration VolumeImpl::TimeUntil(uint64_t deadline_ns) const {
  const uint64_t now = clock_->NowNs();
  if (now >= deadline_ns) return absl::ZeroDuration();
  return real_clock_ ? absl::Nanoseconds(deadline_ns - now) : kSimulatedClockPoll;
}

bool VolumeImpl::AwaitUntil(absl::Mutex& mu, const absl::Condition& cond,
                            uint64_t deadline_ns) const {
  while (!cond.Eval()) {
    const absl::Duration wait = TimeUntil(deadline_ns);
    if (wait == absl::ZeroDuration()) return false;
    mu.AwaitWithTimeout(cond, wait);
  }
  return true;
}

absl::Status VolumeImpl::Recover(bool read_only, RepairReport* repair) {
  absl::MutexLock lock(&mu_);
  read_only_ = read_only;
  // Zone roles and write pointers from the devices.
  for (uint32_t d = 0; d < members_.size(); ++d) {
    Member& m = members_[d];
    auto zones = m.dev->ReportZones(0, m.info.num_zones);
    if (!zones.ok()) return zones.status();
    m.zones.resize(zones->size());
    for (const device::ZoneInfo& zi : *zones) {
      ZoneUse& z = m.zones[zi.index];
      z.capacity = zi.capacity;
      z.cell_mode = zi.cell_mode;
      z.written = zi.state == device::ZoneState::kFull ? zi.capacity : zi.write_pointer - zi.start;
      if (zi.index == m.label_zone) {
        z.role = ZoneRole::kLabel;
      } else if (zi.type == ZoneType::kConventional || zi.state == device::ZoneState::kOffline ||
                 zi.state == device::ZoneState::kReadOnly) {
        z.role = ZoneRole::kLabel;  // not for data: zfs writes sequentially
      }
    }
    // Split zones (SplitZNS 4.2): the device keeps the split across power
    // cuts; zfs learns each subzone's write pointer.
    if (auto s = LoadSubzones(d); !s.ok()) return s;
  }
  Member& meta = members_[label_.meta_device];
  for (uint32_t z : label_.meta_zones) meta.zones[z].role = ZoneRole::kMetadata;
  meta.reserved_active = 1;

  auto recovered = MetadataLog::Recover(meta.dev.get(), label_.meta_zones, label_.volume_id,
                                        {.read_only = read_only, .salvage = repair != nullptr});
  if (!recovered.ok()) return recovered.status();
  log_ = std::move(recovered->log);
  for (const Op& op : recovered->ops) Apply(op);
  if (repair) {
    repair->problems = std::move(recovered->problems);
    DropBrokenFiles(repair);
  }
  // Before the zones are counted: what writers flushed without a record.
  auto tail_ops = RecoverTails(repair);
  if (!tail_ops.ok()) return tail_ops.status();

  // Valid bytes from the live extents; an extent beyond its zone's write
  // pointer means acknowledged data is gone, which must not go unnoticed.
  for (const auto& [id, f] : files_) {
    absl::ReaderMutexLock fl(&f->mu);
    for (const Extent& x : f->extents) {
      if (x.device >= members_.size() || ZoneOf(x) >= members_[x.device].zones.size()) {
        return absl::DataLossError(absl::StrCat("file ", f->names.empty() ? "?" : f->names[0],
                                                " has an extent outside the volume"));
      }
      const ZoneUse& z = members_[x.device].zones[ZoneOf(x)];
      if (z.split() && !split_logged_[x.device].contains(ZoneOf(x))) {
        return absl::DataLossError(absl::StrCat(
            "file ", f->names.empty() ? "?" : f->names[0], " has data at device ", x.device,
            " offset ", x.offset, " in split zone ", ZoneOf(x),
            ", which the metadata log never split"));
      }
      if (!read_only && x.offset + Physical(x) > RegionAt(x.device, x.offset).write_pointer) {
        return absl::DataLossError(absl::StrCat(
            "file ", f->names.empty() ? "?" : f->names[0], " has data at device ", x.device,
            " offset ", x.offset, " beyond its ", z.split() ? "subzone" : "zone",
            "'s write pointer: data was lost"));
      }
      AddValid(x);
    }
  }
  // A zone with data but no live extent (a leftover cache zone, a crashed
  // writer's unsynced data, a zone whose reset was interrupted) is a dead
  // data zone and reset below; a zone with nothing written is free, whatever
  // the log last said of it.
  for (uint32_t d = 0; d < members_.size(); ++d) {
    Member& m = members_[d];
    for (uint32_t z = 0; z < m.zones.size(); ++z) {
      ZoneUse& u = m.zones[z];
      if (u.role == ZoneRole::kLabel || u.role == ZoneRole::kMetadata) continue;
      ++m.data_zones;
      if (u.valid > 0 || u.written > 0) {
        u.role = ZoneRole::kData;
      } else {
        u.role = ZoneRole::kFree;
        u.group = kNoGroup;
        u.pool = false;
      }
      if (u.pool) ++m.pool_zones;
      if (u.split()) {
        // Neither empty nor partial: its subzones are its own (subzones.cc);
        // ResetDeadZones resets the dead ones and merges an empty one.
        u.role = ZoneRole::kData;
        m.maybe_dead.insert(z);
        continue;
      }
      if (u.role == ZoneRole::kData && u.valid == 0) m.maybe_dead.insert(z);
      if (u.written == 0) {
        // Opened in another mode (HZNS QLC) and never written before the
        // crash: reset, so that it is the device's default again and holds
        // none of that mode's resources.
        if (u.role == ZoneRole::kFree && u.cell_mode != m.info.default_cell_mode && !read_only) {
          if (auto s = m.dev->ResetZone(z, kMeta); !s.ok()) return s;
          u.cell_mode = m.info.default_cell_mode;
          u.capacity = m.default_capacity();
        }
        m.empty.insert(z);
      } else if (!u.full()) {
        m.partial.insert(z);
      }
    }
  }
  // The policy learns where every file lies.
  for (const auto& [id, f] : files_) {
    std::optional<uint32_t> last;
    {
      absl::ReaderMutexLock fl(&f->mu);
      if (!f->extents.empty()) last = f->extents.back().device;
    }
    if (last) NotifyPlaced(*f, *last);
  }
  if (read_only) return absl::OkStatus();
  // Only metadata known to be intact may declare a zone dead: after a
  // salvaged log, zones nothing accounts for are kept as lost+found files.
  if (repair && !repair->problems.empty()) PreserveUnaccountedZones(repair);
  // Partly written zones whose group was never logged cannot be matched to
  // a writer again: finish them so they hold no active resource.
  for (uint32_t d = 0; d < members_.size(); ++d) {
    Member& m = members_[d];
    for (uint32_t z : std::vector<uint32_t>(m.partial.begin(), m.partial.end())) {
      if (m.zones[z].group != kNoGroup || m.zones[z].valid == 0) continue;
      if (auto s = m.dev->FinishZone(z, kMeta); !s.ok()) return s;
      m.zones[z].written = m.zones[z].capacity;
      m.partial.erase(z);
    }
  }
  for (uint32_t d = 0; d < members_.size(); ++d) {
    if (auto s = FinishOrphanSubzones(d); !s.ok()) return s;
  }
  // A repair writes a fresh log of the whole state instead.
  if (!tail_ops->empty() && !repair) {
    if (auto s = Commit(std::move(*tail_ops)); !s.ok()) return s;
  }
  ResetDeadZones();
  return absl::OkStatus();
}

// ---------------------------------------------------------------- replay

void VolumeImpl::Apply(const Op& op) {
  switch (op.type) {
    case OpType::kPutFile:
      ApplyPutFile(op.file);
      break;
    case OpType::kAppendFile:
      ApplyAppend(op.file);
      break;
    case OpType::kDeleteFile:
      ForgetFile(op.id);
      break;
    case OpType::kPutDir:
      dirs_.insert(op.path);
      break;
    case OpType::kDeleteDir:
      dirs_.erase(op.path);
      break;
    case OpType::kSetZoneGroup:
    case OpType::kSetPoolZoneGroup:
      if (op.device < members_.size() && op.zone < members_[op.device].zones.size()) {
        ZoneUse& z = members_[op.device].zones[op.zone];
        if (z.role == ZoneRole::kFree || z.role == ZoneRole::kData) {
          z.role = ZoneRole::kData;
          z.group = op.group;
          z.pool = op.type == OpType::kSetPoolZoneGroup;
        }
      }
      break;
    case OpType::kSetTail:
      if (auto it = files_.find(op.id); it != files_.end()) {
        it->second->tail = TailMark{op.device, op.offset};
      }
      break;
    case OpType::kClearTail:
      if (auto it = files_.find(op.id); it != files_.end()) it->second->tail.reset();
      break;
    case OpType::kSplitZone:
      if (op.device < split_logged_.size()) split_logged_[op.device].insert(op.zone);
      break;
  }
}

void VolumeImpl::ApplyPutFile(const FileRecord& rec) {
  std::shared_ptr<FileMeta>& f = files_[rec.id];
  if (!f) f = std::make_shared<FileMeta>(rec.id);
  DropNames(*f);
  f->names = rec.names;
  for (const std::string& n : f->names) names_[n] = rec.id;
  f->hint.name = rec.names.empty() ? "" : rec.names[0];
  f->hint.kind = rec.kind;
  f->hint.lifetime = rec.lifetime;
  f->hint.level = rec.level;
  f->mtime_us = rec.mtime_us;
  absl::MutexLock fl(&f->mu);
  f->extents.clear();
  f->ends.clear();
  uint64_t end = 0;
  for (const Extent& x : rec.extents) {
    AppendExtent(f->extents, x);
  }
  for (const Extent& x : f->extents) f->ends.push_back(end += x.length);
  f->size = end;
  f->persisted_extents = f->extents.size();
  f->persisted_last_len = f->extents.empty() ? 0 : f->extents.back().length;
  f->persisted_last_crc = f->extents.empty() ? 0 : f->extents.back().crc;
  f->persisted_size = end;
  next_id_ = std::max(next_id_, rec.id + 1);
}

void VolumeImpl::ApplyAppend(const FileRecord& rec) {
  auto it = files_.find(rec.id);
  if (it == files_.end()) return;  // appended to, then deleted
  FileMeta& f = *it->second;
  f.mtime_us = rec.mtime_us;
  f.hint.kind = rec.kind;
  f.hint.lifetime = rec.lifetime;
  f.hint.level = rec.level;
  absl::MutexLock fl(&f.mu);
  for (const Extent& x : rec.extents) AppendExtent(f.extents, x);
  f.ends.clear();
  uint64_t end = 0;
  for (const Extent& x : f.extents) f.ends.push_back(end += x.length);
  f.size = end;
  f.persisted_extents = f.extents.size();
  f.persisted_last_len = f.extents.empty() ? 0 : f.extents.back().length;
  f.persisted_last_crc = f.extents.empty() ? 0 : f.extents.back().crc;
  f.persisted_size = end;
}

void VolumeImpl::ForgetFile(uint64_t id) {
  auto it = files_.find(id);
  if (it == files_.end()) return;
  DropNames(*it->second);
  files_.erase(it);
}

void VolumeImpl::DropNames(const FileMeta& f) {
  // Only names still pointing here: a record that gives a name to another
  // file (rename over, create over) comes before the one that drops the
  // old file, and must not lose it.
  for (const std::string& n : f.names) {
    auto it = names_.find(n);
    if (it != names_.end() && it->second == f.id) names_.erase(it);
  }
}

void VolumeImpl::AppendExtent(std::vector<Extent>& extents, const Extent& x) const {
  if (!extents.empty()) {
    Extent& last = extents.back();
    const uint64_t bs = members_[x.device].info.block_size;
    if (last.device == x.device && last.offset + last.length == x.offset &&
        last.length % bs == 0 && ZoneOf(last) == ZoneOf(x) &&
        // A subzone is written alone: an extent never spans two.
        SubzoneSlot(x.device, last.offset) == SubzoneSlot(x.device, x.offset)) {
      last.crc = CombineCrc(last.crc, x.crc, x.length);
      last.length += x.length;
      return;
    }
  }
  extents.push_back(x);
}

// ---------------------------------------------------------------- commit

FileRecord FileMeta::ToRecord() const {
  FileRecord r;
  r.id = id;
  r.names = names;
  r.size = persisted_size;
  r.mtime_us = mtime_us;
  r.kind = hint.kind;
  r.lifetime = hint.lifetime;
  r.level = hint.level;
  r.extents.assign(extents.begin(), extents.begin() + persisted_extents);
  if (!r.extents.empty()) {
    r.extents.back().length = persisted_last_len;
    r.extents.back().crc = persisted_last_crc;
  }
  return r;
}

std::vector<Op> VolumeImpl::Snapshot() const {
  std::vector<Op> ops;
  for (const std::string& d : dirs_) ops.push_back({.type = OpType::kPutDir, .path = d});
  for (const auto& [id, f] : files_) {
    absl::ReaderMutexLock fl(&f->mu);
    ops.push_back({.type = OpType::kPutFile, .file = f->ToRecord()});
    if (f->tail) {
      ops.push_back({.type = OpType::kSetTail, .id = id, .device = f->tail->device,
                     .offset = f->tail->offset});
    }
  }
  for (uint32_t d = 0; d < members_.size(); ++d) {
    const Member& m = members_[d];
    for (uint32_t z = 0; z < m.zones.size(); ++z) {
      const ZoneUse& u = m.zones[z];
      // Full zones need their group no more, but pool zones stay counted.
      if (u.role == ZoneRole::kData && u.group != kNoGroup && (!u.full() || u.pool) &&
          !u.split()) {
        ops.push_back(ZoneGroupOp(d, z, u.group, u.pool));
      }
      if (u.split()) ops.push_back({.type = OpType::kSplitZone, .device = d, .zone = z});
    }
  }
  return ops;
}

absl::Status VolumeImpl::Commit(std::vector<Op> ops, bool durable) {
  if (auto s = CheckWritable(); !s.ok()) return s;
  if (durable) {
    if (auto s = FlushPendingDevices(); !s.ok()) return s;
  }
  std::vector<Op> all = std::move(pending_);
  pending_.clear();
  for (Op& op : ops) all.push_back(std::move(op));
  // A roll's snapshot is flushed: the data it describes must be first.
  absl::Status s = log_->Append(
      all,
      [this]() ABSL_NO_THREAD_SAFETY_ANALYSIS -> absl::StatusOr<std::vector<Op>> {
        if (auto s = FlushPendingDevices(); !s.ok()) return s;
        return Snapshot();
      },
      durable);
  if (s.ok()) {
    if (durable) LogDurable();
  } else {
    // Keep the zone groups for the next record.
    for (Op& op : all) {
      if (op.type == OpType::kSetZoneGroup || op.type == OpType::kSetPoolZoneGroup ||
          op.type == OpType::kSplitZone) {
        pending_.push_back(std::move(op));
      }
    }
  }
  return s;
}

// Names are what a directory sync promises (POSIX's and RocksDB's
// contract); the other records a flush would cover need none: a closed
// file's record after a Sync (its tail mark finds the data), hints, a
// Flush's record.
absl::Status VolumeImpl::SyncNamespace() {
  absl::MutexLock lock(&mu_);
  if (deferred_names_.empty() && !deletes_unflushed_) return absl::OkStatus();
  return FlushLog();
}

void VolumeImpl::LogDurable() {
  for (const auto& f : deferred_names_) f->name_unflushed = false;
  deferred_names_.clear();
  deletes_unflushed_ = false;
}

bool VolumeImpl::ReleasesDurable() { return !deletes_unflushed_ || FlushLog().ok(); }

// The records are on the log's device already, so a flush of their data
// before the log's orders nothing that device's cache could not already
// have reordered: where the data shares the log's device, the log's one
// flush makes both durable. (A commit that writes a record flushes the
// data first, so that the record cannot reach the media before it.)
absl::Status VolumeImpl::FlushLog() {
  const uint32_t meta = label_.meta_device;
  if (auto s = FlushPendingDevices(/*except=*/meta); !s.ok()) return s;
  if (auto s = members_[meta].dev->Flush({IoClass::kMetadata}); !s.ok()) return s;
  flush_pending_[meta] = false;
  LogDurable();
  return absl::OkStatus();
}

absl::Status VolumeImpl::FlushPendingDevices(std::optional<uint32_t> except) {
  for (uint32_t d = 0; d < flush_pending_.size(); ++d) {
    if (!flush_pending_[d] || d == except) continue;
    if (auto s = members_[d].dev->Flush({IoClass::kMetadata}); !s.ok()) return s;
    flush_pending_[d] = false;
  }
  return absl::OkStatus();
}

absl::Status VolumeImpl::CheckWritable() const {
  if (read_only_) return absl::FailedPreconditionError("volume is mounted read-only");
  return absl::OkStatus();
}

// ---------------------------------------------------------------- Volume

Volume::Volume(std::unique_ptr<VolumeImpl> impl)
    : impl_(std::move(impl)), cache_zones_(impl_.get()) {}
Volume::~Volume() = default;

absl::StatusOr<std::unique_ptr<WritableFile>> Volume::Create(const std::string& path,
                                                             const FileHint& hint,
                                                             bool durable_name) {
  return impl_->Create(path, hint, /*reopen=*/false, durable_name);
}
absl::Status Volume::SyncNamespace() { return impl_->SyncNamespace(); }
absl::StatusOr<std::unique_ptr<WritableFile>> Volume::Reopen(const std::string& path) {
  return impl_->Create(path, {}, /*reopen=*/true);
}
absl::StatusOr<std::unique_ptr<ReadableFile>> Volume::Open(const std::string& path,
                                                          const OpenOptions& options) const {
  return impl_->Open(path, options);
}
absl::Status Volume::Delete(const std::string& path, bool durable) {
  return impl_->Delete(path, durable);
}
absl::Status Volume::Rename(const std::string& from, const std::string& to) {
  return impl_->Rename(from, to);
}
absl::Status Volume::Link(const std::string& from, const std::string& to) {
  return impl_->Link(from, to);
}
absl::StatusOr<FileStat> Volume::Stat(const std::string& path) const { return impl_->Stat(path); }
absl::StatusOr<std::vector<std::string>> Volume::List(const std::string& dir) const {
  return impl_->List(dir);
}
absl::Status Volume::CreateDir(const std::string& path) { return impl_->CreateDir(path); }
absl::Status Volume::DeleteDir(const std::string& path) { return impl_->DeleteDir(path); }
absl::Status Volume::SetHint(const std::string& path, const FileHint& hint) {
  return impl_->SetHint(path, hint);
}
absl::Status Volume::Relocate(const std::string& path, uint32_t device) {
  return impl_->mover().Migrate(path, device, /*bytes_per_sec=*/0);
}
absl::StatusOr<GcStats> Volume::CollectGarbage(bool force) {
  return impl_->mover().CollectGarbage(force ? GcTrigger::kForced : GcTrigger::kThreshold);
}
absl::Status Volume::Migrate(const std::string& path, uint32_t device, double bytes_per_sec) {
  return impl_->mover().Migrate(path, device, bytes_per_sec);
}
bool Volume::NeedsGc() const { return impl_->NeedsGc(); }
GcTotals Volume::gc_totals() const { return impl_->mover().gc_totals(); }
MigrationStats Volume::migration_stats() const { return impl_->mover().stats(); }
absl::Status Volume::MigrateCells(const CellMigration& request) {
  return impl_->mover().MigrateCells(request);
}
CellMigrationStats Volume::cell_migration_stats() const {
  return impl_->mover().cell_stats();
}
CacheZones& Volume::cache_zones() { return cache_zones_; }
std::string Volume::volume_id() const { return FormatVolumeId(impl_->label().volume_id); }
uint32_t Volume::metadata_device() const { return impl_->label().meta_device; }
std::vector<DeviceSpace> Volume::Space() const { return impl_->Space(); }
std::vector<ZoneReport> Volume::Zones() const { return impl_->Zones(); }
std::vector<FileInfo> Volume::Files() const { return impl_->Files(); }
std::vector<std::string> Volume::Check() const { return impl_->Check(); }
std::vector<std::string> Volume::CheckData() const { return impl_->CheckData(); }
absl::StatusOr<std::vector<std::string>> Volume::DumpLog() const { return impl_->DumpLog(); }
MetadataLogTotals Volume::metadata_log_totals() const { return impl_->LogTotals(); }
const std::vector<std::shared_ptr<device::ZonedDevice>>& Volume::devices() const {
  return impl_->devices_;
}

}  // namespace zonestack::zfs
