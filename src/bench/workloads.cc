#include "bench/workloads.h"

#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"

namespace zonestack::bench {
namespace {

absl::Status Invalid(absl::string_view field, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat("workload: ", field, " ", why));
}

bool ValidProportion(double p) { return std::isfinite(p) && p >= 0; }
bool ValidFraction(double f) { return f >= 0 && f <= 1; }

// Reads and updates only, zipfian with the given skew: HHZS's mixes.
WorkloadSpec ReadUpdateZipfian(double read, double update) {
  WorkloadSpec spec;
  spec.read_proportion = read;
  spec.update_proportion = update;
  spec.request_distribution = RequestDistribution::kZipfian;
  return spec;
}

WorkloadSpec HhzsScale(WorkloadSpec spec, int64_t operation_count) {
  spec.record_count = kHhzsRecordCount;
  spec.operation_count = operation_count;
  spec.key_size = kHhzsKeySize;  // value: YCSB's 10 fields x 100 bytes = 1,000 bytes
  return spec;
}

}  // namespace

absl::Status ValidateWorkloadSpec(const WorkloadSpec& s) {
  if (s.record_count < 1) {
    return Invalid("recordcount", absl::StrCat("must be >= 1, got ", s.record_count));
  }
  if (s.operation_count < 0) {
    return Invalid("operationcount", absl::StrCat("must be >= 0, got ", s.operation_count));
  }
  const double proportions[] = {s.read_proportion, s.update_proportion, s.insert_proportion,
                                s.scan_proportion, s.read_modify_write_proportion};
  double sum = 0;
  for (double p : proportions) {
    if (!ValidProportion(p)) {
      return Invalid("proportions", absl::StrCat("must be finite and >= 0, got ", p));
    }
    sum += p;
  }
  if (s.phase == Phase::kRun && !(sum > 0)) return Invalid("proportions", "are all 0");
  if (absl::Status st = CheckZipfianConstant(s.zipfian_constant); !st.ok()) {
    return Invalid("zipfianconstant", std::string(st.message()));
  }
  if (s.min_scan_length < 1 || s.max_scan_length < s.min_scan_length) {
    return Invalid("scan lengths", absl::StrCat("need 1 <= minscanlength <= maxscanlength, got ",
                                                s.min_scan_length, " and ", s.max_scan_length));
  }
  if (s.zero_padding < 0) {
    return Invalid("zeropadding", absl::StrCat("must be >= 0, got ", s.zero_padding));
  }
  if (s.key_size < 0) return Invalid("keysize", absl::StrCat("must be >= 0, got ", s.key_size));
  if (s.field_count < 0 || s.field_length < 0 || s.field_count > (1 << 20) ||
      s.field_length > (1 << 30) || s.value_size() > (int64_t{1} << 30)) {
    return Invalid("fieldcount/fieldlength", absl::StrCat("need a value of 0 to 1 GiB, got ",
                                                          s.field_count, " x ", s.field_length));
  }
  if (!ValidFraction(s.hotspot_data_fraction) || !ValidFraction(s.hotspot_opn_fraction)) {
    return Invalid("hotspot fractions", absl::StrCat("must be in [0, 1], got ",
                                                     s.hotspot_data_fraction, " and ",
                                                     s.hotspot_opn_fraction));
  }
  if (s.request_distribution == RequestDistribution::kLatest && s.record_count < 2) {
    return Invalid("recordcount", "must be >= 2 for requestdistribution=latest");
  }
  return absl::OkStatus();
}

WorkloadSpec YcsbWorkloadA() {
  WorkloadSpec spec = ReadUpdateZipfian(0.5, 0.5);
  spec.name = "ycsb-a";
  return spec;
}

WorkloadSpec YcsbWorkloadB() {
  WorkloadSpec spec = ReadUpdateZipfian(0.95, 0.05);
  spec.name = "ycsb-b";
  return spec;
}

WorkloadSpec YcsbWorkloadC() {
  WorkloadSpec spec = ReadUpdateZipfian(1, 0);
  spec.name = "ycsb-c";
  return spec;
}

WorkloadSpec YcsbWorkloadD() {
  WorkloadSpec spec;
  spec.name = "ycsb-d";
  spec.read_proportion = 0.95;
  spec.update_proportion = 0;
  spec.insert_proportion = 0.05;
  spec.request_distribution = RequestDistribution::kLatest;
  return spec;
}

WorkloadSpec YcsbWorkloadE() {
  WorkloadSpec spec;
  spec.name = "ycsb-e";
  spec.read_proportion = 0;
  spec.update_proportion = 0;
  spec.scan_proportion = 0.95;
  spec.insert_proportion = 0.05;
  spec.request_distribution = RequestDistribution::kZipfian;
  spec.max_scan_length = 100;
  spec.scan_length_distribution = ScanLengthDistribution::kUniform;
  return spec;
}

