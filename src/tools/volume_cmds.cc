#include "tools/volume_cmds.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <functional>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "glue/config.h"
#include "zfs/volume.h"

namespace zonestack::tools {
namespace {

using Devices = std::vector<std::shared_ptr<device::ZonedDevice>>;

int Fail(const absl::Status& s) {
  fmt::print(stderr, "zsctl: {}\n", std::string(s.message()));
  return 1;
}

absl::StatusOr<Devices> OpenAll(const VolumeArgs& args) {
  auto uris = DeviceUris(args);
  if (!uris.ok()) return uris.status();
  Devices devs;
  for (const std::string& uri : *uris) {
    auto d = device::OpenDevice(uri);
    if (!d.ok()) return d.status();
    devs.emplace_back(std::move(*d));
  }
  return devs;
}

// Opens the devices and mounts the volume for `fn`, read-only unless
// `writable`.
int WithVolume(const VolumeArgs& args, const std::function<int(zfs::Volume&)>& fn,
               bool writable = false) {
  auto devs = OpenAll(args);
  if (!devs.ok()) return Fail(devs.status());
  // No background GC: the tool should change only what it was asked to.
  zfs::MountOptions options{.gc_free_zone_threshold = -1, .read_only = !writable};
  auto vol = zfs::Volume::Mount(*devs, options);
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

const char* KindName(zfs::FileKind k) {
  switch (k) {
    case zfs::FileKind::kWal: return "wal";
    case zfs::FileKind::kSst: return "sst";
    case zfs::FileKind::kManifest: return "manifest";
    case zfs::FileKind::kOther: return "other";
  }
  return "?";
}

std::string Join(const std::string& dir, const std::string& name) {
  return dir == "/" ? "/" + name : dir + "/" + name;
}

// Deletes `path`, a file, or with `recursive` a directory and everything
// in it; adds what it deleted to `files` and `bytes`.
absl::Status Remove(zfs::Volume& v, const std::string& path, bool recursive, uint64_t* files,
                    uint64_t* bytes) {
  auto st = v.Stat(path);
  if (!st.ok()) return st.status();
  if (!st->is_dir) {
    if (auto s = v.Delete(path); !s.ok()) return s;
    ++*files;
    *bytes += st->size;
    return absl::OkStatus();
  }
  if (!recursive) {
    return absl::FailedPreconditionError(
        fmt::format("{}: is a directory (use rm -r, or rmdir if it is empty)", path));
  }
  auto names = v.List(path);
  if (!names.ok()) return names.status();
  for (const std::string& n : *names) {
    if (auto s = Remove(v, Join(path, n), recursive, files, bytes); !s.ok()) return s;
  }
  return path == "/" ? absl::OkStatus() : v.DeleteDir(path);
}

// Why a writer can meet "no space" while df shows free bytes: what
// zfs/zones.cc does when it hands out zones.
constexpr const char* kSpaceNote =
    R"(free = empty zones + unwritten tails of partly written zones. "no space" can
come while free shows room, because:
  - a writer needs a zone no other open file is writing: tails held by open
    writers are not free to it, and under the device's active-zone limit a
    partly written zone is finished (its tail lost) to open another;
  - on a device of 8 or more zones one empty zone is kept for GC, and a
    scheme's WAL/cache pool keeps its unused zones from other files;
  - dead bytes (written, then deleted) are free only after GC moves the
    zone's live data and resets it;
  - a placement may allow a file only some devices (an SSD, say);
  - df sees the volume at rest: a failed flush or compaction deleted what it
    had written, and writers' zones were released.
)";

}  // namespace

absl::StatusOr<std::vector<std::string>> DeviceUris(const VolumeArgs& args) {
  if (!args.volume.empty() && !args.devices.empty()) {
    return absl::InvalidArgumentError("give the volume with -d URI... or with --volume, not both");
  }
  if (!args.volume.empty()) {
    auto config = rocks::ParseUri(args.volume);
    if (!config.ok()) return config.status();
    return config->devices;
  }
  if (args.devices.empty()) {
    return absl::InvalidArgumentError(
        "give the volume's devices with -d URI (repeated, in order) or --volume "
        "zonestack://URI|CONFIG.json");
  }
  return args.devices;
}

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
        const std::string path = Join(dir, n);
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
    // Free bytes split into empty zones and tails of partly written zones.
    std::vector<uint64_t> tails(v.devices().size(), 0);
    for (const zfs::ZoneReport& z : v.Zones()) {
      if (z.role == zfs::ZoneRole::kData && z.written_bytes > 0 &&
          z.written_bytes < z.zone.capacity) {
        tails[z.device] += z.zone.capacity - z.written_bytes;
      }
    }
    fmt::print("{:<16} {:>7} {:>7} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>9}\n", "device",
               "zones", "empty", "cap MiB", "valid MiB", "written MiB", "dead MiB", "free MiB",
               "tails MiB", "space-amp");
    const std::vector<zfs::DeviceSpace> space = v.Space();
    for (size_t d = 0; d < space.size(); ++d) {
      const zfs::DeviceSpace& s = space[d];
      const double amp = s.valid_bytes ? double(s.written_bytes) / s.valid_bytes : 0;
      const uint64_t dead = s.written_bytes > s.valid_bytes ? s.written_bytes - s.valid_bytes : 0;
      fmt::print("{:<16} {:>7} {:>7} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>9.2f}\n", s.name,
                 s.data_zones, s.empty_zones, Mib(s.capacity_bytes), Mib(s.valid_bytes),
                 Mib(s.written_bytes), Mib(dead), Mib(s.free_bytes),
                 Mib(std::min(tails[d], s.free_bytes)), amp);
    }
    fmt::print("\n{}", kSpaceNote);
    return 0;
  });
}

