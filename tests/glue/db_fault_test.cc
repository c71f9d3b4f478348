// RocksDB on ZoneStack under injected device faults (the device URI's
// fault= parameter, device/fault_injection.h): each fault during a workload
// of synced writes and reads ends in a clear error from RocksDB or in a DB
// whose every read matches the model, and the same after a reopen; never
// a wrong value, or an acknowledged key missing without an error.
#include <optional>
#include <random>

#include "../common/test_threads.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "db_test_util.h"
#include "device/fault_injection.h"

namespace zonestack::rocks {
namespace {

using device::FaultInjectingDevice;

constexpr char kDevice[] = "emu:zn540?zones=24&scale=1/256&timing=none";
constexpr int kKeys = 400;

// Zone 0 is the label, zones 1-2 the metadata log: faults in data zones.
std::string Uri(const std::string& faults) {
  return absl::StrCat("zonestack://", kDevice, "&fault=", faults);
}

FaultInjectingDevice* FaultDevice(const std::string& uri) {
  auto vol = FindVolume(uri);
  if (!vol.ok() || (*vol)->devices().empty()) return nullptr;
  return dynamic_cast<FaultInjectingDevice*>((*vol)->devices()[0].get());
}

// The files of the volume of `uri` (without holding it: Unmount needs that).
std::vector<zfs::FileInfo> Files(const std::string& uri) {
  auto vol = FindVolume(uri);
  return vol.ok() ? (*vol)->Files() : std::vector<zfs::FileInfo>{};
}

// What RocksDB acknowledged, and the write in flight when one failed (it
// may or may not have landed).
struct Model {
  std::map<std::string, std::string> acked;
  std::optional<std::string> in_flight_key;
  std::optional<std::string> in_flight_value;  // nullopt: a delete
  rocksdb::Status write_error;
  int read_errors = 0;
};

// One read's outcome against the model: the acknowledged value (or the one
// in flight), NotFound only for a key that is not there, or an error.
void CheckRead(const std::string& key, const rocksdb::Status& s, const std::string& value,
               Model* m) {
  const bool in_flight = m->in_flight_key == key;
  auto acked = m->acked.find(key);
  if (s.ok()) {
    const bool old_value = acked != m->acked.end() && acked->second == value;
    const bool new_value = in_flight && m->in_flight_value == value;
    ASSERT_TRUE(old_value || new_value) << "key " << key << " reads a wrong value";
  } else if (s.IsNotFound()) {
    ASSERT_TRUE(acked == m->acked.end() || (in_flight && !m->in_flight_value))
        << "acknowledged key " << key << " is missing without an error";
  } else {
    ASSERT_FALSE(s.ToString().empty());
    ++m->read_errors;
  }
}

// Synced puts and deletes, each tenth op a read, until `ops` are done or a
// write fails.
void RunWorkload(TestDb& t, uint64_t seed, int ops, Model* m) {
  std::mt19937_64 rng(seed);
  rocksdb::WriteOptions sync;
  sync.sync = true;
  for (int i = 0; i < ops; ++i) {
    const std::string key = absl::StrCat("k", rng() % kKeys);
    if (i % 10 == 9) {
      std::string value;
      ASSERT_NO_FATAL_FAILURE(CheckRead(key, t.db->Get({}, key, &value), value, m));
      continue;
    }
    std::optional<std::string> value;
    if (rng() % 5 != 0) value = std::string(20 + rng() % 300, static_cast<char>('a' + i % 26));
    rocksdb::Status s = value ? t.db->Put(sync, key, *value) : t.db->Delete(sync, key);
    if (!s.ok()) {
      m->write_error = s;
      m->in_flight_key = key;
      m->in_flight_value = value;
      return;
    }
    if (value) {
      m->acked[key] = *value;
    } else {
      m->acked.erase(key);
    }
  }
}

// Every key through Get, then a full scan that, if it ends without an
// error, shows exactly the model.
void CheckDb(TestDb& t, Model* m) {
  for (int k = 0; k < kKeys; ++k) {
    const std::string key = absl::StrCat("k", k);
    std::string value;
    ASSERT_NO_FATAL_FAILURE(CheckRead(key, t.db->Get({}, key, &value), value, m));
  }
  std::unique_ptr<rocksdb::Iterator> it(t.db->NewIterator({}));
  std::map<std::string, std::string> seen;
  for (it->SeekToFirst(); it->Valid(); it->Next()) seen[it->key().ToString()] = it->value().ToString();
  if (!it->status().ok()) {
    ++m->read_errors;
    return;
  }
  for (const auto& [key, value] : seen) {
    ASSERT_NO_FATAL_FAILURE(CheckRead(key, rocksdb::Status::OK(), value, m));
  }
  for (const auto& [key, value] : m->acked) {
    if (m->in_flight_key == key) continue;
    ASSERT_TRUE(seen.contains(key)) << "scan misses acknowledged key " << key;
  }
}

// Closes the DB, unmounts (as a process exit), reopens: the open fails
// with an error, or the DB matches the model. True if it opened.
bool ReopenAndCheck(const std::string& uri, TestDb& t, Model* m, rocksdb::Status* open_status) {
  (void)t.Close();  // may fail: the device failed
  EXPECT_TRUE(Unmount(uri).ok());
  *open_status = OpenTestDb(uri, "/db", {}, SmallOptions(), &t);
  if (!open_status->ok()) return false;
  CheckDb(t, m);
  return true;
}

class DbFaultTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const std::string& uri : uris_) (void)Forget(uri);
  }
  // Opens a fresh DB on `uri`.
  void Open(const std::string& uri, TestDb* t) {
    uris_.push_back(uri);
    rocksdb::Status s = OpenTestDb(uri, "/db", {}, SmallOptions(), t);
    ASSERT_TRUE(s.ok()) << s.ToString();
    fault_ = FaultDevice(uri);
    ASSERT_NE(fault_, nullptr);
  }
  std::vector<std::string> uris_;
  FaultInjectingDevice* fault_ = nullptr;
};

