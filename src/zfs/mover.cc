#include "zfs/mover.h"

#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "zfs/volume_impl.h"

namespace zonestack::zfs {
namespace {

// The GC thread looks at the devices' free zones once per period, on the
// volume's clock (and when woken).
constexpr uint64_t kGcPeriodNs = 200'000'000;
// How often the GC thread asks the devices for zones that failed without
// a command of zfs failing on them (zone_retire.cc).
constexpr int kFailedZoneReportTicks = 5;  // of the periods
// How often the migration thread asks the policy for work when the last
// request moved nothing, on the volume's clock.
constexpr uint64_t kMigrationPeriodNs = 500'000'000;

}  // namespace

void Mover::Start(bool migration, bool cell_migration) {
  gc_thread_ = std::thread([this] { GcLoop(); });
  if (migration) migration_thread_ = std::thread([this] { MigrationLoop(); });
  if (cell_migration) cell_thread_ = std::thread([this] { CellMigrationLoop(); });
}

void Mover::Stop() {
  {
    absl::MutexLock l(&stop_mu_);
    stopping_ = true;
  }
  if (migration_thread_.joinable()) migration_thread_.join();
  if (cell_thread_.joinable()) cell_thread_.join();
  {
    absl::MutexLock l(&wake_mu_);
    gc_stop_ = true;
  }
  if (gc_thread_.joinable()) gc_thread_.join();
}

absl::StatusOr<GcStats> Mover::CollectGarbage(GcTrigger trigger) {
  if (auto s = vol_.CheckWritable(); !s.ok()) return s;
  if (!vol_.placement().allows_gc()) {
    return absl::FailedPreconditionError(
        absl::StrCat("placement '", vol_.placement().name(), "' allows no GC"));
  }
  absl::MutexLock gc(&gc_mu_);
  const uint64_t start = vol_.clock().NowNs();
  GcStats stats;
  for (uint32_t d = 0; d < vol_.members().size(); ++d) vol_.CollectDevice(d, trigger, &stats);
  ++gc_runs_;
  gc_zones_ += stats.zones_reclaimed;
  gc_bytes_ += stats.bytes_relocated;
  gc_busy_ns_ += vol_.clock().NowNs() - start;
  if (trigger == GcTrigger::kWriterOutOfRoom) {
    ++writer_gc_runs_;
    writer_gc_zones_ += stats.zones_reclaimed;
  }
  return stats;
}

GcTotals Mover::gc_totals() const {
  GcTotals t;
  t.runs = gc_runs_.load();
  t.zones_reclaimed = gc_zones_.load();
  t.bytes_relocated = gc_bytes_.load();
  t.busy_ns = gc_busy_ns_.load();
  t.writer_runs = writer_gc_runs_.load();
  t.writer_zones_reclaimed = writer_gc_zones_.load();
  return t;
}

absl::Status Mover::Migrate(const std::string& path, uint32_t device, double bytes_per_sec) {
  if (auto s = vol_.CheckWritable(); !s.ok()) return s;
  uint64_t moved = 0;
  absl::Status s;
  {
    absl::MutexLock move(&move_mu_);
    s = vol_.MoveFile(path, device, bytes_per_sec, &moved);
  }
  if (!s.ok()) {
    ++migration_failures_;
    if (absl::IsAborted(s)) ++migrations_aborted_;
    if (absl::IsResourceExhausted(s)) ++migrations_without_room_;
  } else if (moved > 0) {
    ++migrated_files_;
    migrated_bytes_ += moved;
  }
  return s;
}

absl::Status Mover::MigrateCells(const CellMigration& request) {
  if (auto s = vol_.CheckWritable(); !s.ok()) return s;
  CellMigrationStats run;
  absl::Status s;
  {
    absl::MutexLock move(&move_mu_);
    s = vol_.MigrateCells(request, &run);
  }
  absl::MutexLock l(&cell_stats_mu_);
  ++cell_stats_.runs;
  cell_stats_.extents_moved += run.extents_moved;
  cell_stats_.bytes_moved += run.bytes_moved;
  cell_stats_.no_room += run.no_room;
  cell_stats_.aborted += run.aborted;
  return s;
}

CellMigrationStats Mover::cell_stats() const {
  absl::MutexLock l(&cell_stats_mu_);
  return cell_stats_;
}

void Mover::CellMigrationLoop() {
  PlacementPolicy& policy = vol_.placement();
  const uint64_t period = policy.CellMigrationPeriodNs();
  // ZnH2's migration thread looks at the SLC cache every period (5 s by
  // default) and migrates what the policy asks for, without a rate limit.
  while (SleepUntil(vol_.clock().NowNs() + period)) {
    const std::optional<CellMigration> next = policy.NextCellMigration(vol_.CurrentDeviceViews());
    // A failed run changes nothing it did not finish; the next period
    // looks again.
    if (next) (void)MigrateCells(*next);
  }
}

MigrationStats Mover::stats() const {
  return {migrated_files_.load(), migrated_bytes_.load(), migration_failures_.load(),
          migrations_aborted_.load(), migrations_without_room_.load()};
}

void Mover::WakeGc() {
  absl::MutexLock l(&wake_mu_);
  gc_wanted_ = true;
}

bool Mover::SleepUntil(uint64_t deadline_ns, bool pace) {
  if (pace && !vol_.real_clock()) {
    {
      absl::MutexLock l(&stop_mu_);
      if (stopping_) return false;
    }
    vol_.clock().WaitUntil(deadline_ns);
  }
  absl::MutexLock l(&stop_mu_);
  vol_.AwaitUntil(stop_mu_, absl::Condition(&stopping_), deadline_ns);
  return !stopping_;
}

void Mover::GcLoop() {
  for (int tick = 0;; ++tick) {
    {
      const uint64_t deadline = vol_.clock().NowNs() + kGcPeriodNs;
      absl::MutexLock l(&wake_mu_);
      auto woken = [this]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return gc_stop_ || gc_wanted_; };
      vol_.AwaitUntil(wake_mu_, absl::Condition(&woken), deadline);
      if (gc_stop_) return;
      gc_wanted_ = false;
    }
    // Failures of a background run are not lost: a GC that cannot move a
    // zone's data leaves the zone as it was, and the next run tries again.
    if (vol_.NeedsGc()) (void)CollectGarbage(GcTrigger::kThreshold);
    vol_.HandleFailedZones(/*report_zones=*/tick % kFailedZoneReportTicks == 0);
  }
}

void Mover::MigrationLoop() {
  PlacementPolicy& policy = vol_.placement();
  bool moved = false;
  // Right after a move the next one starts at once (the rate limit paces
  // them); otherwise the policy is asked again after a pause.
  while (SleepUntil(vol_.clock().NowNs() + (moved ? 0 : kMigrationPeriodNs))) {
    moved = false;
    const std::optional<Migration> next = policy.NextMigration(vol_.CurrentDeviceViews());
    const double rate = policy.MigrationRate();
    if (!next || rate <= 0) continue;
    const uint64_t files = migrated_files_.load();
    // Failures (the file deleted or reopened meanwhile, no room) are
    // counted in stats() and are not fatal.
    (void)Migrate(next->path, next->to_device, rate);
    moved = migrated_files_.load() != files;
  }
}

}  // namespace zonestack::zfs