WorkloadSpec YcsbWorkloadF() {
  WorkloadSpec spec = ReadUpdateZipfian(0.5, 0);
  spec.name = "ycsb-f";
  spec.read_modify_write_proportion = 0.5;
  return spec;
}

WorkloadSpec LoadWorkload(const WorkloadSpec& run) {
  WorkloadSpec spec = run;
  spec.name = run.name + "-load";
  spec.phase = Phase::kLoad;
  spec.operation_count = run.record_count;
  spec.read_proportion = spec.update_proportion = spec.scan_proportion = 0;
  spec.read_modify_write_proportion = 0;
  spec.insert_proportion = 1;
  return spec;
}

absl::StatusOr<WorkloadSpec> HhzsYcsbWorkload(char letter) {
  WorkloadSpec spec;
  switch (letter) {
    case 'a': spec = YcsbWorkloadA(); break;
    case 'b': spec = YcsbWorkloadB(); break;
    case 'c': spec = YcsbWorkloadC(); break;
    case 'd': spec = YcsbWorkloadD(); break;
    case 'e': spec = YcsbWorkloadE(); break;
    case 'f': spec = YcsbWorkloadF(); break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("no YCSB core workload '", std::string(1, letter), "'"));
  }
  spec.name = absl::StrCat("hhzs-", std::string(1, letter));
  // §4.2 Exp#1: "Each workload has 1 M operations. All workloads (except
  // workload D) follow a Zipf distribution with a skewness parameter
  // alpha = 0.9 [28], while workload D reads the latest written keys."
  if (spec.request_distribution == RequestDistribution::kZipfian) spec.zipfian_constant = 0.9;
  return HhzsScale(spec, 1'000'000);
}

WorkloadSpec HhzsMix(double read_ratio, double zipf_skew, int64_t operation_count) {
  WorkloadSpec spec = HhzsScale(ReadUpdateZipfian(read_ratio, 1 - read_ratio), operation_count);
  spec.zipfian_constant = zipf_skew;
  spec.name = absl::StrCat("hhzs-read", std::lround(read_ratio * 100), "-zipf", zipf_skew);
  return spec;
}

absl::StatusOr<WorkloadSpec> HhzsWorkload(int w) {
  struct Mix { double read_ratio, alpha; };
  static constexpr Mix kMixes[] = {{0.1, 0.9}, {0.5, 0.9}, {0.5, 1.2}, {1.0, 1.2}};
  if (w < 1 || w > 4) return absl::InvalidArgumentError(absl::StrCat("HHZS has W1-W4, not W", w));
  WorkloadSpec spec = HhzsMix(kMixes[w - 1].read_ratio, kMixes[w - 1].alpha);
  spec.name = absl::StrCat("hhzs-w", w);
  return spec;
}

std::vector<WorkloadSpec> HhzsSkewSweep() {
  std::vector<WorkloadSpec> specs;
  for (double alpha : {0.8, 0.9, 1.0, 1.1, 1.2}) specs.push_back(HhzsMix(0.5, alpha));
  return specs;
}

std::vector<WorkloadSpec> HhzsReadRatioSweep() {
  std::vector<WorkloadSpec> specs;
  for (double reads : {0.1, 0.3, 0.5, 0.7, 0.9}) specs.push_back(HhzsMix(reads, 0.9));
  return specs;
}

absl::StatusOr<WorkloadSpec> WorkloadByName(absl::string_view name) {
  absl::string_view base = name;
  const bool load = absl::ConsumeSuffix(&base, "-load");
  const char last = base.empty() ? '\0' : base.back();
  const bool letter = base.size() == 6 && last >= 'a' && last <= 'f';
  absl::StatusOr<WorkloadSpec> spec;
  if (letter && absl::StartsWith(base, "ycsb-")) {
    WorkloadSpec (*const kYcsb[])() = {YcsbWorkloadA, YcsbWorkloadB, YcsbWorkloadC,
                                       YcsbWorkloadD, YcsbWorkloadE, YcsbWorkloadF};
    spec = kYcsb[last - 'a']();
  } else if (letter && absl::StartsWith(base, "hhzs-")) {
    spec = HhzsYcsbWorkload(last);
  } else if (base.size() == 7 && absl::StartsWith(base, "hhzs-w") && last >= '1' && last <= '4') {
    spec = HhzsWorkload(last - '0');
  } else {
    return absl::NotFoundError(absl::StrCat(
        "unknown workload \"", name, "\"; known: ycsb-a..ycsb-f, hhzs-a..hhzs-f, hhzs-w1..hhzs-w4, "
        "each optionally followed by -load"));
  }
  if (!spec.ok()) return spec.status();
  return load ? LoadWorkload(*spec) : *spec;
}

}  // namespace zonestack::bench
