// YCSB-style properties text <-> WorkloadSpec (declared in workloads.h).
#include <charconv>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bench/workloads.h"

namespace zonestack::bench {
namespace {

using Setter = absl::Status (*)(absl::string_view value, WorkloadSpec& spec);
using Getter = std::string (*)(const WorkloadSpec& spec);

absl::Status Bad(const std::string& expected) {
  return absl::InvalidArgumentError(absl::StrCat("expected ", expected));
}

absl::Status Int(absl::string_view v, int64_t lo, int64_t* out) {
  int64_t x;
  if (!absl::SimpleAtoi(v, &x) || x < lo) return Bad(absl::StrCat("an integer >= ", lo));
  *out = x;
  return absl::OkStatus();
}

absl::Status SmallInt(absl::string_view v, int* out) {
  int64_t x;
  if (!absl::SimpleAtoi(v, &x) || x < 0 || x > 4096) return Bad("an integer in [0, 4096]");
  *out = static_cast<int>(x);
  return absl::OkStatus();
}

absl::Status Number(absl::string_view v, double* out) {
  double x;
  if (!absl::SimpleAtod(v, &x) || !std::isfinite(x)) return Bad("a finite number");
  *out = x;
  return absl::OkStatus();
}

absl::Status Bool(absl::string_view v) {
  if (absl::EqualsIgnoreCase(v, "true") || absl::EqualsIgnoreCase(v, "false")) return absl::OkStatus();
  return Bad("true or false");
}

std::string Shortest(double x) {  // the shortest text that reads back as x
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof(buf), x);
  return std::string(buf, r.ptr);
}

absl::Status Distribution(absl::string_view v, WorkloadSpec& s) {
  if (v == "uniform") s.request_distribution = RequestDistribution::kUniform;
  else if (v == "zipfian") s.request_distribution = RequestDistribution::kZipfian;
  else if (v == "latest") s.request_distribution = RequestDistribution::kLatest;
  else if (v == "hotspot") s.request_distribution = RequestDistribution::kHotspot;
  else if (v == "exponential" || v == "sequential") return Bad("uniform, zipfian, latest or hotspot (YCSB's exponential and sequential are not supported)");
  else return Bad("uniform, zipfian, latest or hotspot");
  return absl::OkStatus();
}

std::string DistributionName(const WorkloadSpec& s) {
  switch (s.request_distribution) {
    case RequestDistribution::kUniform: return "uniform";
    case RequestDistribution::kZipfian: return "zipfian";
    case RequestDistribution::kLatest: return "latest";
    case RequestDistribution::kHotspot: return "hotspot";
  }
  return "?";
}

struct Property {
  const char* key;
  Setter set;
  Getter get;  // nullptr: accepted for YCSB compatibility, changes nothing
};

// In FormatWorkloadProperties's order.
const Property kProperties[] = {
    {"recordcount", [](absl::string_view v, WorkloadSpec& s) { return Int(v, 1, &s.record_count); },
     [](const WorkloadSpec& s) { return absl::StrCat(s.record_count); }},
    {"operationcount", [](absl::string_view v, WorkloadSpec& s) { return Int(v, 0, &s.operation_count); },
     [](const WorkloadSpec& s) { return absl::StrCat(s.operation_count); }},
    {"readproportion", [](absl::string_view v, WorkloadSpec& s) { return Number(v, &s.read_proportion); },
     [](const WorkloadSpec& s) { return Shortest(s.read_proportion); }},
    {"updateproportion", [](absl::string_view v, WorkloadSpec& s) { return Number(v, &s.update_proportion); },
     [](const WorkloadSpec& s) { return Shortest(s.update_proportion); }},
    {"insertproportion", [](absl::string_view v, WorkloadSpec& s) { return Number(v, &s.insert_proportion); },
     [](const WorkloadSpec& s) { return Shortest(s.insert_proportion); }},
    {"scanproportion", [](absl::string_view v, WorkloadSpec& s) { return Number(v, &s.scan_proportion); },
     [](const WorkloadSpec& s) { return Shortest(s.scan_proportion); }},
    {"readmodifywriteproportion",
     [](absl::string_view v, WorkloadSpec& s) { return Number(v, &s.read_modify_write_proportion); },
     [](const WorkloadSpec& s) { return Shortest(s.read_modify_write_proportion); }},
    {"requestdistribution", Distribution, DistributionName},
    {"zipfianconstant", [](absl::string_view v, WorkloadSpec& s) { return Number(v, &s.zipfian_constant); },
     [](const WorkloadSpec& s) { return Shortest(s.zipfian_constant); }},
    {"minscanlength", [](absl::string_view v, WorkloadSpec& s) { return Int(v, 1, &s.min_scan_length); },
     [](const WorkloadSpec& s) { return absl::StrCat(s.min_scan_length); }},
    {"maxscanlength", [](absl::string_view v, WorkloadSpec& s) { return Int(v, 1, &s.max_scan_length); },
     [](const WorkloadSpec& s) { return absl::StrCat(s.max_scan_length); }},
    {"scanlengthdistribution",
     [](absl::string_view v, WorkloadSpec& s) {
       if (v == "uniform") s.scan_length_distribution = ScanLengthDistribution::kUniform;
       else if (v == "zipfian") s.scan_length_distribution = ScanLengthDistribution::kZipfian;
       else return Bad("uniform or zipfian");
       return absl::OkStatus();
     },
     [](const WorkloadSpec& s) {
       return std::string(s.scan_length_distribution == ScanLengthDistribution::kUniform ? "uniform" : "zipfian");
     }},
    {"insertorder",
     [](absl::string_view v, WorkloadSpec& s) {
       if (v == "hashed") s.insert_order = InsertOrder::kHashed;
       else if (v == "ordered") s.insert_order = InsertOrder::kOrdered;
       else return Bad("hashed or ordered");
       return absl::OkStatus();
     },
     [](const WorkloadSpec& s) { return std::string(s.insert_order == InsertOrder::kHashed ? "hashed" : "ordered"); }},
    {"zeropadding", [](absl::string_view v, WorkloadSpec& s) { return SmallInt(v, &s.zero_padding); },
     [](const WorkloadSpec& s) { return absl::StrCat(s.zero_padding); }},
    {"keysize", [](absl::string_view v, WorkloadSpec& s) { return SmallInt(v, &s.key_size); },
     [](const WorkloadSpec& s) { return absl::StrCat(s.key_size); }},
    {"fieldcount", [](absl::string_view v, WorkloadSpec& s) { return Int(v, 0, &s.field_count); },
     [](const WorkloadSpec& s) { return absl::StrCat(s.field_count); }},
    {"fieldlength", [](absl::string_view v, WorkloadSpec& s) { return Int(v, 0, &s.field_length); },
     [](const WorkloadSpec& s) { return absl::StrCat(s.field_length); }},
    {"hotspotdatafraction", [](absl::string_view v, WorkloadSpec& s) { return Number(v, &s.hotspot_data_fraction); },
     [](const WorkloadSpec& s) { return Shortest(s.hotspot_data_fraction); }},
    {"hotspotopnfraction", [](absl::string_view v, WorkloadSpec& s) { return Number(v, &s.hotspot_opn_fraction); },
     [](const WorkloadSpec& s) { return Shortest(s.hotspot_opn_fraction); }},
    // YCSB keys found in its workload files that change nothing for a
    // key-value store: values are read and written whole.
    {"workload",
     [](absl::string_view v, WorkloadSpec&) {
       return absl::EndsWith(v, "workloads.CoreWorkload") ? absl::OkStatus() : Bad("YCSB's CoreWorkload");
     },
     nullptr},
    {"readallfields", [](absl::string_view v, WorkloadSpec&) { return Bool(v); }, nullptr},
    {"writeallfields", [](absl::string_view v, WorkloadSpec&) { return Bool(v); }, nullptr},
    {"table", [](absl::string_view, WorkloadSpec&) { return absl::OkStatus(); }, nullptr},
    {"fieldlengthdistribution",
     [](absl::string_view v, WorkloadSpec&) { return v == "constant" ? absl::OkStatus() : Bad("constant"); },
     nullptr},
};

std::string KnownKeys() {
  std::string keys;
  for (const Property& p : kProperties) absl::StrAppend(&keys, keys.empty() ? "" : ", ", p.key);
  return keys;
}

}  // namespace

