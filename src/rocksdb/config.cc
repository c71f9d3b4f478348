#include "rocksdb/config.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "nlohmann/json.hpp"
#include "policy/placement.h"
#include "policy/schemes.h"

namespace zonestack::rocks {
namespace {

using nlohmann::json;

absl::Status Bad(const std::string& source, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(source, ": ", why));
}

std::string DefaultPlacement(size_t devices) { return devices > 1 ? "hybrid" : "lifetime"; }

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

absl::Status CheckPlacement(const std::string& name, const std::string& source) {
  auto policy = policy::MakePlacementPolicy(name);
  if (!policy.ok()) {
    return Bad(source, absl::StrCat(policy.status().message(), "; or a scheme: ",
                                    absl::StrJoin(policy::SchemeNames(), ", ")));
  }
  return absl::OkStatus();
}

// Scheme names are case-insensitive (policy::MakeScheme); kept lowercase.
bool IsSchemeName(const std::string& name) {
  const std::string lower = absl::AsciiStrToLower(name);
  for (const std::string& n : policy::SchemeNames()) {
    if (n == lower) return true;
  }
  return false;
}

absl::Status CheckSchemeName(const std::string& name, const std::string& source) {
  if (IsSchemeName(name)) return absl::OkStatus();
  return Bad(source, absl::StrCat("unknown scheme '", name,
                                  "'; known: ", absl::StrJoin(policy::SchemeNames(), ", ")));
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

// A JSON number > 0 (>= 0 if `zero_ok`), or an error naming `what`.
absl::StatusOr<double> Number(const json& v, const std::string& what, bool zero_ok,
                              const std::string& source) {
  if (!v.is_number() || v.get<double>() < 0 || (!zero_ok && v.get<double>() == 0)) {
    return Bad(source, absl::StrCat(what, " must be a number ", zero_ok ? ">= 0" : "> 0"));
  }
  return v.get<double>();
}

// The "scheme" object (or just its name as a string).
absl::StatusOr<policy::SchemeOptions> ParseScheme(const json& doc, const std::string& source) {
  policy::SchemeOptions options;
  if (doc.is_string()) {
    options.name = absl::AsciiStrToLower(doc.get<std::string>());
    if (auto s = CheckSchemeName(options.name, source); !s.ok()) return s;
    return options;
  }
  if (!doc.is_object()) return Bad(source, "\"scheme\" must be an object or a scheme name");
  if (!doc.contains("name")) return Bad(source, "\"scheme\" needs a \"name\"");
  constexpr double kMiB = 1 << 20;
  for (const auto& [key, v] : doc.items()) {
    const std::string what = absl::StrCat("scheme \"", key, "\"");
    if (key == "name") {
      if (!v.is_string()) return Bad(source, "scheme \"name\" must be a string");
      options.name = absl::AsciiStrToLower(v.get<std::string>());
      if (auto s = CheckSchemeName(options.name, source); !s.ok()) return s;
    } else if (key == "sst_bytes") {
      auto n = Integer(v, what, 1, UINT64_MAX, source);
      if (!n.ok()) return n.status();
      options.sst_bytes = *n;
    } else if (key == "wal_cache_zones") {
      auto n = Integer(v, what, 0, UINT32_MAX, source);
      if (!n.ok()) return n.status();
      options.wal_cache_zones = static_cast<uint32_t>(*n);
    } else if (key == "migration_mib_per_sec") {
      auto x = Number(v, what, /*zero_ok=*/true, source);
      if (!x.ok()) return x.status();
      options.migration_bytes_per_sec = *x * kMiB;
    } else if (key == "hdd_random_read_iops") {
      auto x = Number(v, what, /*zero_ok=*/false, source);
      if (!x.ok()) return x.status();
      options.hdd_random_read_iops = *x;
    } else if (key == "level_threshold") {
      auto n = Integer(v, what, 0, 64, source);
      if (!n.ok()) return n.status();
      options.level_threshold = static_cast<int>(*n);
    } else if (key == "ssd_write_mib_per_sec") {
      auto x = Number(v, what, /*zero_ok=*/false, source);
      if (!x.ok()) return x.status();
      options.ssd_write_bytes_per_sec = *x * kMiB;
    } else if (key == "decision_interval_ms") {
      auto n = Integer(v, what, 1, UINT64_MAX / 1000, source);
      if (!n.ok()) return n.status();
      options.decision_interval_us = *n * 1000;
    } else if (key == "hdd_read_window_ms") {
      auto n = Integer(v, what, 1, UINT64_MAX / 1000, source);
      if (!n.ok()) return n.status();
      options.hdd_read_window_us = *n * 1000;
    } else if (key == "cache_second_chance") {
      if (!v.is_boolean()) {
        return Bad(source, "scheme \"cache_second_chance\" must be true or false");
      }
      options.cache_second_chance = v.get<bool>();
    } else if (key == "cache_refresh") {
      if (!v.is_boolean()) return Bad(source, "scheme \"cache_refresh\" must be true or false");
      options.cache_refresh = v.get<bool>();
    } else if (key == "spare_placement") {
      if (!v.is_boolean()) return Bad(source, "scheme \"spare_placement\" must be true or false");
      options.spare_placement = v.get<bool>();
    } else if (key == "priority") {
      const std::string p = v.is_string() ? v.get<std::string>() : "";
      if (p == "level") {
        options.priority = policy::SstPriority::kLevelFirst;
      } else if (p == "read_rate") {
        options.priority = policy::SstPriority::kReadRateFirst;
      } else {
        return Bad(source, "scheme \"priority\" must be \"level\" (the paper's) or \"read_rate\"");
      }
    } else {
      return Bad(source, absl::StrCat("unknown scheme key \"", key,
                                      "\"; keys: name, sst_bytes, wal_cache_zones, "
                                      "migration_mib_per_sec, hdd_random_read_iops, "
                                      "level_threshold, ssd_write_mib_per_sec, "
                                      "decision_interval_ms, hdd_read_window_ms, priority, "
                                      "spare_placement, cache_second_chance, cache_refresh"));
    }
  }
  return options;
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
  bool placement_given = false;
  for (const auto& [key, value] : doc.items()) {
    if (key == "devices") {
      if (!value.is_array()) return Bad(source, "\"devices\" must be an array of device URIs");
      for (const json& d : value) {
        if (!d.is_string()) return Bad(source, "\"devices\" must hold strings");
        config.devices.push_back(d.get<std::string>());
      }
    } else if (key == "placement") {
      if (!value.is_string()) return Bad(source, "\"placement\" must be a string");
      config.placement = value.get<std::string>();
      placement_given = true;
    } else if (key == "scheme") {
      auto scheme = ParseScheme(value, source);
      if (!scheme.ok()) return scheme.status();
      config.scheme = std::move(*scheme);
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
      if (!value.is_string() || (value != "devices" && value != "none")) {
        return Bad(source, "\"flush\" must be \"devices\" or \"none\"");
      }
      config.flush_to_devices = value == "devices";
    } else if (key == "rocksdb") {
      if (!value.is_object()) return Bad(source, "\"rocksdb\" must be an object of options");
      for (const auto& [name, v] : value.items()) {
        auto s = OptionValue(name, v, source);
        if (!s.ok()) return s.status();
        config.rocksdb_options[name] = *s;
      }
    } else {
      return Bad(source, absl::StrCat("unknown key \"", key,
                                      "\"; keys: devices, placement, scheme, "
                                      "block_cache_bytes, format, flush, rocksdb"));
    }
  }
  if (auto s = CheckDevices(config.devices, source); !s.ok()) return s;
  if (placement_given && IsSchemeName(config.placement)) {
    config.placement = absl::AsciiStrToLower(config.placement);
    if (!config.scheme) {  // "placement": "hhzs" is {"scheme": {"name": "hhzs"}}
      config.scheme = policy::SchemeOptions();
      config.scheme->name = config.placement;
    } else if (config.scheme->name != config.placement) {
      return Bad(source, absl::StrCat("\"placement\" '", config.placement, "' and scheme '",
                                      config.scheme->name, "' disagree"));
    }
  } else if (placement_given && config.scheme) {
    return Bad(source, absl::StrCat("\"placement\" '", config.placement, "' and \"scheme\" '",
                                    config.scheme->name,
                                    "' both given; a scheme is the placement, give one"));
  }
  if (config.scheme) {
    config.placement = config.scheme->name;
    return config;
  }
  if (!placement_given) config.placement = DefaultPlacement(config.devices.size());
  if (auto s = CheckPlacement(config.placement, source); !s.ok()) return s;
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
  config.placement = DefaultPlacement(config.devices.size());
  return config;
}

std::string VolumeKey(const ZoneStackConfig& config) {
  return absl::StrJoin(config.devices, ";");
}

std::string PlacementKey(const ZoneStackConfig& config) {
  if (!config.scheme) return config.placement;
  const policy::SchemeOptions& o = *config.scheme;
  return absl::StrCat("scheme ", o.name, " {sst_bytes=", o.sst_bytes,
                      ", wal_cache_zones=", o.wal_cache_zones,
                      ", migration_bytes_per_sec=", o.migration_bytes_per_sec,
                      ", hdd_random_read_iops=", o.hdd_random_read_iops,
                      ", level_threshold=", o.level_threshold,
                      ", ssd_write_bytes_per_sec=", o.ssd_write_bytes_per_sec,
                      ", decision_interval_us=", o.decision_interval_us,
                      ", hdd_read_window_us=", o.hdd_read_window_us,
                      ", priority=", o.priority == policy::SstPriority::kLevelFirst ? "level" : "read_rate",
                      ", spare_placement=", o.spare_placement,
                      ", cache_second_chance=", o.cache_second_chance,
                      ", cache_refresh=", o.cache_refresh, "}");
}

}  // namespace zonestack::rocks
