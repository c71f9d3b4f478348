// zsbench: the papers' workloads on RocksDB over ZoneStack volumes (or over
// RocksDB's default file system as a baseline), one or more schemes in one
// run, each on a fresh volume, with the metrics the papers report.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "glue/gear_driver.h"
#include "glue/open_db.h"
#include "glue/ssd_secondary_cache.h"
#include "rocksdb/statistics.h"
#include "glue/volume_registry.h"
#include "tools/zsbench/metrics.h"
#include "tools/zsbench/report.h"

namespace zs = zonestack;
using zs::zsbench::PhaseResult;
using zs::zsbench::PhaseSpec;
using zs::zsbench::SchemeResult;

namespace {

struct Args {
  std::vector<std::string> schemes;  // NAME=VOLUME
  std::string volume;                // one unnamed scheme
  std::string workloads = "fillrandom,readrandom";
  std::string workload_file;
  int64_t records = 100000;
  int64_t ops = 0;  // 0 = records
  double seconds = 0, warmup = 0, rate = 0, interval = 1;
  int threads = 1;
  uint64_t seed = 1;
  int key_size = 24;
  int value_size = 1000;
  double zipf = 0;  // 0 = the workload's own
  int64_t zipf_items = 0;  // 0 = YCSB's 10^10
  std::string db = "/db";
  std::string json;
  std::vector<std::string> rocksdb_options;  // name=value
  bool quiet = false;
  std::string dbbench_keys = "ordered";
};

// Exit codes: 0 every operation succeeded; 1 some failed (the run
// finished and reported them); 2 bad usage or a scheme could not run.
constexpr int kOpsFailed = 1;
constexpr int kUsage = 2;

int Fail(const std::string& msg) {
  fmt::print(stderr, "zsbench: {}\n", msg);
  return kUsage;
}

// A number in [min, max] (whole if `whole`). CLI11's own ranges print
// DBL_MAX in full, and a negative count cast to unsigned runs forever.
CLI::Validator Within(double min, double max, bool whole) {
  const std::string range = fmt::format("[{}, {}]", min, max);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double v = 0;
        int64_t n = 0;
        const bool ok = whole ? absl::SimpleAtoi(text, &n) : absl::SimpleAtod(text, &v);
        if (!ok || (!whole && !std::isfinite(v))) {
          return fmt::format("'{}' is not a {}number", text, whole ? "whole " : "");
        }
        if (whole) v = static_cast<double>(n);
        if (v < min || v > max) return fmt::format("{} is outside {}", text, range);
        return "";
      },
      range);
}

// Counts beyond this would run for days even at a million ops/s.
constexpr double kMaxCount = 1e12;

// --scheme NAME=VOLUME or just VOLUME. NAME holds none of ":/?&;", so the
// '=' of a URI's own query ("zonestack://emu:zn540?zones=24") is not taken
// for the separator.
std::pair<std::string, std::string> SplitScheme(const std::string& arg) {
  const size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0) return {"", arg};
  const std::string name = arg.substr(0, eq);
  const bool word = name.find_first_of(":/?&;") == std::string::npos;
  return word ? std::make_pair(name, arg.substr(eq + 1)) : std::make_pair(std::string(), arg);
}