absl::StatusOr<WorkloadSpec> ParseWorkloadProperties(absl::string_view text, const WorkloadSpec& base) {
  WorkloadSpec spec = base;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#' || line[0] == '!') continue;
    const size_t sep = line.find_first_of("=:");
    if (sep == absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("properties line ", line_number, ": expected key=value, got \"", line, "\""));
    }
    const absl::string_view key = absl::StripAsciiWhitespace(line.substr(0, sep));
    const absl::string_view value = absl::StripAsciiWhitespace(line.substr(sep + 1));
    const Property* property = nullptr;
    for (const Property& p : kProperties) {
      if (key == p.key) property = &p;
    }
    if (property == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("properties line ", line_number,
                                                     ": unknown key \"", key, "\"; known: ", KnownKeys()));
    }
    if (absl::Status s = property->set(value, spec); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("properties line ", line_number, ": ", key,
                                                     "=", value, ": ", s.message()));
    }
  }
  if (absl::Status s = ValidateWorkloadSpec(spec); !s.ok()) return s;
  return spec;
}

std::string FormatWorkloadProperties(const WorkloadSpec& spec) {
  std::string text = absl::StrCat("# zsbench workload ", spec.name,
                                  spec.phase == Phase::kLoad ? " (load phase)" : "", "\n");
  for (const Property& p : kProperties) {
    if (p.get != nullptr) absl::StrAppend(&text, p.key, "=", p.get(spec), "\n");
  }
  return text;
}

}  // namespace zonestack::bench
