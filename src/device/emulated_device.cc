#include "device/emulated_device.h"

#include <cstring>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "device/mutex_mode.h"
#include "device/zone_error.h"

namespace zonestack::device {
namespace {

// A timed device's memory keeps pages resident this far ahead of each
// zone's write pointer, and this many fresh zones ready (docs/emulator.md,
// "Keeping pace"): 8 ms of writing at ZN540 speed, so the fill thread can
// fall behind for that long before a write faults.
constexpr MemoryBackingOptions kPacedMemory{.fill_ahead = 8 << 20, .spare_zones = 2};
// An untimed device has no pace to keep and no thread to spare, but a page
// fault per 4 KiB of fresh memory was a third of the time of db_bench's
// fillrandom through the plugin (one padded block per WAL flush).
constexpr MemoryBackingOptions kUntimedMemory{.populate_step = 1 << 20};

absl::Status ValidateGeometry(const DeviceInfo& info) {
  auto bad = [&](const char* what) {
    return absl::InvalidArgumentError(absl::StrCat("device ", info.name, ": ", what));
  };
  if (info.block_size == 0 || info.block_size % 512 != 0) {
    return bad("block size must be a positive multiple of 512");
  }
  if (info.zone_size == 0 || info.zone_size % info.block_size != 0) {
    return bad("zone size must be a positive multiple of the block size");
  }
  if (info.zone_capacity == 0 || info.zone_capacity > info.zone_size ||
      info.zone_capacity % info.block_size != 0) {
    return bad("zone capacity must be a block multiple in (0, zone size]");
  }
  if (info.num_zones == 0) return bad("a device needs at least one zone");
  if (info.num_conventional_zones > info.num_zones) {
    return bad("more conventional zones than zones");
  }
  if (info.max_open_zones > info.max_active_zones && info.max_active_zones != 0) {
    return bad("max open zones must not exceed max active zones");
  }
  if (info.supports_subzones) {
    const uint64_t n = info.subzones_per_zone;
    if (n < 2) return bad("a device with subzones needs at least 2 subzones per zone");
    if (info.protocol != Protocol::kZns) return bad("subzones need a ZNS device");
    if (info.zone_size % (n * info.block_size) != 0 ||
        info.zone_capacity % (n * info.block_size) != 0) {
      return bad("zone size and capacity must split into block-aligned subzones");
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateSubzoneRing(const EmulatorOptions& o) {
  auto bad = [&](const char* what) {
    return absl::InvalidArgumentError(absl::StrCat("device ", o.info.name, ": ", what));
  };
  if (o.prefetch_bytes > 0 && !o.info.supports_subzones) {
    return bad("a Read Prefetcher needs a device with subzones");
  }
  if (o.subzone_ring_bytes == 0) return absl::OkStatus();
  if (!o.info.supports_subzones) return bad("a SubZone Ring needs a device with subzones");
  if (o.program_unit_bytes == 0 || o.program_unit_bytes % o.info.block_size != 0) {
    return bad("a SubZone Ring needs a program unit that is a multiple of the block size");
  }
  if (o.subzone_ring_bytes < o.program_unit_bytes * o.info.subzones_per_zone) {
    return bad("a SubZone Ring must hold at least a unit for every chip");
  }
  return absl::OkStatus();
}

absl::Status ValidateSlcCache(const EmulatorOptions& o) {
  if (!o.hidden_slc_cache) return absl::OkStatus();
  if (static_cast<int>(o.info.native_cell_mode) <= static_cast<int>(CellMode::kSlc) ||
      o.info.default_cell_mode != o.info.native_cell_mode || o.info.supports_slc) {
    return absl::InvalidArgumentError(absl::StrCat(
        "device ", o.info.name,
        ": a hidden SLC cache needs native-mode zones with more bits per cell than SLC, "
        "and no host SLC mode"));
  }
  if (o.slc_idle_target > 100) {
    return absl::InvalidArgumentError(
        absl::StrCat("device ", o.info.name, ": the idle SLC target is a percentage of the cap"));
  }
  return absl::OkStatus();
}

// Append and Simple Copy check the zone they name (zone_error.h).
absl::Status CheckZoneTakesWrites(const ZoneInfo& z) {
  return CheckZoneTakesWrites(z, absl::StrCat("zone ", z.index));
}

}  // namespace

absl::StatusOr<std::unique_ptr<EmulatedDevice>> EmulatedDevice::Create(
    EmulatorOptions options) {
  if (auto s = ValidateGeometry(options.info); !s.ok()) return s;
  if (auto s = ValidateSlcCache(options); !s.ok()) return s;
  if (auto s = ValidateSubzoneRing(options); !s.ok()) return s;
  if (auto s = ValidateHostAware(options); !s.ok()) return s;
  if (!options.timing) options.timing = std::make_unique<NoTiming>();
  if (options.reserve_memory && options.backing) {
    return absl::InvalidArgumentError(absl::StrCat("device ", options.info.name,
                                                   ": reserve_memory is for the memory backing, "
                                                   "not beside a backing"));
  }
  if (options.reserve_memory) {
    auto reserved = NewReservedMemoryBacking(options.info);
    if (!reserved.ok()) return reserved.status();
    options.backing = std::move(*reserved);
  } else if (!options.backing) {
    options.backing = NewMemoryBacking(options.info,
                                       options.timing->timed() ? kPacedMemory : kUntimedMemory);
  }
  if (!options.clock) {
    options.clock = std::shared_ptr<Clock>(RealClock::Default(), [](Clock*) {});
  }
  auto dev = std::unique_ptr<EmulatedDevice>(new EmulatedDevice(std::move(options)));
  absl::MutexLock lock(&dev->mu_);
  if (auto saved = dev->backing_->LoadedZones(); saved.has_value()) {
    if (auto s = dev->RestoreLocked(*saved); !s.ok()) return s;
  }
  return dev;
}

absl::Status EmulatedDevice::RestoreLocked(const std::vector<SavedZone>& saved) {
  std::vector<ZoneInfo> durable;
  std::vector<uint64_t> cached;
  for (const SavedZone& z : saved) {
    durable.push_back(z.durable);
    cached.push_back(z.cached_write_pointer);
  }
  // A process that died kept its write cache, as a device keeps its cache
  // when only the host crashes: zones come back at their cached write
  // pointers, still unflushed, so a later power cut drops those writes.
  zones_.Restore(durable, cached);
  for (uint32_t i = 0; i < info_.num_zones; ++i) {
    const ZoneInfo& z = zones_.zone(i);
    if (z.type == ZoneType::kConventional) continue;
    if (z.write_pointer != zones_.DurableZone(i).write_pointer) dirty_zones_.insert(i);
    // The firmware's SLC map is not kept in the file: a restarted DM
    // Hybrid device finds earlier data in the native mode.
    if (slc_cache_) slc_cache_->Wrote(i, z.write_pointer - z.start);
    // A write the process died in the middle of may have reached the file
    // without its record: it was never acknowledged, and must read as
    // zeroes like any block beyond a write pointer.
    const uint64_t end = z.start + z.size;
    if (z.write_pointer >= end) continue;
    if (auto s = backing_->Discard(z.write_pointer, end - z.write_pointer); !s.ok()) return s;
  }
  return absl::OkStatus();
}

EmulatedDevice::EmulatedDevice(EmulatorOptions options)
    : info_(HostView(options)),
      clock_(options.clock),
      opened_at_ns_(options.clock->NowNs()),
      zones_(options.info),
      timing_(std::move(options.timing)),
      backing_(std::move(options.backing)),
      slc_cache_(options.hidden_slc_cache ? std::make_unique<SlcCache>(options.info) : nullptr),
      slc_idle_ns_(options.slc_idle_ns),
      slc_idle_target_(options.slc_idle_target),
      subzones_(options.info.supports_subzones
                    ? std::make_unique<SubzoneTable>(options.info) : nullptr),
      ring_(options.subzone_ring_bytes > 0
                ? std::make_unique<SubzoneRing>(options.subzone_ring_bytes,
                                                options.info.subzones_per_zone,
                                                options.program_unit_bytes)
                : nullptr),
      prefetcher_(options.prefetch_bytes > 0
                      ? std::make_unique<ReadPrefetcher>(options.prefetch_bytes) : nullptr),
      prefetch_bytes_(options.prefetch_bytes),
      media_cache_(options.media_cache.bytes > 0
                       ? std::make_unique<MediaCache>(options.media_cache.bytes,
                                                      options.info.block_size,
                                                      options.info.zone_size)
                       : nullptr),
      mc_(options.media_cache) {
  ReleaseBuildsSkipDeadlockDetection();
}

EmulatedDevice::~EmulatedDevice() {
  absl::MutexLock lock(&mu_);
  if (!powered_off_) (void)FlushLocked();
}

uint64_t EmulatedDevice::ScheduleLocked(const TimedRequest& r, uint64_t submit_ns) {
  if (!timing_->timed()) return 0;
  const uint64_t done = timing_->Schedule(r, submit_ns);
  last_completion_ns_ = std::max(last_completion_ns_, done);
  return done;
}

void EmulatedDevice::CountLatenessLocked(uint64_t done_ns) {
  if (!timing_->timed()) return;
  // The command's work is done now; the model said it would be done at
  // `done_ns`. Later than that, the caller sees the emulator's pace, not
  // the model's.
  const uint64_t now = clock_->NowNs();
  if (now <= done_ns) return;
  ++stats_.late_commands;
  stats_.late_ns += now - done_ns;
}

void EmulatedDevice::WaitFor(uint64_t done_ns) {
  if (done_ns != 0) clock_->WaitUntil(done_ns);
}

absl::StatusOr<std::vector<ZoneInfo>> EmulatedDevice::ReportZones(
    uint32_t first, uint32_t count) const {
  absl::MutexLock lock(&mu_);
  if (powered_off_) return PoweredOffError();
  if (first >= info_.num_zones) {
    return MakeZoneError(ZoneError::kOutOfRange,
                         absl::StrCat("zone ", first, " of ", info_.num_zones));
  }
  const uint32_t end = static_cast<uint32_t>(
      std::min<uint64_t>(info_.num_zones, uint64_t{first} + count));
  std::vector<ZoneInfo> out;
  out.reserve(end - first);
  for (uint32_t i = first; i < end; ++i) out.push_back(HostZoneLocked(i));
  return out;
}

absl::Status EmulatedDevice::ReadLocked(uint64_t offset, std::span<uint8_t> dst) {
  if (auto s = backing_->Read(offset, dst); !s.ok()) return s;
  // Subzone bytes still in the SubZone Ring have not reached the backing.
  if (ring_) ReadRingLocked(offset, dst);
  // Unflushed conventional-zone blocks are newer than the backing.
  const uint64_t end = offset + dst.size();
  for (auto it = unflushed_blocks_.lower_bound(offset);
       it != unflushed_blocks_.end() && it->first < end; ++it) {
    std::memcpy(dst.data() + (it->first - offset), it->second.data(), it->second.size());
  }
  // A zone's newest copies may lie in the media cache, or in the head's
  // hands during its cleaning (then older than anything still cached).
  if (clean_step_) MediaCache::OverlayBlocks(clean_step_->taken.blocks, offset, dst);
  if (media_cache_) media_cache_->Overlay(offset, dst);
  return absl::OkStatus();
}

absl::Status EmulatedDevice::RunCommand(
    bool mutating, absl::FunctionRef<absl::StatusOr<TimedRequest>()> body) {
  const uint64_t submit = clock_->SubmitTimeNs();
  uint64_t done;
  {
    absl::MutexLock lock(&mu_);
    if (auto s = CheckPowerLocked(mutating); !s.ok()) return s;
    command_submit_ns_ = submit;
    command_floor_ns_ = 0;
    IdleMigrateLocked(submit);
    AdvanceCleaningLocked(submit);
    absl::StatusOr<TimedRequest> request = body();
    if (!request.ok()) return request.status();
    done = std::max(ScheduleLocked(*request, submit), command_floor_ns_);
    CountLatenessLocked(done);
  }
  WaitFor(done);
  return absl::OkStatus();
}

absl::Status EmulatedDevice::Read(uint64_t offset, std::span<uint8_t> dst,
                                  const IoContext& ctx) {
  return RunCommand(false, [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS -> absl::StatusOr<TimedRequest> {
    if (auto s = zones_.CheckRead(offset, dst.size()); !s.ok()) return s;
    const uint32_t zone = ZoneOf(offset);
    if (IsSplitLocked(zone)) {
      auto request = SubzoneReadLocked(offset, dst.size(), ctx);
      if (!request.ok()) return request.status();
      if (auto s = ReadLocked(offset, dst); !s.ok()) return s;
      return request;
    }
    if (auto s = ReadLocked(offset, dst); !s.ok()) return s;
    IoCounters& c = stats_.by_class[static_cast<int>(ctx.io_class)];
    ++c.read_ops;
    c.read_bytes += dst.size();
    if (slc_cache_) slc_cache_->Touched(zone);
    if (media_cache_ && ScheduleMediaCacheReadLocked(offset, dst.size(), ctx)) {
      // Every block came from the media cache: the zone itself is not read.
      return TimedRequest{.op = IoOp::kManage, .zone = zone, .io_class = ctx.io_class};
    }
    return TimedRequest{.op = IoOp::kRead, .zone = zone, .offset = offset, .length = dst.size(),
                        .cell_mode = MediaModeLocked(zone), .io_class = ctx.io_class};
  });
}

absl::Status EmulatedDevice::WriteLocked(uint64_t offset, std::span<const uint8_t> src,
                                         const IoContext& ctx) {
  if (const uint32_t z = ZoneOf(offset); IsSplitLocked(z)) {
    return WriteSubzoneLocked(z, offset, src, ctx);
  }
  if (auto s = zones_.CheckWrite(offset, src.size()); !s.ok()) return s;
  const uint32_t zone = ZoneOf(offset);
  if (zones_.zone(zone).type == ZoneType::kConventional) {
    for (uint64_t pos = 0; pos < src.size(); pos += info_.block_size) {
      unflushed_blocks_[offset + pos].assign(src.begin() + pos,
                                             src.begin() + pos + info_.block_size);
    }
    dirty_zones_.insert(zone);
  } else {
    if (slc_cache_) PlaceWriteLocked(zone, src.size());
    if (auto s = backing_->Write(offset, src); !s.ok()) return s;
    zones_.CommitWrite(offset, src.size());
    if (slc_cache_) slc_cache_->Wrote(zone, src.size());
    dirty_zones_.insert(zone);
    // The record of the cached write pointer, after the data: a process
    // death then keeps the write (RestoreLocked).
    if (auto s = SaveZoneRecord(zone); !s.ok()) return s;
  }
  IoCounters& c = stats_.by_class[static_cast<int>(ctx.io_class)];
  ++c.write_ops;
  c.write_bytes += src.size();
  const int mode = static_cast<int>(MediaModeLocked(zone));
  stats_.programmed_bytes[mode] += src.size();
  if (ctx.io_class == IoClass::kMigration) stats_.migration_programmed_bytes[mode] += src.size();
  return absl::OkStatus();
}

absl::Status EmulatedDevice::Write(uint64_t offset, std::span<const uint8_t> src,
                                   const IoContext& ctx) {
  return RunCommand(true, [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS -> absl::StatusOr<TimedRequest> {
    if (media_cache_) {
      if (auto s = zones_.CheckWrite(offset, src.size()); !s.ok()) return s;
      if (zones_.IsNonSequentialWrite(offset)) {
        if (auto s = MakeRoomInMediaCacheLocked(src.size()); !s.ok()) return s;
        // Cleaning the zone may have made the write sequential again.
        if (zones_.IsNonSequentialWrite(offset)) return WriteNswLocked(offset, src, ctx);
      }
    }
    if (auto s = WriteLocked(offset, src, ctx); !s.ok()) return s;
    const uint32_t zone = ZoneOf(offset);
    if (IsSplitLocked(zone)) {
      // On the subzone's chip, or into the SubZone Ring (the host link).
      const int32_t chip = subzones_->ChipOf(zone, subzones_->SubzoneOf(zone, offset));
      return TimedRequest{.op = IoOp::kWrite, .zone = zone, .offset = offset,
                          .length = src.size(), .cell_mode = MediaModeLocked(zone),
                          .io_class = ctx.io_class, .chip = chip, .buffered = ring_ != nullptr};
    }
    return TimedRequest{.op = IoOp::kWrite, .zone = zone, .offset = offset, .length = src.size(),
                        .cell_mode = MediaModeLocked(zone), .io_class = ctx.io_class};
  });
}

absl::StatusOr<uint64_t> EmulatedDevice::Append(uint32_t zone,
                                                std::span<const uint8_t> src,
                                                const IoContext& ctx) {
  uint64_t offset = 0;
  absl::Status s = RunCommand(true, [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS
                                  -> absl::StatusOr<TimedRequest> {
    if (zone >= info_.num_zones) {
      return MakeZoneError(ZoneError::kOutOfRange,
                           absl::StrCat("append to zone ", zone, " of ", info_.num_zones));
    }
    const ZoneInfo& z = zones_.zone(zone);
    if (z.type != ZoneType::kSequentialWriteRequired) {
      return MakeZoneError(ZoneError::kInvalidArgument,
                           absl::StrCat("append to ", ToString(z.type), " zone ", zone));
    }
    if (z.IsSplit()) {
      return MakeZoneError(ZoneError::kInvalidArgument,
                           absl::StrCat("append to split zone ", zone,
                                        ": append to one of its subzones"));
    }
    if (info_.max_append_bytes != 0 && src.size() > info_.max_append_bytes) {
      return MakeZoneError(ZoneError::kInvalidArgument,
                           absl::StrCat("append of ", src.size(), " bytes exceeds the limit of ",
                                        info_.max_append_bytes));
    }
    if (auto st = CheckZoneTakesWrites(z); !st.ok()) return st;
    offset = z.write_pointer;
    if (auto st = WriteLocked(offset, src, ctx); !st.ok()) return st;
    return TimedRequest{.op = IoOp::kWrite, .zone = zone, .offset = offset, .length = src.size(),
                        .cell_mode = MediaModeLocked(zone), .io_class = ctx.io_class};
  });
  if (!s.ok()) return s;
  return offset;
}

absl::Status EmulatedDevice::OpenZone(uint32_t zone, CellMode mode, const IoContext& ctx) {
  return RunCommand(true, [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS -> absl::StatusOr<TimedRequest> {
    if (auto s = CheckHostManagesZones(zone, "open"); !s.ok()) return s;
    const bool reopen = IsSplitLocked(zone) && zones_.zone(zone).state == ZoneState::kFull;
    if (reopen && !subzones_->AnyEmpty(zone)) {
      return MakeZoneError(ZoneError::kInvalidTransition,
                           absl::StrCat("open finished split zone ", zone,
                                        ": none of its subzones is empty"));
    }
    if (auto s = zones_.Open(zone, mode); !s.ok()) return s;
    // Active again, durably: after a power cut it is closed, not full.
    if (reopen) zones_.MarkDurable(zone);
    return TimedRequest{.op = IoOp::kManage, .zone = zone, .io_class = ctx.io_class};
  });
}

absl::Status EmulatedDevice::CloseZone(uint32_t zone, const IoContext& ctx) {
  return RunCommand(true, [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS -> absl::StatusOr<TimedRequest> {
    if (auto s = CheckHostManagesZones(zone, "close"); !s.ok()) return s;
    if (auto s = zones_.Close(zone); !s.ok()) return s;
    return TimedRequest{.op = IoOp::kManage, .zone = zone, .io_class = ctx.io_class};
  });
}

absl::Status EmulatedDevice::SaveZoneRecord(uint32_t zone) {
  return backing_->SaveZone({.durable = zones_.DurableZone(zone),
                             .cached_write_pointer = zones_.zone(zone).write_pointer});
}

absl::Status EmulatedDevice::FinishZone(uint32_t zone, const IoContext& ctx) {
  return RunCommand(true, [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS -> absl::StatusOr<TimedRequest> {
    if (auto s = CheckHostManagesZones(zone, "finish"); !s.ok()) return s;
    if (IsSplitLocked(zone) && !subzones_->AllInactive(zone)) {
      return MakeZoneError(ZoneError::kInvalidTransition,
                           absl::StrCat("finish split zone ", zone,
                                        ": a subzone is still being written; finish it first"));
    }
    if (auto s = zones_.Finish(zone); !s.ok()) return s;
    // A finished zone is durable with everything written to it.
    zones_.MarkDurable(zone);
    if (IsSplitLocked(zone)) subzones_->MarkDurable(zone);
    if (auto s = SaveZoneRecord(zone); !s.ok()) return s;
    ++stats_.zone_finishes;
    return TimedRequest{.op = IoOp::kFinish, .zone = zone, .io_class = ctx.io_class};
  });
}

absl::Status EmulatedDevice::ResetZone(uint32_t zone, const IoContext& ctx) {
  return RunCommand(true, [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS -> absl::StatusOr<TimedRequest> {
    if (zone >= info_.num_zones) return zones_.Reset(zone);
    if (auto s = CheckHostManagesZones(zone, "reset"); !s.ok()) return s;
    // The paper's RESET of a split zone: back to a wide zone.
    if (IsSplitLocked(zone)) return MergeLocked(zone, ctx);
    const ZoneInfo before = zones_.zone(zone);
    const CellMode erased = MediaModeLocked(zone);
    if (auto s = zones_.Reset(zone); !s.ok()) return s;
    const uint64_t written = before.write_pointer - before.start;
    if (written > 0) {
      if (auto s = backing_->Discard(before.start, written); !s.ok()) return s;
    }
    if (auto s = SaveZoneRecord(zone); !s.ok()) return s;
    if (slc_cache_) slc_cache_->Reset(zone);
    // Cached NSWs of a reset zone are garbage: never cleaned into it.
    if (media_cache_) DropCachedZoneLocked(zone);
    ++stats_.zone_resets;
    return TimedRequest{.op = IoOp::kReset, .zone = zone, .offset = before.start,
                        .length = written, .cell_mode = erased,
                        .io_class = ctx.io_class};
  });
}

absl::Status EmulatedDevice::FlushLocked() {
  for (const auto& [offset, block] : unflushed_blocks_) {
    if (auto s = backing_->Write(offset, block); !s.ok()) return s;
  }
  unflushed_blocks_.clear();
  for (uint32_t zone : dirty_zones_) {
    zones_.MarkDurable(zone);
    if (IsSplitLocked(zone)) subzones_->MarkDurable(zone);
    if (auto s = SaveZoneRecord(zone); !s.ok()) return s;
  }
  dirty_zones_.clear();
  return absl::OkStatus();
}

absl::Status EmulatedDevice::Flush(const IoContext& ctx) {
  return RunCommand(true, [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS -> absl::StatusOr<TimedRequest> {
    if (auto s = FlushLocked(); !s.ok()) return s;
    ++stats_.flushes;
    return TimedRequest{.op = IoOp::kFlush, .io_class = ctx.io_class};
  });
}

absl::StatusOr<uint64_t> EmulatedDevice::SimpleCopy(std::span<const CopyRange> sources,
                                                    uint32_t dst_zone,
                                                    const IoContext& ctx) {
  if (!info_.supports_simple_copy) return ZonedDevice::SimpleCopy(sources, dst_zone, ctx);
  const uint64_t submit = clock_->SubmitTimeNs();
  uint64_t done, dst;
  {
    absl::MutexLock lock(&mu_);
    if (auto s = CheckPowerLocked(/*mutating=*/true); !s.ok()) return s;
    command_submit_ns_ = submit;
    IdleMigrateLocked(submit);
    AdvanceCleaningLocked(submit);
    if (dst_zone >= info_.num_zones) {
      return MakeZoneError(ZoneError::kOutOfRange,
                           absl::StrCat("copy to zone ", dst_zone, " of ", info_.num_zones));
    }
    uint64_t total = 0;
    for (const CopyRange& r : sources) {
      if (auto s = zones_.CheckRead(r.offset, r.length); !s.ok()) return s;
      total += r.length;
    }
    if (auto s = CheckZoneTakesWrites(zones_.zone(dst_zone)); !s.ok()) return s;
    dst = zones_.zone(dst_zone).write_pointer;
    if (auto s = zones_.CheckWrite(dst, total); !s.ok()) return s;
    std::vector<uint8_t> data(total);
    uint64_t pos = 0;
    uint64_t t = submit;
    for (const CopyRange& r : sources) {
      if (auto s = ReadLocked(r.offset, std::span(data).subspan(pos, r.length)); !s.ok()) {
        return s;
      }
      const uint32_t z = ZoneOf(r.offset);
      t = std::max(t, ScheduleLocked({.op = IoOp::kRead, .zone = z, .offset = r.offset,
                                      .length = r.length,
                                      .cell_mode = MediaModeLocked(z),
                                      .io_class = ctx.io_class, .internal = true},
                                     submit));
      pos += r.length;
    }
    const IoCounters saved = stats_.by_class[static_cast<int>(ctx.io_class)];
    if (auto s = WriteLocked(dst, data, ctx); !s.ok()) return s;
    // The copy never crossed the host link: it is not host write traffic.
    stats_.by_class[static_cast<int>(ctx.io_class)] = saved;
    stats_.copy_bytes += total;
    ++stats_.simple_copies;
    done = ScheduleLocked({.op = IoOp::kWrite, .zone = dst_zone, .offset = dst,
                           .length = total,
                           .cell_mode = MediaModeLocked(dst_zone),
                           .io_class = ctx.io_class, .internal = true},
                          t);
    CountLatenessLocked(done);
  }
  WaitFor(done);
  return dst;
}

DeviceStats EmulatedDevice::Stats() const {
  absl::MutexLock lock(&mu_);
  DeviceStats s = stats_;
  timing_->ExportStats(&s);
  if (media_cache_) s.media_cache_bytes = media_cache_->used_bytes();
  // Elapsed model time: until now, or until the last modeled completion if
  // the model runs ahead of the clock (a manual clock nobody waited on).
  const uint64_t now = std::max(clock_->NowNs(), last_completion_ns_);
  s.elapsed_ns = now - std::min(now, opened_at_ns_);
  return s;
}

CellMode EmulatedDevice::MediaModeLocked(uint32_t zone) const {
  if (slc_cache_ && zones_.zone(zone).type != ZoneType::kConventional) {
    return slc_cache_->ModeOf(zone);
  }
  return zones_.zone(zone).cell_mode;
}

CellMode EmulatedDevice::PlaceWriteLocked(uint32_t zone, uint64_t length) {
  std::vector<uint32_t> migrate;
  const CellMode mode = slc_cache_->PlaceWrite(zone, length, &migrate);
  // The write waits for the dies the migrations keep busy.
  for (uint32_t victim : migrate) MigrateZoneLocked(victim, command_submit_ns_);
  return mode;
}

uint64_t EmulatedDevice::MigrateZoneLocked(uint32_t zone, uint64_t at_ns) {
  const uint64_t bytes = slc_cache_->written(zone);
  const uint64_t start = zones_.zone(zone).start;
  const CellMode native = info_.native_cell_mode;
  // Read in SLC and programmed natively inside the device: no host link.
  uint64_t done = ScheduleLocked({.op = IoOp::kRead, .zone = zone, .offset = start,
                                  .length = bytes, .cell_mode = CellMode::kSlc,
                                  .io_class = IoClass::kMigration, .internal = true},
                                 at_ns);
  done = std::max(done, ScheduleLocked({.op = IoOp::kWrite, .zone = zone, .offset = start,
                                        .length = bytes, .cell_mode = native,
                                        .io_class = IoClass::kMigration, .internal = true},
                                       done));
  slc_cache_->Migrated(zone);
  ++stats_.slc_zone_migrations;
  stats_.programmed_bytes[static_cast<int>(native)] += bytes;
  stats_.migration_programmed_bytes[static_cast<int>(native)] += bytes;
  return done;
}

void EmulatedDevice::IdleMigrateLocked(uint64_t submit_ns) {
  if (!slc_cache_ || slc_idle_ns_ == 0 || !timing_->timed()) return;
  // The firmware starts once the device has been idle for slc_idle_ns_ and
  // keeps migrating zone after zone until a command arrives; a migration
  // that started runs to its end, and the command waits for its dies.
  uint64_t at = last_completion_ns_ + slc_idle_ns_;
  while (at < submit_ns) {
    const int64_t victim = slc_cache_->IdleVictim(slc_idle_target_);
    if (victim < 0) return;
    at = MigrateZoneLocked(static_cast<uint32_t>(victim), at);
  }
}

void EmulatedDevice::PowerCutLocked() {
  PowerCutMediaCacheLocked();
  unflushed_blocks_.clear();
  PowerCutSubzonesLocked();
  std::vector<ZoneInfo> before;
  for (uint32_t zone : dirty_zones_) before.push_back(zones_.zone(zone));
  zones_.PowerCut();
  // Bytes past the durable write pointer are gone from the media too, so
  // they read as zeroes when the zone is rewritten up to them.
  // The rolled-back write pointers are recorded too, so a later process
  // does not bring the lost writes back.
  for (const ZoneInfo& b : before) {
    const ZoneInfo& now = zones_.zone(b.index);
    if (b.write_pointer > now.write_pointer) {
      (void)backing_->Discard(now.write_pointer, b.write_pointer - now.write_pointer);
      if (slc_cache_) slc_cache_->RolledBack(b.index, now.write_pointer - now.start);
    }
    (void)SaveZoneRecord(b.index);
  }
  dirty_zones_.clear();
}

void EmulatedDevice::PowerCut() {
  absl::MutexLock lock(&mu_);
  if (!powered_off_) PowerCutLocked();
  powered_off_ = false;
  commands_until_power_off_ = -1;
}

void EmulatedDevice::PowerOff() {
  absl::MutexLock lock(&mu_);
  if (!powered_off_) PowerCutLocked();
  powered_off_ = true;
  commands_until_power_off_ = -1;
}

void EmulatedDevice::PowerOffAfter(uint64_t commands) {
  absl::MutexLock lock(&mu_);
  commands_until_power_off_ = static_cast<int64_t>(commands);
}

void EmulatedDevice::PowerOn() {
  absl::MutexLock lock(&mu_);
  powered_off_ = false;
  commands_until_power_off_ = -1;
}

bool EmulatedDevice::powered_off() const {
  absl::MutexLock lock(&mu_);
  return powered_off_;
}

absl::Status EmulatedDevice::PoweredOffError() const {
  return absl::UnavailableError(absl::StrCat("device ", info_.name, " is powered off"));
}

absl::Status EmulatedDevice::CheckPowerLocked(bool mutating) {
  if (!powered_off_ && mutating && commands_until_power_off_ >= 0) {
    if (commands_until_power_off_ == 0) {
      PowerCutLocked();
      powered_off_ = true;
      commands_until_power_off_ = -1;
    } else {
      --commands_until_power_off_;
    }
  }
  return powered_off_ ? PoweredOffError() : absl::OkStatus();
}

void EmulatedDevice::SetZoneReadOnly(uint32_t zone) {
  absl::MutexLock lock(&mu_);
  zones_.SetReadOnly(zone);
  (void)SaveZoneRecord(zone);
}

void EmulatedDevice::SetZoneOffline(uint32_t zone) {
  absl::MutexLock lock(&mu_);
  zones_.SetOffline(zone);
  (void)SaveZoneRecord(zone);
}

}  // namespace zonestack::device
