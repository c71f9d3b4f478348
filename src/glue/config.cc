#include "glue/config.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "nlohmann/json.hpp"
#include "policy/scheme_registry.h"

namespace zonestack::rocks {
namespace {

using nlohmann::json;

absl::Status Bad(const std::string& source, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(source, ": ", why));
}

std::string DefaultScheme(size_t devices) { return devices > 1 ? "hybrid" : "lifetime"; }

// Device list checks shared by both forms; OpenDevice checks each URI later.
absl::Status CheckDevices(const std::vector<std::string>& devices, const std::string& source) {
  if (devices.empty()) return Bad(source, "no devices given");
  std::set<std::string> seen;
  for (const std::string& d : devices) {
    if (d.empty()) return Bad(source, "empty device URI in the device list");
    if (!seen.insert(d).second) return Bad(source, absl::StrCat("device '", d, "' listed twice"));
  }
  return absl::OkStatus();
}

// A JSON integer in [min, max], or an error naming `what`.
absl::StatusOr<uint64_t> Integer(const json& v, const std::string& what, uint64_t min,
                                 uint64_t max, const std::string& source) {
  if (!v.is_number_integer() || !v.is_number_unsigned()) {  // not negative either
    return Bad(source, absl::StrCat(what, " must be an integer >= ", min));
  }
  const uint64_t n = v.get<uint64_t>();
  if (n < min || n > max) {
    return Bad(source, absl::StrCat(what, " must be in [", min, ", ", max, "], not ", n));
  }
  return n;
}

absl::StatusOr<policy::SchemeConfig> ParseScheme(const json& value, const std::string& source) {
  auto scheme = policy::ParseSchemeConfig(value);
  if (!scheme.ok()) return Bad(source, std::string(scheme.status().message()));
  return scheme;
}

absl::StatusOr<FormatMode> ParseFormat(const std::string& value, const std::string& source) {
  if (value == "if-needed") return FormatMode::kIfNeeded;
  if (value == "always") return FormatMode::kAlways;
  if (value == "never") return FormatMode::kNever;
  return Bad(source, absl::StrCat("format '", value, "' must be if-needed, always or never"));
}

absl::StatusOr<std::string> OptionValue(const std::string& name, const json& v,
                                        const std::string& source) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number() || v.is_boolean()) return v.dump();
  return Bad(source, absl::StrCat("rocksdb option '", name,
                                  "' must be a string, number or boolean"));
}

