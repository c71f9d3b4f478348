// Every compaction a DB ran, with its time: what GearDB's Fig. 15 plots
// (count and latency of each compaction). RocksDB's own compactions come
// from its listener (OnCompactionCompleted); the gear driver's
// CompactFiles steps fire no listener event, so the driver reports them
// (GearDriver::SetStepObserver).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "nlohmann/json.hpp"
#include "rocksdb/listener.h"

namespace zonestack::zsbench {

struct CompactionRecord {
  double t = 0;          // seconds since the log was made, at completion
  uint64_t micros = 0;   // the compaction's own time
  uint64_t input_bytes = 0, output_bytes = 0;
  // RocksDB's reason ("LevelMaxLevelSize", "LevelL0FilesNum", ...) or the
  // gear step's kind ("active", "window", "dump", "out_of_window", "passive").
  std::string kind;
  bool gear = false;     // a gear driver step
  bool trivial = false;  // a move by metadata: nothing read or written
  int output_level = -1;  // the LSM level its outputs went to; -1 unknown
};

// Thread-safe: RocksDB's compaction threads and the driver's add records.
class CompactionLog {
 public:
  CompactionLog() : start_(std::chrono::steady_clock::now()) {}
  // Stamps `r.t` and keeps it.
  void Add(CompactionRecord r) ABSL_LOCKS_EXCLUDED(mu_);
  size_t size() const ABSL_LOCKS_EXCLUDED(mu_);
  // The records from index `first` on (those of one phase).
  std::vector<CompactionRecord> Since(size_t first) const ABSL_LOCKS_EXCLUDED(mu_);
  // RocksDB's background errors (OnBackgroundError): what failed and why,
  // which "rocksdb.background-errors" only counts.
  void AddError(std::string what) ABSL_LOCKS_EXCLUDED(mu_);
  size_t error_count() const ABSL_LOCKS_EXCLUDED(mu_);
  std::vector<std::string> ErrorsSince(size_t first) const ABSL_LOCKS_EXCLUDED(mu_);
  // A listener to add to the DB's options before it opens: it records
  // every RocksDB compaction that succeeded. It holds the log alive.
  static std::shared_ptr<rocksdb::EventListener> Listener(std::shared_ptr<CompactionLog> log);

 private:
  const std::chrono::steady_clock::time_point start_;
  mutable absl::Mutex mu_;
  std::vector<CompactionRecord> records_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> errors_ ABSL_GUARDED_BY(mu_);
};

// A RocksDB compaction as a record: a trivial move is one whose outputs
// are its inputs (RocksDB moved the files by metadata).
CompactionRecord FromJobInfo(const rocksdb::CompactionJobInfo& info);

// A phase's compactions for the JSON results (docs/zsbench.md): count,
// total time, bytes, latency distribution and count by kind of the
// non-trivial ones; trivial moves counted apart; GearDB's unit, the gear
// compaction (a step and the passive steps that follow it, 3.3), as
// `chains`, where every RocksDB compaction is a chain of its own; per
// output level, the compactions, bytes and trivial moves into it (where
// each level's new SSTs come from: written, or moved from the level
// above); and every record, [t, micros, input bytes, output bytes, kind].
nlohmann::json CompactionsJson(const std::vector<CompactionRecord>& records);

}  // namespace zonestack::zsbench
