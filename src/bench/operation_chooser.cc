#include "bench/operation_chooser.h"

#include <utility>

namespace zonestack::bench {
namespace {

absl::StatusOr<std::variant<UniformGenerator, ScrambledZipfianGenerator, SkewedLatestGenerator,
                            HotspotGenerator>>
MakeKeyChooser(const WorkloadSpec& spec, const SharedWorkloadState& shared) {
  const int64_t last = spec.record_count - 1;
  switch (spec.request_distribution) {
    case RequestDistribution::kUniform:
      return UniformGenerator::Create(0, last);
    case RequestDistribution::kZipfian: {
      // CoreWorkload sizes the scrambled space for the inserts it expects
      // (2 is YCSB's "fudge factor"), so the hot keys do not move as
      // records are added; draws above the inserted keys are redrawn.
      const auto expected_new_keys = static_cast<int64_t>(
          static_cast<double>(spec.operation_count) * spec.insert_proportion * 2.0);
      return ScrambledZipfianGenerator::Create(0, spec.record_count + expected_new_keys,
                                               spec.zipfian_constant, spec.zipfian_items);
    }
    case RequestDistribution::kLatest:
      return SkewedLatestGenerator::Create(shared.insert_sequence.Last());
    case RequestDistribution::kHotspot:
      return HotspotGenerator::Create(0, last, spec.hotspot_data_fraction,
                                      spec.hotspot_opn_fraction);
  }
  return absl::InvalidArgumentError("unknown request distribution");
}

absl::StatusOr<std::variant<UniformGenerator, ZipfianGenerator>> MakeScanLengthChooser(
    const WorkloadSpec& spec) {
  if (spec.scan_length_distribution == ScanLengthDistribution::kUniform) {
    return UniformGenerator::Create(spec.min_scan_length, spec.max_scan_length);
  }
  return ZipfianGenerator::Create(spec.min_scan_length, spec.max_scan_length);
}

}  // namespace

absl::string_view OpTypeName(OpType type) {
  switch (type) {
    case OpType::kRead: return "READ";
    case OpType::kUpdate: return "UPDATE";
    case OpType::kInsert: return "INSERT";
    case OpType::kScan: return "SCAN";
    case OpType::kReadModifyWrite: return "READ-MODIFY-WRITE";
  }
  return "?";
}

absl::StatusOr<OperationChooser> OperationChooser::Create(const WorkloadSpec& spec,
                                                          SharedWorkloadState* shared,
                                                          uint64_t seed) {
  if (absl::Status s = ValidateWorkloadSpec(spec); !s.ok()) return s;
  // CoreWorkload.createOperationGenerator: only positive proportions, in
  // this order (the order decides which draw maps to which operation).
  DiscreteGenerator<OpType> operations;
  const std::pair<double, OpType> proportions[] = {
      {spec.read_proportion, OpType::kRead},
      {spec.update_proportion, OpType::kUpdate},
      {spec.insert_proportion, OpType::kInsert},
      {spec.scan_proportion, OpType::kScan},
      {spec.read_modify_write_proportion, OpType::kReadModifyWrite}};
  for (const auto& [weight, type] : proportions) {
    if (weight > 0) operations.Add(weight, type);
  }
  auto keys = MakeKeyChooser(spec, *shared);
  if (!keys.ok()) return keys.status();
  auto scan_lengths = MakeScanLengthChooser(spec);
  if (!scan_lengths.ok()) return scan_lengths.status();
  return OperationChooser(spec, shared, seed, std::move(operations), *std::move(keys),
                          *std::move(scan_lengths));
}

OperationChooser::OperationChooser(const WorkloadSpec& spec, SharedWorkloadState* shared,
                                   uint64_t seed, DiscreteGenerator<OpType> operations,
                                   KeyChooser keys, ScanLengthChooser scan_lengths)
    : spec_(spec),
      key_format_(spec.key_format()),
      shared_(shared),
      rng_(seed),
      operations_(std::move(operations)),
      keys_(std::move(keys)),
      scan_lengths_(std::move(scan_lengths)) {}

Operation OperationChooser::Next() {
  Operation op;
  if (spec_.phase == Phase::kLoad) {
    op.type = OpType::kInsert;
    op.keynum = shared_->load_sequence.Next();
    return op;
  }
  op.type = operations_.Next(rng_);
  if (op.type == OpType::kInsert) {
    op.keynum = shared_->insert_sequence.Next();
    return op;
  }
  op.keynum = NextKeynum();
  if (op.type == OpType::kScan) op.scan_length = NextScanLength();
  return op;
}

void OperationChooser::Acknowledge(const Operation& op) {
  if (spec_.phase == Phase::kRun && op.type == OpType::kInsert) {
    shared_->insert_sequence.Acknowledge(op.keynum);
  }
}

int64_t OperationChooser::NextKeynum() {
  // CoreWorkload.nextKeynum: redraw keys that are not inserted yet.
  int64_t keynum;
  do {
    if (auto* latest = std::get_if<SkewedLatestGenerator>(&keys_)) {
      keynum = latest->Next(rng_, shared_->insert_sequence.Last());
    } else if (auto* zipfian = std::get_if<ScrambledZipfianGenerator>(&keys_)) {
      keynum = zipfian->Next(rng_);
    } else if (auto* uniform = std::get_if<UniformGenerator>(&keys_)) {
      keynum = uniform->Next(rng_);
    } else {
      keynum = std::get<HotspotGenerator>(keys_).Next(rng_);
    }
  } while (keynum > shared_->insert_sequence.Last());
  return keynum;
}

int64_t OperationChooser::NextScanLength() {
  if (auto* uniform = std::get_if<UniformGenerator>(&scan_lengths_)) return uniform->Next(rng_);
  return std::get<ZipfianGenerator>(scan_lengths_).Next(rng_);
}

}  // namespace zonestack::bench
