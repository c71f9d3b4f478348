#include "tools/zsbench/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

namespace zonestack::zsbench {
namespace {

constexpr double kMiB = 1 << 20;

double Us(uint64_t ns) { return ns / 1000.0; }

// The operation type with the most samples: a phase's headline latency.
const bench::Histogram* MainLatency(const PhaseResult& p, std::string* type) {
  const bench::Histogram* best = nullptr;
  for (const auto& [t, h] : p.latency_ns) {
    if (!best || h.count() > best->count()) {
      best = &h;
      *type = t;
    }
  }
  return best;
}

nlohmann::json HistogramJson(const bench::Histogram& h) {
  return {{"count", h.count()},        {"mean_us", h.mean() / 1000},
          {"min_us", Us(h.min())},     {"p50_us", Us(h.Percentile(50))},
          {"p99_us", Us(h.Percentile(99))}, {"p999_us", Us(h.Percentile(99.9))},
          {"p9999_us", Us(h.Percentile(99.99))}, {"max_us", Us(h.max())}};
}

// "1200 no space, 3 corruption": counts by kind, most frequent first.
std::string KindList(const std::map<std::string, uint64_t>& by_kind) {
  std::vector<std::pair<uint64_t, std::string>> kinds;
  for (const auto& [kind, n] : by_kind) kinds.emplace_back(n, kind);
  std::sort(kinds.begin(), kinds.end(), std::greater<>());
  std::string out;
  for (const auto& [n, kind] : kinds) {
    std::string words = kind;
    std::replace(words.begin(), words.end(), '_', ' ');
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, words);
  }
  return out;
}

nlohmann::json CountersJson(const device::IoCounters& c) {
  return {{"read_ops", c.read_ops}, {"read_bytes", c.read_bytes},
          {"write_ops", c.write_ops}, {"write_bytes", c.write_bytes}};
}

// Per device: the share of written data zones' capacity holding live data
// (GearDB's space efficiency), and every zone as [group, valid bytes,
// written bytes, capacity].
nlohmann::json ZonesJson(const std::vector<std::vector<ZoneUse>>& devices) {
  nlohmann::json out = nlohmann::json::array();
  for (const std::vector<ZoneUse>& zones : devices) {
    uint64_t valid = 0, capacity = 0;
    nlohmann::json list = nlohmann::json::array();
    for (const ZoneUse& z : zones) {
      valid += z.valid_bytes;
      capacity += z.capacity;
      list.push_back({z.group, z.valid_bytes, z.written_bytes, z.capacity});
    }
    out.push_back({{"space_efficiency", capacity ? double(valid) / double(capacity) : 0.0},
                   {"zones", list}});
  }
  return out;
}

nlohmann::json CheckpointJson(const Checkpoint& c) {
  nlohmann::json j = {{"ops", c.ops},
                      {"t", c.t},
                      {"device_write_bytes", c.device_write_bytes},
                      {"gc_bytes", c.gc_bytes},
                      {"gc_seconds", c.gc_seconds}};
  if (!c.zones.empty()) j["zones"] = ZonesJson(c.zones);
  return j;
}

nlohmann::json PhaseJson(const PhaseResult& p) {
  nlohmann::json j;
  j["name"] = p.name;
  j["ops"] = p.ops;
  j["seconds"] = p.seconds;
  j["ops_per_second"] = p.ops_per_second();
  j["user_bytes_written"] = p.user_bytes_written;
  // Null where nothing was written by the user or no device was measured.
  if (p.write_amplification() > 0) {
    j["write_amplification"] = p.write_amplification();
  } else {
    j["write_amplification"] = nullptr;
  }
  j["reads_found"] = p.reads_found;
  j["reads_missed"] = p.reads_missed;
  j["errors"] = p.errors;
  j["errors_by_kind"] = p.errors_by_kind;
  j["background_errors"] = p.background_errors;
  if (!p.background_error_messages.empty()) j["background_error_messages"] = p.background_error_messages;
  if (p.errors) j["first_error"] = p.first_error;
  for (const auto& [t, h] : p.latency_ns) j["latency"][t] = HistogramJson(h);
  j["timeline"] = {{"interval_seconds", p.sample_interval}, {"ops", p.timeline}};
  uint64_t total_read = 0;
  for (const DeviceDelta& d : p.devices) total_read += d.total.read_bytes;
  j["devices"] = nlohmann::json::array();
  for (const DeviceDelta& d : p.devices) {
    nlohmann::json dj = {{"name", d.name},
                         {"total", CountersJson(d.total)},
                         {"busy_fraction", d.busy_fraction},
                         {"read_share", total_read ? double(d.total.read_bytes) / total_read : 0.0},
                         {"zone_resets", d.zone_resets},
                         {"erases", d.erases},
                         {"late_commands", d.late_commands},
                         {"late_ns", d.late_ns}};
    if (d.destages) dj["destages"] = d.destages;
    const bool read_qlc = std::any_of(d.qlc_page_reads.begin(), d.qlc_page_reads.end(),
                                      [](uint64_t n) { return n > 0; });
    // A read-only phase programs nothing but still has QLC page reads by type.
    if (!d.programmed.empty() || read_qlc) {
      uint64_t total = 0;
      dj["nand"]["programmed"] = nlohmann::json::object();
      for (const auto& [mode, p] : d.programmed) {
        dj["nand"]["programmed"][mode] = {{"host", p.host}, {"migration", p.migration}};
        total += p.host + p.migration;
      }
      dj["nand"]["programmed_total"] = total;
      dj["nand"]["simple_copies"] = d.simple_copies;
      dj["nand"]["copy_bytes"] = d.copy_bytes;
      dj["nand"]["slc_zone_migrations"] = d.slc_zone_migrations;
      dj["nand"]["qlc_page_reads"] = {{"L", d.qlc_page_reads[0]},
                                      {"CL", d.qlc_page_reads[1]},
                                      {"CU", d.qlc_page_reads[2]},
                                      {"U", d.qlc_page_reads[3]}};
    }
    if (!d.busy_by_chip.empty()) dj["busy_by_chip"] = d.busy_by_chip;
    for (const auto& [c, f] : d.busy_by_class) dj["busy_by_class"][c] = f;
    for (const auto& [c, x] : d.by_class) dj["by_class"][c] = CountersJson(x);
    j["devices"].push_back(dj);
  }
  j["samples"] = nlohmann::json::array();
  for (const VolumeSample& s : p.samples) {
    j["samples"].push_back({{"t", s.t},
                            {"space", s.space},
                            {"zone_utilization_deciles", s.zone_utilization},
                            {"gc_bytes", s.gc_bytes},
                            {"migration_bytes", s.migration_bytes},
                            {"capacity_bytes", s.capacity_bytes},
                            {"used_bytes", s.used_bytes},
                            {"slc_used_bytes", s.slc_used_bytes},
                            {"rocksdb", s.rocksdb}});
  }
  j["zone_utilization"] = p.zone_utilization;
  j["rocksdb"] = p.rocksdb_tickers;
  j["scheme"] = p.scheme;
  if (!p.cell_migration.is_null()) j["cell_migration"] = p.cell_migration;
  if (!p.gc.is_null()) j["gc"] = p.gc;
  if (!p.metadata_log.is_null()) j["metadata_log"] = p.metadata_log;
  j["checkpoints"] = nlohmann::json::array();
  for (const Checkpoint& c : p.checkpoints) j["checkpoints"].push_back(CheckpointJson(c));
  if (p.has_compaction_log) j["compactions"] = CompactionsJson(p.compactions);
  return j;
}

}  // namespace

