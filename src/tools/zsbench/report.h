// zsbench's output: the summary table, the comparison table normalized to
// the first scheme, and the JSON results file (schema in docs/zsbench.md).
#pragma once

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
// Throughput and key metrics of every scheme relative to the first one.
std::string ComparisonTable(const std::vector<SchemeResult>& schemes);
nlohmann::json ToJson(const std::vector<SchemeResult>& schemes, const nlohmann::json& args);

}  // namespace zonestack::zsbench
