#include "tools/zsbench/metrics.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace zonestack::zsbench {
namespace {

std::string Holder(const zfs::FileInfo& f, const std::map<std::string, int>& levels) {
  switch (f.hint.kind) {
    case zfs::FileKind::kWal: return "wal";
    case zfs::FileKind::kManifest: return "manifest";
    case zfs::FileKind::kOther: return "other";
    case zfs::FileKind::kSst: {
      int level = f.hint.level;
      for (size_t i = 0; level < 0 && i < f.names.size(); ++i) {
        if (auto it = levels.find(f.names[i]); it != levels.end()) level = it->second;
      }
      // StrCat, not "L" + std::string: GCC 12 at -O3 warns (-Wrestrict) on the latter.
      return level >= 0 ? absl::StrCat("L", level) : std::string("sst");
    }
  }
  return "other";
}

}  // namespace

DeviceDelta Delta(const std::string& name, const device::DeviceStats& before,
                  const device::DeviceStats& after) {
  DeviceDelta d;
  d.name = name;
  for (int c = 0; c < device::kNumIoClasses; ++c) {
    const device::IoCounters& a = after.by_class[c];
    const device::IoCounters& b = before.by_class[c];
    device::IoCounters x{a.read_ops - b.read_ops, a.read_bytes - b.read_bytes,
                         a.write_ops - b.write_ops, a.write_bytes - b.write_bytes};
    if (x.read_ops == 0 && x.write_ops == 0) continue;
    d.by_class[device::ToString(static_cast<device::IoClass>(c))] = x;
    d.total.read_ops += x.read_ops;
    d.total.read_bytes += x.read_bytes;
    d.total.write_ops += x.write_ops;
    d.total.write_bytes += x.write_bytes;
  }
  // Disks are as busy as their head; SSDs as their dies on average.
  const std::string prefix = after.busy_ns.contains("head") ? "head" : "die";
  const double elapsed = static_cast<double>(after.elapsed_ns - before.elapsed_ns);
  double busy = 0;
  int n = 0;
  for (const auto& [res, ns] : after.busy_ns) {
    if (!res.starts_with(prefix)) continue;
    auto b = before.busy_ns.find(res);
    busy += static_cast<double>(ns - (b == before.busy_ns.end() ? 0 : b->second));
    ++n;
  }
  if (n > 0 && elapsed > 0) d.busy_fraction = busy / n / elapsed;
  if (prefix == "die" && elapsed > 0) {
    for (const auto& [res, ns] : after.busy_ns) {
      uint32_t chip = 0;
      if (!res.starts_with("die") || !absl::SimpleAtoi(res.substr(3), &chip)) continue;
      auto b = before.busy_ns.find(res);
      if (d.busy_by_chip.size() <= chip) d.busy_by_chip.resize(chip + 1, 0.0);
      d.busy_by_chip[chip] =
          static_cast<double>(ns - (b == before.busy_ns.end() ? 0 : b->second)) / elapsed;
    }
  }
  for (int c = 0; c < device::kNumIoClasses; ++c) {
    const uint64_t ns = after.busy_ns_by_class[c] - before.busy_ns_by_class[c];
    if (ns == 0 || elapsed <= 0) continue;
    d.busy_by_class[device::ToString(static_cast<device::IoClass>(c))] =
        static_cast<double>(ns) / elapsed;
  }
  d.zone_resets = after.zone_resets - before.zone_resets;
  d.erases = after.erases - before.erases;
  d.destages = after.destages - before.destages;
  d.late_commands = after.late_commands - before.late_commands;
  d.late_ns = after.late_ns - before.late_ns;
  for (int m = 0; m < static_cast<int>(after.programmed_bytes.size()); ++m) {
    const uint64_t all = after.programmed_bytes[m] - before.programmed_bytes[m];
    const uint64_t migration =
        after.migration_programmed_bytes[m] - before.migration_programmed_bytes[m];
    if (all == 0) continue;
    d.programmed[device::ToString(static_cast<device::CellMode>(m))] = {all - migration,
                                                                        migration};
  }
  d.simple_copies = after.simple_copies - before.simple_copies;
  d.copy_bytes = after.copy_bytes - before.copy_bytes;
  d.slc_zone_migrations = after.slc_zone_migrations - before.slc_zone_migrations;
  for (size_t t = 0; t < d.qlc_page_reads.size(); ++t) {
    d.qlc_page_reads[t] = after.qlc_page_reads[t] - before.qlc_page_reads[t];
  }
  return d;
}

