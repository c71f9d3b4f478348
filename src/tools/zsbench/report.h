// zsbench's output: the summary table, the comparison table normalized to
// the first scheme, and the JSON results file (schema in docs/zsbench.md).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/zsbench/runner.h"

namespace zonestack::zsbench {

struct SchemeResult {
  std::string name;
  std::string volume;
  std::vector<PhaseResult> phases;
};

std::string SummaryTable(const std::vector<SchemeResult>& schemes);
// Errors over every scheme and phase: failed operations by kind
// (ErrorKind) and RocksDB background (flush, compaction) errors.
struct ErrorTotals {
  uint64_t operations = 0;
  std::map<std::string, uint64_t> by_kind;
  uint64_t background = 0;
  bool any() const { return operations > 0 || background > 0; }
};
ErrorTotals CountErrors(const std::vector<SchemeResult>& schemes);
// One line saying how many operations failed, of which kinds and in which
// scheme and phase; "" if none did.
std::string FailureLine(const std::vector<SchemeResult>& schemes);
// Throughput and key metrics of every scheme relative to the first one.
std::string ComparisonTable(const std::vector<SchemeResult>& schemes);
nlohmann::json ToJson(const std::vector<SchemeResult>& schemes, const nlohmann::json& args);

}  // namespace zonestack::zsbench
