// Runs one phase of a benchmark on an open RocksDB: client threads draw
// operations (YCSB core workloads, the HHZS mixes, or db_bench's
// fill/read/seek benchmarks), time each one, and a sampler records
// throughput and the volume over time.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "bench/histogram.h"
#include "bench/workloads.h"
#include "rocksdb/db.h"
#include "rocksdb/statistics.h"
#include "tools/zsbench/compactions.h"
#include "tools/zsbench/metrics.h"
#include "zfs/volume.h"

namespace zonestack::zsbench {

enum class DbBenchOp { kNone, kFillSeq, kFillRandom, kOverwrite, kReadRandom, kReadSeq, kSeekRandom };

struct PhaseSpec {
  std::string name;             // as given: "ycsb-a", "hhzs-w1-load", "fillrandom", ...
  bench::WorkloadSpec workload;  // key and value sizes for every phase
  DbBenchOp dbbench = DbBenchOp::kNone;
  uint64_t ops = 0;             // operations to run (all threads)
  double seconds = 0;           // stop after this long too, if > 0
  double warmup_seconds = 0;    // not measured, at the start of the phase
  int threads = 1;
  double rate = 0;              // target ops/s over all threads; 0 = as fast as possible
  uint64_t seed = 1;
  double sample_interval = 1.0;  // seconds between samples
  bool progress = false;         // a progress line on stderr
  // db_bench phases name key k as YCSB's load names record k (hashed), so
  // that readrandom, overwrite and the rest after a YCSB load meet its
  // keys; otherwise "user" + k in order, as after fillseq.
  bool ycsb_keys = false;
  // Points at equal shares of `ops` where the phase is recorded (GearDB
  // Fig. 11 and 16: every 1/80 of the load), and how many of them, evenly
  // spaced, also record every zone (Fig. 17: 1/4, 1/2, 3/4 and the end).
  int checkpoints = 80;
  int zone_checkpoints = 4;
};

// Looks `name` up: db_bench names, YCSB and HHZS workloads (bench::WorkloadByName),
// "mix:READS:SKEW" (read ratio and zipf skew, the HHZS mixes). InvalidArgument
// lists the valid names.
absl::StatusOr<PhaseSpec> PhaseByName(const std::string& name);

// The phase when a share of its operations had finished.
struct Checkpoint {
  uint64_t ops = 0;   // operations finished (warm-up included)
  double t = 0;       // seconds since the phase started
  uint64_t device_write_bytes = 0;  // all devices, since the phase started
  uint64_t gc_bytes = 0;            // relocated by zfs's GC, since mount
  double gc_seconds = 0;            // in GC runs, since mount
  // Only at zone checkpoints: per device, every written data zone.
  std::vector<std::vector<ZoneUse>> zones;
};

struct PhaseResult {
  std::string name;
  uint64_t ops = 0;
  double seconds = 0;
  std::map<std::string, bench::Histogram> latency_ns;  // per operation type
  double sample_interval = 1.0;
  std::vector<uint64_t> timeline;  // operations finished in each interval
  uint64_t user_bytes_written = 0;  // keys + values put
  uint64_t reads_found = 0, reads_missed = 0;
  // Operations that failed with an error (a read that finds nothing is not
  // one), by kind (ErrorKind), and the first one's message.
  uint64_t errors = 0;
  std::map<std::string, uint64_t> errors_by_kind;
  std::string first_error;
  // Flush and compaction errors RocksDB met in the background over the
  // phase ("rocksdb.background-errors"); writes may still have succeeded.
  uint64_t background_errors = 0;
  // What RocksDB said of them (the listener's OnBackgroundError): the
  // first few, "compaction: IO error: ...".
  std::vector<std::string> background_error_messages;
  std::vector<DeviceDelta> devices;  // empty for RocksDB's default FS
  std::vector<VolumeSample> samples;
  std::vector<std::vector<double>> zone_utilization;  // at the end of the phase
  std::map<std::string, uint64_t> rocksdb_tickers;    // deltas over the phase
  // The data management scheme at the end of the phase (LSM view, SSD
  // cache, migration); null without a scheme. Filled by the caller.
  nlohmann::json scheme;
  // The volume's cell migrations since mount (ZnH2; zfs's
  // CellMigrationStats), whatever its scheme; null for posix.
  nlohmann::json cell_migration;
  // The volume's GC runs since mount (zfs's GcTotals); null for posix.
  nlohmann::json gc;
  // What zfs's metadata log wrote since mount (MetadataLogTotals); null
  // for posix.
  nlohmann::json metadata_log;
  // Those reached of spec.checkpoints, in order (a phase cut short by its
  // time limit reaches fewer).
  std::vector<Checkpoint> checkpoints;
  // The compactions that completed during the phase, if a log was given.
  std::vector<CompactionRecord> compactions;
  bool has_compaction_log = false;

  double ops_per_second() const { return seconds > 0 ? ops / seconds : 0; }
  // Device bytes written over user bytes written; 0 without devices.
  double write_amplification() const;
};

// A failed status's kind as zsbench reports it: "no_space", "corruption",
// "io_error", "busy", "timed_out", "incomplete", ... or "other".
std::string ErrorKind(const rocksdb::Status& status);

// Runs `spec` on `db`. `volume` (may be null) is sampled; `stats` (may be
// null) gives RocksDB's tickers; `compactions` (may be null) is the DB's
// compaction log, whose records of the phase the result keeps.
absl::StatusOr<PhaseResult> RunPhase(rocksdb::DB* db, const zfs::Volume* volume,
                                     rocksdb::Statistics* stats, const PhaseSpec& spec,
                                     const CompactionLog* compactions = nullptr);

}  // namespace zonestack::zsbench
