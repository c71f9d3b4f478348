// Helpers for the tests of DBs on volumes with an HHZS-paper scheme: a
// config file per volume, small multi-level RocksDB options, a fillrandom
// that keeps a model, and the comparison of RocksDB's live SSTs with what
// the scheme's LSM view and zfs say about them.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "../common/test_threads.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "glue/config.h"
#include "rocksdb/db.h"
#include "glue/hint_listener.h"
#include "glue/open_db.h"
#include "rocksdb/sst_partitioner.h"
#include "glue/volume_registry.h"

namespace zonestack::rocks {

using Model = std::map<std::string, std::string>;

// Device 0 is a ZN540 SSD, device 1 an ST14000NM0007 HM-SMR HDD; at scale
// 1/256 an SSD zone holds 4.2 MiB and an HDD zone 1 MiB.
inline std::string SsdUri(int zones) {
  return absl::StrCat("emu:zn540?zones=", zones, "&scale=1/256&timing=none");
}
inline std::string HddUri(int zones) {
  return absl::StrCat("emu:st14000nm0007?zones=", zones, "&scale=1/256&timing=none");
}
inline constexpr uint32_t kSsd = 0, kHdd = 1;

// Writes config files and forgets their volumes when the test ends.
class SchemeDbTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const std::string& path : configs_) {
      EXPECT_TRUE(Forget(kUriScheme + path).ok()) << path;
      std::remove(path.c_str());
    }
  }

  // A config over an SSD of `ssd_zones` and an HDD of `hdd_zones` zones;
  // `body` holds the other keys ("\"scheme\": ..., ...").
  std::string WriteConfig(const std::string& body, int ssd_zones = 64, int hdd_zones = 256) {
    return WriteConfigOn({SsdUri(ssd_zones), HddUri(hdd_zones)}, body);
  }

  // A config over `devices` (device URIs), in a file of this test's own:
  // ctest runs the tests of a suite side by side.
  std::string WriteConfigOn(const std::vector<std::string>& devices, const std::string& body) {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    // A parameterized test's names hold slashes.
    std::string name = absl::StrCat(test->test_suite_name(), "_", test->name());
    std::replace(name.begin(), name.end(), '/', '_');
    const std::string path =
        absl::StrCat(::testing::TempDir(), "/zs_", name, "_", configs_.size(), ".json");
    std::ofstream out(path);
    out << "{\"devices\": [\"" << absl::StrJoin(devices, "\", \"") << "\"]"
        << (body.empty() ? "" : ", ") << body << "}";
    configs_.push_back(path);
    return path;
  }

 private:
  std::vector<std::string> configs_;
};

// Small SSTs and levels growing by 2x, so a megabyte reaches L3-L4.
inline rocksdb::Options LevelOptions() {
  rocksdb::Options o;
  o.write_buffer_size = 64 << 10;
  o.target_file_size_base = 64 << 10;
  o.max_bytes_for_level_base = 128 << 10;
  o.max_bytes_for_level_multiplier = 2;
  o.level0_file_num_compaction_trigger = 2;
  o.max_background_jobs = 2;
  o.compression = rocksdb::kNoCompression;
  return o;
}

// Refuses every trivial move, so each SST is written at its final level.
class NoTrivialMoveFactory : public rocksdb::SstPartitionerFactory {
  class Partitioner : public rocksdb::SstPartitioner {
   public:
    const char* Name() const override { return "NoTrivialMove"; }
    rocksdb::PartitionerResult ShouldPartition(const rocksdb::PartitionerRequest&) override {
      return rocksdb::kNotRequired;
    }
    bool CanDoTrivialMove(const rocksdb::Slice&, const rocksdb::Slice&) override {
      return false;
    }
  };

 public:
  const char* Name() const override { return "NoTrivialMoveFactory"; }
  std::unique_ptr<rocksdb::SstPartitioner> CreatePartitioner(
      const rocksdb::SstPartitioner::Context&) const override {
    return std::make_unique<Partitioner>();
  }
};

inline std::string Key(uint64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "key%08llu", static_cast<unsigned long long>(i));
  return buf;
}

// `n` puts of `value_size`-byte values to random keys of [0, key_space)
// (or to 0, 1, 2, ... if `sequential`), recorded in `model`.
inline void Fill(rocksdb::DB* db, int n, size_t value_size, uint64_t key_space, uint64_t seed,
                 Model* model, bool sequential = false) {
  std::mt19937_64 rng(seed);
  for (int i = 0; i < n; ++i) {
    const std::string key = Key(sequential ? static_cast<uint64_t>(i) : rng() % key_space);
    std::string value(value_size, ' ');
    for (char& c : value) c = static_cast<char>('a' + rng() % 26);
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), key, value).ok());
    (*model)[key] = value;
  }
}

