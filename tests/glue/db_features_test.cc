// RocksDB's features that lean on the FileSystem beyond a DB's own files,
// through the zonestack:// URI, on a ZNS volume and on a hybrid ZNS +
// HM-SMR volume: a checkpoint (hard links, a directory renamed into
// place), BackupEngine (backup, verify, restore: on the same volume, on
// another, on the local file system), and external SST ingestion
// (SstFileWriter on the volume, then ingestion with copy and with
// move_files, which links). Each is checked
// by opening what it produced and reading every key back, also after the
// source DB changed and after the volume is unmounted and mounted again.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "db_test_util.h"
#include "rocksdb/file_system.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/utilities/backup_engine.h"
#include "rocksdb/utilities/checkpoint.h"

namespace zonestack::rocks {
namespace {

using Model = std::map<std::string, std::string>;

// Every key and value of `cf`, in order.
Model ReadAll(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf) {
  Model out;
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator({}, cf));
  for (it->SeekToFirst(); it->Valid(); it->Next()) out[it->key().ToString()] = it->value().ToString();
  EXPECT_TRUE(it->status().ok()) << it->status().ToString();
  return out;
}

class DbFeaturesTest : public ::testing::TestWithParam<const char*> {
 protected:
  const std::string uri_ = GetParam();
  void TearDown() override {
    db_.Close();
    (void)Forget(uri_);
  }

  void Open(const std::string& path, TestDb* t, rocksdb::Options options = SmallOptions()) {
    rocksdb::Status s = OpenTestDb(uri_, path, {"one"}, options, t);
    ASSERT_TRUE(s.ok()) << path << ": " << s.ToString();
  }

  // Writes `n` keys into both column families (the same in each), some
  // deletes, and flushes part of it, so there are SSTs, a WAL and a
  // MANIFEST with edits.
  // A BackupEngine over db_'s Env (the DB it backs up) with `bopts`.
  void OpenEngine(const rocksdb::BackupEngineOptions& bopts,
                  std::unique_ptr<rocksdb::BackupEngine>* engine) {
    rocksdb::BackupEngine* raw = nullptr;
    const rocksdb::IOStatus io = rocksdb::BackupEngine::Open(bopts, db_.env_guard.get(), &raw);
    ASSERT_TRUE(io.ok()) << io.ToString();
    engine->reset(raw);
  }

  void Write(int round, int n) {
    for (int i = 0; i < n; ++i) {
      const std::string key = absl::StrCat("key", i % 300);
      for (size_t c = 0; c < 2; ++c) {
        if (i % 11 == 5) {
          ASSERT_TRUE(db_.db->Delete({}, db_.cfs[c], key).ok());
          models_[c].erase(key);
        } else {
          const std::string value = absl::StrCat("r", round, "-", i, std::string(100, 'v'));
          ASSERT_TRUE(db_.db->Put({}, db_.cfs[c], key, value).ok());
          models_[c][key] = value;
        }
      }
      if (i == n / 2) {
        ASSERT_TRUE(db_.db->Flush({}, db_.cfs[0]).ok());
      }
    }
  }

  void ExpectModels(TestDb& t, const Model (&models)[2], const std::string& what) {
    for (size_t c = 0; c < 2; ++c) {
      EXPECT_TRUE(ReadAll(t.db.get(), t.cfs[c]) == models[c])
          << what << ", column family " << c << ": contents differ";
    }
  }

  std::vector<std::string> Children(const std::string& dir) {
    std::vector<std::string> out;
    EXPECT_TRUE(db_.env_guard->GetChildren(dir, &out).ok()) << dir;
    std::sort(out.begin(), out.end());
    return out;
  }

