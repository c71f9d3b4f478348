// Device URIs:
//   emu:PRESET[?param=value&...]   an emulated device (presets.cc)
//   zbd:/dev/NAME                  a real zoned block device (zbd_device.h)
#include <cmath>
#include <map>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "device/emulated_device.h"
#include "device/fault_injection.h"
#include "device/presets.h"
#include "device/zbd_device.h"

namespace zonestack::device {
namespace {

constexpr const char* kParams =
    "zones=N, scale=1/K or a fraction, conv=N (conventional zones), "
    "max_open=N, max_active=N, file=PATH (persistent backing), "
    "memory=lazy|reserve (memory as zones are first written, or all of it at open), "
    "timing=real|sim|none, write_cache=BYTES (a disk's write-back cache; 0: off), "
    "positioning=1/K or a fraction (a disk's seek and rotational waits times it), "
    "slc=host|device|none (an SLC/QLC SSD: HZNS zones, DM Hybrid, pure QLC), "
    "slc_idle_ms=N, slc_idle_target=P (DM Hybrid's idle migration), "
    "ring=on|off, prefetch=on|off, read_sched=on|off (SplitZNS's SubZone Ring, Read "
    "Prefetcher and Read Scheduler, on presets with subzones), "
    "chips=N (a preset with subzones with N chips, a multiple of its channels: as many "
    "subzones per zone, the zone size kept), "
    "smr=ha|dm, mc=BYTES, mc_high=P, mc_low=P, mc_idle_ms=N (an SMR drive with a media "
    "cache: host-aware or device-managed, the cache's size, its cleaning's high- and "
    "low-water marks in percent, and the idle time that starts cleaning; 0: never)";

// Far more zones than any zoned drive has (a 28 TB SMR disk has ~104k);
// beyond this an emulator's per-zone state would exhaust memory.
constexpr uint64_t kMaxZones = 1 << 22;

absl::Status BadUri(const std::string& uri, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat("device URI '", uri, "': ", why));
}

// A count is plain decimal digits: no sign, spaces or suffix, so "-1",
// " 5" and "5k" are errors rather than a wrapped or truncated number.
absl::StatusOr<uint64_t> ParseCount(const std::string& uri, const std::string& key,
                                    const std::string& value, uint64_t max) {
  uint64_t v = 0;
  const bool digits = !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || !absl::SimpleAtoi(value, &v)) {
    return BadUri(uri, absl::StrCat(key, "='", value, "' is not a whole number"));
  }
  if (v > max) return BadUri(uri, absl::StrCat(key, "=", value, " is too large; at most ", max));
  return v;
}

absl::StatusOr<double> ParseScale(const std::string& uri, const std::string& value,
                                  const std::string& key = "scale") {
  double v = 0;
  std::vector<std::string> parts = absl::StrSplit(value, '/');
  if (parts.size() == 2) {
    double num, den;
    if (absl::SimpleAtod(parts[0], &num) && absl::SimpleAtod(parts[1], &den) && den > 0) {
      v = num / den;
    }
  } else if (!absl::SimpleAtod(value, &v)) {
    v = 0;
  }
  if (!(v > 0 && v <= 1)) {
    return BadUri(uri, absl::StrCat(key, "='", value, "' must be a fraction in (0, 1], like 1/64"));
  }
  return v;
}

uint64_t ScaleBytes(uint64_t bytes, double scale, uint64_t align) {
  const auto scaled = static_cast<uint64_t>(std::floor(static_cast<double>(bytes) * scale));
  return std::max<uint64_t>(align, scaled / align * align);
}

