// Garbage collection and relocation. Both move live extents with the same
// mechanism: copy, make the copy durable, then one metadata record swaps
// the file's extent list; readers hold the file's lock while they read, so
// none reads a zone after it is reset.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "zfs/volume_impl.h"

namespace zonestack::zfs {
namespace {

using device::IoClass;
using device::IoContext;

constexpr uint64_t kCopyChunk = 1 << 20;

}  // namespace

bool VolumeImpl::BelowGcThreshold(uint32_t device) const {
  const Member& m = members_[device];
  return m.data_zones > 0 && m.empty.size() <= options_.gc_free_zone_threshold * m.data_zones;
}

std::vector<uint32_t> VolumeImpl::GcVictims(uint32_t device) const {
  const Member& m = members_[device];
  struct Scored {
    uint32_t zone;
    double score;  // higher is collected first
  };
  std::vector<Scored> scored;
  const double now = static_cast<double>(NowMicros());
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
            IoClass::kGc, &moved);
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

absl::Status VolumeImpl::Relocate(const std::string& path, uint32_t device) {
  if (auto s = CheckWritable(); !s.ok()) return s;
  if (device >= members_.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("device ", device, " but the volume has ", members_.size()));
  }
  absl::MutexLock gc(&gc_mu_);
  std::shared_ptr<FileMeta> f;
  {
    absl::MutexLock lock(&mu_);
    f = Find(path);
    if (!f) return absl::NotFoundError(absl::StrCat(path, ": no such file"));
  }
  uint64_t moved = 0;
  return MoveExtents(f, [&](const Extent& x) { return x.device != device; }, device,
                     IoClass::kMigration, &moved);
}

absl::Status VolumeImpl::MoveExtents(const std::shared_ptr<FileMeta>& file,
                                     const std::function<bool(const Extent&)>& pick,
                                     uint32_t to_device, IoClass io_class,
                                     uint64_t* moved_bytes) {
  std::vector<Extent> before;
  {
    absl::MutexLock lock(&mu_);
    if (file->writer_open) {
      return absl::FailedPreconditionError(absl::StrCat(file->hint.name, " is open for writing"));
    }
    if (file->deleted) return absl::AbortedError("file was deleted");
    absl::ReaderMutexLock fl(&file->mu);
    before = file->extents;
  }
  std::vector<Extent> after, copies, moved;
  Lease lease;
  absl::Status status;
  // Gives back the lease and the copies made so far.
  auto undo = [&]() {
    if (lease.valid()) ReleaseZone(lease);
    lease = {};
    absl::MutexLock lock(&mu_);
    ReleaseExtents(copies);
    ResetDeadZones();
  };
  const IoContext ctx{io_class};
  std::vector<uint8_t> buf;
  for (const Extent& x : before) {
    if (!pick(x)) {
      AppendExtent(after, x);
      continue;
    }
    moved.push_back(x);
    device::ZonedDevice* src = members_[x.device].dev.get();
    const uint64_t bs = members_[x.device].info.block_size;
    for (uint64_t done = 0; done < x.length;) {
      if (!lease.valid() || lease.next >= lease.end) {
        if (lease.valid()) ReleaseZone(lease);
        auto l = AcquireZone(*file, to_device, /*for_gc=*/true);
        if (!l.ok()) {
          lease = {};
          undo();
          return l.status();
        }
        lease = *l;
      }
      const uint64_t n = std::min({x.length - done, lease.end - lease.next, kCopyChunk});
      const uint64_t physical = (n + bs - 1) / bs * bs;
      buf.resize(physical);
      status = src->Read(x.offset + done, buf, ctx);
      if (status.ok()) status = members_[to_device].dev->Write(lease.next, buf, ctx);
      if (!status.ok()) {
        undo();
        return status;
      }
      const Extent piece{to_device, lease.next, n};
      {
        absl::MutexLock lock(&mu_);
        AddValid(piece);
      }
      copies.push_back(piece);
      AppendExtent(after, piece);
      lease.next += physical;
      done += n;
      *moved_bytes += n;
    }
  }
  if (lease.valid()) ReleaseZone(lease);
  lease = {};
  if (copies.empty()) return absl::OkStatus();
  if (auto s = members_[to_device].dev->Flush(ctx); !s.ok()) {
    undo();
    return s;
  }
  absl::MutexLock lock(&mu_);
  bool unchanged;
  {
    absl::ReaderMutexLock fl(&file->mu);
    unchanged = !file->deleted && !file->writer_open && file->extents == before;
  }
  if (!unchanged) {
    ReleaseExtents(copies);
    ResetDeadZones();
    return absl::AbortedError("file changed while it was being moved");
  }
  FileRecord rec;
  {
    absl::ReaderMutexLock fl(&file->mu);
    rec = file->ToRecord();
  }
  rec.extents = after;
  if (auto s = Commit({{.type = OpType::kPutFile, .file = rec}}); !s.ok()) {
    ReleaseExtents(copies);
    ResetDeadZones();
    return s;
  }
  {
    absl::MutexLock fl(&file->mu);
    file->extents = after;
    file->ends.clear();
    uint64_t end = 0;
    for (const Extent& x : after) file->ends.push_back(end += x.length);
    file->persisted_extents = after.size();
    file->persisted_last_len = after.empty() ? 0 : after.back().length;
  }
  ReleaseExtents(moved);
  ResetDeadZones();
  return absl::OkStatus();
}

void VolumeImpl::StartGc() {
  gc_thread_ = std::thread([this] { GcLoop(); });
}

void VolumeImpl::GcLoop() {
  while (true) {
    {
      absl::MutexLock l(&gc_wake_mu_);
      auto woken = [this]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return gc_stop_ || gc_wanted_; };
      gc_wake_mu_.AwaitWithTimeout(absl::Condition(&woken), absl::Milliseconds(200));
      if (gc_stop_) return;
      gc_wanted_ = false;
    }
    bool needed = false;
    {
      absl::MutexLock lock(&mu_);
      for (uint32_t d = 0; d < members_.size(); ++d) needed |= BelowGcThreshold(d);
    }
    if (needed) (void)CollectGarbage(/*force=*/false);
  }
}

}  // namespace zonestack::zfs
