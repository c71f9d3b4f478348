// How a scheme declares the options it reads from the volume config's
// "scheme" object: one table per options struct, which parses (strictly:
// an unknown key or a bad value is an error naming it), renders the
// complete options back (for comparing configs) and documents them (zsctl
// schemes).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

namespace zonestack::policy {

struct OptionDoc {
  std::string key;
  std::string help;           // what it sets, with its unit and range
  std::string default_value;  // as the config would write it
};

template <typename T>
class OptionTable {
 public:
  using json = nlohmann::json;

  // An integer in [min, max]; the field holds value * scale (ms -> us: 1000).
  template <typename Field>
  OptionTable& Integer(std::string key, Field T::*field, uint64_t min, uint64_t max,
                       std::string help, uint64_t scale = 1) {
    const std::string k = key;
    return Add(std::move(key), std::move(help),
               [=](const json& v, T* o) -> absl::Status {
                 // A literal 5 in code is a signed JSON integer; -5 is not taken.
                 if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<int64_t>() < 0)) {
                   return Bad(k, absl::StrCat("must be an integer in [", min, ", ", max, "]"));
                 }
                 const uint64_t n = v.get<uint64_t>();
                 if (n < min || n > max) {
                   return Bad(k, absl::StrCat("must be in [", min, ", ", max, "], not ", n));
                 }
                 o->*field = static_cast<Field>(n * scale);
                 return absl::OkStatus();
               },
               [=](const T& o) { return json(static_cast<uint64_t>(o.*field) / scale); });
  }

  // A number > 0 (>= 0 with `zero_ok`); the field holds value * scale.
  OptionTable& Number(std::string key, double T::*field, bool zero_ok, std::string help,
                      double scale = 1) {
    const std::string k = key;
    return Add(std::move(key), std::move(help),
               [=](const json& v, T* o) -> absl::Status {
                 if (!v.is_number() || v.get<double>() < 0 || (!zero_ok && v.get<double>() == 0)) {
                   return Bad(k, zero_ok ? "must be a number >= 0" : "must be a number > 0");
                 }
                 o->*field = v.get<double>() * scale;
                 return absl::OkStatus();
               },
               [=](const T& o) { return json(o.*field / scale); });
  }

  OptionTable& Bool(std::string key, bool T::*field, std::string help) {
    const std::string k = key;
    return Add(std::move(key), std::move(help),
               [=](const json& v, T* o) -> absl::Status {
                 if (!v.is_boolean()) return Bad(k, "must be true or false");
                 o->*field = v.get<bool>();
                 return absl::OkStatus();
               },
               [=](const T& o) { return json(o.*field); });
  }

  // One of the named values.
  template <typename E>
  OptionTable& Choice(std::string key, E T::*field, std::vector<std::pair<std::string, E>> choices,
                      std::string help) {
    const std::string k = key;
    std::vector<std::string> names;
    for (const auto& c : choices) names.push_back(absl::StrCat("\"", c.first, "\""));
    const std::string expected = absl::StrCat("must be one of ", absl::StrJoin(names, ", "));
    return Add(std::move(key), std::move(help),
               [=](const json& v, T* o) -> absl::Status {
                 for (const auto& [name, value] : choices) {
                   if (v.is_string() && v.get<std::string>() == name) {
                     o->*field = value;
                     return absl::OkStatus();
                   }
                 }
                 return Bad(k, expected);
               },
               [=](const T& o) {
                 for (const auto& [name, value] : choices) {
                   if (o.*field == value) return json(name);
                 }
                 return json(nullptr);
               });
  }

  // `defaults` with every key of `object` applied. An unknown key is an
  // error listing the known ones.
  absl::StatusOr<T> Parse(const json& object, T defaults) const {
    if (!object.is_object()) return absl::InvalidArgumentError("options must be a JSON object");
    for (const auto& [key, value] : object.items()) {
      const Entry* e = Find(key);
      if (e == nullptr) {
        std::vector<std::string> keys;
        for (const Entry& x : entries_) keys.push_back(x.key);
        return absl::InvalidArgumentError(absl::StrCat(
            "unknown option \"", key, "\"; options: ",
            keys.empty() ? std::string("none") : absl::StrJoin(keys, ", ")));
      }
      if (auto s = e->parse(value, &defaults); !s.ok()) return s;
    }
    for (const auto& check : checks_) {
      if (auto s = check(defaults); !s.ok()) return s;
    }
    return defaults;
  }

  // A rule over several options, checked after they are all set.
  OptionTable& Require(std::function<absl::Status(const T&)> check) {
    checks_.push_back(std::move(check));
    return *this;
  }

  // Every option of `options`, as a config object would give it.
  json Render(const T& options) const {
    json out = json::object();
    for (const Entry& e : entries_) out[e.key] = e.render(options);
    return out;
  }

  std::vector<OptionDoc> Describe(const T& defaults) const {
    std::vector<OptionDoc> docs;
    for (const Entry& e : entries_) docs.push_back({e.key, e.help, e.render(defaults).dump()});
    return docs;
  }

 private:
  struct Entry {
    std::string key, help;
    std::function<absl::Status(const json&, T*)> parse;
    std::function<json(const T&)> render;
  };

  static absl::Status Bad(const std::string& key, const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("option \"", key, "\" ", why));
  }
  OptionTable& Add(std::string key, std::string help,
                   std::function<absl::Status(const json&, T*)> parse,
                   std::function<json(const T&)> render) {
    entries_.push_back({std::move(key), std::move(help), std::move(parse), std::move(render)});
    return *this;
  }
  const Entry* Find(const std::string& key) const {
    for (const Entry& e : entries_) {
      if (e.key == key) return &e;
    }
    return nullptr;
  }

  std::vector<Entry> entries_;
  std::vector<std::function<absl::Status(const T&)>> checks_;
};

}  // namespace zonestack::policy