absl::StatusOr<std::unique_ptr<ZonedDevice>> OpenEmulated(const std::string& uri,
                                                          const std::string& rest,
                                                          std::shared_ptr<Clock> clock) {
  std::pair<std::string, std::string> name_query = absl::StrSplit(rest, absl::MaxSplits('?', 1));
  std::optional<Preset> preset = FindPreset(name_query.first);
  if (!preset) {
    return BadUri(uri, absl::StrCat("unknown preset '", name_query.first,
                                    "'; presets: ", PresetNames()));
  }
  std::map<std::string, std::string> params;
  if (!name_query.second.empty()) {
    for (absl::string_view kv : absl::StrSplit(name_query.second, '&')) {
      std::pair<std::string, std::string> p = absl::StrSplit(kv, absl::MaxSplits('=', 1));
      // The last of two values would silently win; say which one is meant.
      if (!params.emplace(p.first, p.second).second) {
        return BadUri(uri, absl::StrCat("parameter '", p.first, "' given twice"));
      }
    }
  }
  DeviceInfo info = preset->info;
  info.name = preset->name;
  double scale = 1;
  std::optional<uint64_t> conv;
  std::string file, timing = "real", slc = "host", memory = "lazy";
  uint64_t slc_idle_ms = 0, slc_idle_target = 50;
  bool slc_idle_given = false;
  // SplitZNS's device techniques (section 4.4), all on as in the paper.
  std::map<std::string, bool> splitzns = {{"ring", true}, {"prefetch", true},
                                          {"read_sched", true}};
  std::optional<uint64_t> chips;
  DiskParams disk = preset->disk;
  // Host-aware SMR (docs/emulator.md, "Host-aware SMR"): the media cache
  // scales with the zones; cleaning's defaults are ours (the paper gives
  // none).
  std::string smr = "ha";
  std::optional<uint64_t> mc_bytes;
  MediaCacheOptions mc{.high_water_percent = 90, .low_water_percent = 0,
                       .idle_ns = 1'000'000'000};
  for (const auto& [key, value] : params) {
    if (key == "zones" || key == "conv" || key == "max_open" || key == "max_active") {
      auto v = ParseCount(uri, key, value, key == "zones" ? kMaxZones : UINT32_MAX);
      if (!v.ok()) return v.status();
      if (key == "zones") info.num_zones = static_cast<uint32_t>(*v);
      if (key == "conv") conv = *v;
      if (key == "max_open") info.max_open_zones = static_cast<uint32_t>(*v);
      if (key == "max_active") info.max_active_zones = static_cast<uint32_t>(*v);
    } else if (key == "scale") {
      auto v = ParseScale(uri, value);
      if (!v.ok()) return v.status();
      scale = *v;
    } else if (key == "positioning") {
      if (!preset->is_disk) return BadUri(uri, "positioning applies to disk presets only");
      auto v = ParseScale(uri, value, key);
      if (!v.ok()) return v.status();
      disk.positioning_scale = *v;
    } else if (key == "write_cache") {
      if (!preset->is_disk) return BadUri(uri, "write_cache applies to disk presets only");
      if (preset->media_cache_bytes > 0) {
        return BadUri(uri, "write_cache is not modeled beside a media cache");
      }
      auto v = ParseCount(uri, key, value, UINT64_MAX);
      if (!v.ok()) return v.status();
      disk.write_cache_bytes = *v;
    } else if (key == "smr" || key == "mc" || key == "mc_high" || key == "mc_low" ||
               key == "mc_idle_ms") {
      if (preset->media_cache_bytes == 0) {
        return BadUri(uri, absl::StrCat(key, "= applies to presets with a media cache "
                                        "(st8000as0022), not ", preset->name));
      }
      if (key == "smr") {
        if (value != "ha" && value != "dm") {
          return BadUri(uri, absl::StrCat("smr='", value, "' must be ha or dm"));
        }
        smr = value;
        continue;
      }
      const bool percent = key == "mc_high" || key == "mc_low";
      auto v = ParseCount(uri, key, value, percent ? 100 : key == "mc_idle_ms" ? 3'600'000 : UINT64_MAX);
      if (!v.ok()) return v.status();
      if (key == "mc") mc_bytes = *v;
      if (key == "mc_high") mc.high_water_percent = static_cast<uint32_t>(*v);
      if (key == "mc_low") mc.low_water_percent = static_cast<uint32_t>(*v);
      if (key == "mc_idle_ms") mc.idle_ns = *v * 1'000'000;
    } else if (key == "slc") {
      if (!preset->info.supports_slc) {
        return BadUri(uri, absl::StrCat("slc= applies to presets with SLC/QLC zones (znh2), not ",
                                        preset->name));
      }
      if (value != "host" && value != "device" && value != "none") {
        return BadUri(uri, absl::StrCat("slc='", value, "' must be host, device or none"));
      }
      slc = value;
    } else if (key == "slc_idle_ms" || key == "slc_idle_target") {
      auto v = ParseCount(uri, key, value, key == "slc_idle_target" ? 100 : 3'600'000);
      if (!v.ok()) return v.status();
      (key == "slc_idle_ms" ? slc_idle_ms : slc_idle_target) = *v;
      slc_idle_given = true;
    } else if (splitzns.contains(key)) {
      if (!preset->info.supports_subzones) {
        return BadUri(uri, absl::StrCat(key, "= applies to presets with subzones (splitzns), not ",
                                        preset->name));
      }
      if (value != "on" && value != "off") {
        return BadUri(uri, absl::StrCat(key, "='", value, "' must be on or off"));
      }
      splitzns[key] = value == "on";
    } else if (key == "chips") {
      if (!preset->info.supports_subzones) {
        return BadUri(uri, absl::StrCat("chips= applies to presets with subzones (splitzns), not ",
                                        preset->name));
      }
      auto v = ParseCount(uri, key, value, 1024);
      if (!v.ok()) return v.status();
      chips = *v;
    } else if (key == "file") {
      // Without a path the device would silently be in memory, and lose
      // everything the caller meant to keep.
      if (value.empty()) {
        return BadUri(uri, "file= needs a path (leave file out for an in-memory device)");
      }
      file = value;
    } else if (key == "memory") {
      if (value != "lazy" && value != "reserve") {
        return BadUri(uri, absl::StrCat("memory='", value, "' must be lazy or reserve"));
      }
      memory = value;
    } else if (key == "timing") {
      if (value != "real" && value != "sim" && value != "none") {
        return BadUri(uri, absl::StrCat("timing='", value, "' must be real, sim or none"));
      }
      timing = value;
    } else {
      return BadUri(uri, absl::StrCat("unknown parameter '", key, "'; parameters: ", kParams));
    }
  }
  if (info.num_zones == 0) return BadUri(uri, "zones must be at least 1");
  if (memory == "reserve" && !file.empty()) {
    return BadUri(uri, "memory=reserve is for an in-memory device, not with file=");
  }
  if (slc_idle_given && slc != "device") {
    return BadUri(uri, "slc_idle_ms and slc_idle_target apply to slc=device only");
  }
  if (slc != "host") {
    // DM Hybrid and pure QLC (ZnH2 4.1): the host sees plain native-mode
    // zones, with neither SLC opens nor the extra QLC limits.
    info.model += slc == "device" ? ", DM Hybrid" : ", QLC only";
    info.supports_slc = false;
    info.default_cell_mode = info.native_cell_mode;
    info.max_open_qlc_zones = info.max_active_qlc_zones = 0;
  }
  // SplitZNS 5.5.2 varies the chips with the zone size kept, by scaling the
  // erase block; a split zone has a subzone per chip (section 4.3), so the
  // subzones shrink as the chips grow. Channels stay the preset's; each
  // gets more or fewer chips.
  NandParams nand = preset->nand;
  if (chips) {
    NandGeometry& g = nand.geometry;
    const uint32_t preset_chips = g.num_dies();
    if (*chips == 0 || *chips % g.channels != 0 || g.block_bytes * preset_chips % *chips != 0) {
      return BadUri(uri, absl::StrCat("chips=", *chips, " must be a positive multiple of the ",
                                      g.channels, " channels of ", preset->name));
    }
    g.dies_per_channel = static_cast<uint32_t>(*chips / g.channels);
    g.block_bytes = g.block_bytes * preset_chips / *chips;
    info.subzones_per_zone = static_cast<uint32_t>(*chips);
    info.model += absl::StrCat(", ", *chips, " chips");
  }
  // Subzones split a zone into whole program units, one subzone per chip.
  const uint64_t zone_align =
      info.supports_subzones
          ? std::max<uint64_t>(info.block_size, nand.geometry.unit_bytes()) *
                info.subzones_per_zone
          : info.block_size;
  // A scale too small for the chips' subzones would silently grow the zone.
  const auto scaled_zone =
      static_cast<uint64_t>(std::floor(static_cast<double>(info.zone_size) * scale));
  if (chips && scaled_zone < zone_align) {
    return BadUri(uri, absl::StrCat("chips=", *chips, " needs zones of at least ", zone_align,
                                    " bytes (a program unit per chip); the scale leaves ",
                                    scaled_zone));
  }
  info.zone_size = ScaleBytes(info.zone_size, scale, zone_align);
  info.zone_capacity = std::min(info.zone_size,
                                ScaleBytes(info.zone_capacity, scale, zone_align));
  info.num_conventional_zones = static_cast<uint32_t>(
      conv.value_or(static_cast<uint64_t>(
          std::ceil(preset->conventional_fraction * info.num_zones))));
  if (info.num_conventional_zones >= info.num_zones && info.num_zones > 0 &&
      preset->conventional_fraction > 0 && !conv) {
    info.num_conventional_zones = 0;
  }

  EmulatorOptions opts;
  opts.info = info;
  if (preset->media_cache_bytes > 0) {
    mc.bytes = mc_bytes.value_or(ScaleBytes(preset->media_cache_bytes, scale, info.block_size));
    if (mc.bytes == 0 || mc.bytes % info.block_size != 0) {
      return BadUri(uri, absl::StrCat("mc=", mc.bytes, " must be a positive multiple of the "
                                      "block size ", info.block_size));
    }
    mc.device_managed = smr == "dm";
    if (mc.device_managed) opts.info.model += ", device-managed";
    opts.media_cache = mc;
  }
  opts.hidden_slc_cache = slc == "device";
  opts.slc_idle_ns = slc_idle_ms * 1'000'000;
  opts.slc_idle_target = static_cast<uint32_t>(slc_idle_target);
  if (info.supports_subzones) {
    // Twice a wide zone, as the paper's FEMU device (section 5.1.1).
    opts.subzone_ring_bytes = splitzns["ring"] ? 2 * info.zone_size : 0;
    opts.program_unit_bytes = nand.geometry.unit_bytes();
    // Four flash pages per subzone (section 5.1.1).
    opts.prefetch_bytes = splitzns["prefetch"] ? 4 * nand.geometry.page_bytes : 0;
  }
  if (timing == "sim") opts.clock = std::make_shared<ManualClock>();
  // A caller's clock puts this device on a time line shared with others.
  if (timing != "none" && clock) opts.clock = std::move(clock);
  if (timing != "none") {
    const uint64_t capacity = info.capacity_bytes();
    if (preset->is_disk) {
      opts.timing = std::make_unique<DiskTiming>(disk, capacity);
    } else {
      nand.read_scheduler = info.supports_subzones && splitzns["read_sched"];
      opts.timing = std::make_unique<NandTiming>(nand, info.zone_size);
    }
  }
  if (!file.empty()) {
    auto backing = OpenFileBacking(file, info);
    if (!backing.ok()) return backing.status();
    opts.backing = std::move(*backing);
  }
  opts.reserve_memory = memory == "reserve";
  auto dev = EmulatedDevice::Create(std::move(opts));
  // The code is kept: a host without the memory is not a bad URI.
  if (!dev.ok()) {
    return absl::Status(dev.status().code(),
                        absl::StrCat("device URI '", uri, "': ", dev.status().message()));
  }
  return std::unique_ptr<ZonedDevice>(std::move(*dev));
}

}  // namespace

