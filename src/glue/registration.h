// Makes "zonestack://..." URIs (config.h) loadable wherever RocksDB takes a
// file system URI: Env::CreateFromUri, FileSystem::CreateFromString,
// db_bench/db_stress --fs_uri.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "glue/zs_file_system.h"

namespace zonestack::rocks {

// Adds the "zonestack://" FileSystem and Env factories to
// rocksdb::ObjectLibrary::Default(), and the hint factories
// (hint_factories.h: EventListener "ZoneStackHintListener", SecondaryCache
// "ZoneStackSsdCache").
// Idempotent and thread-safe. A static initializer in registration.cc calls
// it too, and zs_rocksdb's CMake target forces that object into every
// program linking it, so calling it is only needed where the library is
// loaded by other means.
void RegisterZoneStack();

// The FileSystem a "zonestack://" URI names, over the volume the registry
// mounts for it (volume_registry.h), with the volume's scheme if it has
// one. What the factory calls.
absl::StatusOr<std::unique_ptr<ZoneStackFileSystem>> NewZoneStackFileSystem(
    const std::string& uri);

}  // namespace zonestack::rocks