TEST_F(DbFaultTest, WriteErrorEndsInAnErrorOrACorrectDb) {
  for (const char* faults : {"write_error@zone:3-23,after:150", "write_error@zone:3-23,after:700",
                             "write_error@zone:3-23,prob:0.01,seed:3,count:0"}) {
    SCOPED_TRACE(faults);
    const std::string uri = Uri(faults);
    TestDb t;
    ASSERT_NO_FATAL_FAILURE(Open(uri, &t));
    Model m;
    ASSERT_NO_FATAL_FAILURE(RunWorkload(t, 11, 1500, &m));
    EXPECT_GT(fault_->injected(), 0u);
    ASSERT_NO_FATAL_FAILURE(CheckDb(t, &m));
    fault_->ClearFaults();
    rocksdb::Status open;
    ReopenAndCheck(uri, t, &m, &open);
    ASSERT_FALSE(HasFatalFailure());
  }
}

TEST_F(DbFaultTest, RandomReadErrorsAreErrorsNeverWrongData) {
  const std::string uri = Uri("none");
  TestDb t;
  ASSERT_NO_FATAL_FAILURE(Open(uri, &t));
  // Armed once the DB is open: the open reads its MANIFEST.
  fault_->AddFault({.kind = device::FaultKind::kReadError,
                    .first_zone = 3,
                    .probability = 0.2,
                    .seed = 5,
                    .count = 0});
  Model m;
  ASSERT_NO_FATAL_FAILURE(RunWorkload(t, 12, 1500, &m));
  ASSERT_NO_FATAL_FAILURE(CheckDb(t, &m));
  EXPECT_GT(fault_->injected(), 0u);
  // Read errors lose nothing: with the device healthy again the reopened
  // DB holds every acknowledged write.
  fault_->ClearFaults();
  rocksdb::Status open;
  ASSERT_TRUE(ReopenAndCheck(uri, t, &m, &open)) << open.ToString();
}

TEST_F(DbFaultTest, ZoneGoingReadOnlyMidRunLosesNothing) {
  // zfs writes elsewhere and moves the zone's data out: RocksDB sees no error.
  const std::string uri = Uri("read_only@zone:3-23,after:100+read_only@zone:3-23,after:600");
  TestDb t;
  ASSERT_NO_FATAL_FAILURE(Open(uri, &t));
  Model m;
  ASSERT_NO_FATAL_FAILURE(RunWorkload(t, 13, 1500, &m));
  EXPECT_TRUE(m.write_error.ok()) << m.write_error.ToString();
  EXPECT_EQ(fault_->injected(), 2u);
  ASSERT_NO_FATAL_FAILURE(CheckDb(t, &m));
  EXPECT_EQ(m.read_errors, 0);
  rocksdb::Status open;
  ASSERT_TRUE(ReopenAndCheck(uri, t, &m, &open)) << open.ToString();
  EXPECT_EQ(m.read_errors, 0);
  // Once its files are closed, nothing lives in a read-only zone any more.
  auto vol = FindVolume(uri);
  ASSERT_TRUE(vol.ok());
  std::vector<std::string> problems;
  testing_common::WaitFor([&] {
    problems = (*vol)->Check();
    return problems.empty();
  });
  for (const std::string& p : problems) ADD_FAILURE() << p;
}

