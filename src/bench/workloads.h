// Workload specifications: YCSB's CoreWorkload properties, the YCSB core
// workloads A-F and their load phase, and the HHZS paper's mixes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "bench/generators.h"
#include "bench/key_name.h"

namespace zonestack::bench {

enum class RequestDistribution { kUniform, kZipfian, kLatest, kHotspot };
enum class ScanLengthDistribution { kUniform, kZipfian };
enum class InsertOrder { kHashed, kOrdered };
// YCSB's -load (inserts key numbers 0..recordcount-1) or -t (transactions).
enum class Phase { kRun, kLoad };

// YCSB CoreWorkload's properties that matter to a key-value store; the
// defaults are CoreWorkload's, except recordcount and operationcount, which
// take the 1000 that every workloads/workload[a-f] file sets.
struct WorkloadSpec {
  std::string name = "custom";
  Phase phase = Phase::kRun;
  int64_t record_count = 1000;     // recordcount
  int64_t operation_count = 1000;  // operationcount
  // Weights of the operations; YCSB's DiscreteGenerator normalizes them,
  // so they need not sum to 1 (but must not all be 0).
  double read_proportion = 0.95;               // readproportion
  double update_proportion = 0.05;             // updateproportion
  double insert_proportion = 0;                // insertproportion
  double scan_proportion = 0;                  // scanproportion
  double read_modify_write_proportion = 0;     // readmodifywriteproportion
  RequestDistribution request_distribution = RequestDistribution::kUniform;
  // ZoneStack's `zipfianconstant`: YCSB core has no such property (its
  // request zipfian is always 0.99); the papers vary it. It applies to
  // requestdistribution=zipfian only; "latest" and zipfian scan lengths keep
  // YCSB's 0.99.
  double zipfian_constant = kDefaultZipfianConstant;
  // ZoneStack's `zipfianitems`: the item space YCSB's scrambled zipfian
  // draws from before hashing onto the keys (YCSB fixes it at 10^10).
  int64_t zipfian_items = ScrambledZipfianGenerator::kItemCount;
  int64_t min_scan_length = 1;     // minscanlength
  int64_t max_scan_length = 1000;  // maxscanlength
  ScanLengthDistribution scan_length_distribution = ScanLengthDistribution::kUniform;
  InsertOrder insert_order = InsertOrder::kHashed;  // insertorder
  int zero_padding = 1;                             // zeropadding
  // The value is fieldcount * fieldlength bytes, written whole on every
  // insert, update and read-modify-write (YCSB's RocksDB binding also
  // rewrites the whole record on update).
  int64_t field_count = 10;    // fieldcount
  int64_t field_length = 100;  // fieldlength (fieldlengthdistribution=constant)
  int key_size = 0;            // ZoneStack's `keysize`; see KeyFormat
  double hotspot_data_fraction = 0.2;  // hotspotdatafraction
  double hotspot_opn_fraction = 0.8;   // hotspotopnfraction

