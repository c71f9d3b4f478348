#include "rocksdb/volume_registry.h"

#include <map>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "device/zoned_device.h"
#include "policy/placement.h"

namespace zonestack::rocks {
namespace {

using DeviceList = std::vector<std::shared_ptr<device::ZonedDevice>>;

struct Mounted {
  std::shared_ptr<zfs::Volume> volume;
  std::string placement;
  std::vector<std::string> devices;
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

absl::Status WithContext(const absl::Status& s, const std::string& key) {
  return absl::Status(s.code(), absl::StrCat("volume on '", key, "': ", s.message()));
}

// True if no sequential zone of any device has been written. Conventional
// zones have no write pointer and cannot tell.
absl::StatusOr<bool> AllBlank(const DeviceList& devices) {
  for (const auto& dev : devices) {
    auto zones = dev->ReportZones(0, dev->info().num_zones);
    if (!zones.ok()) return zones.status();
    for (const device::ZoneInfo& z : *zones) {
      if (z.type != device::ZoneType::kConventional && z.state != device::ZoneState::kEmpty) {
        return false;
      }
    }
  }
  return true;
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
  auto blank = AllBlank(devices);
  if (!blank.ok()) return blank.status();
  if (!*blank) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no ZoneStack volume found (", mounted.status().message(),
        ") but the devices hold data; refusing to erase them with format "
        "\"if-needed\" (use \"always\" to erase)"));
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
  auto placement = policy::MakePlacementPolicy(config.placement);
  if (!placement.ok()) return WithContext(placement.status(), key);
  options.placement = *placement;
  auto volume = FormatAndMount(config, devices, options);
  if (!volume.ok()) return WithContext(volume.status(), key);
  std::shared_ptr<zfs::Volume> shared(std::move(*volume));
  r.volumes[key] = Mounted{shared, config.placement, config.devices};
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
  if (it->second.placement != config.placement) {
    return absl::FailedPreconditionError(
        absl::StrCat("volume on '", key, "' is mounted with placement '", it->second.placement,
                     "', not '", config.placement, "'"));
  }
  return it->second.volume;
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
