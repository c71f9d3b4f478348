// EmulatedDevice's SplitZNS commands: split and merge of zones (section
// 4.2), subzone writes, reads, finish and reset on one chip, and the
// SubZone Ring between subzone writes and the chips (section 4.4.1).
#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "device/emulated_device.h"
#include "device/zone_error.h"

namespace zonestack::device {

absl::Status EmulatedDevice::SplitZone(uint32_t zone, const IoContext& ctx) {
  if (!info_.supports_subzones) return ZonedDevice::SplitZone(zone, ctx);
  return RunCommand(true, [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS -> absl::StatusOr<TimedRequest> {
    if (backing_->persistent()) {
      return MakeZoneError(ZoneError::kUnsupported,
                           absl::StrCat("split zone ", zone, ": device ", info_.name,
                                        " keeps its zones in a file, which records no split "
                                        "zones yet"));
    }
    if (auto s = zones_.Split(zone, info_.subzones_per_zone); !s.ok()) return s;
    subzones_->Split(zone);
    ++stats_.zone_splits;
    return TimedRequest{.op = IoOp::kManage, .zone = zone, .io_class = ctx.io_class};
  });
}

absl::StatusOr<TimedRequest> EmulatedDevice::MergeLocked(uint32_t zone, const IoContext& ctx) {
  if (IsSplitLocked(zone) && !subzones_->AllEmpty(zone)) {
    return MakeZoneError(ZoneError::kInvalidTransition,
                         absl::StrCat("merge split zone ", zone,
                                      ": its subzones hold data; reset them first"));
  }
  if (auto s = zones_.Merge(zone); !s.ok()) return s;
  subzones_->Merge(zone);
  ++stats_.zone_merges;
  return TimedRequest{.op = IoOp::kManage, .zone = zone, .io_class = ctx.io_class};
}

absl::Status EmulatedDevice::MergeZone(uint32_t zone, const IoContext& ctx) {
  if (!info_.supports_subzones) return ZonedDevice::MergeZone(zone, ctx);
  return RunCommand(true, [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS -> absl::StatusOr<TimedRequest> {
    return MergeLocked(zone, ctx);
  });
}

absl::Status EmulatedDevice::CheckSubzoneLocked(uint32_t zone, uint32_t subzone,
                                                const char* what) const {
  if (zone >= info_.num_zones) {
    return MakeZoneError(ZoneError::kOutOfRange,
                         absl::StrCat(what, " zone ", zone, " of ", info_.num_zones));
  }
  if (!IsSplitLocked(zone)) {
    return MakeZoneError(ZoneError::kInvalidArgument,
                         absl::StrCat(what, " a subzone of zone ", zone, ", which is not split"));
  }
  if (subzone >= info_.subzones_per_zone) {
    return MakeZoneError(ZoneError::kOutOfRange,
                         absl::StrCat(what, " subzone ", subzone, " of zone ", zone, ", which has ",
                                      info_.subzones_per_zone));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<SubzoneInfo>> EmulatedDevice::ReportSubzones(uint32_t zone) const {
  if (!info_.supports_subzones) return ZonedDevice::ReportSubzones(zone);
  absl::MutexLock lock(&mu_);
  if (powered_off_) return PoweredOffError();
  if (auto s = CheckSubzoneLocked(zone, 0, "report"); !s.ok()) return s;
  return subzones_->Report(zone, zones_.zone(zone).IsOpen());
}

absl::Status EmulatedDevice::WriteSubzoneLocked(uint32_t zone, uint64_t offset,
                                                std::span<const uint8_t> src,
                                                const IoContext& ctx) {
  const uint64_t bs = info_.block_size;
  if (offset % bs != 0 || src.size() % bs != 0) {
    return MakeZoneError(ZoneError::kUnaligned, absl::StrCat("write of ", src.size(),
                                                             " bytes at ", offset,
                                                             ", block size ", bs));
  }
  if (src.empty()) return MakeZoneError(ZoneError::kInvalidArgument, "empty write");
  if (auto s = zones_.CheckSubzoneWrite(zone); !s.ok()) return s;
  if (auto s = subzones_->CheckWrite(zone, offset, src.size()); !s.ok()) return s;
  const uint32_t sub = subzones_->SubzoneOf(zone, offset);
  if (ring_) {
    // W1-W4: room first, by programming a unit on every chip that has one.
    if (auto s = MakeRoomInRingLocked(src.size(), ctx.io_class); !s.ok()) return s;
  }
  zones_.CommitSubzoneWrite(zone);
  subzones_->CommitWrite(zone, offset, src.size());
  const int32_t chip = subzones_->ChipOf(zone, sub);
  if (ring_) {
    // W5-W6: the write is acknowledged from the ring.
    ring_->Append({zone, sub}, chip, offset - subzones_->SubzoneStart(zone, sub), src);
  } else {
    if (auto s = backing_->Write(offset, src); !s.ok()) return s;
    stats_.programmed_bytes[static_cast<int>(MediaModeLocked(zone))] += src.size();
  }
  dirty_zones_.insert(zone);
  IoCounters& c = stats_.by_class[static_cast<int>(ctx.io_class)];
  ++c.write_ops;
  c.write_bytes += src.size();
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> EmulatedDevice::AppendSubzone(uint32_t zone, uint32_t subzone,
                                                       std::span<const uint8_t> src,
                                                       const IoContext& ctx) {
  if (!info_.supports_subzones) return ZonedDevice::AppendSubzone(zone, subzone, src, ctx);
  uint64_t offset = 0;
  absl::Status s = RunCommand(true, [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS
                                  -> absl::StatusOr<TimedRequest> {
    if (auto st = CheckSubzoneLocked(zone, subzone, "append to"); !st.ok()) return st;
    if (info_.max_append_bytes != 0 && src.size() > info_.max_append_bytes) {
      return MakeZoneError(ZoneError::kInvalidArgument,
                           absl::StrCat("append of ", src.size(), " bytes exceeds the limit of ",
                                        info_.max_append_bytes));
    }
    offset = subzones_->SubzoneStart(zone, subzone) + subzones_->Written(zone, subzone);
    if (auto st = WriteSubzoneLocked(zone, offset, src, ctx); !st.ok()) return st;
    return TimedRequest{.op = IoOp::kWrite, .zone = zone, .offset = offset, .length = src.size(),
                        .cell_mode = MediaModeLocked(zone), .io_class = ctx.io_class,
                        .chip = subzones_->ChipOf(zone, subzone), .buffered = ring_ != nullptr};
  });
  if (!s.ok()) return s;
  return offset;
}

absl::Status EmulatedDevice::FinishSubzone(uint32_t zone, uint32_t subzone,
                                           const IoContext& ctx) {
  if (!info_.supports_subzones) return ZonedDevice::FinishSubzone(zone, subzone, ctx);
  return RunCommand(true, [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS -> absl::StatusOr<TimedRequest> {
    if (auto s = CheckSubzoneLocked(zone, subzone, "finish"); !s.ok()) return s;
    const ZoneInfo& z = zones_.zone(zone);
    const bool full = subzones_->Report(zone, false)[subzone].state == ZoneState::kFull;
    if (!z.IsActive() && !(z.state == ZoneState::kFull && full)) {
      return MakeZoneError(ZoneError::kInvalidTransition,
                           absl::StrCat("finish subzone ", subzone, " of ", ToString(z.state),
                                        " split zone ", zone));
    }
    subzones_->Finish(zone, subzone);
    // The last unit is programmed as it is, padded.
    if (ring_) ring_->Seal({zone, subzone});
    ++stats_.zone_finishes;
    return TimedRequest{.op = IoOp::kFinish, .zone = zone, .io_class = ctx.io_class};
  });
}

absl::Status EmulatedDevice::ResetSubzone(uint32_t zone, uint32_t subzone,
                                          const IoContext& ctx) {
  if (!info_.supports_subzones) return ZonedDevice::ResetSubzone(zone, subzone, ctx);
  return RunCommand(true, [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS -> absl::StatusOr<TimedRequest> {
    if (auto s = CheckSubzoneLocked(zone, subzone, "reset"); !s.ok()) return s;
    const ZoneInfo& z = zones_.zone(zone);
    if (!z.IsActive() && z.state != ZoneState::kFull) {
      return MakeZoneError(ZoneError::kInvalidTransition,
                           absl::StrCat("reset subzone ", subzone, " of ", ToString(z.state),
                                        " split zone ", zone));
    }
    const SubzoneRing::Key key{zone, subzone};
    const int32_t chip = subzones_->ChipOf(zone, subzone);
    const uint64_t start = subzones_->SubzoneStart(zone, subzone);
    // Bytes still in the ring never reached the chip: nothing to erase.
    uint64_t on_flash = subzones_->Written(zone, subzone);
    if (ring_) {
      on_flash = std::min(on_flash, ring_->ActualWritePointer(key));
      ring_->Drop(key);
    }
    if (prefetcher_) prefetcher_->Forget(key);
    const uint64_t written = subzones_->Reset(zone, subzone);
    if (written > 0) {
      if (auto s = backing_->Discard(start, written); !s.ok()) return s;
    }
    ++stats_.subzone_resets;
    return TimedRequest{.op = IoOp::kReset, .zone = zone, .offset = start, .length = on_flash,
                        .cell_mode = MediaModeLocked(zone), .io_class = ctx.io_class,
                        .chip = chip};
  });
}

absl::StatusOr<TimedRequest> EmulatedDevice::SubzoneReadLocked(uint64_t offset, uint64_t length,
                                                               const IoContext& ctx) {
  const uint32_t zone = ZoneOf(offset);
  const uint32_t sub = subzones_->SubzoneOf(zone, offset);
  const uint64_t start = subzones_->SubzoneStart(zone, sub);
  const uint64_t end = offset + length;
  if (end > start + subzones_->subzone_size() && !info_.cross_zone_reads_allowed) {
    return MakeZoneError(ZoneError::kBoundary,
                         absl::StrCat("read of ", length, " bytes at ", offset,
                                      " crosses the end of subzone ", sub, " of zone ", zone));
  }
  IoCounters& c = stats_.by_class[static_cast<int>(ctx.io_class)];
  ++c.read_ops;
  c.read_bytes += length;
  const int32_t chip = subzones_->ChipOf(zone, sub);
  const uint64_t on_flash = start + OnFlashLocked(zone, sub);
  // The read in up to three parts, in address order: what the preread
  // buffer holds, what only the chip has, and what is still in the
  // SubZone Ring (R1-R3 of both sections). Each part is timed from the
  // submission; the command completes with the last.
  uint64_t pos = offset;
  if (prefetcher_ && ctx.io_class == IoClass::kCompaction && chip >= 0) {
    const ReadPrefetcher::Hit hit = prefetcher_->Read({zone, sub}, chip, offset - start, length);
    if (hit.bytes > 0) {
      stats_.prefetch_hit_bytes += hit.bytes;
      const TimedRequest buffered{.op = IoOp::kRead, .zone = zone, .offset = pos,
                                  .length = hit.bytes, .io_class = ctx.io_class,
                                  .chip = chip, .buffered = true};
      const uint64_t done = std::max(ScheduleLocked(buffered, command_submit_ns_),
                                     timing_->timed() ? hit.ready_ns : 0);
      command_floor_ns_ = std::max(command_floor_ns_, done);
      pos += hit.bytes;
    }
  }
  // Unwritten bytes read as zeroes; they are timed as a flash read unless
  // the ring holds bytes before them.
  const uint64_t written_end = start + subzones_->Written(zone, sub);
  const uint64_t flash_end =
      std::max(pos, on_flash >= written_end ? end : std::min(end, on_flash));
  if (flash_end > pos) {
    const TimedRequest flash{.op = IoOp::kRead, .zone = zone, .offset = pos,
                             .length = flash_end - pos, .cell_mode = MediaModeLocked(zone),
                             .io_class = ctx.io_class, .chip = chip};
    command_floor_ns_ =
        std::max(command_floor_ns_, ScheduleLocked(flash, command_submit_ns_));
    // R5: the chips this read leaves idle preread for other compactions.
    if (prefetcher_ && ctx.io_class == IoClass::kCompaction && chip >= 0) PrefetchLocked(chip);
    pos = flash_end;
  }
  const uint64_t ring_end = std::min(end, written_end);
  if (ring_end > pos) {
    stats_.ring_read_bytes += ring_end - pos;
    const TimedRequest ring{.op = IoOp::kRead, .zone = zone, .offset = pos,
                            .length = ring_end - pos, .io_class = ctx.io_class, .chip = chip,
                            .buffered = true};
    command_floor_ns_ = std::max(command_floor_ns_, ScheduleLocked(ring, command_submit_ns_));
  }
  // The parts carry the timing; the command itself is one submission.
  return TimedRequest{.op = IoOp::kManage, .zone = zone, .io_class = ctx.io_class};
}

uint64_t EmulatedDevice::OnFlashLocked(uint32_t zone, uint32_t sub) const {
  const uint64_t written = subzones_->Written(zone, sub);
  if (!ring_) return written;
  return std::min(written, ring_->ActualWritePointer({zone, sub}));
}

void EmulatedDevice::PrefetchLocked(int32_t chip) {
  const auto prereads = prefetcher_->Choose(chip, [&](ReadPrefetcher::Key key)
                                                      ABSL_NO_THREAD_SAFETY_ANALYSIS {
    return OnFlashLocked(key.first, key.second);
  });
  for (const ReadPrefetcher::Preread& p : prereads) {
    const uint64_t at = subzones_->SubzoneStart(p.key.first, p.key.second) + p.offset;
    // Sensed and moved over the channel into controller memory: no link.
    const uint64_t ready = ScheduleLocked({.op = IoOp::kRead, .zone = p.key.first, .offset = at,
                                           .length = p.length,
                                           .cell_mode = MediaModeLocked(p.key.first),
                                           .io_class = IoClass::kCompaction, .internal = true,
                                           .chip = p.chip},
                                          command_submit_ns_);
    prefetcher_->Issued(p, ready);
    ++stats_.prefetch_reads;
    stats_.prefetch_read_bytes += p.length;
  }
}

absl::Status EmulatedDevice::MakeRoomInRingLocked(uint64_t len, IoClass io_class) {
  while (ring_->Full(len)) {
    std::vector<SubzoneRing::Drained> round = ring_->DrainRound();
    // Only partial units left: the ring takes the write over its size
    // until a unit completes (docs/emulator.md).
    if (round.empty()) break;
    ++stats_.ring_drain_rounds;
    for (const SubzoneRing::Drained& d : round) {
      const uint32_t zone = d.key.first;
      const uint64_t at = subzones_->SubzoneStart(zone, d.key.second) + d.offset;
      if (auto s = backing_->Write(at, d.data); !s.ok()) return s;
      const CellMode mode = MediaModeLocked(zone);
      stats_.ring_drained_bytes += d.data.size();
      stats_.programmed_bytes[static_cast<int>(mode)] += d.data.size();
      // The write that found the ring full waits until every chip took
      // its unit (W4 before W5).
      const uint64_t done = ScheduleLocked({.op = IoOp::kWrite, .zone = zone, .offset = at,
                                            .length = d.data.size(), .cell_mode = mode,
                                            .io_class = io_class, .internal = true,
                                            .chip = d.chip},
                                           command_submit_ns_);
      command_floor_ns_ = std::max(command_floor_ns_, done);
    }
  }
  return absl::OkStatus();
}

void EmulatedDevice::ReadRingLocked(uint64_t offset, std::span<uint8_t> dst) {
  const uint64_t end = offset + dst.size();
  for (uint64_t pos = offset; pos < end;) {
    const uint32_t zone = ZoneOf(pos);
    const uint64_t zone_end = ZoneStart(zone) + info_.zone_size;
    if (!IsSplitLocked(zone)) {
      pos = zone_end;
      continue;
    }
    const uint32_t sub = subzones_->SubzoneOf(zone, pos);
    const uint64_t start = subzones_->SubzoneStart(zone, sub);
    const uint64_t stop = std::min(end, start + subzones_->subzone_size());
    ring_->Read({zone, sub}, pos - start,
                dst.subspan(pos - offset, stop - pos));
    pos = stop;
  }
}

void EmulatedDevice::PowerCutSubzonesLocked() {
  if (!subzones_) return;
  // The ring's DRAM is capacitor-backed (section 4.4.1): its units reach
  // the chips before the power is gone. Then, as on every zone, what no
  // Flush made durable is lost.
  if (ring_) {
    for (const SubzoneRing::Drained& d : ring_->DrainAll()) {
      const uint64_t at = subzones_->SubzoneStart(d.key.first, d.key.second) + d.offset;
      (void)backing_->Write(at, d.data);
      stats_.ring_drained_bytes += d.data.size();
    }
  }
  for (const auto& [offset, length] : subzones_->PowerCut()) {
    (void)backing_->Discard(offset, length);
  }
  // Read pointers and preread buffers are controller state a power cycle
  // clears.
  if (prefetcher_) prefetcher_ = std::make_unique<ReadPrefetcher>(prefetch_bytes_);
}

}  // namespace zonestack::device