  TestDb db_;
  Model models_[2];
};

TEST_P(DbFeaturesTest, CheckpointOpensWithTheDataOfItsTime) {
  Open("/db", &db_);
  ASSERT_NO_FATAL_FAILURE(Write(1, 3000));
  rocksdb::Checkpoint* raw = nullptr;
  ASSERT_TRUE(rocksdb::Checkpoint::Create(db_.db.get(), &raw).ok());
  std::unique_ptr<rocksdb::Checkpoint> checkpoint(raw);
  rocksdb::Status s = checkpoint->CreateCheckpoint("/cp1");
  ASSERT_TRUE(s.ok()) << s.ToString();
  Model at_cp1[2] = {models_[0], models_[1]};
  // The source changes: overwrites, deletes, a compaction that deletes the
  // SSTs the checkpoint shares by hard link.
  ASSERT_NO_FATAL_FAILURE(Write(2, 2000));
  ASSERT_TRUE(db_.db->CompactRange({}, db_.cfs[0], nullptr, nullptr).ok());
  ASSERT_TRUE(checkpoint->CreateCheckpoint("/cp2").ok());
  const Model at_cp2[2] = {models_[0], models_[1]};
  ASSERT_NO_FATAL_FAILURE(Write(3, 500));
  // No temporary directory is left behind.
  for (const std::string& name : Children("/")) {
    EXPECT_EQ(name.find("tmp"), std::string::npos) << name;
  }
  EXPECT_EQ(checkpoint->CreateCheckpoint("/cp1").code(), rocksdb::Status::kInvalidArgument);
  for (int pass = 0; pass < 2; ++pass) {
    const std::string when = pass ? "after a remount" : "live";
    {
      TestDb cp;
      ASSERT_NO_FATAL_FAILURE(Open("/cp1", &cp));
      ExpectModels(cp, at_cp1, "checkpoint 1, " + when);
      // A checkpoint is a DB of its own: writable, apart from the source.
      if (pass == 0) {
        ASSERT_TRUE(cp.db->Put({}, cp.cfs[0], "cp-only", "x").ok());
        at_cp1[0]["cp-only"] = "x";
      }
    }
    {
      TestDb cp;
      ASSERT_NO_FATAL_FAILURE(Open("/cp2", &cp));
      ExpectModels(cp, at_cp2, "checkpoint 2, " + when);
    }
    ExpectModels(db_, models_, "source, " + when);
    std::string v;
    EXPECT_TRUE(db_.db->Get({}, db_.cfs[0], "cp-only", &v).IsNotFound());
    if (pass == 0) {
      ASSERT_TRUE(db_.Close().ok());
      ASSERT_TRUE(Unmount(uri_).ok());
      ASSERT_NO_FATAL_FAILURE(Open("/db", &db_));
    }
  }
}

// RocksDB's direct I/O (db_bench's --use_direct_reads
// --use_direct_io_for_flush_and_compaction): reads are aligned ones into
// RocksDB's aligned buffers (zs_files.h); every key reads back through
// iterators and point lookups, after a compaction and after a remount.
TEST_P(DbFeaturesTest, DirectReadsReadEveryKeyBack) {
  rocksdb::Options options = SmallOptions();
  options.use_direct_reads = true;
  options.use_direct_io_for_flush_and_compaction = true;
  Open("/db", &db_, options);
  ASSERT_NO_FATAL_FAILURE(Write(1, 3000));
  ASSERT_TRUE(db_.db->CompactRange({}, db_.cfs[0], nullptr, nullptr).ok());
  ASSERT_NO_FATAL_FAILURE(Write(2, 1000));
  ASSERT_TRUE(db_.db->Flush({}, db_.cfs[1]).ok());
  for (int pass = 0; pass < 2; ++pass) {
    const std::string when = pass ? "after a remount" : "live";
    ExpectModels(db_, models_, when);
    for (size_t c = 0; c < 2; ++c) {
      for (const auto& [key, value] : models_[c]) {
        std::string got;
        ASSERT_TRUE(db_.db->Get({}, db_.cfs[c], key, &got).ok()) << key << ", " << when;
        EXPECT_EQ(got, value) << key << ", " << when;
      }
    }
    if (pass == 0) {
      ASSERT_TRUE(db_.Close().ok());
      ASSERT_TRUE(Unmount(uri_).ok());
      ASSERT_NO_FATAL_FAILURE(Open("/db", &db_, options));
    }
  }
}

TEST_P(DbFeaturesTest, BackupVerifyAndRestoreOnTheSameVolume) {
  Open("/db", &db_);
  ASSERT_NO_FATAL_FAILURE(Write(1, 2000));
  rocksdb::BackupEngineOptions bopts("/backup");
  bopts.backup_env = db_.env_guard.get();
  std::unique_ptr<rocksdb::BackupEngine> engine;
  ASSERT_NO_FATAL_FAILURE(OpenEngine(bopts, &engine));
  ASSERT_TRUE(engine->CreateNewBackup(db_.db.get(), /*flush_before_backup=*/true).ok());
  const Model at_1[2] = {models_[0], models_[1]};
  ASSERT_NO_FATAL_FAILURE(Write(2, 1500));
  // Without a flush: the backup carries the WAL.
  ASSERT_TRUE(engine->CreateNewBackup(db_.db.get(), /*flush_before_backup=*/false).ok());
  const Model at_2[2] = {models_[0], models_[1]};
  ASSERT_NO_FATAL_FAILURE(Write(3, 500));
  std::vector<rocksdb::BackupInfo> infos;
  engine->GetBackupInfo(&infos);
  ASSERT_EQ(infos.size(), 2u);
  for (const auto& info : infos) {
    const rocksdb::IOStatus io =
        engine->VerifyBackup(info.backup_id, /*verify_with_checksum=*/true);
    EXPECT_TRUE(io.ok()) << info.backup_id << ": " << io.ToString();
  }
  ASSERT_TRUE(engine->RestoreDBFromBackup(infos[0].backup_id, "/restore1", "/restore1").ok());
  ASSERT_TRUE(engine->RestoreDBFromLatestBackup("/restore2", "/restore2").ok());
  engine.reset();
  ASSERT_TRUE(db_.Close().ok());
  ASSERT_TRUE(Unmount(uri_).ok());
  {
    TestDb r;
    ASSERT_NO_FATAL_FAILURE(Open("/restore1", &r));
    ExpectModels(r, at_1, "backup 1 restored");
  }
  {
    TestDb r;
    ASSERT_NO_FATAL_FAILURE(Open("/restore2", &r));
    ExpectModels(r, at_2, "backup 2 restored");
  }
  ASSERT_NO_FATAL_FAILURE(Open("/db", &db_));
  ExpectModels(db_, models_, "source");
  // A damaged backup is reported, not restored: delete one of its files.
  std::vector<std::string> shared = Children("/backup/shared_checksum");
  ASSERT_FALSE(shared.empty());
  ASSERT_TRUE(db_.env_guard->DeleteFile("/backup/shared_checksum/" + shared[0]).ok());
  bopts.backup_env = db_.env_guard.get();  // the env of the reopened DB
  ASSERT_NO_FATAL_FAILURE(OpenEngine(bopts, &engine));
  bool some_failed = false;
  for (const auto& info : infos) some_failed |= !engine->VerifyBackup(info.backup_id).ok();
  EXPECT_TRUE(some_failed);
}

TEST_P(DbFeaturesTest, BackupToAnotherVolumeAndRestoreFromIt) {
  // A second volume: another device list is another volume in the registry.
  const std::string backup_uri = "zonestack://emu:zn540?zones=20&scale=1/256&timing=none";
  Open("/db", &db_);
  ASSERT_NO_FATAL_FAILURE(Write(1, 2000));
  rocksdb::Env* backup_env = nullptr;
  std::shared_ptr<rocksdb::Env> backup_guard;
  ASSERT_TRUE(rocksdb::Env::CreateFromUri({}, "", backup_uri, &backup_env, &backup_guard).ok());
  rocksdb::BackupEngineOptions bopts("/backups/db");
  bopts.backup_env = backup_env;
  std::unique_ptr<rocksdb::BackupEngine> engine;
  ASSERT_NO_FATAL_FAILURE(OpenEngine(bopts, &engine));
  ASSERT_TRUE(engine->CreateNewBackup(db_.db.get(), true).ok());
  const Model at_1[2] = {models_[0], models_[1]};
  ASSERT_TRUE(engine->VerifyBackup(1, true).ok());
  ASSERT_NO_FATAL_FAILURE(Write(2, 1000));
  // Restore over the source DB itself, closed: it goes back in time.
  ASSERT_TRUE(db_.Close().ok());
  rocksdb::Status s = engine->RestoreDBFromBackup(1, "/db", "/db");
  ASSERT_TRUE(s.ok()) << s.ToString();
  engine.reset();
  ASSERT_NO_FATAL_FAILURE(Open("/db", &db_));
  ExpectModels(db_, at_1, "restored over the source");
  std::vector<std::string> on_backup_volume;
  ASSERT_TRUE(backup_env->GetChildren("/backups/db", &on_backup_volume).ok());
  EXPECT_FALSE(on_backup_volume.empty());
  backup_guard.reset();
  (void)Forget(backup_uri);
}

TEST_P(DbFeaturesTest, BackupToTheLocalFileSystemAndRestoreFromIt) {
  std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::replace(name.begin(), name.end(), '/', '_');
  const std::string local = absl::StrCat(::testing::TempDir(), "zs_backup_", name, "_", getpid());
  std::filesystem::remove_all(local);
  Open("/db", &db_);
  ASSERT_NO_FATAL_FAILURE(Write(1, 1500));
  rocksdb::BackupEngineOptions bopts(local);
  bopts.backup_env = rocksdb::Env::Default();
  std::unique_ptr<rocksdb::BackupEngine> engine;
  ASSERT_NO_FATAL_FAILURE(OpenEngine(bopts, &engine));
  ASSERT_TRUE(engine->CreateNewBackup(db_.db.get(), true).ok());
  const Model at_1[2] = {models_[0], models_[1]};
  ASSERT_TRUE(engine->VerifyBackup(1, true).ok());
  ASSERT_NO_FATAL_FAILURE(Write(2, 500));
  ASSERT_TRUE(engine->RestoreDBFromBackup(1, "/restored", "/restored").ok());
  ASSERT_TRUE(engine->DeleteBackup(1).ok());
  engine.reset();
  TestDb r;
  ASSERT_NO_FATAL_FAILURE(Open("/restored", &r));
  ExpectModels(r, at_1, "restored from the local file system");
  std::filesystem::remove_all(local);
}

TEST_P(DbFeaturesTest, IngestionCopiesOrLinksAnSstWrittenOnTheVolume) {
  rocksdb::Options options = SmallOptions();
  Open("/db", &db_, options);
  ASSERT_NO_FATAL_FAILURE(Write(1, 1000));
  ASSERT_TRUE(db_.env_guard->CreateDirIfMissing("/ext").ok());
  options.env = db_.env_guard.get();
  for (int move = 0; move < 2; ++move) {
    const std::string path = absl::StrCat("/ext/batch", move, ".sst");
    rocksdb::SstFileWriter writer({}, options);
    ASSERT_TRUE(writer.Open(path).ok());
    for (int i = 0; i < 500; ++i) {
      // Keys sorted, as SstFileWriter requires; half overwrite the DB's.
      const std::string key = absl::StrCat("key", 100 + i + move * 1000);
      const std::string value = absl::StrCat("ingested", move, "-", i);
      ASSERT_TRUE(writer.Put(key, value).ok());
      models_[0][key] = value;
    }
    ASSERT_TRUE(writer.Finish().ok());
    rocksdb::IngestExternalFileOptions iopts;
    iopts.move_files = move == 1;
    iopts.failed_move_fall_back_to_copy = false;  // a link must work, not be copied around
    rocksdb::Status s = db_.db->IngestExternalFile(db_.cfs[0], {path}, iopts);
    ASSERT_TRUE(s.ok()) << path << ": " << s.ToString();
    uint64_t links = 0;
    if (move) {
      // RocksDB linked the file in and removed the external name.
      EXPECT_TRUE(db_.env_guard->FileExists(path).IsNotFound()) << path;
    } else {
      ASSERT_TRUE(db_.env_guard->GetFileSystem()->NumFileLinks(path, {}, &links, nullptr).ok());
      EXPECT_EQ(links, 1u) << "a copy, not a link";
    }
    ExpectModels(db_, models_, absl::StrCat("after ingestion ", move));
  }
  ASSERT_NO_FATAL_FAILURE(Write(2, 300));
  ASSERT_TRUE(db_.db->CompactRange({}, db_.cfs[0], nullptr, nullptr).ok());
  ASSERT_TRUE(db_.Close().ok());
  ASSERT_TRUE(Unmount(uri_).ok());
  ASSERT_NO_FATAL_FAILURE(Open("/db", &db_));
  ExpectModels(db_, models_, "after a remount");
}

INSTANTIATE_TEST_SUITE_P(
    Volumes, DbFeaturesTest,
    ::testing::Values("zonestack://emu:zn540?zones=32&scale=1/256&timing=none",
                      "zonestack://emu:zn540?zones=12&scale=1/256&timing=none;"
                      "emu:st14000nm0007?zones=64&scale=1/256&timing=none"),
    [](const ::testing::TestParamInfo<const char*>& info) {
      return info.index == 0 ? "Zns" : "Hybrid";
    });

}  // namespace
}  // namespace zonestack::rocks
