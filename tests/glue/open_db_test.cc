// End to end: RocksDB, unmodified, on ZoneStack through OpenDb.
#include "glue/open_db.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "glue/volume_registry.h"

namespace zonestack::rocks {
namespace {

constexpr char kUri[] = "zonestack://emu:zn540?zones=32&scale=1/256&timing=none";

class OpenDbTest : public ::testing::Test {
 protected:
  void TearDown() override { EXPECT_TRUE(Forget(kUri).ok()); }

  static std::string Get(rocksdb::DB& db, const std::string& key) {
    std::string value;
    rocksdb::Status s = db.Get(rocksdb::ReadOptions(), key, &value);
    return s.ok() ? value : s.ToString();
  }
};

TEST_F(OpenDbTest, PutGetCloseReopenGet) {
  {
    auto db = OpenDb(kUri, "/db");
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE((*db)->Put(rocksdb::WriteOptions(), "key", "value").ok());
    EXPECT_EQ(Get(**db, "key"), "value");
  }
  auto db = OpenDb(kUri, "/db");
  ASSERT_TRUE(db.ok()) << db.status();
  EXPECT_EQ(Get(**db, "key"), "value");
}

TEST_F(OpenDbTest, DataSurvivesRemountAfterFlushAndCompaction) {
  rocksdb::Options options;
  options.write_buffer_size = 256 << 10;  // many flushes, then compactions
  options.target_file_size_base = 256 << 10;
  options.max_bytes_for_level_base = 1 << 20;
  const std::string value(1000, 'v');
  {
    auto db = OpenDb(kUri, "/deep/db", options);
    ASSERT_TRUE(db.ok()) << db.status();
    for (int i = 0; i < 8000; ++i) {
      ASSERT_TRUE((*db)->Put(rocksdb::WriteOptions(), absl::StrCat("k", i), value).ok());
    }
    ASSERT_TRUE((*db)->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr).ok());
    rocksdb::WriteOptions sync;
    sync.sync = true;
    ASSERT_TRUE((*db)->Put(sync, "last", "synced").ok());
  }
  // A process restart: the volume is mounted again from the same devices.
  ASSERT_TRUE(Unmount(kUri).ok());
  auto db = OpenDb(kUri, "/deep/db", options);
  ASSERT_TRUE(db.ok()) << db.status();
  for (int i = 0; i < 8000; i += 97) EXPECT_EQ(Get(**db, absl::StrCat("k", i)), value);
  EXPECT_EQ(Get(**db, "last"), "synced");
  std::vector<rocksdb::LiveFileMetaData> files;
  (*db)->GetLiveFilesMetaData(&files);
  EXPECT_GT(files.size(), 1u);  // flushes and compactions ran on zfs
}

TEST_F(OpenDbTest, SecondOpenOfTheSameDbFailsWithLockHeld) {
  auto first = OpenDb(kUri, "/db");
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = OpenDb(kUri, "/db");
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("lock held"), std::string::npos)
      << second.status();
  EXPECT_EQ(Unmount(kUri).code(), absl::StatusCode::kFailedPrecondition);  // DB open
}

TEST_F(OpenDbTest, ConfigFileAppliesRocksDbOptions) {
  const std::string path = ::testing::TempDir() + "/zs_open_db_test.json";
  {
    std::ofstream out(path);
    out << R"({"devices": ["emu:zn540?zones=32&scale=1/256&timing=none"],
               "rocksdb": {"write_buffer_size": 1048576, "max_background_jobs": "3",
                           "block_based_table_factory": "{block_size=8192}"}})";
  }
  auto db = OpenDb(path, "/cfgdb");  // a bare path, no scheme
  std::remove(path.c_str());
  ASSERT_TRUE(db.ok()) << db.status();
  EXPECT_EQ((*db)->GetOptions().write_buffer_size, 1048576u);
  EXPECT_EQ((*db)->GetDBOptions().max_background_jobs, 3);
  ASSERT_TRUE((*db)->Put(rocksdb::WriteOptions(), "a", "b").ok());
  EXPECT_EQ(Get(**db, "a"), "b");
}

// GearDB's LLC baseline (docs/geardb.md): the log layout with zfs's GC and
// RocksDB's round-robin compaction priority, all from the volume config;
// zsbench's --rocksdb-option takes the same name and value.
TEST_F(OpenDbTest, LlcConfigSetsRoundRobinCompaction) {
  const std::string path = ::testing::TempDir() + "/zs_open_db_llc_test.json";
  {
    std::ofstream out(path);
    out << R"({"devices": ["emu:st13125nm007?zones=40&scale=1/1024&timing=none"],
               "scheme": "log", "gc": {"threshold": 0.2},
               "rocksdb": {"compaction_pri": "kRoundRobin"}})";
  }
  {
    auto db = OpenDb(path, "/llc");
    ASSERT_TRUE(db.ok()) << db.status();
    EXPECT_EQ((*db)->GetOptions().compaction_pri, rocksdb::kRoundRobin);
    ASSERT_TRUE((*db)->Put(rocksdb::WriteOptions(), "a", "b").ok());
    EXPECT_EQ(Get(**db, "a"), "b");
  }
  EXPECT_TRUE(Forget(kUriScheme + path).ok());
  std::remove(path.c_str());
  rocksdb::Options o;
  ASSERT_TRUE(ApplyRocksDbOptions({{"compaction_pri", "kRoundRobin"}}, &o).ok());
  EXPECT_EQ(o.compaction_pri, rocksdb::kRoundRobin);
  EXPECT_FALSE(ApplyRocksDbOptions({{"compaction_pri", "kRoundRobins"}}, &o).ok());
}

TEST_F(OpenDbTest, BadInputsAreClearErrors) {
  auto relative = OpenDb(kUri, "db");
  EXPECT_EQ(relative.status().code(), absl::StatusCode::kInvalidArgument);
  auto bad_uri = OpenDb("zonestack://emu:zn540?zones=x", "/db");
  EXPECT_EQ(bad_uri.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad_uri.status().message().find("zones"), std::string::npos) << bad_uri.status();
  EXPECT_TRUE(Forget("zonestack://emu:zn540?zones=x").ok());

  rocksdb::Options options;
  std::map<std::string, std::string> unknown{{"write_bufer_size", "1"}};
  absl::Status s = ApplyRocksDbOptions(unknown, &options);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("unknown RocksDB option 'write_bufer_size'"), std::string::npos)
      << s;
  std::map<std::string, std::string> bad_value{{"write_buffer_size", "lots"}};
  s = ApplyRocksDbOptions(bad_value, &options);
  EXPECT_NE(s.message().find("'write_buffer_size' = 'lots'"), std::string::npos) << s;
}

}  // namespace
}  // namespace zonestack::rocks
