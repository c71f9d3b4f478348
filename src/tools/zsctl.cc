// zsctl: ZoneStack's administration tool.
#include <algorithm>
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "device/presets.h"
#include "device/zoned_device.h"
#include "policy/scheme_registry.h"
#include "tools/devbench.h"
#include "tools/volume_cmds.h"

namespace zs = zonestack;

namespace {

int Fail(const absl::Status& s) {
  fmt::print(stderr, "zsctl: {}\n", std::string(s.message()));
  return 1;
}

// The preset name in an "emu:NAME?..." URI, for the published figures.
std::string PresetOf(const std::string& uri) {
  if (!uri.starts_with("emu:")) return "";
  return uri.substr(4, uri.find('?') == std::string::npos ? std::string::npos
                                                           : uri.find('?') - 4);
}

int ListPresets() {
  fmt::print("{:<15} {:>10} {:>12} {:>7} {:>5}  {}\n", "preset", "zone MiB", "cap MiB",
             "zones", "open", "description");
  for (const auto& p : zs::device::Presets()) {
    fmt::print("{:<15} {:>10} {:>12} {:>7} {:>5}  {}\n", p.name, p.info.zone_size >> 20,
               p.info.zone_capacity >> 20, p.info.num_zones, p.info.max_open_zones,
               p.description);
  }
  fmt::print("\nURI: emu:PRESET?zones=N&scale=1/K&conv=N&max_open=N&max_active=N"
             "&file=PATH&timing=real|sim|none\n");
  return 0;
}

bool SameOptions(const std::vector<zs::policy::OptionDoc>& a,
                 const std::vector<zs::policy::OptionDoc>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.key == y.key && x.default_value == y.default_value;
  });
}

// Every registered scheme with its options, as a volume config's "scheme"
// object takes them.
int ListSchemes() {
  const zs::policy::SchemeSpec* shown = nullptr;  // whose options were printed last
  for (const auto& spec : zs::policy::Schemes()) {
    fmt::print("{}\n  {}\n", spec.name, spec.summary);
    if (spec.options.empty()) {
      fmt::print("    (no options)\n");
    } else if (shown != nullptr && SameOptions(shown->options, spec.options)) {
      fmt::print("    options as for {}\n", shown->name);
    } else {
      for (const auto& o : spec.options) {
        fmt::print("    {:<24} {:<10} {}\n", o.key, o.default_value, o.help);
      }
      shown = &spec;
    }
  }
  fmt::print("\nConfig: \"scheme\": {{\"name\": NAME, OPTION: VALUE, ...}}, or just "
             "\"scheme\": NAME for the defaults shown.\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"zsctl: administer ZoneStack devices and volumes"};
  app.require_subcommand(1);

  app.add_subcommand("presets", "list the emulated device presets")->callback([] {
    std::exit(ListPresets());
  });

  app.add_subcommand("schemes", "list the placement schemes and their options")->callback([] {
    std::exit(ListSchemes());
  });

  std::string uri;
  zs::tools::DevbenchOptions bench;
  auto* devbench = app.add_subcommand(
      "devbench", "fio-like microbenchmarks of a device (erases all its data)");
  devbench->add_option("device", uri, "device URI, e.g. emu:zn540?zones=64&scale=1/64")
      ->required();
  devbench->add_option("--seconds", bench.seconds_per_test, "time per test")
      ->check(CLI::PositiveNumber);
  devbench->add_option("--threads", bench.threads, "threads for the parallel tests")
      ->check(CLI::Range(1, 64));
  devbench->callback([&] {
    auto dev = zs::device::OpenDevice(uri);
    if (!dev.ok()) std::exit(Fail(dev.status()));
    const auto& info = (*dev)->info();
    fmt::print("{} ({}): {} zones of {} MiB, capacity {} MiB\n", uri, info.model,
               info.num_zones, info.zone_size / double(1 << 20),
               info.zone_capacity / double(1 << 20));
    auto results = zs::tools::RunDevbench(**dev, bench, PresetOf(uri));
    if (!results.ok()) std::exit(Fail(results.status()));
    fmt::print("{}", zs::tools::FormatDevbench(*results));
    std::exit(0);
  });

  zs::tools::VolumeArgs vargs;
  auto volume_cmd = [&](const char* name, const char* help, int (*fn)(const zs::tools::VolumeArgs&)) {
    auto* cmd = app.add_subcommand(name, help);
    // One URI per -d: a path after the last -d is the command's, not a device.
    cmd->add_option("-d,--device", vargs.devices,
                    "a device URI of the volume; repeat -d for each device, in order")
        ->allow_extra_args(false);
    cmd->add_option("--volume", vargs.volume,
                    "the volume as zsbench names it: zonestack://DEVURI[;DEVURI...] or a "
                    "config.json (instead of -d)");
    cmd->callback([&vargs, fn] { std::exit(fn(vargs)); });
    return cmd;
  };
  volume_cmd("mkfs", "format devices as one volume (erases them)", zs::tools::Mkfs)
      ->add_option("--metadata-zones", vargs.metadata_zones, "metadata zones (>= 2)");
  volume_cmd("info", "show the volume and its devices", zs::tools::Info);
  auto* ls = volume_cmd("ls", "list a directory", zs::tools::Ls);
  ls->add_option("path", vargs.path, "directory (default /)");
  ls->add_flag("-r,--recursive", vargs.recursive, "list subdirectories too");
  volume_cmd("df", "space per device", zs::tools::Df);
  auto* zones = volume_cmd("zones", "each zone: device, state, role, valid and written bytes",
                           zs::tools::ZonesCmd);
  zones->add_flag("-a,--all", vargs.all_zones, "include empty zones");
  zones->add_flag("-s,--subzones", vargs.subzones,
                  "each split zone's subzones: state, chip, written and valid KiB");
  auto* fsck = volume_cmd("fsck",
                          "check metadata against the zones and file data against its "
                          "checksums; exit 2 on problems",
                          zs::tools::Fsck);
  fsck->add_flag("--repair", vargs.repair,
                 "salvage a volume whose metadata is corrupt (mounts read-write): keep every "
                 "file whose extents are intact, keep unaccounted zones in /lost+found");
  fsck->add_flag("--metadata-only", vargs.metadata_only, "do not read file data");
  volume_cmd("dump", "files and metadata log records", zs::tools::Dump);
  auto* rm = volume_cmd("rm", "delete files (mounts read-write)", zs::tools::Rm);
  rm->add_option("paths", vargs.paths, "files to delete")->required();
  rm->add_flag("-r,--recursive", vargs.recursive, "delete directories and all they hold");
  volume_cmd("rmdir", "delete empty directories (mounts read-write)", zs::tools::Rmdir)
      ->add_option("paths", vargs.paths, "directories to delete")
      ->required();

  auto* put = volume_cmd("put", "copy a host file into the volume (mounts read-write)",
                         zs::tools::Put);
  put->add_option("file", vargs.host_file, "the host file")->required();
  put->add_option("path", vargs.path, "where in the volume, e.g. /hints.ini")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;  // 2 is fsck's "problems found"
  }
  return 0;
}
