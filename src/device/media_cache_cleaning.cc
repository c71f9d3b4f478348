// Media cache cleaning of an emulated SMR drive (ZoneTier, "Sequential
// Write and NSW" and "HA-SMR Drive Performance"; docs/emulator.md,
// "Host-aware SMR"). The drive moves journaled NSWs home zone by zone with
// a read-modify-write: read the zone's cached blocks from the log, read the
// zone, merge, rewrite the zone sequentially. A cleaning run starts when an
// NSW leaves the log above its high-water mark or when the device has been
// idle long enough, and holds the head zone after zone until the log is
// down to its target: a command that arrives meanwhile waits for the zone
// in progress and the next zone starts right behind it, which is the
// "continuous period of ultra-low throughput" of the paper's Fig. 2, and
// the run lasts as many read-modify-writes as the NSWs touched zones, the
// recovery time of its Fig. 3.
#include <algorithm>

#include "device/emulated_device.h"

namespace zonestack::device {

void EmulatedDevice::StartCleaningLocked(uint64_t at_ns, uint64_t target) {
  if (cleaning_) {
    clean_target_bytes_ = std::min(clean_target_bytes_, target);
    return;
  }
  cleaning_ = true;
  clean_next_ns_ = at_ns;
  clean_target_bytes_ = target;
  ++stats_.media_cache_cleanings;
}

void EmulatedDevice::AdvanceCleaningLocked(uint64_t now_ns) {
  if (!media_cache_) return;
  const bool timed = timing_->timed();
  // An untimed device cleans at once; a timed one up to `now_ns`, with the
  // zone the head is in the middle of landing once its time has come.
  if (clean_step_ && (!timed || clean_step_->done_ns <= now_ns)) {
    (void)FinishCleanStepLocked();
  }
  if (clean_step_) return;
  if (timed && !cleaning_ && mc_.idle_ns > 0 && !media_cache_->empty() &&
      last_completion_ns_ + mc_.idle_ns <= now_ns) {
    // Idle cleaning empties the whole log.
    StartCleaningLocked(last_completion_ns_ + mc_.idle_ns, 0);
    ++stats_.media_cache_idle_cleanings;
  }
  while (cleaning_) {
    if (media_cache_->empty() || media_cache_->used_bytes() <= clean_target_bytes_) {
      cleaning_ = false;
      break;
    }
    // The next zone starts when the previous one is done and the head has
    // served what arrived meanwhile; a command arriving just as the head
    // comes free waits for the zone (else back-to-back commands would
    // starve cleaning, which drives do not let them do).
    const uint64_t start = std::max(clean_next_ns_, last_completion_ns_);
    if (timed && start > now_ns) break;
    BeginCleanStepLocked(*media_cache_->OldestZone(), start);
    if (timed && clean_step_->done_ns > now_ns) break;
    (void)FinishCleanStepLocked();
  }
}

void EmulatedDevice::BeginCleanStepLocked(uint32_t zone, uint64_t at_ns) {
  CleanStep step{.taken = media_cache_->TakeZone(zone)};
  const ZoneInfo& z = zones_.zone(zone);
  // The zone's valid data ends at its write pointer (the end of the
  // highest block written); the rewrite covers that much.
  const uint64_t valid = z.write_pointer - z.start;
  uint64_t t = at_ns;
  const auto schedule = [&](IoOp op, uint64_t offset, uint64_t length)
                            ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const uint64_t done = ScheduleLocked({.op = op, .zone = zone, .offset = offset,
                                          .length = length, .io_class = IoClass::kGc,
                                          .internal = true},
                                         t);
    t = std::max(t, done);
  };
  for (const MediaCache::LogRun& run : step.taken.runs) schedule(IoOp::kRead, run.log_pos, run.length);
  if (valid > 0) {
    schedule(IoOp::kRead, z.start, valid);
    schedule(IoOp::kWrite, z.start, valid);
  }
  step.done_ns = t;
  ++stats_.media_cache_cleaned_zones;
  stats_.media_cache_rmw_bytes += valid;
  stats_.media_cache_cleaned_bytes += step.taken.blocks.size() * info_.block_size;
  if (timing_->timed()) stats_.media_cache_cleaning_ns += t - std::min(t, at_ns);
  clean_next_ns_ = t;
  clean_step_ = std::move(step);
}

absl::Status EmulatedDevice::FinishCleanStepLocked() {
  CleanStep step = std::move(*clean_step_);
  clean_step_.reset();
  const uint32_t zone = step.taken.zone;
  for (const auto& [offset, block] : step.taken.blocks) {
    if (auto s = backing_->Write(offset, block.data); !s.ok()) return s;
  }
  // Sequential again, the write pointer at the end of its valid data, so
  // the host can go on writing it sequentially (ZoneTier's "former NSW
  // turns to sequential write"): unless NSWs the zone took while the head
  // rewrote it are in the cache already.
  if (!media_cache_->HoldsZone(zone)) zones_.MarkSequential(zone);
  zones_.MarkDurable(zone);
  return SaveZoneRecord(zone);
}

absl::Status EmulatedDevice::MakeRoomInMediaCacheLocked(uint64_t length) {
  const uint64_t cap = media_cache_->capacity_bytes();
  if (media_cache_->used_bytes() + length <= cap) return absl::OkStatus();
  ++stats_.media_cache_full_stalls;
  // The write waits while the drive cleans, oldest zone first, until it
  // fits; a cleaning run already on goes on afterwards.
  if (clean_step_) {
    if (auto s = FinishCleanStepLocked(); !s.ok()) return s;
  }
  while (!media_cache_->empty() && media_cache_->used_bytes() + length > cap) {
    BeginCleanStepLocked(*media_cache_->OldestZone(),
                         std::max(command_submit_ns_, command_floor_ns_));
    command_floor_ns_ = std::max(command_floor_ns_, clean_step_->done_ns);
    if (auto s = FinishCleanStepLocked(); !s.ok()) return s;
  }
  return absl::OkStatus();
}

void EmulatedDevice::DropCachedZoneLocked(uint32_t zone) {
  (void)media_cache_->TakeZone(zone);
  if (clean_step_ && clean_step_->taken.zone == zone) clean_step_.reset();
}

void EmulatedDevice::PowerCutMediaCacheLocked() {
  if (!media_cache_) return;
  // What the head finished before the power went stays done.
  if (timing_->timed()) AdvanceCleaningLocked(clock_->NowNs());
  if (clean_step_) {
    // Torn: the drive drops a zone's journal entries only after the zone
    // is rewritten, so they are all still there.
    media_cache_->Restore(std::move(clean_step_->taken));
    clean_step_.reset();
    ++stats_.media_cache_torn_cleanings;
  }
  cleaning_ = false;
}

}  // namespace zonestack::device
