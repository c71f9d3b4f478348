// libzonestack.so as a program linking it sees it: this test links the
// library and RocksDB, nothing else of ours, and uses only the public
// header and RocksDB's. Volumes are file-backed devices in a directory of
// each test's own, so tests never share a volume.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/file_system.h"
#include "rocksdb/options.h"
#include "zonestack/zonestack.h"

namespace {

const char kWarning[] = "runs without the RocksDB hints it needs";

class PluginApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "zs-plugin-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A config-file URI for a volume of `scheme` on a ZN540 SSD, plus an
  // ST14000NM0007 disk unless `ssd_only`.
  std::string Volume(const std::string& scheme, bool ssd_only = false) {
    const std::string config = dir_ + "/volume.json";
    std::ofstream out(config);
    out << R"({"devices": ["emu:zn540?zones=32&scale=1/256&timing=none&file=)" << dir_
        << "/ssd.zsemu\"";
    if (!ssd_only) {
      out << R"(, "emu:st14000nm0007?zones=128&scale=1/256&timing=none&file=)" << dir_
          << "/hdd.zsemu\"";
    }
    out << R"(], "scheme": ")" << scheme << "\"}";
    return "zonestack://" + config;
  }

  // The Env a zonestack:// URI names (through the registry, as a tool
  // gets it); null, with a test failure, if it did not resolve.
  static std::shared_ptr<rocksdb::Env> EnvFor(const std::string& uri) {
    rocksdb::Env* env = nullptr;
    std::shared_ptr<rocksdb::Env> guard;
    const rocksdb::Status s = rocksdb::Env::CreateFromUri({}, "", uri, &env, &guard);
    if (!s.ok() || env != guard.get()) {
      ADD_FAILURE() << uri << ": " << s.ToString();
      return nullptr;
    }
    return guard;
  }

  std::string dir_;
};

// Small memtables, so a few thousand puts flush and compact.
rocksdb::Options Small() {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.write_buffer_size = 64 << 10;
  o.target_file_size_base = 64 << 10;
  o.max_bytes_for_level_base = 256 << 10;
  o.level0_file_num_compaction_trigger = 2;
  return o;
}

void Fill(rocksdb::DB* db, int n) {
  for (int i = 0; i < n; ++i) {
    const std::string key = "key" + std::to_string(i * 7919 % n);
    ASSERT_TRUE(db->Put({}, key, std::string(200, 'a' + i % 26)).ok());
  }
  ASSERT_TRUE(db->Flush({}).ok());
  // Compaction jobs too, whose outputs need the listener's levels.
  ASSERT_TRUE(db->CompactRange({}, nullptr, nullptr).ok());
}

