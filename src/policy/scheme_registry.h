// Factories of the schemes behind MakeScheme (schemes.cc). Each takes
// options whose name is already the canonical (lower-case) name.
#pragma once

#include <memory>

#include "policy/schemes.h"

namespace zonestack::policy {

// hhzs.cc: P always; M and C as switched.
std::shared_ptr<Scheme> MakeHhzsScheme(SchemeOptions options, bool migration, bool caching);
// basic.cc: Bh with h = options.level_threshold; with `migration`, B3+M's
// limited migration.
std::shared_ptr<Scheme> MakeBasicScheme(SchemeOptions options, bool migration);
// auto.cc: SpanDB's AUTO.
std::shared_ptr<Scheme> MakeAutoScheme(SchemeOptions options);
// tiered.cc: RocksDB's temperature-based tiered storage.
std::shared_ptr<Scheme> MakeTieredScheme(SchemeOptions options);

}  // namespace zonestack::policy
