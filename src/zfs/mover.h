// The mover: zfs's background work and the moves it makes. It serializes
// GC runs and, separately, relocations and migrations; runs the GC thread
// and the migration thread (HHZS 3.4: the policy's requests, rate
// limited), and the cell migration thread (ZnH2 3.3.1: SLC to QLC); and
// counts what migration did. Its state is guarded by its own locks. Zones
// and files it reaches only through VolumeImpl's methods, which take
// VolumeImpl::mu_ themselves.
//
// Lock order (volume_impl.h has the whole volume's): gc_mu_ or move_mu_,
// then VolumeImpl::mu_, then a FileMeta::mu. wake_mu_, stop_mu_ and
// cell_stats_mu_ are leaves: nothing is taken while one is held.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "zfs/volume.h"

namespace zonestack::zfs {

// What started a GC run. A writer that found no room needs zones back as
// fast as possible, so its run takes the victims with the least live data
// first whatever the volume's victim policy (as F2FS's foreground GC is
// greedy beside its cost-benefit background GC): cost-benefit would move
// an old, mostly live zone first, which frees a fraction of a zone for a
// zone's worth of copying while the writer waits.
enum class GcTrigger {
  kThreshold,        // the GC thread: devices below their free-zone threshold
  kForced,           // on demand (Volume::CollectGarbage(true)): every device
  kWriterOutOfRoom,  // a writer found no zone: every device, greedy victims
};

class VolumeImpl;

class Mover {
 public:
  explicit Mover(VolumeImpl& vol) : vol_(vol) {}
  ~Mover() { Stop(); }
  Mover(const Mover&) = delete;
  Mover& operator=(const Mover&) = delete;

  // Starts the GC thread, the migration thread when `migration`, and the
  // cell migration thread when `cell_migration`.
  void Start(bool migration, bool cell_migration = false);
  // Stops and joins both threads; every wait of the mover, a rate-limited
  // copy's pauses included, ends at once from now on. Idempotent.
  void Stop();

  // One GC run over every device below its free-zone threshold (every
  // device unless `trigger` is kThreshold); runs are serialized.
  // FailedPrecondition, running nothing, when the policy allows no GC.
  absl::StatusOr<GcStats> CollectGarbage(GcTrigger trigger);
  GcTotals gc_totals() const;
  // Moves `path`'s data to `device` at most `bytes_per_sec` (0 = no
  // limit), counted in stats(); moves are serialized, GC runs beside them.
  absl::Status Migrate(const std::string& path, uint32_t device, double bytes_per_sec);
  MigrationStats stats() const;
  // One cell migration (VolumeImpl::MigrateCells), serialized with moves.
  absl::Status MigrateCells(const CellMigration& request) ABSL_LOCKS_EXCLUDED(move_mu_);
  CellMigrationStats cell_stats() const ABSL_LOCKS_EXCLUDED(cell_stats_mu_);
  // Wakes the GC thread early (a zone was retired and must be emptied).
  void WakeGc() ABSL_LOCKS_EXCLUDED(wake_mu_);
  // Waits until the volume's clock reaches `deadline_ns`; false, at once,
  // once Stop has begun. With `pace` the wait is the calling thread's own
  // pause (a rate limit): a simulated clock is moved to the deadline by its
  // WaitUntil instead of being waited for.
  bool SleepUntil(uint64_t deadline_ns, bool pace = false) ABSL_LOCKS_EXCLUDED(stop_mu_);

 private:
  void GcLoop();
  void MigrationLoop();
  void CellMigrationLoop();

  VolumeImpl& vol_;

  // Serializes GC runs.
  absl::Mutex gc_mu_;
  std::thread gc_thread_;
  absl::Mutex wake_mu_;
  bool gc_stop_ ABSL_GUARDED_BY(wake_mu_) = false;
  bool gc_wanted_ ABSL_GUARDED_BY(wake_mu_) = false;

  // Serializes relocations and migrations. Not gc_mu_: a rate-limited
  // migration copies for seconds, and GC (which a writer on a full device
  // waits for) must not wait behind it. The two race safely: whichever
  // swaps the extent list first wins, the other is Aborted.
  absl::Mutex move_mu_;
  std::thread migration_thread_;
  std::thread cell_thread_;
  mutable absl::Mutex cell_stats_mu_;  // a leaf
  CellMigrationStats cell_stats_ ABSL_GUARDED_BY(cell_stats_mu_);
  // Set once by Stop: wakes the migration thread and rate-limit pauses.
  absl::Mutex stop_mu_;
  bool stopping_ ABSL_GUARDED_BY(stop_mu_) = false;
  std::atomic<uint64_t> migrated_files_{0}, migrated_bytes_{0}, migration_failures_{0};
  std::atomic<uint64_t> migrations_aborted_{0}, migrations_without_room_{0};
  std::atomic<uint64_t> gc_runs_{0}, gc_zones_{0}, gc_bytes_{0}, gc_busy_ns_{0};
  std::atomic<uint64_t> writer_gc_runs_{0}, writer_gc_zones_{0};
};

}  // namespace zonestack::zfs