std::string ZoneTable(const zfs::Volume& v, bool all, bool subzones) {
  // Live bytes per subzone, from the files' extents (an extent never
  // spans two subzones).
  std::map<std::tuple<uint32_t, uint32_t, uint64_t>, uint64_t> live;
  if (subzones) {
    for (const zfs::FileInfo& f : v.Files()) {
      for (const zfs::ExtentInfo& x : f.extents) {
        const device::ZonedDevice& dev = *v.devices()[x.device];
        const uint64_t size = dev.info().subzone_size();
        if (size == 0) continue;
        live[{x.device, x.zone, (x.offset - dev.ZoneStart(x.zone)) / size}] += x.length;
      }
    }
  }
  std::string out = fmt::format("{:>3} {:>6} {:<10} {:<8} {:>6} {:>11} {:>11} {:>8}\n", "dev",
                                "zone", "state", "role", "group", "valid MiB", "written MiB",
                                "subzones");
  for (const zfs::ZoneReport& z : v.Zones()) {
    if (!all && z.written_bytes == 0 && z.role == zfs::ZoneRole::kFree) continue;
    out += fmt::format("{:>3} {:>6} {:<10} {:<8} {:>6} {:>11} {:>11} {:>8}\n", z.device,
                       z.zone.index, device::ToString(z.zone.state),
                       z.role == zfs::ZoneRole::kData && z.pool ? "pool" : RoleName(z.role),
                       z.group == UINT32_MAX ? std::string("-") : std::to_string(z.group),
                       Mib(z.valid_bytes), Mib(z.written_bytes),
                       z.zone.IsSplit() ? std::to_string(z.zone.subzones) : std::string("-"));
    if (!subzones || !z.zone.IsSplit()) continue;
    auto subs = v.devices()[z.device]->ReportSubzones(z.zone.index);
    if (!subs.ok()) {
      out += fmt::format("{:>10} {}\n", "", std::string(subs.status().message()));
      continue;
    }
    out += fmt::format("{:>10} {:>3} {:<10} {:>4} {:>11} {:>11}\n", "", "sub", "state", "chip",
                       "written KiB", "valid KiB");
    for (const device::SubzoneInfo& s : *subs) {
      const uint64_t written = s.write_pointer - s.start;
      auto it = live.find({z.device, z.zone.index, s.index});
      out += fmt::format("{:>10} {:>3} {:<10} {:>4} {:>11} {:>11}\n", "", s.index,
                         device::ToString(s.state),
                         s.chip < 0 ? std::string("-") : std::to_string(s.chip), written >> 10,
                         (it == live.end() ? 0 : it->second) >> 10);
    }
  }
  return out;
}

int ZonesCmd(const VolumeArgs& args) {
  return WithVolume(args, [&](zfs::Volume& v) {
    fmt::print("{}", ZoneTable(v, args.all_zones, args.subzones));
    return 0;
  });
}

int Fsck(const VolumeArgs& args) {
  if (args.repair) {
    auto devs = OpenAll(args);
    if (!devs.ok()) return Fail(devs.status());
    auto report = zfs::Volume::Repair(*devs, {.gc_free_zone_threshold = -1});
    if (!report.ok()) return Fail(report.status());
    for (const std::string& p : report->problems) fmt::print("found: {}\n", p);
    for (const std::string& a : report->actions) fmt::print("repair: {}\n", a);
    fmt::print("{} problem(s) found; checking the repaired volume\n", report->problems.size());
  }
  return WithVolume(args, [&args](zfs::Volume& v) {
    std::vector<std::string> problems = v.Check();
    if (!args.metadata_only) {
      for (std::string& p : v.CheckData()) problems.push_back(std::move(p));
    }
    for (const std::string& p : problems) fmt::print("{}\n", p);
    fmt::print("{}: {} problem(s) in {} files{}\n", v.volume_id(), problems.size(),
               v.Files().size(), args.metadata_only ? " (file data not read)" : "");
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

int Rm(const VolumeArgs& args) {
  return WithVolume(
      args,
      [&](zfs::Volume& v) {
        int rc = 0;
        uint64_t files = 0, bytes = 0;
        for (const std::string& path : args.paths) {
          if (auto s = Remove(v, path, args.recursive, &files, &bytes); !s.ok()) rc = Fail(s);
        }
        fmt::print("removed {} file(s), {} MiB\n", files, Mib(bytes));
        return rc;
      },
      /*writable=*/true);
}

int Rmdir(const VolumeArgs& args) {
  return WithVolume(
      args,
      [&](zfs::Volume& v) {
        int rc = 0;
        for (const std::string& path : args.paths) {
          if (auto s = v.DeleteDir(path); !s.ok()) rc = Fail(s);
        }
        return rc;
      },
      /*writable=*/true);
}

int Put(const VolumeArgs& args) {
  std::ifstream in(args.host_file, std::ios::binary);
  if (!in) {
    return Fail(absl::NotFoundError(absl::StrCat("cannot read '", args.host_file, "'")));
  }
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return WithVolume(
      args,
      [&](zfs::Volume& v) {
        // Replaces an older copy, as RocksDB's NewWritableFile does.
        if (v.Stat(args.path).ok()) {
          if (auto s = v.Delete(args.path); !s.ok()) return Fail(s);
        }
        zfs::FileHint hint;
        hint.name = args.path;
        auto file = v.Create(args.path, hint);
        if (!file.ok()) return Fail(file.status());
        const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
        if (auto s = (*file)->Append({bytes, data.size()}); !s.ok()) return Fail(s);
        if (auto s = (*file)->Close(); !s.ok()) return Fail(s);
        fmt::print("wrote {} ({} bytes)\n", args.path, data.size());
        return 0;
      },
      /*writable=*/true);
}

}  // namespace zonestack::tools
