// The hint listener end to end: RocksDB's callbacks keep a scheme's LSM
// view, and zfs's record of SST levels, equal to RocksDB's own metadata
// through flushes, compactions, trivial moves, CompactFiles and reopens.
#include "glue/hint_listener.h"

#include <atomic>
#include <set>

#include "rocksdb/sst_file_writer.h"
#include "db_test_util.h"
#include "scheme_test_util.h"

namespace zonestack::rocks {
namespace {

void ExpectNoMismatches(const std::vector<std::string>& problems) {
  for (const std::string& p : problems) ADD_FAILURE() << p;
}

TEST(HintListenerTest, InputLevelIndexesBecomeAbsoluteLevels) {
  // Level style: index 0 is the start level, 1 the output level.
  EXPECT_EQ(AbsoluteInputLevel(0, 2, 3), 2);
  EXPECT_EQ(AbsoluteInputLevel(1, 2, 3), 3);
  // L0 into a base level further down (dynamic level sizes).
  EXPECT_EQ(AbsoluteInputLevel(0, 0, 5), 0);
  EXPECT_EQ(AbsoluteInputLevel(1, 0, 5), 5);
  // Several input levels from L1 (CompactFiles-like): consecutive levels.
  EXPECT_EQ(AbsoluteInputLevel(1, 1, 3), 2);
  EXPECT_EQ(AbsoluteInputLevel(2, 1, 3), 3);
  EXPECT_EQ(AbsoluteInputLevel(5, 1, 3), 3);  // never past the output
  // Intra-L0.
  EXPECT_EQ(AbsoluteInputLevel(0, 0, 0), 0);
}

// Counts compactions that moved files without rewriting them.
class MoveCounter : public rocksdb::EventListener {
 public:
  void OnCompactionCompleted(rocksdb::DB*, const rocksdb::CompactionJobInfo& ci) override {
    std::set<uint64_t> in, out;
    for (const auto& f : ci.input_file_infos) in.insert(f.file_number);
    for (const auto& f : ci.output_file_infos) out.insert(f.file_number);
    if (ci.status.ok() && !out.empty() && in == out) trivial_moves += out.size();
  }
  std::atomic<int> trivial_moves{0};
};

TEST_F(SchemeDbTest, ViewAndZfsFollowRocksDbThroughCompactions) {
  const std::string config = WriteConfig(R"("scheme": {"name": "p"})");
  auto db = OpenDb(config, "/db", LevelOptions());
  ASSERT_TRUE(db.ok()) << db.status();
  auto parts = PartsOf(**db);
  ASSERT_TRUE(parts.has_value());
  ASSERT_NE(parts->scheme, nullptr);
  ASSERT_NE(parts->listener, nullptr);
  EXPECT_EQ(parts->cache, nullptr) << "p does not cache";

  Model model;
  Fill(db->get(), 4000, 400, 20000, 1, &model);
  ExpectNoMismatches(SettledMismatches(db->get()));
  ASSERT_GE(MaxLevel(db->get()), 3) << "the workload should build several levels";

  // A manual compaction of everything: OnCompactionBegin for each level.
  rocksdb::CompactRangeOptions all;
  all.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  ASSERT_TRUE((*db)->CompactRange(all, nullptr, nullptr).ok());
  ExpectNoMismatches(SettledMismatches(db->get()));

  // User reads are counted per SST; the view knows every live SST.
  for (uint64_t i = 0; i < 20000; i += 97) {
    std::string v;
    (void)(*db)->Get(rocksdb::ReadOptions(), Key(i), &v);
  }
  uint64_t reads = 0;
  for (const policy::SstInfo& s : parts->scheme->view().Ssts()) reads += s.reads;
  EXPECT_GT(reads, 0u) << "user reads were not counted";
  CheckModel(db->get(), model);
}

TEST_F(SchemeDbTest, TrivialMovesReachZfs) {
  const std::string config = WriteConfig(R"("scheme": {"name": "p"})");
  auto counter = std::make_shared<MoveCounter>();
  rocksdb::Options options = LevelOptions();
  options.listeners.push_back(counter);  // the caller's listeners stay
  auto db = OpenDb(config, "/db", options);
  ASSERT_TRUE(db.ok()) << db.status();
  Model model;
  // Sequential keys never overlap: compactions move files down unchanged.
  Fill(db->get(), 3000, 400, 0, 2, &model, /*sequential=*/true);
  ExpectNoMismatches(SettledMismatches(db->get()));
  EXPECT_GT(counter->trivial_moves.load(), 0) << "the workload made no trivial move to check";
  EXPECT_GE(MaxLevel(db->get()), 2);
  // Moved files are marked so in the view.
  int moved = 0;
  for (const policy::SstInfo& s : PartsOf(**db)->scheme->view().Ssts()) moved += s.trivially_moved;
  EXPECT_GT(moved, 0);
}

TEST_F(SchemeDbTest, CompactFilesJobsAreLearnedFromSubcompactions) {
  const std::string config = WriteConfig(R"("scheme": {"name": "p"})");
  rocksdb::Options options = LevelOptions();
  options.disable_auto_compactions = true;
  auto db = OpenDb(config, "/db", options);
  ASSERT_TRUE(db.ok()) << db.status();
  Model model;
  for (int i = 0; i < 3; ++i) {
    Fill(db->get(), 100, 400, 1000, 10 + i, &model);
    ASSERT_TRUE((*db)->Flush(rocksdb::FlushOptions()).ok());
  }
  std::vector<rocksdb::LiveFileMetaData> live;
  (*db)->GetLiveFilesMetaData(&live);
  std::vector<std::string> inputs;
  for (const auto& f : live) inputs.push_back(f.relative_filename);
  ASSERT_EQ(inputs.size(), 3u);
  rocksdb::CompactionOptions co;
  co.compression = rocksdb::kDisableCompressionOption;
  std::vector<std::string> outputs;
  // Runs on this thread and fires no OnCompactionBegin/Completed.
  ASSERT_TRUE((*db)->CompactFiles(co, inputs, 2, -1, &outputs).ok());
  ASSERT_FALSE(outputs.empty());
  // zfs got level 2 when each output was created: nothing re-synced since.
  const auto zfs = ZfsSsts(*PartsOf(**db)->volume);
  for (const std::string& out : outputs) {
    auto z = zfs.find(out);
    ASSERT_NE(z, zfs.end()) << out;
    EXPECT_EQ(z->second.hint.level, 2) << out;
  }
  ExpectNoMismatches(SettledMismatches(db->get()));
  CheckModel(db->get(), model);
}

TEST_F(SchemeDbTest, ReopenResyncsTheViewOfANewMount) {
  const std::string config = WriteConfig(R"("scheme": {"name": "p"})");
  Model model;
  {
    auto db = OpenDb(config, "/db", LevelOptions());
    ASSERT_TRUE(db.ok()) << db.status();
    Fill(db->get(), 3000, 400, 20000, 3, &model);
    ExpectNoMismatches(SettledMismatches(db->get()));
  }
  // A process restart: a new scheme, whose view starts from zfs's hints.
  ASSERT_TRUE(Unmount(kUriScheme + config).ok());
  auto db = OpenDb(config, "/db", LevelOptions());
  ASSERT_TRUE(db.ok()) << db.status();
  ExpectNoMismatches(SettledMismatches(db->get()));
  CheckModel(db->get(), model);
  Fill(db->get(), 1000, 400, 20000, 4, &model);
  ExpectNoMismatches(SettledMismatches(db->get()));
  CheckModel(db->get(), model);
}

TEST_F(SchemeDbTest, OpenRepairsWhatADbWithoutTheListenerLeft) {
  const std::string config = WriteConfig(R"("scheme": {"name": "p"})");
  Model model;
  {
    // RocksDB through the URI alone, as db_bench --fs_uri would: no
    // listener, so neither the view nor zfs learn any level.
    TestDb t;
    rocksdb::Options options = LevelOptions();
    options.create_if_missing = true;
    rocksdb::Status s = OpenTestDb(kUriScheme + config, "/db", {}, options, &t);
    ASSERT_TRUE(s.ok()) << s.ToString();
    Fill(t.db.get(), 3000, 400, 20000, 5, &model);
    ASSERT_TRUE(t.db->Flush(rocksdb::FlushOptions()).ok());
    rocksdb::CompactRangeOptions all;
    ASSERT_TRUE(t.db->CompactRange(all, nullptr, nullptr).ok());
    ASSERT_TRUE(t.Close().ok());
  }
  auto db = OpenDb(config, "/db", LevelOptions());
  ASSERT_TRUE(db.ok()) << db.status();
  ExpectNoMismatches(SettledMismatches(db->get()));
  EXPECT_GE(MaxLevel(db->get()), 1);
  CheckModel(db->get(), model);
}

TEST_F(SchemeDbTest, IngestedFilesGetTheirLevel) {
  const std::string config = WriteConfig(R"("scheme": {"name": "p"})");
  auto db = OpenDb(config, "/db", LevelOptions());
  ASSERT_TRUE(db.ok()) << db.status();
  Model model;
  Fill(db->get(), 2000, 400, 20000, 9, &model);
  ExpectNoMismatches(SettledMismatches(db->get()));
  // An SST built outside the DB, on zfs, with keys after all others: it
  // goes to the bottommost level it fits. (Not named like a DB's SST: the
  // view knows SSTs by number, whatever their directory.)
  const rocksdb::Options options = (*db)->GetOptions();
  ASSERT_TRUE(options.env->CreateDirIfMissing("/ext").ok());
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options);
  ASSERT_TRUE(writer.Open("/ext/ingest.sst").ok());
  for (int i = 0; i < 100; ++i) {
    const std::string key = absl::StrCat("zz", 1000 + i);
    ASSERT_TRUE(writer.Put(key, "ingested").ok());
    model[key] = "ingested";
  }
  ASSERT_TRUE(writer.Finish().ok());
  ASSERT_TRUE((*db)->IngestExternalFile({"/ext/ingest.sst"}, rocksdb::IngestExternalFileOptions()).ok());
  ExpectNoMismatches(SettledMismatches(db->get()));
  CheckModel(db->get(), model);
}

}  // namespace
}  // namespace zonestack::rocks