std::string SummaryTable(const std::vector<SchemeResult>& schemes) {
  std::string out = fmt::format("{:<14} {:<16} {:>10} {:>11} {:>9} {:>9} {:>9} {:>10} {:>6}\n",
                                "scheme", "phase", "ops", "ops/s", "p50 us", "p99 us",
                                "p99.9 us", "p99.99 us", "WA");
  for (const SchemeResult& s : schemes) {
    for (const PhaseResult& p : s.phases) {
      std::string type;
      const bench::Histogram* h = MainLatency(p, &type);
      out += fmt::format("{:<14} {:<16} {:>10} {:>11.0f} {:>9.1f} {:>9.1f} {:>9.1f} {:>10.1f} {:>6.2f}\n",
                         s.name, p.name, p.ops, p.ops_per_second(),
                         h ? Us(h->Percentile(50)) : 0.0, h ? Us(h->Percentile(99)) : 0.0,
                         h ? Us(h->Percentile(99.9)) : 0.0, h ? Us(h->Percentile(99.99)) : 0.0,
                         p.write_amplification());
      for (const DeviceDelta& d : p.devices) {
        out += fmt::format("{:<14}   {:<14} busy {:>5.1f}%  wrote {:>9.1f} MiB  read {:>9.1f} MiB\n",
                           "", d.name, 100 * d.busy_fraction, d.total.write_bytes / kMiB,
                           d.total.read_bytes / kMiB);
      }
      if (p.errors) {
        out += fmt::format("{:<14}   {} failed operations ({}), first: {}\n", "", p.errors,
                           KindList(p.errors_by_kind), p.first_error);
      }
      if (p.background_errors) {
        out += fmt::format("{:<14}   {} RocksDB background errors (flush or compaction){}{}\n", "",
                           p.background_errors,
                           p.background_error_messages.empty() ? "" : ", first: ",
                           p.background_error_messages.empty() ? ""
                                                               : p.background_error_messages[0]);
      }
    }
  }
  return out;
}

