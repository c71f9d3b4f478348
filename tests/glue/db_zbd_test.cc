// RocksDB on ZoneStack on a real zoned block device: a random workload
// checked against a model across flushes, compactions and remounts that
// close and reopen the device, then fsck; a later process checks that the
// data is still there. Skipped unless ZONESTACK_ZBD_DB_DEVICE names the
// device (scripts/vm_test.sh runs it inside a VM on an NVMe ZNS
// namespace), whose contents it erases.
#include <cstdlib>
#include <map>
#include <random>

#include "absl/strings/str_cat.h"
#include "db_test_util.h"
#include "device/zoned_device.h"

namespace zonestack::rocks {
namespace {

using Model = std::map<std::string, std::string>;

constexpr int kRounds = 3;
constexpr int kOpsPerRound = 4000;

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

std::string Uri(const std::string& path) { return "zonestack://zbd:" + path; }

// One round of the workload, from a generator seeded per round so a later
// process can rebuild the model without a DB (db == nullptr). With a DB,
// gets are checked against the model as they go.
void RunRound(int round, rocksdb::DB* db, Model* model) {
  std::mt19937_64 rng(1000 + round);
  for (int i = 0; i < kOpsPerRound; ++i) {
    const std::string key = absl::StrCat("key", rng() % 2000);
    const int op = static_cast<int>(rng() % 10);
    if (op < 7) {
      std::string v(16 + rng() % 400, ' ');
      for (char& c : v) c = static_cast<char>('a' + rng() % 26);
      if (db != nullptr) {
        ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), key, v).ok());
      }
      (*model)[key] = v;
    } else if (op < 9) {
      if (db != nullptr) {
        ASSERT_TRUE(db->Delete(rocksdb::WriteOptions(), key).ok());
      }
      model->erase(key);
    } else if (db != nullptr) {
      std::string v;
      const rocksdb::Status s = db->Get(rocksdb::ReadOptions(), key, &v);
      auto m = model->find(key);
      if (m == model->end()) {
        ASSERT_TRUE(s.IsNotFound()) << key << ": " << s.ToString();
      } else {
        ASSERT_TRUE(s.ok()) << key << ": " << s.ToString();
        ASSERT_EQ(v, m->second) << key;
      }
    }
  }
}

// The DB holds exactly the model, in order, and the volume passes fsck.
void CheckDb(TestDb& t, const std::string& uri, const Model& model) {
  std::unique_ptr<rocksdb::Iterator> it(t.db->NewIterator(rocksdb::ReadOptions()));
  auto m = model.begin();
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
    ASSERT_NE(m, model.end()) << "extra key " << it->key().ToString();
    ASSERT_EQ(it->key().ToString(), m->first);
    ASSERT_EQ(it->value().ToString(), m->second) << m->first;
  }
  ASSERT_TRUE(it->status().ok()) << it->status().ToString();
  ASSERT_EQ(m, model.end()) << "missing key " << m->first;
  auto vol = FindVolume(uri);
  ASSERT_TRUE(vol.ok()) << vol.status();
  for (const std::string& problem : (*vol)->Check()) ADD_FAILURE() << problem;
}

class ZbdDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = Env("ZONESTACK_ZBD_DB_DEVICE");
    if (path_.empty()) GTEST_SKIP() << "ZONESTACK_ZBD_DB_DEVICE names no zoned block device";
  }
  void TearDown() override {
    if (!path_.empty()) (void)Forget(Uri(path_));
  }
  std::string path_;
};

TEST_F(ZbdDbTest, WorkloadSurvivesRemountsOfTheDevice) {
  {  // Erase the device, so the volume is formatted on first use.
    auto dev = device::OpenDevice("zbd:" + path_);
    ASSERT_TRUE(dev.ok()) << dev.status();
    auto zones = (*dev)->ReportZones(0, (*dev)->info().num_zones);
    ASSERT_TRUE(zones.ok()) << zones.status();
    for (const device::ZoneInfo& z : *zones) {
      if (z.type == device::ZoneType::kConventional || z.state == device::ZoneState::kEmpty) {
        continue;
      }
      ASSERT_TRUE((*dev)->ResetZone(z.index, device::IoContext{}).ok());
    }
  }
  const std::string uri = Uri(path_);
  Model model;
  for (int round = 0; round < kRounds; ++round) {
    TestDb t;
    rocksdb::Status s = OpenTestDb(uri, "/db", {}, SmallOptions(), &t);
    ASSERT_TRUE(s.ok()) << s.ToString();
    RunRound(round, t.db.get(), &model);
    if (HasFatalFailure()) return;
    CheckDb(t, uri, model);
    ASSERT_TRUE(t.Close().ok());
    // Unmount and close the device: the next round mounts from the media.
    ASSERT_TRUE(Forget(uri).ok());
  }
  TestDb t;
  rocksdb::Status s = OpenTestDb(uri, "/db", {}, SmallOptions(), &t);
  ASSERT_TRUE(s.ok()) << s.ToString();
  CheckDb(t, uri, model);
  auto vol = FindVolume(uri);
  ASSERT_TRUE(vol.ok());
  int ssts = 0;
  for (const auto& f : (*vol)->Files()) ssts += f.hint.kind == zfs::FileKind::kSst ? 1 : 0;
  EXPECT_GT(ssts, 2) << "the workload should leave several SSTs";
}

// Run in a new process after WorkloadSurvivesRemountsOfTheDevice, with
// ZONESTACK_ZBD_DB_VERIFY=1: the DB that process left reads back.
TEST_F(ZbdDbTest, DataOfAnEarlierProcessReadsBack) {
  if (Env("ZONESTACK_ZBD_DB_VERIFY") != "1") {
    GTEST_SKIP() << "ZONESTACK_ZBD_DB_VERIFY=1 runs this after the workload's process";
  }
  Model model;
  for (int round = 0; round < kRounds; ++round) RunRound(round, nullptr, &model);
  TestDb t;
  rocksdb::Status s = OpenTestDb(Uri(path_), "/db", {}, SmallOptions(), &t);
  ASSERT_TRUE(s.ok()) << s.ToString();
  CheckDb(t, Uri(path_), model);
}

}  // namespace
}  // namespace zonestack::rocks