absl::StatusOr<std::unique_ptr<ZonedDevice>> OpenDevice(const std::string& uri) {
  // fault=... wraps whatever the rest of the URI opens (fault_injection.h).
  if (auto faulty = OpenWithFaults(uri, &OpenDevice)) return std::move(*faulty);
  if (uri.starts_with("emu:")) return OpenEmulated(uri, uri.substr(4), nullptr);
  if (uri.starts_with("zbd:")) {
    const std::string path = uri.substr(4);
    if (!path.starts_with("/")) return BadUri(uri, "expected zbd:/dev/NAME, an absolute path");
    auto dev = ZbdDevice::Open(path);
    if (!dev.ok()) {
      return absl::Status(dev.status().code(),
                          absl::StrCat("device URI '", uri, "': ", dev.status().message()));
    }
    return std::unique_ptr<ZonedDevice>(std::move(*dev));
  }
  return BadUri(uri, "unknown scheme; use emu:PRESET?... (presets: " + PresetNames() +
                         ") or zbd:/dev/NAME");
}

absl::StatusOr<std::unique_ptr<ZonedDevice>> OpenDevice(const std::string& uri,
                                                        std::shared_ptr<Clock> clock) {
  if (uri.starts_with("emu:") && uri.find("fault=") == std::string::npos) {
    return OpenEmulated(uri, uri.substr(4), std::move(clock));
  }
  return OpenDevice(uri);
}

}  // namespace zonestack::device
