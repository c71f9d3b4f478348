// zsbench: db_bench-style workloads on RocksDB over ZoneStack (or over
// RocksDB's default file system, as the baseline), with device metrics.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <random>

#include "absl/strings/str_split.h"
#include "rocksdb/db.h"
#include "rocksdb/open_db.h"
#include "rocksdb/volume_registry.h"
#include "rocksdb/write_batch.h"

namespace zs = zonestack;

namespace {

struct Args {
  std::string volume;  // zonestack URI, or "posix:DIR" for the default FS
  std::string db = "/db";
  std::string benchmarks = "fillrandom,readrandom";
  uint64_t num = 100000;
  uint64_t reads = 0;  // 0 = num
  size_t key_size = 24;
  size_t value_size = 1000;
  uint64_t seed = 1;
  uint64_t write_buffer_size = 4 << 20;
  uint64_t target_file_size = 4 << 20;
};

std::string Key(uint64_t k, size_t size) {
  std::string s = fmt::format("user{:020}", k);
  s.resize(size, '0');
  return s;
}

struct Result {
  std::string name;
  uint64_t ops = 0;
  double seconds = 0;
  uint64_t found = 0;
};

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Result FillRandom(rocksdb::DB* db, const Args& a, std::string* value) {
  std::mt19937_64 rng(a.seed);
  Result r{"fillrandom"};
  const double t0 = Now();
  for (uint64_t i = 0; i < a.num; ++i) {
    const uint64_t k = rng() % a.num;
    (*value)[i % value->size()] = static_cast<char>(rng());
    auto s = db->Put(rocksdb::WriteOptions(), Key(k, a.key_size), *value);
    if (!s.ok()) {
      fmt::print(stderr, "put failed: {}\n", s.ToString());
      break;
    }
    ++r.ops;
  }
  r.seconds = Now() - t0;
  return r;
}

Result ReadRandom(rocksdb::DB* db, const Args& a) {
  std::mt19937_64 rng(a.seed + 1);
  Result r{"readrandom"};
  const uint64_t reads = a.reads ? a.reads : a.num;
  std::string v;
  const double t0 = Now();
  for (uint64_t i = 0; i < reads; ++i) {
    auto s = db->Get(rocksdb::ReadOptions(), Key(rng() % a.num, a.key_size), &v);
    if (s.ok()) ++r.found;
    ++r.ops;
  }
  r.seconds = Now() - t0;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  CLI::App app{"zsbench: RocksDB workloads on ZoneStack"};
  app.add_option("--volume", a.volume,
                 "zonestack://... URI or device list, or posix:DIR for RocksDB's default FS")
      ->required();
  app.add_option("--db", a.db, "DB path (zfs path; for posix: under DIR)");
  app.add_option("--benchmarks", a.benchmarks, "comma-separated: fillrandom, readrandom");
  app.add_option("--num", a.num, "keys");
  app.add_option("--reads", a.reads, "reads (default: --num)");
  app.add_option("--key_size", a.key_size, "key bytes");
  app.add_option("--value_size", a.value_size, "value bytes");
  app.add_option("--seed", a.seed, "random seed");
  app.add_option("--write_buffer_size", a.write_buffer_size, "memtable bytes");
  app.add_option("--target_file_size", a.target_file_size, "SST bytes");
  CLI11_PARSE(app, argc, argv);

  rocksdb::Options opts;
  opts.create_if_missing = true;
  opts.write_buffer_size = a.write_buffer_size;
  opts.target_file_size_base = a.target_file_size;
  opts.max_bytes_for_level_base = 4 * a.write_buffer_size;
  opts.compression = rocksdb::kNoCompression;
  // Compaction reads whole SSTs: fetch them in large requests, as on any
  // device where a small read costs a full access (ZenFS recommends it too).
  opts.compaction_readahead_size = 2 << 20;
  std::unique_ptr<rocksdb::DB> db;
  const bool posix = a.volume.starts_with("posix:");
  if (posix) {
    const std::string path = a.volume.substr(6) + a.db;
    rocksdb::DestroyDB(path, opts);
    rocksdb::DB* raw = nullptr;
    auto s = rocksdb::DB::Open(opts, path, &raw);
    if (!s.ok()) {
      fmt::print(stderr, "zsbench: {}\n", s.ToString());
      return 1;
    }
    db.reset(raw);
  } else {
    auto d = zs::rocks::OpenDb(a.volume, a.db, opts);
    if (!d.ok()) {
      fmt::print(stderr, "zsbench: {}\n", std::string(d.status().message()));
      return 1;
    }
    db = std::move(*d);
  }
  std::string value(a.value_size, 'v');
  fmt::print("{:<12} {:>10} {:>10} {:>12}\n", "benchmark", "ops", "seconds", "ops/s");
  uint64_t user_bytes = 0;
  std::vector<std::shared_ptr<zs::device::ZonedDevice>> devices;
  if (!posix) {
    if (auto vol = zs::rocks::FindVolume(a.volume); vol.ok()) devices = (*vol)->devices();
  }
  auto snapshot = [&] {
    std::vector<zs::device::DeviceStats> v;
    for (const auto& d : devices) v.push_back(d->Stats());
    return v;
  };
  for (absl::string_view b : absl::StrSplit(a.benchmarks, ',')) {
    const auto before = snapshot();
    Result r;
    if (b == "fillrandom") {
      r = FillRandom(db.get(), a, &value);
      user_bytes += r.ops * (a.key_size + a.value_size);
    } else if (b == "readrandom") {
      r = ReadRandom(db.get(), a);
    } else {
      fmt::print(stderr, "zsbench: unknown benchmark '{}'\n", std::string(b));
      return 1;
    }
    fmt::print("{:<12} {:>10} {:>10.2f} {:>12.0f}\n", r.name, r.ops, r.seconds,
               r.ops / r.seconds);
    const auto after = snapshot();
    for (size_t i = 0; i < devices.size(); ++i) {
      // Busy share of the busiest resource class during this benchmark.
      const std::string prefix = after[i].busy_ns.contains("head") ? "head" : "die";
      const double elapsed = double(after[i].elapsed_ns - before[i].elapsed_ns);
      double busy = 0;
      int n = 0;
      for (const auto& [name, ns] : after[i].busy_ns) {
        if (!name.starts_with(prefix)) continue;
        busy += double(ns - before[i].busy_ns.at(name));
        ++n;
      }
      const uint64_t written = after[i].Total().write_bytes - before[i].Total().write_bytes;
      if (elapsed > 0 && n > 0) {
        fmt::print("  {}: {} busy {:.1f}% (mean over {} {}s), wrote {:.1f} MiB\n",
                   devices[i]->info().name, prefix, 100 * busy / n / elapsed, n, prefix,
                   written / 1048576.0);
      }
    }
  }
  db.reset();
  if (!posix) {
    auto vol = zs::rocks::FindVolume(a.volume);
    if (vol.ok()) {
      for (const auto& dev : (*vol)->devices()) {
        const auto st = dev->Stats();
        const auto t = st.Total();
        fmt::print("device {}: written {:.1f} MiB (WA {:.2f}), read {:.1f} MiB, die busy {:.0f}%, "
                   "head busy {:.0f}%, resets {}\n",
                   dev->info().name, t.write_bytes / 1048576.0,
                   user_bytes ? double(t.write_bytes) / user_bytes : 0.0,
                   t.read_bytes / 1048576.0, 100 * st.BusyFraction("die"),
                   100 * st.BusyFraction("head"), st.zone_resets);
      }
    }
  }
  return 0;
}
