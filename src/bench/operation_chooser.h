// What each client thread does next: operation type, key and scan length,
// drawn as YCSB's CoreWorkload does (doInsert for the load phase,
// doTransaction and nextKeynum for the run phase).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <variant>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "bench/counters.h"
#include "bench/generators.h"
#include "bench/key_name.h"
#include "bench/workloads.h"

namespace zonestack::bench {

enum class OpType : uint8_t { kRead, kUpdate, kInsert, kScan, kReadModifyWrite };

// YCSB's names: "READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE".
absl::string_view OpTypeName(OpType type);

struct Operation {
  OpType type = OpType::kRead;
  int64_t keynum = 0;       // the record's key number; KeyName(keynum) is its key
  int64_t scan_length = 0;  // records to scan, for kScan; 0 otherwise
};

// The state a run's client threads share: YCSB CoreWorkload's keysequence
// (load phase) and transactioninsertkeysequence (run phase inserts, which
// start after the record_count loaded records). Thread-safe.
struct SharedWorkloadState {
  explicit SharedWorkloadState(const WorkloadSpec& spec)
      : load_sequence(0), insert_sequence(spec.record_count) {}

  CounterGenerator load_sequence;
  AcknowledgedCounterGenerator insert_sequence;
};

// One client thread's operation source. Not thread-safe: make one per
// thread, each with its own seed, all sharing one SharedWorkloadState. The
// same spec, seed and sequence of calls give the same operations.
class OperationChooser {
 public:
  // REQUIRES: *shared was made for `spec` and outlives the chooser. Create
  // every thread's chooser before the run starts, as YCSB builds its
  // generators at init: "latest" sizes its zipfian from the insert counter.
  static absl::StatusOr<OperationChooser> Create(const WorkloadSpec& spec,
                                                 SharedWorkloadState* shared, uint64_t seed);

  // The next operation. Load phase: an insert of the next key number from
  // shared->load_sequence. Run phase: an operation drawn by proportion;
  // inserts take the next number from shared->insert_sequence, and the
  // others a key drawn from the request distribution among the records
  // whose inserts are acknowledged (YCSB redraws keys above
  // insert_sequence.Last()).
  Operation Next();

  // Call once the write of a run-phase insert from Next has finished,
  // successfully or not, so readers may choose its key; a no-op for other
  // operations and in the load phase.
  void Acknowledge(const Operation& op);

  std::string KeyName(int64_t keynum) const { return BuildKeyName(keynum, key_format_); }
  const WorkloadSpec& spec() const { return spec_; }

 private:
  using KeyChooser = std::variant<UniformGenerator, ScrambledZipfianGenerator,
                                  SkewedLatestGenerator, HotspotGenerator>;
  using ScanLengthChooser = std::variant<UniformGenerator, ZipfianGenerator>;

  OperationChooser(const WorkloadSpec& spec, SharedWorkloadState* shared, uint64_t seed,
                   DiscreteGenerator<OpType> operations, KeyChooser keys,
                   ScanLengthChooser scan_lengths);
  int64_t NextKeynum();
  int64_t NextScanLength();

  WorkloadSpec spec_;
  KeyFormat key_format_;
  SharedWorkloadState* shared_;
  std::mt19937_64 rng_;
  DiscreteGenerator<OpType> operations_;
  KeyChooser keys_;
  ScanLengthChooser scan_lengths_;
};

}  // namespace zonestack::bench