// Fails now, not after the whole run, if `path` cannot be written; leaves
// no file behind that was not there.
absl::Status CheckWritable(const std::string& path) {
  const bool existed = std::filesystem::exists(path);
  std::FILE* f = std::fopen(path.c_str(), "a");
  if (!f) {
    return absl::PermissionDeniedError(
        fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  }
  std::fclose(f);
  if (!existed) std::filesystem::remove(path);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<PhaseSpec>> Phases(const Args& a) {
  std::vector<PhaseSpec> phases;
  std::vector<std::string> names = absl::StrSplit(a.workloads, ',', absl::SkipEmpty());
  if (!a.workload_file.empty()) names = {"file"};
  for (const std::string& n : names) {
    absl::StatusOr<PhaseSpec> p;
    // Not workloads: "settle" waits for compactions (SettleCompactions),
    // "drain" also flushes and pays GC (Drain).
    if (n == "settle" || n == "drain") {
      phases.push_back(PhaseSpec{.name = n});
      continue;
    }
    if (n == "file") {
      std::ifstream in(a.workload_file);
      if (!in) return absl::NotFoundError(fmt::format("cannot read {}", a.workload_file));
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      auto w = zs::bench::ParseWorkloadProperties(text);
      if (!w.ok()) return w.status();
      p = PhaseSpec{.name = a.workload_file, .workload = *w};
    } else {
      p = zs::zsbench::PhaseByName(n);
    }
    if (!p.ok()) return p.status();
    zs::bench::WorkloadSpec& w = p->workload;
    w.record_count = a.records;
    w.operation_count = a.ops ? a.ops : a.records;
    w.key_size = a.key_size;
    w.field_count = 1;
    w.field_length = a.value_size;
    if (a.zipf > 0) w.zipfian_constant = a.zipf;
    if (a.zipf_items > 0) w.zipfian_items = a.zipf_items;
    const bool load =
        w.phase == zs::bench::Phase::kLoad || p->dbbench == zs::zsbench::DbBenchOp::kFillSeq;
    p->ops = load ? a.records : w.operation_count;
    // A load always inserts every record: a run phase after a cut-short
    // load would measure a smaller tree than the one asked for.
    p->seconds = load ? 0 : a.seconds;
    p->warmup_seconds = a.warmup;
    p->threads = a.threads;
    p->rate = a.rate;
    p->seed = a.seed;
    p->sample_interval = a.interval;
    p->progress = !a.quiet && isatty(STDERR_FILENO);
    p->ycsb_keys = a.dbbench_keys == "ycsb";
    phases.push_back(*p);
  }
  if (phases.empty()) return absl::InvalidArgumentError("no workload given");
  return phases;
}

rocksdb::Options BaseOptions(const Args& a) {
  rocksdb::Options o;
  o.create_if_missing = true;
  // Scaled down with the devices: small memtables and SSTs (override with
  // --rocksdb-option).
  o.write_buffer_size = 4 << 20;
  o.target_file_size_base = 4 << 20;
  o.max_bytes_for_level_base = 16 << 20;
  o.compaction_readahead_size = 2 << 20;
  o.compression = rocksdb::kNoCompression;
  o.statistics = rocksdb::CreateDBStatistics();
  o.max_background_jobs = 2;
  (void)a;
  return o;
}

// The scheme's state at a phase end: its LSM view (per level: SSTs and
// bytes on the SSD and the HDD; every SST's reads, for HHZS O4), the SSD
// cache and migration counters, and their memory (HHZS 3.6).
nlohmann::json CellMigrationState(const zs::zfs::Volume* volume) {
  if (!volume) return nullptr;
  const zs::zfs::CellMigrationStats c = volume->cell_migration_stats();
  return {{"runs", c.runs},
          {"extents_moved", c.extents_moved},
          {"bytes_moved", c.bytes_moved},
          {"no_room", c.no_room},
          {"aborted", c.aborted}};
}

// zfs's GC since mount, whatever the scheme (GearDB's baselines collect,
// geardb never does).
nlohmann::json GcState(const zs::zfs::Volume* volume) {
  if (!volume) return nullptr;
  const zs::zfs::GcTotals g = volume->gc_totals();
  return {{"runs", g.runs},
          {"zones_reclaimed", g.zones_reclaimed},
          {"bytes_relocated", g.bytes_relocated},
          {"seconds", static_cast<double>(g.busy_ns) / 1e9},
          {"writer_runs", g.writer_runs},
          {"writer_zones_reclaimed", g.writer_zones_reclaimed}};
}

// What zfs's metadata log wrote since mount: the per-file cost beside the
// data (on a disk, each durable record is a trip of the head to its zone).
nlohmann::json MetadataLogState(const zs::zfs::Volume* volume) {
  if (!volume) return nullptr;
  const zs::zfs::MetadataLogTotals t = volume->metadata_log_totals();
  return {{"records", t.records},
          {"bytes", t.bytes},
          {"flushes", t.flushes},
          {"rolls", t.rolls},
          {"snapshot_bytes", t.snapshot_bytes}};
}

nlohmann::json SchemeState(const rocksdb::DB& db) {
  auto parts = zs::rocks::PartsOf(db);
  if (!parts || !parts->scheme) return nullptr;
  nlohmann::json j;
  j["name"] = parts->scheme->name();
  zs::policy::LsmView& view = parts->scheme->view();
  j["demand"] = view.Demand();
  j["view_memory_bytes"] = view.MemoryBytes();
  j["counters"] = parts->scheme->counters();
  nlohmann::json levels = nlohmann::json::object();
  nlohmann::json ssts = nlohmann::json::array();
  for (const zs::policy::SstInfo& s : view.Ssts()) {
    if (s.level < 0) continue;
    nlohmann::json& l = levels[fmt::format("L{}", s.level)];
    if (l.is_null()) l = {{"ssd_ssts", 0}, {"hdd_ssts", 0}, {"ssd_bytes", 0}, {"hdd_bytes", 0}};
    const std::string where = s.on_ssd ? "ssd" : "hdd";
    l[where + "_ssts"] = l[where + "_ssts"].get<uint64_t>() + 1;
    l[where + "_bytes"] = l[where + "_bytes"].get<uint64_t>() + s.size;
    ssts.push_back({{"number", s.number}, {"level", s.level}, {"on_ssd", s.on_ssd},
                    {"reads", s.reads}, {"size", s.size}});
  }
  j["levels"] = levels;
  j["ssts"] = ssts;
  if (parts->volume) {
    const zs::zfs::MigrationStats m = parts->volume->migration_stats();
    j["migration"] = {{"files_moved", m.files_moved}, {"bytes_moved", m.bytes_moved},
                      {"failures", m.failures},       {"aborted", m.aborted},
                      {"no_room", m.no_room}};
  }
  if (parts->cache) {
    const zs::policy::CacheStats c = parts->cache->stats();
    j["cache"] = {{"admitted", c.admitted},           {"rejected", c.rejected},
                  {"hits", c.hits},                   {"misses", c.misses},
                  {"evicted_zones", c.evicted_zones}, {"evicted_blocks", c.evicted_blocks},
                  {"cached_blocks", c.cached_blocks}, {"cached_bytes", c.cached_bytes},
                  {"first_sightings", c.first_sightings}, {"refreshed", c.refreshed},
                  {"memory_bytes", c.memory_bytes}};
    const auto k = parts->cache->counters();
    j["cache"]["inserts_unknown_key"] = k.unknown_keys;
    j["cache"]["inserts_not_on_hdd"] = k.not_on_hdd;
    j["cache"]["inserts_without_zone"] = k.no_zone;
    j["cache"]["zones_opened"] = k.zones_opened;
    j["cache"]["device_reads"] = k.device_reads;
    j["cache"]["verify_failures"] = k.verify_failures;
    j["cache"]["background_lookups"] = k.background_lookups;
  }
  return j;
}

// "settle": waits until RocksDB has no compaction pending or running (at
// most 10 minutes), as a long load would have ended with its compaction
// debt paid; the paper's runs follow an 8-hour load, ours a minute's.
PhaseResult SettleCompactions(rocksdb::DB* db) {
  uint64_t errors_before = 0;
  db->GetIntProperty("rocksdb.background-errors", &errors_before);
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  // GearDB's driver picks the compactions (RocksDB's own are off).
  if (auto parts = zs::rocks::PartsOf(*db); parts && parts->gear_driver) {
    (void)parts->gear_driver->RunUntilIdle();
  }
  while (elapsed() < 600) {
    uint64_t pending = 0, running = 0, flushes = 0;
    db->GetIntProperty("rocksdb.compaction-pending", &pending);
    db->GetIntProperty("rocksdb.num-running-compactions", &running);
    db->GetIntProperty("rocksdb.num-running-flushes", &flushes);
    if (pending == 0 && running == 0 && flushes == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  PhaseResult r;
  r.name = "settle";
  r.seconds = elapsed();
  uint64_t background_errors = 0;
  db->GetIntProperty("rocksdb.background-errors", &background_errors);
  r.background_errors = background_errors - errors_before;
  return r;
}

// "drain": charges the phase before it with the background work it left.
// It flushes the MemTables, waits for the compactions (SettleCompactions),
// then runs zfs's GC while a device is below its free-zone threshold and a
// run still reclaims a zone, at most 10 minutes in all. The phase's
// operations over its seconds plus the drain's are its throughput with its
// flush, compaction and GC debt paid: a run phase of seconds (SplitZNS's
// scaled ones) otherwise leaves that work to the next phase.
PhaseResult Drain(rocksdb::DB* db, zs::zfs::Volume* vol) {
  const auto start = std::chrono::steady_clock::now();
  const std::vector<zs::device::DeviceStats> before = zs::zsbench::DeviceSnapshot(vol);
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  rocksdb::FlushOptions flush;
  flush.allow_write_stall = true;  // no writer waits: nothing to stall
  const rocksdb::Status flushed = db->Flush(flush);
  PhaseResult r = SettleCompactions(db);
  r.name = "drain";
  if (!flushed.ok()) {
    r.errors = 1;
    r.errors_by_kind["flush"] = 1;
    r.first_error = flushed.ToString();
  }
  while (vol && vol->NeedsGc() && elapsed() < 600) {
    absl::StatusOr<zs::zfs::GcStats> gc = vol->CollectGarbage(/*force=*/false);
    if (!gc.ok()) {
      ++r.errors;
      ++r.errors_by_kind["gc"];
      if (r.first_error.empty()) r.first_error = gc.status().ToString();
      break;
    }
    if (gc->zones_reclaimed == 0) break;  // below the threshold, nothing to gain
  }
  r.seconds = elapsed();
  // What the drain wrote and read: the flush, compaction and GC traffic.
  r.devices = zs::zsbench::DeltasSince(vol, before);
  return r;
}

absl::StatusOr<SchemeResult> RunScheme(const std::string& name, const std::string& volume,
                                       const Args& a, const std::vector<PhaseSpec>& phases) {
  SchemeResult result{name, volume, {}};
  rocksdb::Options options = BaseOptions(a);
  std::map<std::string, std::string> extra;
  for (const std::string& kv : a.rocksdb_options) {
    std::pair<std::string, std::string> p = absl::StrSplit(kv, absl::MaxSplits('=', 1));
    extra[p.first] = p.second;
  }
  if (auto s = zs::rocks::ApplyRocksDbOptions(extra, &options); !s.ok()) return s;
  // Every compaction, RocksDB's and the gear driver's (GearDB Fig. 15).
  auto compactions = std::make_shared<zs::zsbench::CompactionLog>();
  options.listeners.push_back(zs::zsbench::CompactionLog::Listener(compactions));
  std::unique_ptr<rocksdb::DB> db;
  std::shared_ptr<zs::zfs::Volume> vol;
  const bool posix = volume.starts_with("posix:");
  if (posix) {
    const std::string path = volume.substr(6) + a.db;
    rocksdb::DestroyDB(path, options);
    rocksdb::DB* raw = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(options, path, &raw);
    if (!s.ok()) return absl::InternalError(s.ToString());
    db.reset(raw);
  } else {
    // A fresh volume for every scheme: emulated devices start blank.
    (void)zs::rocks::Forget(volume);
    auto d = zs::rocks::OpenDb(volume, a.db, options);
    if (!d.ok()) return d.status();
    db = std::move(*d);
    auto v = zs::rocks::FindVolume(volume);
    if (v.ok()) vol = *v;
    if (auto parts = zs::rocks::PartsOf(*db); parts && parts->gear_driver) {
      parts->gear_driver->SetStepObserver(
          [compactions](const zs::policy::GearStep& step, uint64_t micros,
                        const rocksdb::CompactionJobInfo& info) {
            zs::zsbench::CompactionRecord r = zs::zsbench::FromJobInfo(info);
            r.micros = micros;  // the whole CompactFiles call, as the driver timed it
            r.kind = zs::policy::GearStepName(step.kind);
            r.gear = true;
            r.trivial = false;  // CompactFiles always rewrites
            compactions->Add(std::move(r));
          });
    }
  }
  for (const PhaseSpec& spec : phases) {
    if (spec.name == "settle" || spec.name == "drain") {
      const size_t compactions_before = compactions->size();
      PhaseResult settled =
          spec.name == "settle" ? SettleCompactions(db.get()) : Drain(db.get(), vol.get());
      // The compactions that completed meanwhile (a drain's flush's too)
      // are the phase's, as a workload's.
      settled.has_compaction_log = true;
      settled.compactions = compactions->Since(compactions_before);
      if (!posix) settled.scheme = SchemeState(*db);
      settled.cell_migration = CellMigrationState(vol.get());
      settled.gc = GcState(vol.get());
      settled.metadata_log = MetadataLogState(vol.get());
      result.phases.push_back(std::move(settled));
      continue;
    }
    auto r = zs::zsbench::RunPhase(db.get(), vol.get(), options.statistics.get(), spec,
                                   compactions.get());
    if (!r.ok()) return r.status();
    if (!posix) r->scheme = SchemeState(*db);
    r->cell_migration = CellMigrationState(vol.get());
    r->gc = GcState(vol.get());
    r->metadata_log = MetadataLogState(vol.get());
    result.phases.push_back(std::move(*r));
  }
  db.reset();
  vol.reset();
  if (!posix) (void)zs::rocks::Forget(volume);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  CLI::App app{"zsbench: RocksDB workloads on ZoneStack volumes, schemes compared side by side"};
  app.add_option("--scheme", a.schemes,
                 "NAME=VOLUME, repeatable: each runs the workload on a fresh volume, in order; "
                 "the comparison is relative to the first. VOLUME is a zonestack:// URI, a "
                 "config.json, or posix:DIR for RocksDB's default file system");
  app.add_option("--volume", a.volume, "one scheme's VOLUME (as --scheme default=VOLUME)");
  app.add_option("--workload", a.workloads,
                 "phases in order, comma-separated: fillseq, fillrandom, overwrite, readrandom, "
                 "readseq, seekrandom, settle (wait for compactions), drain (flush, settle, then GC), ycsb-a..f, hhzs-a..f, hhzs-w1..w4 (add -load for the load "
                 "phase, e.g. ycsb-a-load,ycsb-a), mix:READ_RATIO:ZIPF_SKEW or "
                 "mix:READ_RATIO:uniform");
  app.add_option("--workload-file", a.workload_file, "a YCSB workload properties file");
  app.add_option("--records", a.records, "records (YCSB recordcount, db_bench --num)")
      ->check(Within(1, kMaxCount, true));
  app.add_option("--ops", a.ops, "operations per run phase (default: --records)")
      ->check(Within(0, kMaxCount, true));
  app.add_option("--seconds", a.seconds,
                 "stop each run phase after this long (0 = no limit); loads always load every "
                 "record")
      ->check(Within(0, 1e7, false));
  app.add_option("--warmup", a.warmup, "seconds at the start of a phase not measured")
      ->check(Within(0, 1e7, false));
  app.add_option("--threads", a.threads, "client threads")->check(Within(1, 256, true));
  app.add_option("--rate", a.rate, "target ops/s over all threads (0 = unthrottled)")
      ->check(Within(0, 1e9, false));
  app.add_option("--seed", a.seed, "random seed")->check(Within(0, 1e18, true));
  app.add_option("--key-size", a.key_size, "key bytes (HHZS: 24)")
      ->check(Within(1, 1 << 16, true));
  app.add_option("--dbbench-keys", a.dbbench_keys,
                 "key names of db_bench phases: ordered (\"user\" + k, as fillseq writes) or ycsb "
                 "(record k's name in a YCSB load, hashed), to read or overwrite a YCSB load's keys")
      ->check(CLI::IsMember({"ordered", "ycsb"}));
  app.add_option("--value-size", a.value_size, "value bytes (HHZS: 1000)")
      ->check(Within(0, 64 << 20, true));
  app.add_option("--zipf", a.zipf, "zipfian constant for zipfian requests (default: the workload's)")
      ->check(Within(0, 100, false));
  app.add_option("--zipf-items", a.zipf_items,
                 "item space of the scrambled zipfian (default: YCSB's 10^10; scaled-down "
                 "experiments divide it too)")
      ->check(Within(0, 1e18, true));
  app.add_option("--interval", a.interval, "seconds between samples")
      ->check(Within(0.001, 3600, false));
  app.add_option("--db", a.db, "DB path");
  app.add_option("--json", a.json, "write results here (schema: docs/zsbench.md)");
  app.add_option("--rocksdb-option", a.rocksdb_options, "NAME=VALUE, repeatable");
  app.add_flag("--quiet", a.quiet, "no progress line");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kUsage;  // --help is not an error
  }

  std::vector<std::pair<std::string, std::string>> schemes;
  if (!a.volume.empty()) schemes.emplace_back("default", a.volume);
  int unnamed = 0;
  for (const std::string& s : a.schemes) {
    if (s.starts_with("=")) {
      return Fail(fmt::format("--scheme '{}': the NAME before '=' is empty", s));
    }
    auto [name, volume] = SplitScheme(s);
    if (volume.empty()) return Fail(fmt::format("--scheme '{}' names no volume", s));
    if (name.empty()) name = ++unnamed == 1 ? "default" : fmt::format("default{}", unnamed);
    schemes.emplace_back(name, volume);
  }
  if (schemes.empty()) return Fail("give --volume VOLUME or --scheme NAME=VOLUME");
  auto phases = Phases(a);
  if (!phases.ok()) return Fail(std::string(phases.status().message()));
  if (!a.json.empty()) {
    if (auto s = CheckWritable(a.json); !s.ok()) return Fail(std::string(s.message()));
  }

  std::vector<SchemeResult> results;
  for (const auto& [name, volume] : schemes) {
    auto r = RunScheme(name, volume, a, *phases);
    if (!r.ok()) return Fail(fmt::format("scheme {}: {}", name, std::string(r.status().message())));
    results.push_back(std::move(*r));
  }
  fmt::print("{}{}", zs::zsbench::SummaryTable(results), zs::zsbench::ComparisonTable(results));
  std::fflush(stdout);  // the failure line below comes last
  if (!a.json.empty()) {
    nlohmann::json args = {{"workload", a.workloads}, {"records", a.records},
                           {"ops", a.ops},           {"threads", a.threads},
                           {"seconds", a.seconds},   {"warmup", a.warmup},
                           {"rate", a.rate},         {"seed", a.seed},
                           {"key_size", a.key_size}, {"value_size", a.value_size},
                           {"zipf", a.zipf},         {"zipf_items", a.zipf_items},
                           {"rocksdb_options", a.rocksdb_options},
                           {"interval", a.interval}, {"workload_file", a.workload_file},
                           {"db", a.db},             {"dbbench_keys", a.dbbench_keys}};
    std::ofstream out(a.json);
    out << zs::zsbench::ToJson(results, args).dump(1) << "\n";
    if (!out) return Fail(fmt::format("cannot write {}", a.json));
  }
  if (const std::string failed = zs::zsbench::FailureLine(results); !failed.empty()) {
    fmt::print(stderr, "zsbench: {}\n", failed);
    return kOpsFailed;
  }
  return 0;
}
