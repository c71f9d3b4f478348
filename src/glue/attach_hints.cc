#include "glue/attach_hints.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "glue/registration.h"
#include "glue/volume_registry.h"
#include "rocksdb/cache.h"
#include "rocksdb/env.h"
#include "rocksdb/table.h"

namespace zonestack::rocks {
namespace {

// Installs an LRU block cache of the configured capacity, in front of
// `secondary` if not null (HHZS 3.5: blocks evicted from it go to the SSD
// cache). A copy of the caller's table options gets it, so a factory the
// caller shares elsewhere is left alone.
absl::Status InstallBlockCache(const ZoneStackConfig& config,
                               std::shared_ptr<rocksdb::SecondaryCache> secondary,
                               const std::string& why, rocksdb::Options* options) {
  const auto* table = options->table_factory
                          ? options->table_factory->GetOptions<rocksdb::BlockBasedTableOptions>()
                          : nullptr;
  if (table == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(why, " needs block-based tables; the table factory is ",
                     options->table_factory ? options->table_factory->Name() : "none"));
  }
  if (table->no_block_cache) {
    return absl::InvalidArgumentError(
        absl::StrCat(why, " needs a block cache; the table options say no_block_cache"));
  }
  rocksdb::LRUCacheOptions lru;
  lru.capacity = config.block_cache_bytes.value_or(
      table->block_cache ? table->block_cache->GetCapacity() : kDefaultBlockCacheBytes);
  lru.secondary_cache = std::move(secondary);
  rocksdb::BlockBasedTableOptions updated = *table;
  updated.block_cache = rocksdb::NewLRUCache(lru);
  options->table_factory.reset(rocksdb::NewBlockBasedTableFactory(updated));
  return absl::OkStatus();
}

// SplitZNS (5.1.2): an SST as large as a subzone, so each subzone holds
// one SST and dies with it. RocksDB closes an SST once its data reaches
// target_file_size_base and then adds its index, filter and footer, so the
// target leaves 1/16 of the subzone for them; otherwise every SST would
// spill a few hundred KiB into a second subzone. Every level the same
// size (multiplier 1). No-op on a volume without subzones.
void SizeSstsToSubzones(const zfs::Volume& volume, rocksdb::Options* options) {
  uint64_t capacity = 0;
  for (const auto& dev : volume.devices()) {
    const device::DeviceInfo& info = dev->info();
    if (!info.supports_subzones) continue;
    const uint64_t c = info.subzone_capacity();
    capacity = capacity == 0 ? c : std::min(capacity, c);
  }
  if (capacity == 0) return;
  options->target_file_size_base = capacity - capacity / 16;
  options->target_file_size_multiplier = 1;
}

}  // namespace

absl::StatusOr<HintParts> AttachHints(const ZoneStackConfig& config,
                                      const std::shared_ptr<zfs::Volume>& volume,
                                      std::shared_ptr<ZoneStackFileSystem> fs,
                                      rocksdb::Options* options) {
  HintParts parts;
  parts.scheme = FindScheme(*volume);
  rocksdb::Options updated = *options;
  if (parts.scheme) {
    parts.cache = AcquireSsdCache(*volume);
    parts.listener = std::make_shared<HintListener>(parts.scheme, std::move(fs), parts.cache);
    updated.listeners.push_back(parts.listener);
    if (parts.scheme->places_by_temperature() &&
        updated.last_level_temperature == rocksdb::Temperature::kUnknown &&
        updated.bottommost_temperature == rocksdb::Temperature::kUnknown) {
      // RocksDB's tiered storage: last-level outputs are cold, and the
      // scheme puts cold SSTs on the HDD.
      updated.last_level_temperature = rocksdb::Temperature::kCold;
    }
    if (parts.scheme->sst_per_subzone()) SizeSstsToSubzones(*volume, &updated);
  }
  if (parts.cache || config.block_cache_bytes) {
    const std::string why =
        parts.cache ? absl::StrCat("scheme '", parts.scheme->name(), "' (SSD block cache)")
                    : std::string("\"block_cache_bytes\"");
    if (auto s = InstallBlockCache(config, parts.cache, why, &updated); !s.ok()) return s;
    if (parts.cache) NoteSsdCacheInUse(*volume);
  }
  *options = std::move(updated);
  return parts;
}

absl::StatusOr<HintParts> AttachHints(rocksdb::Options* options, const std::string& uri_in) {
  const std::string uri = uri_in.rfind(kUriScheme, 0) == 0 ? uri_in : kUriScheme + uri_in;
  auto config = ParseUri(uri);
  if (!config.ok()) return config.status();
  auto volume = AcquireVolume(*config);
  if (!volume.ok()) return volume.status();
  std::shared_ptr<ZoneStackFileSystem> fs;
  if (options->env != nullptr) {
    fs = std::dynamic_pointer_cast<ZoneStackFileSystem>(options->env->GetFileSystem());
    if (fs && fs->volume() != *volume) fs = nullptr;
  }
  if (!fs) {
    auto made = NewZoneStackFileSystem(uri);
    if (!made.ok()) return made.status();
    fs = std::move(*made);
  }
  auto parts = AttachHints(*config, *volume, std::move(fs), options);
  if (!parts.ok()) return absl::Status(parts.status().code(),
                                       absl::StrCat(uri, ": ", parts.status().message()));
  return parts;
}

}  // namespace zonestack::rocks
