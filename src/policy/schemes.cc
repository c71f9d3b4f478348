// The scheme registry: a new scheme is one factory and one line here.
#include "policy/schemes.h"

#include <functional>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "policy/scheme_registry.h"

namespace zonestack::policy {
namespace {

struct Entry {
  const char* name;
  std::function<std::shared_ptr<Scheme>(SchemeOptions)> make;
};

// Bh takes h from its name; options().level_threshold reports it.
std::shared_ptr<Scheme> Basic(SchemeOptions o, int h, bool migration) {
  o.level_threshold = h;
  return MakeBasicScheme(std::move(o), migration);
}

const std::vector<Entry>& Registry() {
  static const auto* registry = new std::vector<Entry>{
      {"hhzs", [](SchemeOptions o) { return MakeHhzsScheme(std::move(o), true, true); }},
      {"p+m+c", [](SchemeOptions o) { return MakeHhzsScheme(std::move(o), true, true); }},
      {"p", [](SchemeOptions o) { return MakeHhzsScheme(std::move(o), false, false); }},
      {"p+m", [](SchemeOptions o) { return MakeHhzsScheme(std::move(o), true, false); }},
      {"b1", [](SchemeOptions o) { return Basic(std::move(o), 1, false); }},
      {"b2", [](SchemeOptions o) { return Basic(std::move(o), 2, false); }},
      {"b3", [](SchemeOptions o) { return Basic(std::move(o), 3, false); }},
      {"b4", [](SchemeOptions o) { return Basic(std::move(o), 4, false); }},
      {"b3+m", [](SchemeOptions o) { return Basic(std::move(o), 3, true); }},
      {"auto", [](SchemeOptions o) { return MakeAutoScheme(std::move(o)); }},
      {"tiered", [](SchemeOptions o) { return MakeTieredScheme(std::move(o)); }},
  };
  return *registry;
}

}  // namespace

absl::StatusOr<std::shared_ptr<Scheme>> MakeScheme(const SchemeOptions& options) {
  const std::string name = absl::AsciiStrToLower(options.name);
  for (const Entry& e : Registry()) {
    if (name != e.name) continue;
    SchemeOptions o = options;
    o.name = name;
    return e.make(std::move(o));
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown scheme '", options.name,
                                                 "'; known: ", absl::StrJoin(SchemeNames(), ", ")));
}

std::vector<std::string> SchemeNames() {
  std::vector<std::string> names;
  for (const Entry& e : Registry()) names.emplace_back(e.name);
  return names;
}

}  // namespace zonestack::policy
