// YCSB-style properties text <-> WorkloadSpec (declared in workloads.h).
#include <charconv>
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bench/workloads.h"

namespace zonestack::bench {
namespace {

absl::Status Bad(const std::string& expected) {
  return absl::InvalidArgumentError(absl::StrCat("expected ", expected));
}

std::string Shortest(double x) {  // the shortest text that reads back as x
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof(buf), x);
  return std::string(buf, r.ptr);
}

struct Property {
  const char* key;
  std::function<absl::Status(absl::string_view value, WorkloadSpec& spec)> set;
  // Empty for YCSB keys accepted for compatibility that change nothing.
  std::function<std::string(const WorkloadSpec& spec)> get;
};

Property IntProperty(const char* key, int64_t WorkloadSpec::*field, int64_t min) {
  return {key,
          [=](absl::string_view v, WorkloadSpec& s) {
            int64_t x;
            if (!absl::SimpleAtoi(v, &x) || x < min) {
              return Bad(absl::StrCat("an integer >= ", min));
            }
            s.*field = x;
            return absl::OkStatus();
          },
          [=](const WorkloadSpec& s) { return absl::StrCat(s.*field); }};
}

// Padding and key sizes: ints, and small.
Property WidthProperty(const char* key, int WorkloadSpec::*field) {
  return {key,
          [=](absl::string_view v, WorkloadSpec& s) {
            int x;
            if (!absl::SimpleAtoi(v, &x) || x < 0 || x > 4096) {
              return Bad("an integer in [0, 4096]");
            }
            s.*field = x;
            return absl::OkStatus();
          },
          [=](const WorkloadSpec& s) { return absl::StrCat(s.*field); }};
}

Property NumberProperty(const char* key, double WorkloadSpec::*field) {
  return {key,
          [=](absl::string_view v, WorkloadSpec& s) {
            double x;
            if (!absl::SimpleAtod(v, &x) || !std::isfinite(x)) return Bad("a finite number");
            s.*field = x;
            return absl::OkStatus();
          },
          [=](const WorkloadSpec& s) { return Shortest(s.*field); }};
}

template <typename E>
Property EnumProperty(const char* key, E WorkloadSpec::*field,
                      std::vector<std::pair<const char*, E>> names, const char* note = "") {
  std::string expected;
  for (const auto& [name, value] : names) {
    absl::StrAppend(&expected, expected.empty() ? "" : " or ", name);
  }
  absl::StrAppend(&expected, note);
  return {key,
          [=](absl::string_view v, WorkloadSpec& s) {
            for (const auto& [name, value] : names) {
              if (v == name) {
                s.*field = value;
                return absl::OkStatus();
              }
            }
            return Bad(expected);
          },
          [=](const WorkloadSpec& s) {
            for (const auto& [name, value] : names) {
              if (s.*field == value) return std::string(name);
            }
            return std::string("?");
          }};
}

// A YCSB key that changes nothing for a key-value store, whose value must
// still be one that YCSB would run the same way.
Property IgnoredProperty(const char* key, bool (*acceptable)(absl::string_view),
                         const char* expected) {
  return {key,
          [=](absl::string_view v, WorkloadSpec&) {
            return acceptable(v) ? absl::OkStatus() : Bad(expected);
          },
          nullptr};
}

bool IsCoreWorkload(absl::string_view v) {
  return absl::EndsWith(v, "workloads.CoreWorkload");  // site.ycsb. or com.yahoo.ycsb.
}

bool IsBool(absl::string_view v) {
  return absl::EqualsIgnoreCase(v, "true") || absl::EqualsIgnoreCase(v, "false");
}

// In FormatWorkloadProperties's order.
const std::vector<Property>& Properties() {
  using S = WorkloadSpec;
  static const auto* const kProperties = new std::vector<Property>{
      IntProperty("recordcount", &S::record_count, 1),
      IntProperty("operationcount", &S::operation_count, 0),
      NumberProperty("readproportion", &S::read_proportion),
      NumberProperty("updateproportion", &S::update_proportion),
      NumberProperty("insertproportion", &S::insert_proportion),
      NumberProperty("scanproportion", &S::scan_proportion),
      NumberProperty("readmodifywriteproportion", &S::read_modify_write_proportion),
      EnumProperty<RequestDistribution>(
          "requestdistribution", &S::request_distribution,
          {{"uniform", RequestDistribution::kUniform},
           {"zipfian", RequestDistribution::kZipfian},
           {"latest", RequestDistribution::kLatest},
           {"hotspot", RequestDistribution::kHotspot}},
          " (YCSB's exponential and sequential are not supported)"),
      NumberProperty("zipfianconstant", &S::zipfian_constant),
      IntProperty("zipfianitems", &S::zipfian_items, 1),
      IntProperty("minscanlength", &S::min_scan_length, 1),
      IntProperty("maxscanlength", &S::max_scan_length, 1),
      EnumProperty<ScanLengthDistribution>("scanlengthdistribution", &S::scan_length_distribution,
                                           {{"uniform", ScanLengthDistribution::kUniform},
                                            {"zipfian", ScanLengthDistribution::kZipfian}}),
      EnumProperty<InsertOrder>("insertorder", &S::insert_order,
                                {{"hashed", InsertOrder::kHashed},
                                 {"ordered", InsertOrder::kOrdered}}),
      WidthProperty("zeropadding", &S::zero_padding),
      WidthProperty("keysize", &S::key_size),
      IntProperty("fieldcount", &S::field_count, 0),
      IntProperty("fieldlength", &S::field_length, 0),
      NumberProperty("hotspotdatafraction", &S::hotspot_data_fraction),
      NumberProperty("hotspotopnfraction", &S::hotspot_opn_fraction),
      // Found in YCSB's workload files; values are read and written whole.
      IgnoredProperty("workload", IsCoreWorkload, "YCSB's CoreWorkload"),
      IgnoredProperty("readallfields", IsBool, "true or false"),
      IgnoredProperty("writeallfields", IsBool, "true or false"),
      IgnoredProperty("table", [](absl::string_view) { return true; }, ""),
      IgnoredProperty(
          "fieldlengthdistribution", [](absl::string_view v) { return v == "constant"; },
          "constant"),
  };
  return *kProperties;
}

std::string KnownKeys() {
  std::string keys;
  for (const Property& p : Properties()) absl::StrAppend(&keys, keys.empty() ? "" : ", ", p.key);
  return keys;
}

}  // namespace

absl::StatusOr<WorkloadSpec> ParseWorkloadProperties(absl::string_view text,
                                                     const WorkloadSpec& base) {
  WorkloadSpec spec = base;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#' || line[0] == '!') continue;
    const size_t sep = line.find_first_of("=:");
    if (sep == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat("properties line ", line_number,
                                                     ": expected key=value, got \"", line, "\""));
    }
    const absl::string_view key = absl::StripAsciiWhitespace(line.substr(0, sep));
    const absl::string_view value = absl::StripAsciiWhitespace(line.substr(sep + 1));
    const Property* property = nullptr;
    for (const Property& p : Properties()) {
      if (key == p.key) property = &p;
    }
    if (property == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "properties line ", line_number, ": unknown key \"", key, "\"; known: ", KnownKeys()));
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
  for (const Property& p : Properties()) {
    if (p.get) absl::StrAppend(&text, p.key, "=", p.get(spec), "\n");
  }
  return text;
}

}  // namespace zonestack::bench
