// Moving live files: GC and migration share one mechanism (copy, make the
// copy durable, then one metadata record swaps the file's extent list;
// readers hold the file's lock while they read, so none reads a zone after
// it is reset). Migration (HHZS 3.4) is that copy rate-limited, run by the
// policy's requests from the mover's thread (mover.cc).
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "zfs/volume_impl.h"

namespace zonestack::zfs {
namespace {

using device::IoClass;
using device::IoContext;

// The authors' migration copies 2 MiB chunks. On a disk each chunk read
// between user reads costs a seek (no change in migration's share of HDD
// time was measurable at K = 512).
constexpr uint64_t kCopyChunk = 2 << 20;

// The longest pause of a rate-limited copy (a day), which keeps the
// deadline in range at absurdly low rates; unmount cuts any pause short.
constexpr double kMaxPauseNs = 86'400e9;

}  // namespace

absl::Status VolumeImpl::MoveExtents(const std::shared_ptr<FileMeta>& file,
                                     const std::function<bool(const Extent&)>& pick,
                                     uint32_t to_device, const MoveOptions& options,
                                     uint64_t* moved_bytes) {
  std::vector<Extent> before;
  uint64_t moves_before = 0;
  {
    absl::MutexLock lock(&mu_);
    if (file->writer_open) {
      return absl::FailedPreconditionError(absl::StrCat(file->hint.name, " is open for writing"));
    }
    if (file->deleted) return absl::AbortedError("file was deleted");
    absl::ReaderMutexLock fl(&file->mu);
    before = file->extents;
    moves_before = file->moves;
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
  const IoContext ctx{options.io_class};
  const uint64_t started = clock_->NowNs();
  uint64_t copied = 0;  // bytes written to `to_device`, for the rate limit
  std::vector<uint8_t> buf;
  // A lease with room on `to_device` (in options.cell_mode when given).
  auto lease_with_room = [&]() -> absl::Status {
    if (lease.valid() && lease.next < lease.end) return absl::OkStatus();
    if (lease.valid()) ReleaseZone(lease);
    auto l = AcquireZone(*file, to_device, options.purpose, options.cell_mode);
    lease = l.ok() ? *l : Lease{};
    return l.status();
  };
  auto file_gone = [&]() {
    absl::MutexLock lock(&mu_);
    return file->deleted;
  };
  // A read or copy of extent `x` failed with `error`. The source zone may
  // have been reset under us because another move or a delete released
  // it: that is an abort, not an I/O error. Otherwise a zone gone offline
  // (the source's, and with `destination_too` the lease's) is retired: its
  // data is lost, the file's readers get the error. The move fails either
  // way.
  auto failed = [&](const absl::Status& error, const Extent& x,
                    bool destination_too) -> absl::Status {
    absl::MutexLock lock(&mu_);
    absl::ReaderMutexLock fl(&file->mu);
    if (file->deleted || file->moves != moves_before) {
      return absl::AbortedError(
          absl::StrCat("file changed while it was being moved (", error.message(), ")"));
    }
    RetireIfFailed(x.device, ZoneOf(x));
    if (destination_too) RetireIfFailed(to_device, lease.zone);
    return error;
  };
  // A copy written at the lease's position joins the new extent list.
  auto add_piece = [&](const Extent& piece, uint64_t physical) {
    {
      absl::MutexLock lock(&mu_);
      AddValid(piece);
    }
    copies.push_back(piece);
    AppendExtent(after, piece);
    lease.next += physical;
    *moved_bytes += piece.length;
    copied += physical;
  };
  device::ZonedDevice* const dst_dev = members_[to_device].dev.get();
  for (const Extent& x : before) {
    if (!pick(x)) {
      AppendExtent(after, x);
      continue;
    }
    moved.push_back(x);
    // Simple Copy (ZnH2 3.3.1, principle #3): the device copies the whole
    // extent to the zone's write pointer, nothing crosses the host link,
    // and the copy keeps the extent's CRC. The device is trusted with the
    // bytes: zfs does not read them to check the CRC as a host copy does.
    // An extent that does not fit the destination zone's room goes through
    // the host below, whose pieces get CRCs of their own.
    if (options.simple_copy && x.device == to_device &&
        members_[to_device].info.supports_simple_copy) {
      if (file_gone()) status = absl::AbortedError("file was deleted while being moved");
      if (status.ok()) status = lease_with_room();
      if (!status.ok()) {
        undo();
        return status;
      }
      const uint64_t physical = Physical(x);
      if (lease.end - lease.next >= physical) {
        const device::CopyRange range{x.offset, physical};
        auto dst = dst_dev->SimpleCopy({&range, 1}, lease.zone, ctx);
        if (dst.ok() && *dst != lease.next) {
          status = absl::InternalError(absl::StrCat("simple copy landed at ", *dst,
                                                    ", not at the write pointer ", lease.next));
        } else if (!dst.ok()) {
          status = failed(dst.status(), x, /*destination_too=*/true);
        }
        if (!status.ok()) {
          undo();
          return status;
        }
        add_piece({to_device, lease.next, x.length, x.crc}, physical);
        continue;
      }
    }
    device::ZonedDevice* src = members_[x.device].dev.get();
    const uint64_t bs = members_[x.device].info.block_size;
    uint32_t source_crc = 0;  // of the bytes of x read so far
    uint32_t piece_crc = 0;   // of this chunk: one pass over the bytes serves both
    for (uint64_t done = 0; done < x.length;) {
      {
        // A file deleted mid-move is not worth finishing.
        absl::MutexLock lock(&mu_);
        if (file->deleted) status = absl::AbortedError("file was deleted while being moved");
      }
      if (!status.ok()) {
        undo();
        return status;
      }
      if (auto s = lease_with_room(); !s.ok()) {
        undo();
        return s;
      }
      const uint64_t n = std::min({x.length - done, lease.end - lease.next, kCopyChunk});
      const uint64_t physical = (n + bs - 1) / bs * bs;
      buf.resize(physical);
      status = src->Read(x.offset + done, buf, ctx);
      if (!status.ok()) status = failed(status, x, /*destination_too=*/false);
      if (status.ok()) {
        // Corrupt data is reported where it lies, never copied on as good.
        piece_crc = DataCrc(0, buf.data(), static_cast<size_t>(n));
        source_crc = CombineCrc(source_crc, piece_crc, n);
        if (done + n == x.length && source_crc != x.crc) {
          const std::string name = file->names.empty() ? "?" : file->names[0];
          status = absl::DataLossError(absl::StrCat(
              "checksum mismatch in ", name, " at device ", x.device, " offset ", x.offset,
              " (", x.length, " bytes): its data is corrupt; not moved"));
        }
      }
      if (status.ok()) {
        status = members_[to_device].dev->Write(lease.next, buf, ctx);
        if (!status.ok()) {
          // A destination zone the device failed is retired; the copies
          // made so far are given back below, and the move can be retried.
          absl::MutexLock lock(&mu_);
          RetireIfFailed(to_device, lease.zone);
        }
      }
      if (!status.ok()) {
        undo();
        return status;
      }
      add_piece({to_device, lease.next, n, piece_crc}, physical);
      done += n;
      // Rate limit: no faster on average than bytes_per_sec since the start,
      // the last chunk included, so back-to-back moves keep the rate too.
      if (options.bytes_per_sec > 0) {
        const double due_ns = std::ceil(static_cast<double>(copied) * 1e9 / options.bytes_per_sec);
        const uint64_t due = started + static_cast<uint64_t>(std::min(due_ns, kMaxPauseNs));
        if (!mover_.SleepUntil(due, /*pace=*/true)) {
          undo();
          return absl::AbortedError("volume is unmounting");
        }
      }
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
    unchanged = !file->deleted && !file->writer_open && file->extents == before &&
                file->moves == moves_before;
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
    ++file->moves;
    file->extents = after;
    file->ends.clear();
    uint64_t end = 0;
    for (const Extent& x : after) file->ends.push_back(end += x.length);
    file->persisted_extents = after.size();
    file->persisted_last_len = after.empty() ? 0 : after.back().length;
    file->persisted_last_crc = after.empty() ? 0 : after.back().crc;
  }
  ReleaseExtents(moved);
  ResetDeadZones();
  if (options.notify_placed) {
    file->placed_device = to_device;
    options_.placement->OnPlaced(file->hint, to_device, members_[to_device].info.is_ssd(),
                                 file->size.load());
  }
  return absl::OkStatus();
}

absl::Status VolumeImpl::MoveFile(const std::string& path, uint32_t device,
                                  double bytes_per_sec, uint64_t* moved) {
  if (device >= members_.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("device ", device, " but the volume has ", members_.size()));
  }
  std::shared_ptr<FileMeta> f;
  {
    absl::MutexLock lock(&mu_);
    f = Find(path);
  }
  if (!f) return absl::NotFoundError(absl::StrCat(path, ": no such file"));
  return MoveExtents(f, [&](const Extent& x) { return x.device != device; }, device,
                     {.purpose = Purpose::kMigration, .io_class = IoClass::kMigration,
                      .bytes_per_sec = bytes_per_sec, .notify_placed = true},
                     moved);
}

std::vector<DeviceView> VolumeImpl::CurrentDeviceViews() const {
  absl::MutexLock lock(&mu_);
  return DeviceViews();
}

}  // namespace zonestack::zfs
