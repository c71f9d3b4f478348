// HintListener: the hints of HHZS section 3.1 from unmodified RocksDB.
// RocksDB's flush and compaction callbacks feed a scheme's LSM view
// (levels, storage demand, sizes), keep zfs's record of each SST's level
// right after trivial moves, and tell the SSD secondary cache how to map
// cache keys back to SSTs. Callback order, threads and the quirks of
// RocksDB 7.8.3 this relies on: docs/rocksdb.md sections 1-3.
//
// Thread-safety: RocksDB calls the callbacks from many threads at once;
// Resync and DbClosed may be called from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "policy/scheme.h"
#include "rocksdb/db.h"
#include "rocksdb/listener.h"
#include "glue/zs_file_system.h"

namespace zonestack::rocks {

class SsdSecondaryCache;

// The absolute level of the input-level index RocksDB 7.8 reports in
// CompactionFileInfo::level (0 = the job's base input level; the highest
// index is the output level), for a job from `base_level` to
// `output_level`. Level-style jobs have two input levels, so index 1 is
// the output level even when levels are skipped (L0 -> base level).
int AbsoluteInputLevel(int input_level_index, int base_level, int output_level);

class HintListener : public rocksdb::EventListener {
 public:
  // `fs` is the DB's file system, over the scheme's volume: it persists the
  // levels of trivially moved SSTs. `cache` may be null (the scheme does
  // not cache). All three must outlive the DB, which they do when the DB
  // is opened through OpenDb.
  // While it lives, the volume registry counts it as the volume's hint
  // listener (CountHintListener), so the file system does not warn that
  // the scheme runs without hints.
  HintListener(std::shared_ptr<policy::Scheme> scheme, std::shared_ptr<ZoneStackFileSystem> fs,
               std::shared_ptr<SsdSecondaryCache> cache);
  ~HintListener() override;

  static const char* kClassName() { return "ZoneStackHintListener"; }
  const char* Name() const override { return kClassName(); }
  // Empty, so the OPTIONS files RocksDB writes leave it out: re-read (RocksDB
  // verifies each file it writes), the line would make a listener of the
  // one hinted volume (hint_factories.h), not of this DB's.
  std::string GetId() const override { return ""; }

  // Brings the view, the cache's table map and zfs's SST levels in line
  // with `db`'s live SSTs (DB::GetLiveFilesMetaData and, for the cache,
  // the table properties of `cfs`, or of the default column family if
  // empty). Call right after DB::Open, and after level changes RocksDB
  // reports through no callback (CompactRange with change_level,
  // experimental::PromoteL0); ingestion calls it itself. Callbacks that race with it are ordered before or after it
  // as a whole, so a file deleted meanwhile does not come back.
  // Errors: the RocksDB error of reading table properties; the view and
  // zfs are brought in line regardless.
  absl::Status Resync(rocksdb::DB* db,
                      const std::vector<rocksdb::ColumnFamilyHandle*>& cfs = {});

  // Drops what is left of jobs that never completed: RocksDB skips
  // OnCompactionCompleted while shutting down, and job ids restart with
  // the next DB session. Call after the DB is closed.
  void DbClosed();

  // --- RocksDB callbacks (cheap: a few map updates; a trivial move also
  // writes one zfs metadata record per moved SST).
  void OnTableFileCreationStarted(const rocksdb::TableFileCreationBriefInfo& info) override;
  void OnCompactionBegin(rocksdb::DB* db, const rocksdb::CompactionJobInfo& ci) override;
  void OnSubcompactionBegin(const rocksdb::SubcompactionJobInfo& si) override;
  void OnSubcompactionCompleted(const rocksdb::SubcompactionJobInfo& si) override;
  void OnTableFileCreated(const rocksdb::TableFileCreationInfo& info) override;
  void OnCompactionCompleted(rocksdb::DB* db, const rocksdb::CompactionJobInfo& ci) override;
  void OnTableFileDeleted(const rocksdb::TableFileDeletionInfo& info) override;
  // Ingestion names no level: a Resync (ingestion is rare and in bulk).
  void OnExternalFileIngested(rocksdb::DB* db,
                              const rocksdb::ExternalFileIngestionInfo& info) override;

 private:
  struct Job {
    // True for jobs without OnCompactionBegin (CompactFiles): known from
    // their subcompactions, finished when the last one completes.
    bool from_subcompactions = false;
    int running_subcompactions = 0;
    std::vector<uint64_t> outputs;  // of a from_subcompactions job
  };

  // Applies a finished job to the view and zfs. REQUIRES: mu_ held.
  void FinishJobLocked(const rocksdb::CompactionJobInfo& ci) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void PersistLevel(const std::string& path, int level);

  const std::shared_ptr<policy::Scheme> scheme_;
  const std::shared_ptr<ZoneStackFileSystem> fs_;
  const std::shared_ptr<SsdSecondaryCache> cache_;
  // Orders the view updates that change levels or the set of live SSTs
  // against Resync. Lock order: mu_, then the view's own mutex.
  absl::Mutex mu_;
  std::map<int, Job> jobs_ ABSL_GUARDED_BY(mu_);  // running compactions
};

}  // namespace zonestack::rocks