absl::StatusOr<ZoneStackConfig> ParseJsonObject(const json& doc, const std::string& source) {
  if (!doc.is_object()) return Bad(source, "the config must be a JSON object");
  ZoneStackConfig config;
  std::optional<policy::SchemeConfig> placement, scheme;
  for (const auto& [key, value] : doc.items()) {
    if (key == "devices") {
      if (!value.is_array()) return Bad(source, "\"devices\" must be an array of device URIs");
      for (const json& d : value) {
        if (!d.is_string()) return Bad(source, "\"devices\" must hold strings");
        config.devices.push_back(d.get<std::string>());
      }
    } else if (key == "placement") {
      if (!value.is_string()) return Bad(source, "\"placement\" must be a scheme name");
      auto parsed = ParseScheme(value, source);
      if (!parsed.ok()) return parsed.status();
      placement = std::move(*parsed);
    } else if (key == "scheme") {
      auto parsed = ParseScheme(value, source);
      if (!parsed.ok()) return parsed.status();
      scheme = std::move(*parsed);
    } else if (key == "block_cache_bytes") {
      auto n = Integer(value, "\"block_cache_bytes\"", 1, UINT64_MAX, source);
      if (!n.ok()) return n.status();
      config.block_cache_bytes = *n;
    } else if (key == "format") {
      if (!value.is_string()) return Bad(source, "\"format\" must be a string");
      auto format = ParseFormat(value.get<std::string>(), source);
      if (!format.ok()) return format.status();
      config.format = *format;
    } else if (key == "flush") {
      if (!value.is_string() || (value != "host" && value != "devices" && value != "none")) {
        return Bad(source, "\"flush\" must be \"host\", \"devices\" or \"none\"");
      }
      config.flush = value == "host"      ? zfs::FlushMode::kHost
                     : value == "devices" ? zfs::FlushMode::kDevices
                                          : zfs::FlushMode::kNone;
    } else if (key == "staging_root") {
      if (!value.is_string() || value.get<std::string>().empty()) {
        return Bad(source, "\"staging_root\" must be a directory path");
      }
      config.staging_root = value.get<std::string>();
    } else if (key == "rocksdb") {
      if (!value.is_object()) return Bad(source, "\"rocksdb\" must be an object of options");
      for (const auto& [name, v] : value.items()) {
        auto s = OptionValue(name, v, source);
        if (!s.ok()) return s.status();
        config.rocksdb_options[name] = *s;
      }
    } else if (key == "gc") {
      if (!value.is_object()) return Bad(source, "\"gc\" must be an object");
      for (const auto& [name, v] : value.items()) {
        if (name == "threshold") {
          if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > 1) {
            return Bad(source, "\"gc\": \"threshold\" must be a number in [0, 1]");
          }
          config.gc_threshold = v.get<double>();
        } else if (name == "victims") {
          if (!v.is_string() || (v != "greedy" && v != "cost-benefit")) {
            return Bad(source, "\"gc\": \"victims\" must be \"greedy\" or \"cost-benefit\"");
          }
          config.gc_cost_benefit = v == "cost-benefit";
        } else {
          return Bad(source, absl::StrCat("\"gc\": unknown key \"", name,
                                          "\"; keys: threshold, victims"));
        }
      }
    } else {
      return Bad(source, absl::StrCat("unknown key \"", key,
                                      "\"; keys: devices, placement, scheme, "
                                      "block_cache_bytes, format, flush, rocksdb, gc"));
    }
  }
  if (auto s = CheckDevices(config.devices, source); !s.ok()) return s;
  if (placement && scheme && placement->name != scheme->name) {
    return Bad(source, absl::StrCat("\"placement\" '", placement->name, "' and \"scheme\" '",
                                    scheme->name, "' disagree; give one"));
  }
  if (scheme) {
    config.scheme = std::move(*scheme);
  } else if (placement) {
    config.scheme = std::move(*placement);
  } else {
    auto parsed = ParseScheme(DefaultScheme(config.devices.size()), source);
    if (!parsed.ok()) return parsed.status();
    config.scheme = std::move(*parsed);
  }
  return config;
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("config file '", path, "': cannot open: ", std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

absl::StatusOr<ZoneStackConfig> ParseConfigJson(const std::string& text,
                                                const std::string& source) {
  json doc;
  try {  // nlohmann reports the line and column only through its exception
    doc = json::parse(text);
  } catch (const json::exception& e) {
    return Bad(source, absl::StrCat("not valid JSON: ", e.what()));
  }
  return ParseJsonObject(doc, source);
}

absl::StatusOr<ZoneStackConfig> ParseUri(const std::string& uri) {
  absl::string_view rest = uri;
  absl::ConsumePrefix(&rest, kUriScheme);
  const std::string source = absl::StrCat("ZoneStack URI '", uri, "'");
  if (rest.empty()) {
    return Bad(source, "expected zonestack://CONFIG.json or zonestack://DEVURI[;DEVURI...]");
  }
  if (absl::EndsWith(rest, ".json")) {
    auto text = ReadFile(std::string(rest));
    if (!text.ok()) return text.status();
    return ParseConfigJson(*text, absl::StrCat("config file '", rest, "'"));
  }
  ZoneStackConfig config;
  for (absl::string_view d : absl::StrSplit(rest, ';')) {
    config.devices.emplace_back(absl::StripAsciiWhitespace(d));
  }
  if (auto s = CheckDevices(config.devices, source); !s.ok()) return s;
  auto scheme = ParseScheme(DefaultScheme(config.devices.size()), source);
  if (!scheme.ok()) return scheme.status();
  config.scheme = std::move(*scheme);
  return config;
}

std::string VolumeKey(const ZoneStackConfig& config) {
  return absl::StrJoin(config.devices, ";");
}

std::string PlacementKey(const ZoneStackConfig& config) {
  if (!config.gc_threshold) return config.scheme.Key();
  return absl::StrCat(config.scheme.Key(), " gc {threshold=", *config.gc_threshold,
                      ", victims=", config.gc_cost_benefit ? "cost-benefit" : "greedy", "}");
}

}  // namespace zonestack::rocks
