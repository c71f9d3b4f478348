#include "glue/volume_registry.h"

#include <algorithm>
#include <map>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "device/zoned_device.h"
#include "zfs/placement.h"
#include "glue/ssd_secondary_cache.h"

namespace zonestack::rocks {
namespace {

using DeviceList = std::vector<std::shared_ptr<device::ZonedDevice>>;

struct Mounted {
  std::shared_ptr<zfs::Volume> volume;
  std::string placement;  // PlacementKey
  std::vector<std::string> devices;
  std::shared_ptr<policy::Scheme> scheme;  // null without a scheme
  // Declared after the volume, so destroyed before it: the cache holds a
  // raw pointer to the volume.
  std::shared_ptr<SsdSecondaryCache> cache;
  std::string scheme_db;  // the DB path that claimed the scheme, or empty
  int hint_listeners = 0;       // HintListeners alive for this volume
  bool cache_in_use = false;    // a block cache has `cache` as its secondary
  bool missing_reported = false;
};

struct Registry {
  absl::Mutex mu;
  // Opened devices by URI; kept across Unmount so their contents survive.
  std::map<std::string, std::shared_ptr<device::ZonedDevice>> devices ABSL_GUARDED_BY(mu);
  std::map<std::string, Mounted> volumes ABSL_GUARDED_BY(mu);  // by VolumeKey
};

// Never destroyed: at exit the device layer's statics (clocks) may be gone
// before an unmount could run. Nothing is lost: what was synced is durable.
Registry& TheRegistry() {
  static Registry* registry = new Registry;
  return *registry;
}

Mounted* FindMountedLocked(Registry& r, const zfs::Volume& volume)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(r.mu) {
  for (auto& [key, m] : r.volumes) {
    if (m.volume.get() == &volume) return &m;
  }
  return nullptr;
}

absl::Status WithContext(const absl::Status& s, const std::string& key) {
  return absl::Status(s.code(), absl::StrCat("volume on '", key, "': ", s.message()));
}

absl::StatusOr<std::unique_ptr<zfs::Volume>> FormatAndMount(const ZoneStackConfig& config,
                                                            const DeviceList& devices,
                                                            const zfs::MountOptions& options) {
  if (config.format == FormatMode::kAlways) {
    if (auto s = zfs::Volume::Format(devices); !s.ok()) return s;
    return zfs::Volume::Mount(devices, options);
  }
  auto mounted = zfs::Volume::Mount(devices, options);
  // NotFound from Mount is zfs's "no ZoneStack label on the devices".
  if (mounted.ok() || config.format == FormatMode::kNever ||
      mounted.status().code() != absl::StatusCode::kNotFound) {
    return mounted;
  }
  // Mount names only the first member it could not use; a sibling may
  // still carry a label, and no member of an existing volume is formatted
  // without "always".
  const zfs::VolumeProbe probe = zfs::Volume::Probe(devices);
  if (!probe.AllBlank()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no ZoneStack volume could be mounted (", mounted.status().message(), ") but ",
        probe.DescribeNonBlank(), "; refusing to format with \"if-needed\" (use \"always\" to erase)"));
  }
  if (auto s = zfs::Volume::Format(devices); !s.ok()) return s;
  return zfs::Volume::Mount(devices, options);
}