TEST_F(DbFaultTest, ZoneGoingOfflineMidRunEndsInAnErrorOrACorrectDb) {
  for (const char* faults : {"offline@zone:3-23,after:100", "offline@zone:3-23,after:500"}) {
    SCOPED_TRACE(faults);
    const std::string uri = Uri(faults);
    TestDb t;
    ASSERT_NO_FATAL_FAILURE(Open(uri, &t));
    Model m;
    ASSERT_NO_FATAL_FAILURE(RunWorkload(t, 14, 1500, &m));
    EXPECT_EQ(fault_->injected(), 1u);
    ASSERT_NO_FATAL_FAILURE(CheckDb(t, &m));
    rocksdb::Status open;
    ReopenAndCheck(uri, t, &m, &open);
    ASSERT_FALSE(HasFatalFailure());
  }
}

// The zone holding the WAL goes offline while the DB is closed: the writes
// only the WAL held are gone, and the reopen must say so, not open a DB
// without them.
TEST_F(DbFaultTest, OfflineWalZoneFailsTheReopen) {
  const std::string uri = Uri("none");
  TestDb t;
  rocksdb::Options big = SmallOptions();
  big.write_buffer_size = 8 << 20;  // nothing flushed: the WAL holds it all
  uris_.push_back(uri);
  ASSERT_TRUE(OpenTestDb(uri, "/db", {}, big, &t).ok());
  fault_ = FaultDevice(uri);
  ASSERT_NE(fault_, nullptr);
  Model m;
  ASSERT_NO_FATAL_FAILURE(RunWorkload(t, 15, 300, &m));
  ASSERT_TRUE(m.write_error.ok()) << m.write_error.ToString();
  ASSERT_TRUE(t.Close().ok());
  int wal_zones = 0;
  for (const zfs::FileInfo& f : Files(uri)) {
    if (f.names.empty() || !f.names[0].ends_with(".log")) continue;
    for (const zfs::ExtentInfo& x : f.extents) {
      fault_->SetZoneOffline(x.zone);
      ++wal_zones;
    }
  }
  ASSERT_GT(wal_zones, 0);
  ASSERT_TRUE(Unmount(uri).ok());
  rocksdb::Status s = OpenTestDb(uri, "/db", {}, big, &t);
  if (s.ok()) {
    ASSERT_NO_FATAL_FAILURE(CheckDb(t, &m));
    FAIL() << "the DB opened without its WAL";
  }
  EXPECT_TRUE(absl::StrContains(s.ToString(), "offline")) << s.ToString();
  EXPECT_TRUE(absl::StrContains(s.ToString(), ".log")) << s.ToString();
}

// An SST's zone goes offline under an open DB: reads of its keys fail,
// naming the file, and no read returns a wrong value.
TEST_F(DbFaultTest, OfflineSstZoneGivesErrorsNamingTheFile) {
  const std::string uri = Uri("none");
  TestDb t;
  ASSERT_NO_FATAL_FAILURE(Open(uri, &t));
  Model m;
  ASSERT_NO_FATAL_FAILURE(RunWorkload(t, 16, 1500, &m));
  ASSERT_TRUE(m.write_error.ok()) << m.write_error.ToString();
  ASSERT_TRUE(t.db->Flush({}).ok());
  ASSERT_TRUE(t.db->CompactRange({}, nullptr, nullptr).ok());
  std::optional<uint32_t> zone;
  std::string sst;
  for (const zfs::FileInfo& f : Files(uri)) {
    if (f.names.empty() || !f.names[0].ends_with(".sst") || f.extents.empty()) continue;
    zone = f.extents.front().zone;
    sst = f.names[0];
  }
  ASSERT_TRUE(zone.has_value());
  fault_->SetZoneOffline(*zone);
  // Reads of blocks not cached hit the zone.
  rocksdb::ReadOptions no_cache;
  no_cache.fill_cache = false;
  int errors = 0;
  std::string named;
  for (int k = 0; k < kKeys; ++k) {
    const std::string key = absl::StrCat("k", k);
    std::string value;
    rocksdb::Status s = t.db->Get(no_cache, key, &value);
    ASSERT_NO_FATAL_FAILURE(CheckRead(key, s, value, &m));
    if (!s.ok() && !s.IsNotFound()) {
      ++errors;
      named = s.ToString();
    }
  }
  EXPECT_GT(errors, 0);
  EXPECT_TRUE(absl::StrContains(named, "offline")) << named;
  EXPECT_TRUE(absl::StrContains(named, ".sst")) << named;
  rocksdb::Status open;
  ReopenAndCheck(uri, t, &m, &open);
}

}  // namespace
}  // namespace zonestack::rocks
