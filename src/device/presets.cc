// Calibration: docs/emulator.md derives each number below from the
// published figures; the comments name the source of the fixed ones.
#include "device/presets.h"

#include "absl/strings/str_join.h"

namespace zonestack::device {
namespace {

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

CellLatency Uniform(uint64_t read_ns, uint64_t program_ns, uint64_t erase_ns) {
  CellLatency l;
  l.page_types = 1;
  l.read_ns = {read_ns, read_ns, read_ns, read_ns};
  l.program_ns = {program_ns, program_ns, program_ns, program_ns};
  l.erase_ns = erase_ns;
  return l;
}

Preset Zn540() {
  Preset p;
  p.name = "zn540";
  p.description = "WD Ultrastar DC ZN540 ZNS SSD (HHZS testbed)";
  DeviceInfo& i = p.info;
  i.model = "WD Ultrastar DC ZN540";
  i.protocol = Protocol::kZns;
  i.zone_size = 2 * GiB;           // NVMeVirt's ZN540 model
  i.zone_capacity = 1077 * MiB;    // HHZS section 2.3
  i.num_zones = 3541;              // 4 TB / 1077 MiB (zone count not published)
  i.max_open_zones = 14;           // zonedstorage.io, ZnH2 section 3.2.3
  i.max_active_zones = 14;
  i.max_append_bytes = 128 * KiB;
  i.native_cell_mode = i.default_cell_mode = CellMode::kTlc;
  NandGeometry& g = p.nand.geometry;
  g.channels = 8;  // 8 x 4 dies as in NVMeVirt's ZN540 model
  g.dies_per_channel = 4;
  g.planes = 2;
  g.page_bytes = 16 * KiB;
  g.block_bytes = 16 * MiB;
  p.nand.channel_bytes_per_s = 800e6;
  // Solved from the QD1 figures (docs/emulator.md): 4 KiB read = command +
  // tR + channel + link; 1 MiB read and write are link-bound.
  p.nand.command_ns = 5'000;
  p.nand.host_read_bytes_per_s = 1.2047e9;
  p.nand.host_write_bytes_per_s = 1.1023e9;
  p.nand.tlc = Uniform(45'550, 700'000, 3'000'000);
  p.nand.slc = Uniform(30'000, 160'000, 3'000'000);
  p.nand.qlc = Uniform(96'000, 5'200'000, 3'500'000);
  p.published = {"HHZS Table 1", 1039.6, 1002.8, 16928.3};
  return p;
}

Preset HmSmr(std::string name, std::string model, uint32_t zones, double od_read,
             double od_write, uint64_t full_seek_ns, PublishedFigures published) {
  Preset p;
  p.name = std::move(name);
  p.description = model + " host-managed SMR HDD";
  p.is_disk = true;
  DeviceInfo& i = p.info;
  i.model = model;
  i.protocol = Protocol::kZbc;
  i.zone_size = 256 * MiB;
  i.zone_capacity = 256 * MiB;
  i.num_zones = zones;
  i.max_open_zones = 128;  // a typical HM drive's report (zonedstorage.io)
  i.max_active_zones = 0;
  i.reads_beyond_wp_allowed = false;  // URSWRZ = 0
  i.cross_zone_reads_allowed = true;
  p.conventional_fraction = 0.01;  // ~1% at the outer diameter, as HC620
  p.disk.rpm = 7200;
  p.disk.od_read_bytes_per_s = od_read;
  p.disk.od_write_bytes_per_s = od_write;
  p.disk.id_ratio = 0.55;
  p.disk.min_seek_ns = 600'000;
  p.disk.full_seek_ns = full_seek_ns;
  p.disk.command_ns = 50'000;
  p.published = std::move(published);
  return p;
}

// ZoneTier's drive (Table 1): 256 MB zones, 64 CMR and 29,745 SMR zones,
// a 25.6 GB media cache. The paper publishes no performance figures for
// it, so its disk model is the ST14000NM0007's calibrated one (7200 rpm, a
// 7.65 ms full stroke) as a stand-in (docs/emulator.md, "Host-aware SMR").
Preset St8000as0022() {
  Preset p = HmSmr("st8000as0022", "Seagate ST8000AS0022", 64 + 29745, 224.5e6, 224.5e6,
                   7'650'000, {});
  p.description = "Seagate ST8000AS0022 host-aware SMR HDD (ZoneTier Table 1)";
  DeviceInfo& i = p.info;
  i.sequential_zone_type = ZoneType::kSequentialWritePreferred;
  // Sequential-write-preferred zones take no open/active resources, and
  // are read anywhere (ZBC host-aware).
  i.max_open_zones = 0;
  i.reads_beyond_wp_allowed = true;
  p.conventional_fraction = 64.0 / (64 + 29745);
  p.media_cache_bytes = 25'600'000'000;  // 25.6 GB (decimal, as drive makers count)
  return p;
}

Preset Znh2Femu() {
  Preset p;
  p.name = "znh2";
  p.description = "ZnH2's FEMU HZNS SSD: SLC/QLC zones (ZnH2 Table 2)";
  DeviceInfo& i = p.info;
  i.model = "FEMU HZNS (ZnH2)";
  i.protocol = Protocol::kZns;
  i.zone_size = 1 * GiB;
  i.zone_capacity = 1 * GiB;  // QLC; an SLC zone holds 256 MiB
  i.num_zones = 128;          // 128 GB
  i.max_open_zones = 14;
  i.max_active_zones = 14;
  i.max_open_qlc_zones = 9;
  i.max_active_qlc_zones = 9;
  i.max_append_bytes = 128 * KiB;
  i.native_cell_mode = CellMode::kQlc;
  i.default_cell_mode = CellMode::kSlc;  // implicit opens are SLC (3.2.2)
  i.supports_slc = true;
  i.supports_simple_copy = true;
  NandGeometry& g = p.nand.geometry;
  g.channels = 8;
  g.dies_per_channel = 8;
  g.planes = 1;
  g.page_bytes = 16 * KiB;
  g.block_bytes = 16 * MiB;
  p.nand.slc = Uniform(30'000, 160'000, 3'000'000);
  p.nand.native_cell_mode = CellMode::kQlc;
  CellLatency& q = p.nand.qlc;
  q.page_types = 4;  // L, CL, CU, U
  q.read_ns = {48'000, 64'000, 80'000, 96'000};
  q.program_ns = {850'000, 2'300'000, 3'700'000, 5'200'000};
  q.erase_ns = 3'500'000;
  p.nand.tlc = p.nand.qlc;
  return p;
}

Preset SplitznsFemu() {
  Preset p;
  p.name = "splitzns";
  p.description = "SplitZNS's FEMU ZNS SSD (SplitZNS Table 1)";
  DeviceInfo& i = p.info;
  i.model = "FEMU ZNS (SplitZNS)";
  i.protocol = Protocol::kZns;
  i.zone_size = 512 * MiB;
  i.zone_capacity = 512 * MiB;
  i.num_zones = 160;
  i.max_open_zones = 24;
  i.max_active_zones = 24;
  i.max_append_bytes = 128 * KiB;
  i.native_cell_mode = i.default_cell_mode = CellMode::kTlc;
  i.supports_subzones = true;  // section 4.2: one subzone per chip
  i.subzones_per_zone = 16;
  NandGeometry& g = p.nand.geometry;
  g.channels = 8;
  g.dies_per_channel = 2;
  g.planes = 4;
  g.page_bytes = 16 * KiB;
  g.block_bytes = 8 * MiB;
  p.nand.tlc = Uniform(35'000, 960'000, 3'000'000);
  p.nand.slc = p.nand.qlc = p.nand.tlc;
  return p;
}

std::vector<Preset> MakePresets() {
  std::vector<Preset> v;
  v.push_back(Zn540());
  // Media rates and seek curves solved from the published QD1 figures
  // (docs/emulator.md). 14 TB / 256 MiB zones as WD's HC620 reports.
  v.push_back(HmSmr("st14000nm0007", "Seagate ST14000NM0007", 52156, 224.5e6,
                    224.5e6, 7'650'000, {"HHZS Table 1", 210.0, 210.0, 115.0}));
  // GearDB section 5: 180 MB/s read, 178 MB/s write (decimal MB), 163 IOPS.
  v.push_back(HmSmr("st13125nm007", "Seagate ST13125NM007", 48428, 182.6e6,
                    180.6e6, 3'162'000,
                    {"GearDB Table 1", 180e6 / MiB, 178e6 / MiB, 163.0}));
  v.push_back(St8000as0022());
  v.push_back(Znh2Femu());
  v.push_back(SplitznsFemu());
  return v;
}

}  // namespace

const std::vector<Preset>& Presets() {
  static const std::vector<Preset> presets = MakePresets();
  return presets;
}

std::optional<Preset> FindPreset(std::string_view name) {
  for (const Preset& p : Presets()) {
    if (p.name == name) return p;
  }
  return std::nullopt;
}

std::string PresetNames() {
  std::vector<std::string> names;
  for (const Preset& p : Presets()) names.push_back(p.name);
  return absl::StrJoin(names, ", ");
}

}  // namespace zonestack::device