  int64_t value_size() const { return field_count * field_length; }
  KeyFormat key_format() const {
    return KeyFormat{zero_padding, insert_order == InsertOrder::kOrdered, key_size};
  }
};

// OK if OperationChooser can run `spec`; otherwise says which field is wrong.
absl::Status ValidateWorkloadSpec(const WorkloadSpec& spec);

// YCSB's workloads/workloada..f, property for property (recordcount and
// operationcount 1000 as in the files; callers scale them):
//   A: read 0.5, update 0.5, zipfian.         B: read 0.95, update 0.05, zipfian.
//   C: read 1, zipfian.                        D: read 0.95, insert 0.05, latest.
//   E: scan 0.95, insert 0.05, zipfian, maxscanlength 100, uniform lengths.
//   F: read 0.5, read-modify-write 0.5, zipfian.
WorkloadSpec YcsbWorkloadA();
WorkloadSpec YcsbWorkloadB();
WorkloadSpec YcsbWorkloadC();
WorkloadSpec YcsbWorkloadD();
WorkloadSpec YcsbWorkloadE();
WorkloadSpec YcsbWorkloadF();

// The load phase of `run` (YCSB's -load with the same properties): 100%
// inserts of key numbers 0..record_count-1, with run's key format, so the
// run phase finds the keys it loaded.
WorkloadSpec LoadWorkload(const WorkloadSpec& run);

// HHZS (Li et al., hybrid SSD/HDD zoned storage) §4.1: "The total KV object
// size is 200 GiB, and each KV object has a 24-byte key and a 1,000-byte
// value": 200 GiB / 1 KiB objects.
inline constexpr int64_t kHhzsRecordCount = 200LL * 1024 * 1024 * 1024 / 1024;
inline constexpr int kHhzsKeySize = 24;

// HHZS Exp#1 (§4.2): YCSB workload `letter` ('a'..'f') as the paper ran it:
// 1 M operations over kHhzsRecordCount 24-byte-key/1000-byte-value objects,
// with "a Zipf distribution with a skewness parameter alpha = 0.9" except D,
// which stays "latest".
absl::StatusOr<WorkloadSpec> HhzsYcsbWorkload(char letter);

// HHZS's read/write mixes (Exp#2-#6): reads with proportion `read_ratio`,
// the rest updates of existing keys, both zipfian (scrambled, as YCSB) with
// constant `zipf_skew`, over kHhzsRecordCount objects.
WorkloadSpec HhzsMix(double read_ratio, double zipf_skew, int64_t operation_count = 5'000'000);

// HHZS §4.2 Exp#2: "After loading the KV objects, we run a workload of 5 M
// operations following a Zipf key distribution for a read-write ratio and a
// skewness factor alpha. We consider four types of workloads: W1 (10% reads
// and alpha = 0.9); W2 (50% reads and alpha = 0.9); W3 (50% reads and
// alpha = 1.2); and W4 (100% reads and alpha = 1.2)." REQUIRES: 1 <= w <= 4.
absl::StatusOr<WorkloadSpec> HhzsWorkload(int w);

// Exp#3: "5 M operations and vary alpha from 0.8 to 1.2 ... fix 50% of
// reads and 50% of writes": alpha 0.8, 0.9, 1.0, 1.1, 1.2 (the text gives
// the range only; the step of 0.1 is our reading of Figure 7).
std::vector<WorkloadSpec> HhzsSkewSweep();
// Exp#4: "5 M operations ... vary the percentage of reads from 10% to 90%,
// and fix alpha = 0.9": reads 10, 30, 50, 70, 90% (the text names 10%,
// 30% and "at least 50%"; 70% is our reading of Figure 8).
std::vector<WorkloadSpec> HhzsReadRatioSweep();

// Looks up "ycsb-a".."ycsb-f", "hhzs-a".."hhzs-f", "hhzs-w1".."hhzs-w4";
// "-load" after any of them gives its load phase ("ycsb-a-load").
absl::StatusOr<WorkloadSpec> WorkloadByName(absl::string_view name);

// Applies YCSB-style properties text ("key=value" lines; blank lines and
// lines starting with '#' or '!' are skipped; a later key wins, as in
// java.util.Properties) on top of `base`, then validates. Unknown keys and
// malformed values are errors naming the line. Besides the WorkloadSpec
// keys, accepts YCSB keys that change nothing here: workload (must be
// CoreWorkload), readallfields, writeallfields, table and
// fieldlengthdistribution=constant.
absl::StatusOr<WorkloadSpec> ParseWorkloadProperties(absl::string_view text,
                                                     const WorkloadSpec& base = WorkloadSpec());

// The spec as properties text that ParseWorkloadProperties reads back to
// an equal spec (name and phase aside), for recording what a run used.
std::string FormatWorkloadProperties(const WorkloadSpec& spec);

}  // namespace zonestack::bench