// Every key reads back as in the model, through Get and a full scan.
inline void CheckModel(rocksdb::DB* db, const Model& model) {
  for (const auto& [key, value] : model) {
    std::string got;
    rocksdb::Status s = db->Get(rocksdb::ReadOptions(), key, &got);
    ASSERT_TRUE(s.ok()) << key << ": " << s.ToString();
    ASSERT_EQ(got, value) << key;
  }
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
  auto m = model.begin();
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
    ASSERT_NE(m, model.end()) << "extra key " << it->key().ToString();
    ASSERT_EQ(it->key().ToString(), m->first);
  }
  ASSERT_TRUE(it->status().ok()) << it->status().ToString();
  ASSERT_EQ(m, model.end()) << "missing key " << m->first;
}

inline int MaxLevel(rocksdb::DB* db) {
  std::vector<rocksdb::LiveFileMetaData> live;
  db->GetLiveFilesMetaData(&live);
  int top = -1;
  for (const auto& f : live) top = std::max(top, f.level);
  return top;
}

// Where zfs keeps each SST: its hint and devices, by path.
struct ZfsSst {
  zfs::FileHint hint;
  std::vector<uint32_t> devices;  // of its extents, in order
};
inline std::map<std::string, ZfsSst> ZfsSsts(zfs::Volume& volume) {
  std::map<std::string, ZfsSst> out;
  for (const zfs::FileInfo& f : volume.Files()) {
    if (f.hint.kind != zfs::FileKind::kSst) continue;
    ZfsSst s{f.hint, {}};
    for (const zfs::ExtentInfo& e : f.extents) s.devices.push_back(e.device);
    for (const std::string& name : f.names) out[name] = s;
  }
  return out;
}

inline std::string SstPath(const rocksdb::LiveFileMetaData& f) {
  return absl::StrCat(f.directory, "/", f.relative_filename);
}

// What the scheme's view and zfs get wrong about `db`'s live SSTs: level,
// size, SSTs missing or extra, demand left over. Empty if nothing.
inline std::vector<std::string> Mismatches(rocksdb::DB* db) {
  std::vector<std::string> problems;
  auto parts = PartsOf(*db);
  if (!parts || !parts->scheme) return {"the DB has no scheme"};
  std::vector<rocksdb::LiveFileMetaData> live;
  db->GetLiveFilesMetaData(&live);
  std::map<uint64_t, policy::SstInfo> view;
  for (const policy::SstInfo& s : parts->scheme->view().Ssts()) view[s.number] = s;
  const std::map<std::string, ZfsSst> zfs = ZfsSsts(*parts->volume);
  for (const rocksdb::LiveFileMetaData& f : live) {
    auto v = view.find(f.file_number);
    if (v == view.end()) {
      problems.push_back(absl::StrCat("SST ", f.file_number, " (L", f.level, ") not in the view"));
    } else {
      if (v->second.level != f.level) {
        problems.push_back(absl::StrCat("SST ", f.file_number, " is L", f.level,
                                        ", the view says L", v->second.level));
      }
      if (v->second.size != f.size) {
        problems.push_back(absl::StrCat("SST ", f.file_number, " has ", f.size,
                                        " bytes, the view says ", v->second.size));
      }
      view.erase(v);
    }
    auto z = zfs.find(SstPath(f));
    if (z == zfs.end()) {
      problems.push_back(absl::StrCat("SST ", SstPath(f), " not in zfs"));
    } else if (z->second.hint.level != f.level) {
      problems.push_back(absl::StrCat("SST ", SstPath(f), " is L", f.level, ", zfs says L",
                                      z->second.hint.level));
    }
  }
  for (const auto& [number, s] : view) {
    problems.push_back(absl::StrCat("the view has SST ", number, " (L", s.level,
                                    ") that RocksDB does not"));
  }
  const std::vector<uint32_t> demand = parts->scheme->view().Demand();
  for (size_t l = 0; l < demand.size(); ++l) {
    if (demand[l] != 0) problems.push_back(absl::StrCat("demand of L", l, " is ", demand[l]));
  }
  return problems;
}

// Flushes and compactions running or pending in `db`.
inline uint64_t JobsInFlight(rocksdb::DB* db) {
  uint64_t busy = 0;
  for (const char* p : {"rocksdb.num-running-compactions", "rocksdb.compaction-pending",
                        "rocksdb.num-running-flushes", "rocksdb.mem-table-flush-pending"}) {
    uint64_t v = 0;
    db->GetIntProperty(p, &v);
    busy += v;
  }
  return busy;
}

// Waits until no flush or compaction runs or is pending, then until the
// view and zfs agree with RocksDB (callbacks finish just after the job);
// returns what still disagrees after the hang guard.
inline std::vector<std::string> SettledMismatches(rocksdb::DB* db) {
  std::vector<std::string> problems;
  const bool settled = testing_common::WaitFor([&] {
    if (JobsInFlight(db) != 0) return false;
    problems = Mismatches(db);
    return problems.empty();
  });
  if (!settled && problems.empty()) problems.push_back("background work never settled");
  return problems;
}

}  // namespace zonestack::rocks
