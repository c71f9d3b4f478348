// GearDriver: GearDB's gear compaction (FAST 2019, 3.2-3.3) carried out on
// unmodified RocksDB. With the column family's automatic compactions off,
// it takes a snapshot of RocksDB's levels (GetColumnFamilyMetaData) and of
// zfs's zones (which level's zone holds which SST), asks the plan
// (policy/gear_compaction.h) for the next step, and runs it with
// DB::CompactFiles, one at a time on its own thread: an active compaction
// of L0, a window compaction of the lowest level over its limit, then the
// passive compactions of its outputs down the levels. docs/geardb.md has
// the mapping and what differs from the paper.
//
// Thread-safety: Wake, RunUntilIdle, last_error and Stop may be called from
// any thread; steps are serialized.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "policy/gear_compaction.h"
#include "policy/scheme.h"
#include "rocksdb/db.h"
#include "rocksdb/listener.h"
#include "rocksdb/sst_partitioner.h"
#include "zfs/volume.h"

namespace zonestack::rocks {

class GearDriver {
 public:
  // `volume` holds the DB; `setup` is the scheme's (Scheme::gear()), whose
  // counters get what the driver does. Nothing runs before Start.
  GearDriver(std::shared_ptr<zfs::Volume> volume, policy::Scheme::GearSetup setup);
  ~GearDriver();
  GearDriver(const GearDriver&) = delete;
  GearDriver& operator=(const GearDriver&) = delete;

  // A listener to add to the DB's options before it opens: it wakes the
  // driver when a flush completes.
  std::shared_ptr<rocksdb::EventListener> listener();
  // The column family's SstPartitionerFactory, to set before the DB
  // opens: compactions cut their output at the windows' slice boundaries.
  std::shared_ptr<rocksdb::SstPartitionerFactory> partitioner_factory();
  // The boundaries the partitioner cuts at, shared with it (RocksDB may
  // keep the factory after the driver is gone).
  struct Cuts {
    absl::Mutex mu;
    std::vector<std::string> cuts ABSL_GUARDED_BY(mu);
  };

  // Starts the thread on `db`'s default column family, whose options must
  // have disable_auto_compactions and the bytewise comparator. `db` must
  // stay open until Stop returns.
  void Start(rocksdb::DB* db);
  // Wakes the thread: a step may be due.
  void Wake();
  // Runs steps until the plan has none (or one fails); returns the first
  // error. For tests and tools that want the tree settled; the thread does
  // the same on every wake.
  absl::Status RunUntilIdle() ABSL_LOCKS_EXCLUDED(step_mu_);
  // The last error of a step the thread ran (OK if none): a step that
  // fails is retried on the next wake, except for a RocksDB background
  // error, which stops the driver (the DB is read-only then).
  absl::Status last_error() const;
  // Stops and joins the thread, after the step it is running. Idempotent.
  void Stop();

  // Told of every step that succeeded, on the thread that ran it: the step,
  // its time in microseconds and RocksDB's job info. CompactFiles fires no
  // listener event, so a tool that logs every compaction (zsbench, GearDB
  // Fig. 15) learns of the driver's here. Replaces any earlier observer;
  // null removes it.
  using StepObserver = std::function<void(const policy::GearStep& step, uint64_t micros,
                                          const rocksdb::CompactionJobInfo& info)>;
  void SetStepObserver(StepObserver observer) ABSL_LOCKS_EXCLUDED(observer_mu_);

 private:
  struct Snapshot {
    policy::GearLevels levels;
    std::map<uint64_t, std::string> paths;  // SST number -> path for CompactFiles
  };
  Snapshot Take() ABSL_EXCLUSIVE_LOCKS_REQUIRED(step_mu_);
  // Runs one step; its outputs (SST numbers) in `outputs`.
  absl::Status Run(const policy::GearStep& step, const Snapshot& snap,
                   std::vector<uint64_t>* outputs) ABSL_EXCLUSIVE_LOCKS_REQUIRED(step_mu_);
  void Loop();
  // Counters of the windows, and the cuts to the partitioner.
  void PublishWindows() ABSL_EXCLUSIVE_LOCKS_REQUIRED(step_mu_);

  const std::shared_ptr<zfs::Volume> volume_;
  const policy::GearOptions options_;
  policy::GearCounters* const counters_;
  std::atomic<uint32_t>* const window_;  // the scheme's, for its placement
  rocksdb::DB* db_ = nullptr;
  policy::GearLimits limits_;

  absl::Mutex step_mu_;
  policy::GearWindows windows_ ABSL_GUARDED_BY(step_mu_);

  // Shared with the listener, which RocksDB may call until the DB is
  // deleted, after the driver (OpenDb's DB owns it) is gone.
  struct Signal {
    absl::Mutex mu;
    bool wake ABSL_GUARDED_BY(mu) = false;
    bool stop ABSL_GUARDED_BY(mu) = false;
    bool started ABSL_GUARDED_BY(mu) = false;
    rocksdb::DB* db ABSL_GUARDED_BY(mu) = nullptr;  // from Start
    uint64_t failures ABSL_GUARDED_BY(mu) = 0;      // wakes whose steps failed
    // Writers the listener held at L0's stop trigger (LevelDB's write stop).
    uint64_t write_stops ABSL_GUARDED_BY(mu) = 0;
    // Sealed MemTables whose writes were slowed (LevelDB's write slowdown).
    uint64_t write_slowdowns ABSL_GUARDED_BY(mu) = 0;
    // The space hold (GearOptions::space_hold): empty zones below which a
    // writer waits while the driver works (0: off), the writers it held
    // and their time held.
    uint32_t reserve_zones ABSL_GUARDED_BY(mu) = 0;
    bool running ABSL_GUARDED_BY(mu) = false;  // the thread is running steps
    uint64_t space_holds ABSL_GUARDED_BY(mu) = 0;
    int64_t space_hold_us ABSL_GUARDED_BY(mu) = 0;
    absl::Status last_error ABSL_GUARDED_BY(mu);
  };
  const std::shared_ptr<Signal> signal_ = std::make_shared<Signal>();
  std::thread thread_;
  const std::shared_ptr<Cuts> cuts_ = std::make_shared<Cuts>();

  // Apart from step_mu_, which a step holds for its whole run.
  absl::Mutex observer_mu_;
  StepObserver observer_ ABSL_GUARDED_BY(observer_mu_);
};

}  // namespace zonestack::rocks