absl::StatusOr<std::shared_ptr<zfs::Volume>> MountLocked(Registry& r, const ZoneStackConfig& config,
                                                         const std::string& key)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(r.mu) {
  for (const auto& [other_key, m] : r.volumes) {
    for (const std::string& d : m.devices) {
      for (const std::string& mine : config.devices) {
        if (d == mine) {
          return absl::FailedPreconditionError(absl::StrCat(
              "volume on '", key, "': device '", d, "' belongs to the mounted volume on '",
              other_key, "'"));
        }
      }
    }
  }
  DeviceList devices;
  for (const std::string& uri : config.devices) {
    auto it = r.devices.find(uri);
    if (it == r.devices.end()) {
      auto dev = device::OpenDevice(uri);
      if (!dev.ok()) return WithContext(dev.status(), key);
      it = r.devices.emplace(uri, std::shared_ptr<device::ZonedDevice>(std::move(*dev))).first;
    }
    devices.push_back(it->second);
  }
  zfs::MountOptions options;
  options.flush = config.flush;
  options.staging_root = config.staging_root;
  auto made = policy::MakeScheme(config.scheme);
  if (!made.ok()) return WithContext(made.status(), key);
  options.placement = *made;
  // Only a hinted scheme is the volume's scheme for the glue (hint
  // listener, SSD cache, one DB at a time); lifetime and hybrid see no
  // hints beyond what every file carries.
  std::shared_ptr<policy::Scheme> scheme = (*made)->hinted() ? *made : nullptr;
  if (scheme) {
    // Every hinted scheme gives each SST zones of its own and resets a zone
    // when its SST dies (HHZS 4.1: "we reset a zone to reclaim its space
    // only when the WAL data or the SST in the zone is deleted"): no
    // background GC, which on a deliberately full SSD would copy 94%-valid
    // SST zones to reclaim their padding. GC still runs before reporting
    // no space.
    options.gc_free_zone_threshold = -1;
  }
  // A scheme whose paper runs GC (SplitZNS and its LDP baseline: greedy at
  // 20% free) says so; the config's "gc" still wins.
  if (auto threshold = (*made)->gc_threshold()) options.gc_free_zone_threshold = *threshold;
  if (config.gc_threshold) {  // the config's GC (baselines such as GearDB's Ldb-Greedy)
    options.gc_free_zone_threshold = *config.gc_threshold;
    options.gc_cost_benefit = config.gc_cost_benefit;
  }
  auto volume = FormatAndMount(config, devices, options);
  if (!volume.ok()) return WithContext(volume.status(), key);
  std::shared_ptr<zfs::Volume> shared(std::move(*volume));
  r.volumes[key] = Mounted{shared, PlacementKey(config), config.devices, std::move(scheme)};
  return shared;
}

// The volume is destroyed (unmounted) under the lock, so a new mount of
// the same devices cannot start before the old one has synced.
absl::Status UnmountLocked(Registry& r, const std::string& key)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(r.mu) {
  auto it = r.volumes.find(key);
  if (it == r.volumes.end()) {
    return absl::NotFoundError(absl::StrCat("no volume mounted on '", key, "'"));
  }
  // Another holder (an open DB's FileSystem) would keep writing to the
  // devices while a later mount writes them too.
  if (const long holders = it->second.volume.use_count() - 1; holders > 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "volume on '", key, "' is still in use (", holders,
        " other holders); close the DBs on it first"));
  }
  // A block cache outliving its DB (in a copy of the DB's options) may
  // still hold the SSD cache; closed, it no longer touches the volume.
  if (it->second.cache) it->second.cache->Close();
  r.volumes.erase(it);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::shared_ptr<zfs::Volume>> AcquireVolume(const ZoneStackConfig& config) {
  Registry& r = TheRegistry();
  const std::string key = VolumeKey(config);
  absl::MutexLock lock(&r.mu);
  auto it = r.volumes.find(key);
  if (it == r.volumes.end()) return MountLocked(r, config, key);
  if (const std::string wanted = PlacementKey(config); it->second.placement != wanted) {
    return absl::FailedPreconditionError(
        absl::StrCat("volume on '", key, "' is mounted with placement '", it->second.placement,
                     "', not '", wanted, "'"));
  }
  return it->second.volume;
}

std::shared_ptr<policy::Scheme> FindScheme(const zfs::Volume& volume) {
  Registry& r = TheRegistry();
  absl::MutexLock lock(&r.mu);
  const Mounted* m = FindMountedLocked(r, volume);
  return m == nullptr ? nullptr : m->scheme;
}

std::shared_ptr<SsdSecondaryCache> AcquireSsdCache(const zfs::Volume& volume) {
  Registry& r = TheRegistry();
  absl::MutexLock lock(&r.mu);
  Mounted* m = FindMountedLocked(r, volume);
  if (m == nullptr || m->scheme == nullptr || m->scheme->cache() == nullptr) return nullptr;
  if (m->cache == nullptr) m->cache = SsdSecondaryCache::Create(m->volume.get(), m->scheme);
  return m->cache;
}

std::shared_ptr<SsdSecondaryCache> FindSsdCache(const zfs::Volume& volume) {
  Registry& r = TheRegistry();
  absl::MutexLock lock(&r.mu);
  const Mounted* m = FindMountedLocked(r, volume);
  return m == nullptr ? nullptr : m->cache;
}

absl::Status ClaimScheme(const zfs::Volume& volume, const std::string& db_path) {
  Registry& r = TheRegistry();
  absl::MutexLock lock(&r.mu);
  Mounted* m = FindMountedLocked(r, volume);
  if (m == nullptr || m->scheme == nullptr) return absl::OkStatus();
  if (!m->scheme_db.empty()) {  // the same path too: that DB is open
    return absl::FailedPreconditionError(absl::StrCat(
        "the volume's scheme '", m->scheme->name(), "' already serves the DB at '",
        m->scheme_db, "'; a scheme's LSM view describes one DB, close that one first"));
  }
  m->scheme_db = db_path;
  return absl::OkStatus();
}

