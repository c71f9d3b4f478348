// The scheme registry. Every scheme is one file in src/policy/schemes/
// that declares its names, summary and options and registers itself:
//
//   ZONESTACK_SCHEMES(my_scheme) {            // the file is my_scheme.cc
//     registry.Add(SchemeSpecFor<MyOptions>("mine", "what it is (paper)",
//         MyOptionTable(), MyOptions{}, [](const std::string& name,
//             MyOptions o, const SchemeEnv& env) { return ...; }));
//   }
//
// The build finds the file and calls its registration function
// (policy/CMakeLists.txt generates the list), so adding a scheme touches
// no other file. Names are matched case-insensitively and must be unique.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "policy/scheme.h"
#include "policy/scheme_options.h"

namespace zonestack::policy {

struct SchemeSpec {
  std::string name;
  std::string summary;  // one line: what it does, after which paper
  std::vector<OptionDoc> options;
  // Checks the options (the config's scheme object without "name") and
  // returns them complete: every option with its value, defaults filled.
  std::function<absl::StatusOr<nlohmann::json>(const nlohmann::json& options)> parse;
  // Makes the scheme from options `parse` returned.
  std::function<std::shared_ptr<Scheme>(const nlohmann::json& options, const SchemeEnv& env)> make;
};

// A spec from a typed options struct and its table, which must outlive
// the registry (a function-local static, as every scheme file keeps it).
template <typename Options>
SchemeSpec SchemeSpecFor(
    std::string name, std::string summary, const OptionTable<Options>& table, Options defaults,
    std::function<std::shared_ptr<Scheme>(const std::string& name, Options options,
                                          const SchemeEnv& env)>
        make) {
  SchemeSpec spec{name, std::move(summary), table.Describe(defaults), nullptr, nullptr};
  spec.parse = [&table, defaults](const nlohmann::json& o) -> absl::StatusOr<nlohmann::json> {
    auto parsed = table.Parse(o, defaults);
    if (!parsed.ok()) return parsed.status();
    return table.Render(*parsed);
  };
  spec.make = [&table, defaults, name, make](const nlohmann::json& o, const SchemeEnv& env) {
    return make(name, *table.Parse(o, defaults), env);  // o came from parse
  };
  return spec;
}

class SchemeRegistry {
 public:
  // Aborts the program on a name already taken: two scheme files
  // disagreeing is a build error, caught by the first run of any test.
  void Add(SchemeSpec spec);
  const std::vector<SchemeSpec>& specs() const { return specs_; }

 private:
  std::vector<SchemeSpec> specs_;
};

#define ZONESTACK_SCHEMES(file) \
  void RegisterSchemes_##file(::zonestack::policy::SchemeRegistry& registry)

// Every registered scheme, in registration order (file name order).
const std::vector<SchemeSpec>& Schemes();
const SchemeSpec* FindScheme(const std::string& name);
std::vector<std::string> SchemeNames();

// A scheme as a volume config names it, checked: its registered name and
// its complete options.
struct SchemeConfig {
  std::string name;
  nlohmann::json options = nlohmann::json::object();
  // "NAME {key=value, ...}": equal for equal configs.
  std::string Key() const;
};

// Parses a config's scheme: a name, or {"name": NAME, OPTION: VALUE...}.
// Errors are InvalidArgument naming the scheme and the option.
absl::StatusOr<SchemeConfig> ParseSchemeConfig(const nlohmann::json& value);
absl::StatusOr<std::shared_ptr<Scheme>> MakeScheme(const SchemeConfig& config,
                                                   const SchemeEnv& env = {});
// Shorthand: the scheme `name` with its default options.
absl::StatusOr<std::shared_ptr<Scheme>> MakeScheme(const std::string& name,
                                                   const SchemeEnv& env = {});

}  // namespace zonestack::policy
