// RocksDB on ZoneStack checked against an in-memory model: random puts,
// deletes, gets and iterators over several column families, across many
// flushes and compactions and several close/reopen cycles, on a single ZNS
// device and on an SSD+HDD volume.
#include <random>

#include "absl/strings/str_cat.h"
#include "db_test_util.h"

namespace zonestack::rocks {
namespace {

using Model = std::vector<std::map<std::string, std::string>>;  // per column family

struct VolumeCase {
  const char* name;
  const char* uri;
};
void PrintTo(const VolumeCase& c, std::ostream* os) { *os << c.name; }

class DbModelTest : public ::testing::TestWithParam<VolumeCase> {
 protected:
  void TearDown() override { EXPECT_TRUE(Forget(GetParam().uri).ok()); }
};

std::string RandomValue(std::mt19937_64& rng) {
  std::string v(16 + rng() % 400, ' ');
  for (char& c : v) c = static_cast<char>('a' + rng() % 26);
  return v;
}

// Every key of every column family reads back as in the model, through Get
// and through a full forward and a partial backward iteration.
void CheckAgainstModel(TestDb& t, const Model& model) {
  for (size_t cf = 0; cf < model.size(); ++cf) {
    std::unique_ptr<rocksdb::Iterator> it(t.db->NewIterator(rocksdb::ReadOptions(), t.cfs[cf]));
    auto m = model[cf].begin();
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
      ASSERT_NE(m, model[cf].end()) << "extra key " << it->key().ToString() << " in cf " << cf;
      ASSERT_EQ(it->key().ToString(), m->first) << "cf " << cf;
      ASSERT_EQ(it->value().ToString(), m->second) << "cf " << cf << " key " << m->first;
    }
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    ASSERT_EQ(m, model[cf].end()) << "missing key " << m->first << " in cf " << cf;
    size_t back = 0;
    auto r = model[cf].rbegin();
    for (it->SeekToLast(); it->Valid() && back < 50; it->Prev(), ++r, ++back) {
      ASSERT_EQ(it->key().ToString(), r->first);
    }
  }
}

TEST_P(DbModelTest, RandomOpsAcrossFlushesCompactionsAndReopens) {
  const std::string uri = GetParam().uri;
  const std::vector<std::string> cf_names = {"hot", "cold"};
  Model model(3);
  std::mt19937_64 rng(7);
  for (int round = 0; round < 4; ++round) {
    TestDb t;
    ASSERT_TRUE(OpenTestDb(uri, "/db", cf_names, SmallOptions(), &t).ok());
    CheckAgainstModel(t, model);
    for (int i = 0; i < 3000; ++i) {
      const size_t cf = rng() % 3;
      const std::string key = absl::StrCat("key", rng() % 1500);
      const int op = static_cast<int>(rng() % 10);
      if (op < 6) {
        const std::string v = RandomValue(rng);
        ASSERT_TRUE(t.db->Put(rocksdb::WriteOptions(), t.cfs[cf], key, v).ok());
        model[cf][key] = v;
      } else if (op < 8) {
        ASSERT_TRUE(t.db->Delete(rocksdb::WriteOptions(), t.cfs[cf], key).ok());
        model[cf].erase(key);
      } else {
        std::string v;
        rocksdb::Status s = t.db->Get(rocksdb::ReadOptions(), t.cfs[cf], key, &v);
        auto m = model[cf].find(key);
        if (m == model[cf].end()) {
          ASSERT_TRUE(s.IsNotFound()) << s.ToString();
        } else {
          ASSERT_TRUE(s.ok()) << s.ToString();
          ASSERT_EQ(v, m->second);
        }
      }
    }
    if (round == 1) {
      rocksdb::Status s =
          t.db->CompactRange(rocksdb::CompactRangeOptions(), t.cfs[2], nullptr, nullptr);
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
    CheckAgainstModel(t, model);
    ASSERT_TRUE(t.Close().ok());
    // Every other round is a process restart: the volume is remounted.
    if (round % 2 == 1) {
      ASSERT_TRUE(Unmount(uri).ok());
    }
  }
  TestDb t;
  ASSERT_TRUE(OpenTestDb(uri, "/db", cf_names, SmallOptions(), &t).ok());
  CheckAgainstModel(t, model);
  auto vol = FindVolume(uri);
  ASSERT_TRUE(vol.ok());
  for (const std::string& p : (*vol)->Check()) ADD_FAILURE() << p;
  uint64_t ssts = 0;
  for (const auto& f : (*vol)->Files()) {
    if (f.hint.kind == zfs::FileKind::kSst) ++ssts;
  }
  EXPECT_GT(ssts, 3u) << "the workload should leave several SSTs";
}

INSTANTIATE_TEST_SUITE_P(
    Volumes, DbModelTest,
    ::testing::Values(
        VolumeCase{"Zns", "zonestack://emu:zn540?zones=40&scale=1/256&timing=none"},
        VolumeCase{"SsdHdd",
                   "zonestack://emu:zn540?zones=12&scale=1/256&timing=none;"
                   "emu:st14000nm0007?zones=64&scale=1/256&timing=none"}),
    [](const auto& info) { return std::string(info.param.name); });

// The SSD+HDD volume really spills to the HDD once the SSD is full.
TEST(DbModelSpillTest, DataReachesTheHddWhenTheSsdFills) {
  const std::string uri =
      "zonestack://emu:zn540?zones=8&scale=1/256&timing=none;"
      "emu:st14000nm0007?zones=96&scale=1/256&timing=none";
  {
    // Uncompressed, the 30 MB of values outgrow the SSD's 22 MB of data
    // zones. Snappy shrinks them to ~7 MB, and whether any of it spilled
    // then depended on the timing of flushes and zone resets (failed once
    // in CI under load).
    rocksdb::Options options = SmallOptions();
    options.compression = rocksdb::kNoCompression;
    TestDb t;
    ASSERT_TRUE(OpenTestDb(uri, "/db", {}, options, &t).ok());
    const std::string value(1000, 'x');
    for (int i = 0; i < 30000; ++i) {
      ASSERT_TRUE(t.db->Put(rocksdb::WriteOptions(), absl::StrCat("k", i), value).ok());
    }
    ASSERT_TRUE(t.db->Flush(rocksdb::FlushOptions()).ok());
    std::string v;
    ASSERT_TRUE(t.db->Get(rocksdb::ReadOptions(), "k12345", &v).ok());
    EXPECT_EQ(v, value);
  }
  std::vector<zfs::DeviceSpace> space;
  {
    auto vol = FindVolume(uri);
    ASSERT_TRUE(vol.ok());
    space = (*vol)->Space();
  }
  EXPECT_GT(space[0].valid_bytes, 0u);
  EXPECT_GT(space[1].valid_bytes, 0u) << "nothing spilled to the HDD";
  EXPECT_TRUE(Forget(uri).ok());
}

}  // namespace
}  // namespace zonestack::rocks
