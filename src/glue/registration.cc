#include "glue/registration.h"

#include <mutex>

#include "glue/config.h"
#include "glue/hint_factories.h"
#include "rocksdb/env.h"
#include "rocksdb/utilities/object_registry.h"
#include "glue/volume_registry.h"

namespace zonestack::rocks {

absl::StatusOr<std::unique_ptr<ZoneStackFileSystem>> NewZoneStackFileSystem(
    const std::string& uri) {
  auto config = ParseUri(uri);
  if (!config.ok()) return config.status();
  auto volume = AcquireVolume(*config);
  if (!volume.ok()) return volume.status();
  std::shared_ptr<policy::Scheme> scheme = FindScheme(**volume);
  return std::make_unique<ZoneStackFileSystem>(std::move(*volume), uri, std::move(scheme));
}

void RegisterZoneStack() {
  static std::once_flag once;
  std::call_once(once, [] {
    rocksdb::ObjectLibrary::Default()->AddFactory<rocksdb::FileSystem>(
        rocksdb::ObjectLibrary::PatternEntry("zonestack", /*optional=*/false)
            .AddSeparator("://"),
        [](const std::string& uri, std::unique_ptr<rocksdb::FileSystem>* guard,
           std::string* errmsg) -> rocksdb::FileSystem* {
          auto fs = NewZoneStackFileSystem(uri);
          if (!fs.ok()) {
            // RocksDB reports it as InvalidArgument(errmsg, uri).
            *errmsg = std::string(fs.status().message());
            return nullptr;
          }
          guard->reset(fs->release());
          return guard->get();
        });
    // The same URI as an Env (RocksDB's default Env over our file system),
    // for tools that take only --env_uri or parse it first. RocksDB parses
    // an env URI holding '=' as an option string, so only the config-file
    // form (zonestack:///path/volume.json) gets here intact.
    rocksdb::ObjectLibrary::Default()->AddFactory<rocksdb::Env>(
        rocksdb::ObjectLibrary::PatternEntry("zonestack", /*optional=*/false)
            .AddSeparator("://"),
        [](const std::string& uri, std::unique_ptr<rocksdb::Env>* guard,
           std::string* errmsg) -> rocksdb::Env* {
          auto fs = NewZoneStackFileSystem(uri);
          if (!fs.ok()) {
            *errmsg = std::string(fs.status().message());
            return nullptr;
          }
          *guard = rocksdb::NewCompositeEnv(std::shared_ptr<rocksdb::FileSystem>(std::move(*fs)));
          return guard->get();
        });
    RegisterHintFactories(*rocksdb::ObjectLibrary::Default());
  });
}

}  // namespace zonestack::rocks

// Registers at load time. The CMake target passes "-u" with this name to
// the linker, so the object is kept even though nothing refers to it.
extern "C" const int zonestack_rocks_registration =
    (zonestack::rocks::RegisterZoneStack(), 1);