ErrorTotals CountErrors(const std::vector<SchemeResult>& schemes) {
  ErrorTotals t;
  for (const SchemeResult& s : schemes) {
    for (const PhaseResult& p : s.phases) {
      t.operations += p.errors;
      for (const auto& [kind, n] : p.errors_by_kind) t.by_kind[kind] += n;
      t.background += p.background_errors;
    }
  }
  return t;
}

std::string FailureLine(const std::vector<SchemeResult>& schemes) {
  const ErrorTotals t = CountErrors(schemes);
  if (!t.any()) return "";
  std::string where;
  for (const SchemeResult& s : schemes) {
    for (const PhaseResult& p : s.phases) {
      if (p.errors == 0 && p.background_errors == 0) continue;
      where += fmt::format("{}{} {}", where.empty() ? "" : ", ", s.name, p.name);
    }
  }
  std::string line = fmt::format("FAILED: {} operation(s) failed", t.operations);
  if (t.operations) line += fmt::format(" ({})", KindList(t.by_kind));
  if (t.background) line += fmt::format(", {} RocksDB background error(s)", t.background);
  return line + fmt::format(" in {}", where);
}

std::string ComparisonTable(const std::vector<SchemeResult>& schemes) {
  if (schemes.size() < 2) return "";
  std::string out = fmt::format("\nrelative to {}:\n{:<14} {:<16} {:>11} {:>9} {:>8}\n",
                                schemes[0].name, "scheme", "phase", "throughput", "p99", "WA");
  for (const SchemeResult& s : schemes) {
    // Every scheme runs the same phases in the same order.
    for (size_t i = 0; i < s.phases.size() && i < schemes[0].phases.size(); ++i) {
      const PhaseResult& p = s.phases[i];
      const PhaseResult& base = schemes[0].phases[i];
      // p99 of the base's main operation type in both schemes.
      std::string type;
      const bench::Histogram* b = MainLatency(base, &type);
      auto it = p.latency_ns.find(type);
      const bench::Histogram* h = it == p.latency_ns.end() ? nullptr : &it->second;
      auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
      out += fmt::format("{:<14} {:<16} {:>10.3f}x {:>8.3f}x {:>7.3f}x\n", s.name, p.name,
                         ratio(p.ops_per_second(), base.ops_per_second()),
                         h && b ? ratio(double(h->Percentile(99)), double(b->Percentile(99))) : 0.0,
                         ratio(p.write_amplification(), base.write_amplification()));
    }
  }
  return out;
}

nlohmann::json ToJson(const std::vector<SchemeResult>& schemes, const nlohmann::json& args) {
  nlohmann::json j;
  j["format"] = "zsbench-results";
  j["version"] = 1;
  j["args"] = args;
  const ErrorTotals t = CountErrors(schemes);
  j["errors"] = {{"operations", t.operations},
                 {"by_kind", t.by_kind},
                 {"background", t.background}};
  j["schemes"] = nlohmann::json::array();
  for (const SchemeResult& s : schemes) {
    nlohmann::json sj = {{"name", s.name}, {"volume", s.volume}, {"phases", nlohmann::json::array()}};
    for (const PhaseResult& p : s.phases) sj["phases"].push_back(PhaseJson(p));
    j["schemes"].push_back(sj);
  }
  return j;
}

}  // namespace zonestack::zsbench
