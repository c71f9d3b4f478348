// EmulatedDevice's host-aware SMR commands (ZoneTier, "HA-SMR Drive
// Internals"; docs/emulator.md, "Host-aware SMR"): non-sequential writes
// journaled in the media cache, reads of the blocks whose newest copy lies
// there, and the host's view of a device-managed drive.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "device/emulated_device.h"
#include "device/zone_error.h"

namespace zonestack::device {

absl::Status EmulatedDevice::ValidateHostAware(const EmulatorOptions& o) {
  auto bad = [&](const char* what) {
    return absl::InvalidArgumentError(absl::StrCat("device ", o.info.name, ": ", what));
  };
  const MediaCacheOptions& mc = o.media_cache;
  if (!o.info.host_aware()) {
    if (mc.bytes > 0 || mc.device_managed) {
      return bad("a media cache needs sequential-write-preferred (host-aware SMR) zones");
    }
    return absl::OkStatus();
  }
  if (mc.bytes == 0 || mc.bytes % o.info.block_size != 0) {
    return bad("a host-aware SMR device needs a media cache of a positive number of blocks");
  }
  if (o.info.supports_subzones || o.info.supports_simple_copy || o.hidden_slc_cache) {
    return bad("a host-aware SMR device has no subzones, Simple Copy or SLC cache");
  }
  if (mc.high_water_percent == 0 || mc.high_water_percent > 100 ||
      mc.low_water_percent >= mc.high_water_percent) {
    return bad("media cache high water must be in (0, 100] and above the low water");
  }
  if (o.backing && o.backing->persistent()) {
    return bad("a device file records no media cache yet; use a memory backing");
  }
  return absl::OkStatus();
}

DeviceInfo EmulatedDevice::HostView(const EmulatorOptions& o) {
  DeviceInfo info = o.info;
  info.outlives_process = o.backing->persistent();  // not a device in memory
  if (o.media_cache.device_managed) {
    info.num_conventional_zones = info.num_zones;
    info.sequential_zone_type = ZoneType::kConventional;
    info.max_open_zones = info.max_active_zones = 0;
  }
  return info;
}

absl::StatusOr<TimedRequest> EmulatedDevice::WriteNswLocked(uint64_t offset,
                                                            std::span<const uint8_t> src,
                                                            const IoContext& ctx) {
  const uint32_t zone = ZoneOf(offset);
  // The zone's condition changes now, and the drive records it with the
  // write pointer it has: sequential writes still in the write cache are
  // committed with it, so the zone's data and its journal agree after a
  // power cut.
  if (!zones_.zone(zone).non_sequential) zones_.MarkDurable(zone);
  const uint64_t log_pos = media_cache_->Append(offset, src);
  zones_.CommitWrite(offset, src.size());
  // The media cache is a persistent journal on the platter: an NSW is
  // durable once it completes, and so is the write pointer it moved.
  zones_.MarkDurable(zone);
  dirty_zones_.erase(zone);
  if (auto s = SaveZoneRecord(zone); !s.ok()) return s;
  IoCounters& c = stats_.by_class[static_cast<int>(ctx.io_class)];
  ++c.write_ops;
  c.write_bytes += src.size();
  ++stats_.nsw_writes;
  stats_.nsw_bytes += src.size();
  stats_.programmed_bytes[static_cast<int>(CellMode::kNone)] += src.size();
  const TimedRequest log_write{.op = IoOp::kWrite, .zone = zone, .offset = log_pos,
                               .length = src.size(), .io_class = ctx.io_class};
  if (media_cache_->used_bytes() > media_cache_->capacity_bytes()) {
    // Larger than the whole (emptied) log: the drive rewrites the zone at
    // once, and the write completes with that read-modify-write.
    command_floor_ns_ = std::max(command_floor_ns_, ScheduleLocked(log_write, command_submit_ns_));
    BeginCleanStepLocked(zone, command_floor_ns_);
    command_floor_ns_ = std::max(command_floor_ns_, clean_step_->done_ns);
    if (auto s = FinishCleanStepLocked(); !s.ok()) return s;
    return TimedRequest{.op = IoOp::kManage, .zone = zone, .io_class = ctx.io_class};
  }
  const uint64_t cap = media_cache_->capacity_bytes();
  if (media_cache_->used_bytes() > cap * mc_.high_water_percent / 100) {
    // Nearly full: cleaning starts behind this write.
    StartCleaningLocked(command_submit_ns_, cap * mc_.low_water_percent / 100);
    if (!timing_->timed()) AdvanceCleaningLocked(command_submit_ns_);
  }
  // A journal append: the head goes to the log in the CMR region and
  // writes there (successive NSWs stream on without repositioning).
  return log_write;
}

bool EmulatedDevice::ScheduleMediaCacheReadLocked(uint64_t offset, uint64_t length,
                                                  const IoContext& ctx) {
  uint64_t hit = 0;
  const std::vector<MediaCache::LogRun> runs = media_cache_->RunsIn(offset, length, &hit);
  const uint32_t zone = ZoneOf(offset);
  for (const MediaCache::LogRun& run : runs) {
    command_floor_ns_ = std::max(
        command_floor_ns_, ScheduleLocked({.op = IoOp::kRead, .zone = zone,
                                           .offset = run.log_pos, .length = run.length,
                                           .io_class = ctx.io_class},
                                          command_submit_ns_));
  }
  stats_.media_cache_read_bytes += hit;
  return hit == length;
}

ZoneInfo EmulatedDevice::HostZoneLocked(uint32_t zone) const {
  ZoneInfo z = zones_.zone(zone);
  if (mc_.device_managed) {
    z.type = ZoneType::kConventional;
    z.state = ZoneState::kNotWritePointer;
    z.capacity = z.size;
    z.write_pointer = z.start;
    z.non_sequential = false;
  }
  return z;
}

absl::Status EmulatedDevice::CheckHostManagesZones(uint32_t zone, const char* action) const {
  if (!mc_.device_managed || zone >= info_.num_zones) return absl::OkStatus();
  return MakeZoneError(ZoneError::kInvalidArgument,
                       absl::StrCat(action, " zone ", zone, ": device ", info_.name,
                                    " is device-managed SMR; its zones are conventional"));
}

}  // namespace zonestack::device
