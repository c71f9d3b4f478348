#include "tools/volume_cmds.h"

#include <fmt/format.h>

#include <functional>

#include "zfs/volume.h"

namespace zonestack::tools {
namespace {

using Devices = std::vector<std::shared_ptr<device::ZonedDevice>>;

int Fail(const absl::Status& s) {
  fmt::print(stderr, "zsctl: {}\n", std::string(s.message()));
  return 1;
}

absl::StatusOr<Devices> OpenAll(const VolumeArgs& args) {
  if (args.devices.empty()) return absl::InvalidArgumentError("give the volume's devices with -d URI");
  Devices devs;
  for (const std::string& uri : args.devices) {
    auto d = device::OpenDevice(uri);
    if (!d.ok()) return d.status();
    devs.emplace_back(std::move(*d));
  }
  return devs;
}

// Opens the devices and mounts the volume read-only for `fn`.
int WithVolume(const VolumeArgs& args, const std::function<int(zfs::Volume&)>& fn) {
  auto devs = OpenAll(args);
  if (!devs.ok()) return Fail(devs.status());
  auto vol = zfs::Volume::Mount(*devs, {.read_only = true});
  if (!vol.ok()) return Fail(vol.status());
  return fn(**vol);
}

std::string Mib(uint64_t bytes) { return fmt::format("{:.1f}", bytes / 1048576.0); }

const char* RoleName(zfs::ZoneRole r) {
  switch (r) {
    case zfs::ZoneRole::kFree: return "free";
    case zfs::ZoneRole::kLabel: return "label";
    case zfs::ZoneRole::kMetadata: return "metadata";
    case zfs::ZoneRole::kData: return "data";
    case zfs::ZoneRole::kCache: return "cache";
  }
  return "?";
}

const char* KindName(policy::FileKind k) {
  switch (k) {
    case policy::FileKind::kWal: return "wal";
    case policy::FileKind::kSst: return "sst";
    case policy::FileKind::kManifest: return "manifest";
    case policy::FileKind::kOther: return "other";
  }
  return "?";
}

}  // namespace

int Mkfs(const VolumeArgs& args) {
  auto devs = OpenAll(args);
  if (!devs.ok()) return Fail(devs.status());
  if (auto s = zfs::Volume::Format(*devs, {.metadata_zones = args.metadata_zones}); !s.ok()) {
    return Fail(s);
  }
  auto vol = zfs::Volume::Mount(*devs, {.read_only = true});
  if (!vol.ok()) return Fail(vol.status());
  fmt::print("formatted volume {} on {} device(s), metadata on device {}\n", (*vol)->volume_id(),
             devs->size(), (*vol)->metadata_device());
  return 0;
}

int Info(const VolumeArgs& args) {
  return WithVolume(args, [](zfs::Volume& v) {
    fmt::print("volume {}\nmetadata device {}\n", v.volume_id(), v.metadata_device());
    for (size_t i = 0; i < v.devices().size(); ++i) {
      const auto& info = v.devices()[i]->info();
      fmt::print("device {}: {} ({}), {} zones of {} MiB, capacity {} MiB, {} conventional, "
                 "max open {} active {}\n",
                 i, info.name, info.model, info.num_zones, Mib(info.zone_size),
                 Mib(info.zone_capacity), info.num_conventional_zones, info.max_open_zones,
                 info.max_active_zones);
    }
    fmt::print("{} files\n", v.Files().size());
    return 0;
  });
}

int Ls(const VolumeArgs& args) {
  return WithVolume(args, [&](zfs::Volume& v) {
    std::function<int(const std::string&)> list = [&](const std::string& dir) {
      auto names = v.List(dir);
      if (!names.ok()) return Fail(names.status());
      for (const std::string& n : *names) {
        const std::string path = dir == "/" ? "/" + n : dir + "/" + n;
        auto st = v.Stat(path);
        if (!st.ok()) continue;
        if (st->is_dir) {
          fmt::print("{:>12}  {}/\n", "dir", path);
          if (args.recursive && list(path) != 0) return 1;
        } else {
          fmt::print("{:>12}  {}\n", st->size, path);
        }
      }
      return 0;
    };
    return list(args.path);
  });
}

int Df(const VolumeArgs& args) {
  return WithVolume(args, [](zfs::Volume& v) {
    fmt::print("{:<16} {:>7} {:>7} {:>11} {:>11} {:>11} {:>11} {:>7}\n", "device", "zones", "empty",
               "cap MiB", "valid MiB", "written MiB", "free MiB", "space-amp");
    for (const zfs::DeviceSpace& s : v.Space()) {
      const double amp = s.valid_bytes ? double(s.written_bytes) / s.valid_bytes : 0;
      fmt::print("{:<16} {:>7} {:>7} {:>11} {:>11} {:>11} {:>11} {:>7.2f}\n", s.name, s.data_zones,
                 s.empty_zones, Mib(s.capacity_bytes), Mib(s.valid_bytes), Mib(s.written_bytes),
                 Mib(s.free_bytes), amp);
    }
    return 0;
  });
}

int ZonesCmd(const VolumeArgs& args) {
  return WithVolume(args, [&](zfs::Volume& v) {
    fmt::print("{:>3} {:>6} {:<10} {:<8} {:>6} {:>11} {:>11}\n", "dev", "zone", "state", "role",
               "group", "valid MiB", "written MiB");
    for (const zfs::ZoneReport& z : v.Zones()) {
      if (!args.all_zones && z.written_bytes == 0 && z.role == zfs::ZoneRole::kFree) continue;
      fmt::print("{:>3} {:>6} {:<10} {:<8} {:>6} {:>11} {:>11}\n", z.device, z.zone.index,
                 device::ToString(z.zone.state),
                 z.role == zfs::ZoneRole::kData && z.pool ? "pool" : RoleName(z.role),
                 z.group == UINT32_MAX ? std::string("-") : std::to_string(z.group),
                 Mib(z.valid_bytes), Mib(z.written_bytes));
    }
    return 0;
  });
}

int Fsck(const VolumeArgs& args) {
  return WithVolume(args, [](zfs::Volume& v) {
    const std::vector<std::string> problems = v.Check();
    for (const std::string& p : problems) fmt::print("{}\n", p);
    fmt::print("{}: {} problem(s) in {} files\n", v.volume_id(), problems.size(), v.Files().size());
    return problems.empty() ? 0 : 2;
  });
}

int Dump(const VolumeArgs& args) {
  return WithVolume(args, [](zfs::Volume& v) {
    for (const zfs::FileInfo& f : v.Files()) {
      fmt::print("file #{} {} size={} kind={} level={} extents={}\n", f.id,
                 f.names.empty() ? "?" : f.names[0], f.size, KindName(f.hint.kind), f.hint.level,
                 f.extents.size());
    }
    auto log = v.DumpLog();
    if (!log.ok()) return Fail(log.status());
    for (const std::string& line : *log) fmt::print("{}\n", line);
    return 0;
  });
}

}  // namespace zonestack::tools
