// Repair: salvaging a volume whose metadata log is damaged. Mount refuses
// corrupt metadata rather than guessing; repair is the explicit, reported
// way past it. It keeps every file whose extents are intact, never resets
// a zone the damaged log may have described, and leaves a clean log.
#include "absl/strings/str_cat.h"
#include "zfs/volume_impl.h"

namespace zonestack::zfs {
namespace {
constexpr char kLostFound[] = "/lost+found";
}  // namespace

absl::StatusOr<RepairReport> Volume::Repair(
    std::vector<std::shared_ptr<device::ZonedDevice>> devices, const MountOptions& options) {
  Label label;
  auto members = CheckMembers(devices, &label);
  if (!members.ok()) return members.status();
  MountOptions opts = options;
  opts.read_only = false;
  if (!opts.placement) {
    opts.placement = MakeLifetimePlacement();
  }
  RepairReport report;
  VolumeImpl impl(std::move(*members), label, opts);
  if (auto s = impl.Recover(/*read_only=*/false, &report); !s.ok()) return s;
  if (auto s = impl.RewriteLog(); !s.ok()) return s;
  report.actions.push_back("wrote a fresh metadata log (snapshot of the repaired state)");
  return report;
}

absl::Status VolumeImpl::RewriteLog() {
  absl::MutexLock lock(&mu_);
  if (auto s = CheckWritable(); !s.ok()) return s;
  std::vector<Op> state = Snapshot();
  for (Op& op : pending_) state.push_back(std::move(op));
  pending_.clear();
  return log_->Rewrite([&state]() -> absl::StatusOr<std::vector<Op>> { return state; });
}

void VolumeImpl::DropBrokenFiles(RepairReport* report) {
  std::vector<uint64_t> broken;
  for (const auto& [id, f] : files_) {
    absl::ReaderMutexLock fl(&f->mu);
    for (const Extent& x : f->extents) {
      std::string why;
      if (x.device >= members_.size() || ZoneOf(x) >= members_[x.device].zones.size()) {
        why = "an extent outside the volume";
      } else {
        const ZoneUse& z = members_[x.device].zones[ZoneOf(x)];
        const uint64_t in_zone = x.offset % members_[x.device].info.zone_size;
        if (z.role == ZoneRole::kLabel || z.role == ZoneRole::kMetadata) {
          why = absl::StrCat("an extent in a label or metadata zone (device ", x.device,
                             " offset ", x.offset, ")");
        } else if (z.split() ? x.offset + Physical(x) > RegionAt(x.device, x.offset).write_pointer
                             : in_zone + Physical(x) > z.written) {
          why = absl::StrCat("data at device ", x.device, " offset ", x.offset,
                             " beyond its zone's write pointer");
        }
      }
      if (!why.empty()) {
        report->problems.push_back(absl::StrCat(
            "file ", f->names.empty() ? absl::StrCat("id ", id) : f->names[0], " has ", why));
        report->actions.push_back(absl::StrCat(
            "forgot file ", f->names.empty() ? absl::StrCat("id ", id) : f->names[0]));
        broken.push_back(id);
        break;
      }
    }
  }
  for (uint64_t id : broken) ForgetFile(id);
  // A lost put-dir record leaves intact files in a directory that is gone:
  // bring the directory back rather than lose the files.
  for (const auto& [name, id] : names_) {
    for (std::string dir = ParentDir(name); dir != "/"; dir = ParentDir(dir)) {
      if (dirs_.insert(dir).second) {
        report->actions.push_back(absl::StrCat("recreated directory ", dir, " (holds ", name, ")"));
      }
    }
  }
}

void VolumeImpl::PreserveUnaccountedZones(RepairReport* report) {
  for (uint32_t d = 0; d < members_.size(); ++d) {
    Member& m = members_[d];
    for (uint32_t z : std::vector<uint32_t>(m.maybe_dead.begin(), m.maybe_dead.end())) {
      ZoneUse& u = m.zones[z];
      if (u.split()) {
        PreserveUnaccountedSubzones(d, z, report);
        continue;
      }
      if (u.written == 0 || u.valid > 0) continue;
      // The CRC of what is there: the file holds the bytes as found.
      auto crc = ReadCrc(d, m.info.zone_size * z, u.written);
      if (!crc.ok()) {
        report->problems.push_back(absl::StrCat("zone ", z, " of device ", d,
                                                " cannot be read: ", crc.status().message()));
      }
      FileRecord rec;
      rec.id = next_id_;
      rec.names = {absl::StrCat(kLostFound, "/device", d, "-zone", z)};
      rec.mtime_us = SystemMicros();
      rec.extents = {{d, m.info.zone_size * z, u.written, crc.value_or(0)}};
      rec.size = u.written;
      dirs_.insert(kLostFound);
      ApplyPutFile(rec);
      AddValid(rec.extents[0]);
      m.maybe_dead.erase(z);
      report->actions.push_back(absl::StrCat("kept ", u.written, " bytes of zone ", z,
                                             " of device ", d, ", which no file accounts for, as ",
                                             rec.names[0]));
    }
  }
}

void VolumeImpl::PreserveUnaccountedSubzones(uint32_t d, uint32_t z, RepairReport* report) {
  Member& m = members_[d];
  ZoneUse& u = m.zones[z];
  for (uint32_t i = 0; i < u.subzones.size(); ++i) {
    const SubzoneUse& s = u.subzones[i];
    // A finished subzone reads as written to its capacity; what lies past
    // its last write reads as zeroes.
    if (s.written == 0 || s.valid > 0) continue;
    const uint64_t start = m.info.zone_size * z + i * m.info.subzone_size();
    auto crc = ReadCrc(d, start, s.written);
    if (!crc.ok()) {
      report->problems.push_back(absl::StrCat("subzone ", i, " of zone ", z, " of device ", d,
                                              " cannot be read: ", crc.status().message()));
    }
    FileRecord rec;
    rec.id = next_id_;
    rec.names = {absl::StrCat(kLostFound, "/device", d, "-zone", z, "-subzone", i)};
    rec.mtime_us = SystemMicros();
    rec.extents = {{d, start, s.written, crc.value_or(0)}};
    rec.size = s.written;
    dirs_.insert(kLostFound);
    ApplyPutFile(rec);
    AddValid(rec.extents[0]);
    report->actions.push_back(absl::StrCat("kept ", s.written, " bytes of subzone ", i, " of zone ",
                                           z, " of device ", d,
                                           ", which no file accounts for, as ", rec.names[0]));
  }
  // The zone stays in maybe_dead: ResetDeadZones resets only subzones
  // with no live extent, which the kept ones now have.
}

}  // namespace zonestack::zfs