// The DB's info LOG; close the DB first: zfs shows a file's bytes once
// written, and the LOG's Flush buffers (ZoneStack keeps it a no-op).
std::string InfoLog(rocksdb::Env* env, const std::string& db_path) {
  std::string text;
  EXPECT_TRUE(rocksdb::ReadFileToString(env, db_path + "/LOG", &text).ok());
  return text;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

// (a) of the plugin: a program taking an fs_uri, with no ZoneStack code.
TEST_F(PluginApiTest, EnvFromUriOpensADbOnTheVolume) {
  const std::string uri = Volume("lifetime", /*ssd_only=*/true);
  rocksdb::Env* env = nullptr;
  std::shared_ptr<rocksdb::Env> guard;
  rocksdb::ConfigOptions config;
  config.ignore_unsupported_options = false;  // an unknown URI is an error, not a null Env
  ASSERT_TRUE(rocksdb::Env::CreateFromUri(config, "", uri, &env, &guard).ok());
  rocksdb::Options options = Small();
  options.env = env;
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(options, "/db", &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  Fill(db.get(), 3000);
  std::string value;
  ASSERT_TRUE(db->Get({}, "key7", &value).ok());
  EXPECT_EQ(value.size(), 200u);

  std::vector<std::string> children;
  ASSERT_TRUE(env->GetChildren("/db", &children).ok());
  EXPECT_TRUE(std::any_of(children.begin(), children.end(),
                          [](const std::string& c) { return c.ends_with(".sst"); }));
  // The DB lives on the volume, not on the host's file system.
  EXPECT_FALSE(std::filesystem::exists("/db/CURRENT"));
  // The lifetime scheme needs no hints: no warning.
  db.reset();
  EXPECT_EQ(Count(InfoLog(env, "/db"), kWarning), 0u);
}

TEST_F(PluginApiTest, OpenDbAttachesTheHintsItself) {
  const std::string uri = Volume("hhzs");
  std::unique_ptr<rocksdb::DB> db;
  ASSERT_TRUE(zonestack::OpenDb(uri, "/db", Small(), &db).ok());
  Fill(db.get(), 3000);
  // The DB owns its Env: read the LOG through another one.
  db.reset();
  const std::shared_ptr<rocksdb::Env> guard = EnvFor(uri);
  ASSERT_NE(guard, nullptr);
  rocksdb::Env* env = guard.get();
  EXPECT_EQ(Count(InfoLog(env, "/db"), kWarning), 0u);
}

TEST_F(PluginApiTest, HintedSchemeWithoutHintsWarnsOnceInTheInfoLog) {
  const std::string uri = Volume("hhzs");
  const std::shared_ptr<rocksdb::Env> guard = EnvFor(uri);
  ASSERT_NE(guard, nullptr);
  rocksdb::Env* env = guard.get();
  rocksdb::Options options = Small();
  options.env = env;
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(options, "/db", &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  Fill(db.get(), 3000);
  db.reset();
  const std::string log = InfoLog(env, "/db");
  EXPECT_EQ(Count(log, kWarning), 1u) << log;
  EXPECT_NE(log.find("scheme 'hhzs'"), std::string::npos);
  EXPECT_NE(log.find("ZoneStackSsdCache"), std::string::npos);  // hhzs caches
}

// (b) of the hints: one call for a program that opens its DB itself.
TEST_F(PluginApiTest, AttachHintsGivesTheDbTheListenerAndNoWarning) {
  const std::string uri = Volume("hhzs");
  const std::shared_ptr<rocksdb::Env> guard = EnvFor(uri);
  ASSERT_NE(guard, nullptr);
  rocksdb::Env* env = guard.get();
  rocksdb::Options options = Small();
  options.env = env;
  const auto table_before = options.table_factory;
  ASSERT_TRUE(zonestack::AttachHints(&options, uri).ok());
  ASSERT_EQ(options.listeners.size(), 1u);
  EXPECT_STREQ(options.listeners[0]->Name(), "ZoneStackHintListener");
  // hhzs caches: a new block cache (with the SSD cache behind it).
  EXPECT_NE(options.table_factory, table_before);
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(options, "/db", &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  Fill(db.get(), 3000);
  db.reset();
  EXPECT_EQ(Count(InfoLog(env, "/db"), kWarning), 0u);
}

TEST_F(PluginApiTest, AttachHintsLeavesOptionsOfASchemeWithoutHintsAlone) {
  const std::string uri = Volume("lifetime", /*ssd_only=*/true);
  rocksdb::Options options = Small();
  const auto table_before = options.table_factory;
  ASSERT_TRUE(zonestack::AttachHints(&options, uri).ok());
  EXPECT_TRUE(options.listeners.empty());
  EXPECT_EQ(options.table_factory, table_before);
}

TEST_F(PluginApiTest, AttachHintsRejectsABadUri) {
  rocksdb::Options options;
  EXPECT_TRUE(zonestack::AttachHints(&options, "zonestack://").IsInvalidArgument());
  // A missing config file is named.
  rocksdb::Status s = zonestack::AttachHints(&options, "zonestack://" + dir_ + "/none.json");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("none.json"), std::string::npos) << s.ToString();
  EXPECT_TRUE(options.listeners.empty());
}