void ReleaseScheme(const zfs::Volume& volume, const std::string& db_path) {
  Registry& r = TheRegistry();
  absl::MutexLock lock(&r.mu);
  Mounted* m = FindMountedLocked(r, volume);
  if (m != nullptr && m->scheme_db == db_path) m->scheme_db.clear();
}

absl::StatusOr<std::shared_ptr<zfs::Volume>> OnlyHintedVolume(const std::string& who,
                                                              bool caching) {
  Registry& r = TheRegistry();
  absl::MutexLock lock(&r.mu);
  std::vector<const Mounted*> found;
  std::vector<std::string> keys;
  for (const auto& [key, m] : r.volumes) {
    if (m.scheme == nullptr || (caching && m.scheme->cache() == nullptr)) continue;
    found.push_back(&m);
    keys.push_back(key);
  }
  const char* kind = caching ? "a caching scheme" : "a hinted scheme";
  if (found.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        who, ": no mounted ZoneStack volume has ", kind,
        "; open the volume first (--fs_uri=zonestack://...) with such a scheme (zsctl schemes)"));
  }
  if (found.size() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(who, ": ", found.size(),
                                                   " mounted volumes have ", kind, " (",
                                                   absl::StrJoin(keys, ", "),
                                                   "); use zonestack::AttachHints instead"));
  }
  return found[0]->volume;
}

void CountHintListener(const zfs::Volume& volume, int delta) {
  Registry& r = TheRegistry();
  absl::MutexLock lock(&r.mu);
  if (Mounted* m = FindMountedLocked(r, volume)) m->hint_listeners += delta;
}

void NoteSsdCacheInUse(const zfs::Volume& volume) {
  Registry& r = TheRegistry();
  absl::MutexLock lock(&r.mu);
  if (Mounted* m = FindMountedLocked(r, volume)) m->cache_in_use = true;
}

std::optional<MissingHints> TakeMissingHints(const zfs::Volume& volume) {
  Registry& r = TheRegistry();
  absl::MutexLock lock(&r.mu);
  Mounted* m = FindMountedLocked(r, volume);
  if (m == nullptr || m->scheme == nullptr || m->missing_reported) return std::nullopt;
  MissingHints missing;
  missing.listener = m->hint_listeners <= 0;
  // SsdSecondaryCache caches on the volume's first SSD; without one there is
  // no cache to miss.
  const auto& devices = m->volume->devices();
  const bool has_ssd = std::any_of(devices.begin(), devices.end(),
                                   [](const auto& d) { return d->info().is_ssd(); });
  missing.cache = m->scheme->cache() != nullptr && has_ssd && !m->cache_in_use;
  if (!missing.listener && !missing.cache) return std::nullopt;
  m->missing_reported = true;
  missing.volume = absl::StrJoin(m->devices, ";");
  missing.scheme = m->scheme->name();
  missing.without = m->scheme->without_hints();
  return missing;
}

absl::StatusOr<std::shared_ptr<zfs::Volume>> FindVolume(const std::string& uri) {
  auto config = ParseUri(uri);
  if (!config.ok()) return config.status();
  Registry& r = TheRegistry();
  const std::string key = VolumeKey(*config);
  absl::MutexLock lock(&r.mu);
  auto it = r.volumes.find(key);
  if (it == r.volumes.end()) {
    return absl::NotFoundError(absl::StrCat("no volume mounted on '", key, "'"));
  }
  return it->second.volume;
}

absl::Status Unmount(const std::string& uri) {
  auto config = ParseUri(uri);
  if (!config.ok()) return config.status();
  Registry& r = TheRegistry();
  absl::MutexLock lock(&r.mu);
  return UnmountLocked(r, VolumeKey(*config));
}

absl::Status Forget(const std::string& uri) {
  auto config = ParseUri(uri);
  if (!config.ok()) return config.status();
  Registry& r = TheRegistry();
  absl::MutexLock lock(&r.mu);
  auto s = UnmountLocked(r, VolumeKey(*config));
  if (!s.ok() && s.code() != absl::StatusCode::kNotFound) return s;
  for (const std::string& d : config->devices) r.devices.erase(d);
  return absl::OkStatus();
}

}  // namespace zonestack::rocks