std::vector<device::DeviceStats> DeviceSnapshot(const zfs::Volume* volume) {
  std::vector<device::DeviceStats> out;
  if (volume) {
    for (const auto& d : volume->devices()) out.push_back(d->Stats());
  }
  return out;
}

std::vector<DeviceDelta> DeltasSince(const zfs::Volume* volume,
                                     const std::vector<device::DeviceStats>& before) {
  std::vector<DeviceDelta> out;
  if (!volume) return out;
  for (size_t i = 0; i < volume->devices().size() && i < before.size(); ++i) {
    const auto& d = volume->devices()[i];
    out.push_back(Delta(d->info().name, before[i], d->Stats()));
  }
  return out;
}

std::vector<std::vector<double>> ZoneUtilization(const zfs::Volume& volume) {
  std::vector<std::vector<double>> out(volume.devices().size());
  for (const zfs::ZoneReport& z : volume.Zones()) {
    if (z.role != zfs::ZoneRole::kData || z.written_bytes == 0) continue;
    out[z.device].push_back(static_cast<double>(z.valid_bytes) /
                            static_cast<double>(z.zone.capacity));
  }
  return out;
}

std::vector<std::vector<ZoneUse>> WrittenZones(const zfs::Volume& volume) {
  std::vector<std::vector<ZoneUse>> out(volume.devices().size());
  for (const zfs::ZoneReport& z : volume.Zones()) {
    if (z.role != zfs::ZoneRole::kData || z.written_bytes == 0) continue;
    out[z.device].push_back({z.group, z.valid_bytes, z.written_bytes, z.zone.capacity});
  }
  return out;
}

VolumeSample SampleVolume(const zfs::Volume& volume, double t,
                          const std::map<std::string, int>& levels) {
  VolumeSample s;
  s.t = t;
  s.space.resize(volume.devices().size());
  for (const zfs::FileInfo& f : volume.Files()) {
    const std::string holder = Holder(f, levels);
    for (const zfs::ExtentInfo& x : f.extents) s.space[x.device][holder] += x.length;
  }
  for (const std::vector<double>& zones : ZoneUtilization(volume)) {
    std::vector<uint32_t> buckets(10, 0);
    for (double u : zones) ++buckets[std::min<size_t>(9, static_cast<size_t>(u * 10))];
    s.zone_utilization.push_back(buckets);
  }
  const size_t n = volume.devices().size();
  s.capacity_bytes.assign(n, 0);
  s.used_bytes.assign(n, 0);
  s.slc_used_bytes.assign(n, 0);
  for (const zfs::ZoneReport& z : volume.Zones()) {
    if (z.role != zfs::ZoneRole::kData && z.role != zfs::ZoneRole::kFree &&
        z.role != zfs::ZoneRole::kCache) {
      continue;
    }
    s.capacity_bytes[z.device] += z.zone.capacity;
    s.used_bytes[z.device] += z.written_bytes;
    if (z.zone.cell_mode == device::CellMode::kSlc) s.slc_used_bytes[z.device] += z.written_bytes;
  }
  for (const auto& d : volume.devices()) {
    const device::DeviceStats st = d->Stats();
    s.gc_bytes.push_back(st.by_class[static_cast<int>(device::IoClass::kGc)].write_bytes);
    s.migration_bytes.push_back(
        st.by_class[static_cast<int>(device::IoClass::kMigration)].write_bytes);
  }
  return s;
}

}  // namespace zonestack::zsbench
