// zsbench's runner end to end on an instant emulated volume: the load
// phase inserts every record, the run phase finds every key it reads (so
// load and run name keys alike), proportions and metrics are filled in;
// failed operations are counted by kind, readseq's included.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "glue/open_db.h"
#include "rocksdb/statistics.h"
#include "glue/volume_registry.h"
#include "tools/zsbench/report.h"
#include "tools/zsbench/runner.h"

namespace zonestack::zsbench {
namespace {

constexpr char kUri[] = "zonestack://emu:zn540?zones=32&scale=1/256&timing=none";

PhaseSpec Phase(const std::string& name, int64_t records, uint64_t ops, int threads) {
  auto p = PhaseByName(name);
  EXPECT_TRUE(p.ok()) << p.status();
  p->workload.record_count = records;
  p->workload.operation_count = static_cast<int64_t>(ops);
  p->workload.key_size = 24;
  p->workload.field_count = 1;
  p->workload.field_length = 200;
  p->ops = ops;
  p->threads = threads;
  p->sample_interval = 0.05;
  return *p;
}

class ZsbenchRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rocksdb::Options o;
    o.write_buffer_size = 256 << 10;
    o.statistics = rocksdb::CreateDBStatistics();
    stats_ = o.statistics;
    auto db = rocks::OpenDb(kUri, "/db", o);
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = std::move(*db);
    volume_ = *rocks::FindVolume(kUri);
  }
  void TearDown() override {
    db_.reset();
    volume_.reset();
    EXPECT_TRUE(rocks::Forget(kUri).ok());
  }
  std::unique_ptr<rocksdb::DB> db_;
  std::shared_ptr<zfs::Volume> volume_;
  std::shared_ptr<rocksdb::Statistics> stats_;
};

// SplitZNS Fig. 16(c)'s uniform YCSB-A: half reads, half updates, every
// key read from the load's key space.
TEST_F(ZsbenchRunnerTest, UniformMixReadsLoadedKeysHalfTheTime) {
  auto load = RunPhase(db_.get(), volume_.get(), stats_.get(), Phase("ycsb-a-load", 3000, 3000, 2));
  ASSERT_TRUE(load.ok()) << load.status();
  auto run =
      RunPhase(db_.get(), volume_.get(), stats_.get(), Phase("mix:0.5:uniform", 3000, 4000, 2));
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->ops, 4000u);
  EXPECT_EQ(run->errors, 0u) << run->first_error;
  EXPECT_EQ(run->reads_missed, 0u) << "the mix read keys the load never wrote";
  const double reads = static_cast<double>(run->latency_ns.at("READ").count());
  EXPECT_NEAR(reads / 4000, 0.5, 0.05);
}

TEST_F(ZsbenchRunnerTest, YcsbLoadThenRunFindsEveryKeyAndSplitsOperations) {
  auto load = RunPhase(db_.get(), volume_.get(), stats_.get(), Phase("ycsb-a-load", 5000, 5000, 2));
  ASSERT_TRUE(load.ok()) << load.status();
  EXPECT_EQ(load->ops, 5000u);
  EXPECT_EQ(load->errors, 0u) << load->first_error;
  EXPECT_EQ(load->latency_ns.at("INSERT").count(), 5000u);
  EXPECT_EQ(load->user_bytes_written, 5000u * (24 + 200));
  ASSERT_EQ(load->devices.size(), 1u);
  EXPECT_GT(load->write_amplification(), 1.0);  // WAL + SSTs
  EXPECT_GT(load->devices[0].by_class.at("wal").write_bytes, 0u);

  auto run = RunPhase(db_.get(), volume_.get(), stats_.get(), Phase("ycsb-a", 5000, 4000, 2));
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->ops, 4000u);
  EXPECT_EQ(run->reads_missed, 0u) << "the run read keys the load never wrote";
  const double reads = static_cast<double>(run->latency_ns.at("READ").count());
  // Workload A is 50% reads: 4000 draws, 3 standard deviations is ~4.7%.
  EXPECT_NEAR(reads / 4000, 0.5, 0.05);
  EXPECT_FALSE(run->samples.empty());
  EXPECT_FALSE(run->timeline.empty());
  uint64_t timeline_ops = 0;
  for (uint64_t n : run->timeline) timeline_ops += n;
  EXPECT_EQ(timeline_ops, 4000u);
}

TEST_F(ZsbenchRunnerTest, DbBenchFillThenReadFindsWhatItWrote) {
  auto fill = RunPhase(db_.get(), volume_.get(), stats_.get(), Phase("fillseq", 3000, 3000, 1));
  ASSERT_TRUE(fill.ok()) << fill.status();
  auto read = RunPhase(db_.get(), volume_.get(), stats_.get(), Phase("readrandom", 3000, 2000, 2));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->reads_found, 2000u);
  auto seq = RunPhase(db_.get(), volume_.get(), stats_.get(), Phase("readseq", 3000, 3000, 1));
  ASSERT_TRUE(seq.ok()) << seq.status();
  EXPECT_EQ(seq->ops, 3000u);
}

TEST_F(ZsbenchRunnerTest, DbBenchPhasesWithYcsbKeysMeetAYcsbLoadsKeys) {
  auto load = RunPhase(db_.get(), volume_.get(), stats_.get(), Phase("ycsb-a-load", 3000, 3000, 2));
  ASSERT_TRUE(load.ok()) << load.status();
  PhaseSpec read = Phase("readrandom", 3000, 2000, 2);
  read.ycsb_keys = true;
  auto r = RunPhase(db_.get(), volume_.get(), stats_.get(), read);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->reads_found, 2000u);
  EXPECT_EQ(r->reads_missed, 0u);
  // The ordered names ("user" + k) are another key space: every read
  // misses (why --dbbench-keys exists).
  auto ordered = RunPhase(db_.get(), volume_.get(), stats_.get(), Phase("readrandom", 3000, 500, 1));
  ASSERT_TRUE(ordered.ok()) << ordered.status();
  EXPECT_EQ(ordered->reads_missed, 500u);
}

TEST_F(ZsbenchRunnerTest, JsonCarriesTheDocumentedFields) {
  auto r = RunPhase(db_.get(), volume_.get(), stats_.get(), Phase("fillrandom", 2000, 2000, 1));
  ASSERT_TRUE(r.ok());
  const nlohmann::json j = ToJson({{"zns", kUri, {*r}}}, {{"records", 2000}});
  EXPECT_EQ(j["format"], "zsbench-results");
  const auto& p = j["schemes"][0]["phases"][0];
  for (const char* key : {"ops", "ops_per_second", "latency", "timeline", "devices", "samples",
                          "write_amplification", "zone_utilization", "rocksdb"}) {
    EXPECT_TRUE(p.contains(key)) << key;
  }
  EXPECT_TRUE(p["latency"]["UPDATE"].contains("p9999_us"));
  EXPECT_TRUE(p["devices"][0]["by_class"].contains("wal"));
  for (const char* key : {"late_commands", "late_ns"}) {
    EXPECT_TRUE(p["devices"][0].contains(key)) << key;
  }
  // A ZN540 programs TLC, all of it for the host.
  const auto& nand = p["devices"][0]["nand"];
  EXPECT_GT(nand["programmed"]["tlc"]["host"].get<uint64_t>(), 0u);
  EXPECT_EQ(nand["programmed"]["tlc"]["migration"].get<uint64_t>(), 0u);
  EXPECT_EQ(nand["programmed_total"].get<uint64_t>(),
            nand["programmed"]["tlc"]["host"].get<uint64_t>());
  for (const char* key : {"simple_copies", "copy_bytes", "slc_zone_migrations", "qlc_page_reads"}) {
    EXPECT_TRUE(nand.contains(key)) << key;
  }
  const auto& sample = p["samples"].back();
  EXPECT_GT(sample["capacity_bytes"][0].get<uint64_t>(), 0u);
  EXPECT_GT(sample["used_bytes"][0].get<uint64_t>(), 0u);
  EXPECT_EQ(sample["slc_used_bytes"][0].get<uint64_t>(), 0u);
}

// readseq on RocksDB's own file system with one SST's data corrupted: the
// iterator stops early either way, and only its status says the DB is not
// merely shorter.
TEST(ZsbenchReadSeqTest, CorruptionIsAnErrorNotAShorterDb) {
  const std::string path =
      ::testing::TempDir() + "/readseq_corruption_db_" + std::to_string(::getpid());
  rocksdb::Options o;
  o.create_if_missing = true;
  o.compression = rocksdb::kNoCompression;
  rocksdb::DestroyDB(path, o);
  {
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(o, path, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    auto fill = RunPhase(db.get(), nullptr, nullptr, Phase("fillseq", 3000, 3000, 1));
    ASSERT_TRUE(fill.ok()) << fill.status();
    ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  }
  // Garbage over a data block a third of the way into the one SST.
  std::string sst;
  for (const auto& e : std::filesystem::directory_iterator(path)) {
    if (e.path().extension() == ".sst") sst = e.path().string();
  }
  ASSERT_FALSE(sst.empty());
  {
    std::fstream f(sst, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(std::filesystem::file_size(sst) / 3));
    f << std::string(64, 'X');
  }
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(o, path, &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  auto seq = RunPhase(db.get(), nullptr, nullptr, Phase("readseq", 3000, 3000, 1));
  ASSERT_TRUE(seq.ok()) << seq.status();
  EXPECT_LT(seq->ops, 3000u);
  EXPECT_EQ(seq->errors, 1u) << "readseq ended after " << seq->ops << " keys and said nothing";
  EXPECT_EQ(seq->errors_by_kind["corruption"], 1u);
  db.reset();
  rocksdb::DestroyDB(path, o);
}

TEST(ZsbenchErrorsTest, KindsNameWhatFailed) {
  EXPECT_EQ(ErrorKind(rocksdb::Status::NoSpace("full")), "no_space");
  EXPECT_EQ(ErrorKind(rocksdb::Status::Corruption("bad block")), "corruption");
  EXPECT_EQ(ErrorKind(rocksdb::Status::IOError("read")), "io_error");
  PhaseResult p;
  p.name = "fillrandom";
  p.errors = 3;
  p.errors_by_kind = {{"no_space", 2}, {"corruption", 1}};
  p.background_errors = 1;
  const std::vector<SchemeResult> schemes = {{"zns", kUri, {p}}};
  const ErrorTotals t = CountErrors(schemes);
  EXPECT_EQ(t.operations, 3u);
  EXPECT_EQ(t.background, 1u);
  const std::string line = FailureLine(schemes);
  EXPECT_NE(line.find("3 operation(s) failed (2 no space, 1 corruption)"), std::string::npos)
      << line;
  EXPECT_NE(line.find("zns fillrandom"), std::string::npos) << line;
  EXPECT_EQ(FailureLine({{"zns", kUri, {PhaseResult{}}}}), "");
  const nlohmann::json j = ToJson(schemes, {});
  EXPECT_EQ(j["errors"]["operations"], 3);
  EXPECT_EQ(j["schemes"][0]["phases"][0]["errors_by_kind"]["no_space"], 2);
}

TEST(ZsbenchPhaseTest, UnknownWorkloadListsTheValidOnes) {
  auto p = PhaseByName("ycsb-z");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(std::string(p.status().message()).find("ycsb-a..ycsb-f"), std::string::npos);
  EXPECT_FALSE(PhaseByName("mix:2:0.9").ok());
  auto mix = PhaseByName("mix:0.3:1.2");
  ASSERT_TRUE(mix.ok());
  EXPECT_DOUBLE_EQ(mix->workload.zipfian_constant, 1.2);
  EXPECT_EQ(mix->workload.request_distribution, bench::RequestDistribution::kZipfian);
  auto uniform = PhaseByName("mix:0.5:uniform");
  ASSERT_TRUE(uniform.ok()) << uniform.status();
  EXPECT_EQ(uniform->workload.request_distribution, bench::RequestDistribution::kUniform);
  EXPECT_DOUBLE_EQ(uniform->workload.read_proportion, 0.5);
  EXPECT_FALSE(PhaseByName("mix:0.5:flat").ok());
}

}  // namespace
}  // namespace zonestack::zsbench

namespace zonestack::zsbench {
namespace {

TEST(ZsbenchDeltaTest, NandCountersSplitHostAndMigrationProgramsPerMode) {
  device::DeviceStats before, after;
  const int slc = static_cast<int>(device::CellMode::kSlc);
  const int qlc = static_cast<int>(device::CellMode::kQlc);
  before.programmed_bytes[slc] = 100;
  after.programmed_bytes[slc] = 1100;
  after.programmed_bytes[qlc] = 700;
  after.migration_programmed_bytes[qlc] = 500;
  before.simple_copies = 2;
  after.simple_copies = 5;
  after.copy_bytes = 300;
  after.slc_zone_migrations = 1;
  after.qlc_page_reads = {4, 3, 2, 1};
  const DeviceDelta d = Delta("znh2", before, after);
  ASSERT_EQ(d.programmed.size(), 2u);
  EXPECT_EQ(d.programmed.at("slc").host, 1000u);
  EXPECT_EQ(d.programmed.at("slc").migration, 0u);
  EXPECT_EQ(d.programmed.at("qlc").host, 200u);
  EXPECT_EQ(d.programmed.at("qlc").migration, 500u);
  EXPECT_EQ(d.simple_copies, 3u);
  EXPECT_EQ(d.copy_bytes, 300u);
  EXPECT_EQ(d.slc_zone_migrations, 1u);
  EXPECT_EQ(d.qlc_page_reads, (std::array<uint64_t, 4>{4, 3, 2, 1}));
}

// SplitZNS 5.4's chip utilization: an SSD's busy share per chip, in chip
// order; a disk has none.
TEST(ZsbenchDeltaTest, BusyByChipIsEachDiesShareOfThePhase) {
  device::DeviceStats before, after;
  before.elapsed_ns = 1000;
  after.elapsed_ns = 3000;
  before.busy_ns = {{"die0", 100}, {"die1", 0}, {"die2", 500}, {"channel0", 0}};
  after.busy_ns = {{"die0", 1100}, {"die1", 2000}, {"die2", 500}, {"channel0", 2000}};
  const DeviceDelta d = Delta("splitzns", before, after);
  ASSERT_EQ(d.busy_by_chip.size(), 3u);
  EXPECT_DOUBLE_EQ(d.busy_by_chip[0], 0.5);
  EXPECT_DOUBLE_EQ(d.busy_by_chip[1], 1.0);
  EXPECT_DOUBLE_EQ(d.busy_by_chip[2], 0.0);
  EXPECT_DOUBLE_EQ(d.busy_fraction, 0.5);
  PhaseResult p;
  p.name = "overwrite";
  p.devices.push_back(d);
  const nlohmann::json j = ToJson({{"splitzns", "emu:splitzns", {p}}}, {{"records", 1}});
  EXPECT_EQ(j["schemes"][0]["phases"][0]["devices"][0]["busy_by_chip"].size(), 3u);
  device::DeviceStats disk_before, disk_after;
  disk_after.elapsed_ns = 10;
  disk_after.busy_ns = {{"head", 5}};
  EXPECT_TRUE(Delta("disk", disk_before, disk_after).busy_by_chip.empty());
}

// YCSB C on a QLC device programs nothing; its QLC page reads by type are
// still the phase's (ZnH2 counts them per workload).
TEST(ZsbenchReportTest, ReadOnlyPhaseKeepsQlcPageReads) {
  PhaseResult p;
  p.name = "ycsb-c";
  DeviceDelta d;
  d.name = "znh2";
  d.qlc_page_reads = {4, 3, 2, 1};
  p.devices.push_back(d);
  const nlohmann::json j = ToJson({{"qlc", "emu:znh2", {p}}}, {{"records", 1}});
  const auto& nand = j["schemes"][0]["phases"][0]["devices"][0]["nand"];
  ASSERT_TRUE(nand.is_object());
  EXPECT_EQ(nand["qlc_page_reads"]["U"].get<uint64_t>(), 1u);
  EXPECT_EQ(nand["programmed_total"].get<uint64_t>(), 0u);
  EXPECT_TRUE(nand["programmed"].empty());
}

}  // namespace
}  // namespace zonestack::zsbench

namespace zonestack::zsbench {
namespace {

// GearDB Fig. 11, 16 and 17: a checkpoint at every 1/80 of the phase's
// operations, every zone at 1/4, 1/2, 3/4 and the end.
TEST_F(ZsbenchRunnerTest, CheckpointsAtEqualSharesOfTheOperations) {
  auto r = RunPhase(db_.get(), volume_.get(), stats_.get(), Phase("fillrandom", 1600, 1600, 2));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->checkpoints.size(), 80u);
  for (size_t i = 0; i < 80; ++i) {
    const Checkpoint& c = r->checkpoints[i];
    EXPECT_EQ(c.ops, 20 * (i + 1));
    EXPECT_EQ(c.zones.empty(), (i + 1) % 20 != 0) << i;
    if (i > 0) {
      EXPECT_GE(c.t, r->checkpoints[i - 1].t);
      EXPECT_GE(c.device_write_bytes, r->checkpoints[i - 1].device_write_bytes);
    }
  }
  EXPECT_GT(r->checkpoints.back().device_write_bytes, 0u);
  ASSERT_EQ(r->checkpoints.back().zones.size(), 1u);  // one device
  uint64_t valid = 0;
  for (const ZoneUse& z : r->checkpoints.back().zones[0]) {
    EXPECT_LE(z.valid_bytes, z.written_bytes);
    EXPECT_LE(z.written_bytes, z.capacity);
    valid += z.valid_bytes;
  }
  EXPECT_GT(valid, 0u);
  const nlohmann::json j = ToJson({{"zns", kUri, {*r}}}, {});
  const auto& cps = j["schemes"][0]["phases"][0]["checkpoints"];
  ASSERT_EQ(cps.size(), 80u);
  EXPECT_FALSE(cps[0].contains("zones"));
  const auto& zones = cps[79]["zones"][0];
  EXPECT_GT(zones["space_efficiency"].get<double>(), 0.0);
  EXPECT_LE(zones["space_efficiency"].get<double>(), 1.0);
  EXPECT_EQ(zones["zones"][0].size(), 4u);  // group, valid, written, capacity
}

TEST_F(ZsbenchRunnerTest, FewerOperationsThanCheckpointsStillReachEveryOne) {
  auto r = RunPhase(db_.get(), volume_.get(), stats_.get(), Phase("fillrandom", 10, 10, 1));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->checkpoints.size(), 80u);
  EXPECT_EQ(r->checkpoints.front().ops, 1u);
  EXPECT_EQ(r->checkpoints.back().ops, 10u);
  EXPECT_FALSE(r->checkpoints.back().zones.empty());
}

// RocksDB's own compactions reach the log through its listener; the phase
// keeps those that completed during it.
TEST(ZsbenchCompactionLogTest, RocksDbCompactionsOfThePhaseAreLogged) {
  constexpr char kLogUri[] = "zonestack://emu:zn540?zones=33&scale=1/256&timing=none";
  auto log = std::make_shared<CompactionLog>();
  rocksdb::Options o;
  o.write_buffer_size = 64 << 10;
  o.target_file_size_base = 64 << 10;
  o.max_bytes_for_level_base = 256 << 10;
  o.level0_file_num_compaction_trigger = 2;
  o.listeners.push_back(CompactionLog::Listener(log));
  {
    auto db = rocks::OpenDb(kLogUri, "/db", o);
    ASSERT_TRUE(db.ok()) << db.status();
    auto volume = *rocks::FindVolume(kLogUri);
    auto r = RunPhase(db->get(), volume.get(), nullptr, Phase("fillrandom", 20000, 20000, 1),
                      log.get());
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(r->has_compaction_log);
    ASSERT_FALSE(r->compactions.empty());
    uint64_t written = 0;
    for (const CompactionRecord& c : r->compactions) {
      EXPECT_FALSE(c.gear);
      EXPECT_TRUE(c.kind == "l0_files" || c.kind == "level_size") << c.kind;
      written += c.output_bytes;
    }
    EXPECT_GT(written, 0u);
    // A second phase sees only its own (background compactions may still
    // end between the phases, so at most what the log gained).
    const size_t before = log->size();
    auto idle = RunPhase(db->get(), volume.get(), nullptr, Phase("readrandom", 20000, 10, 1),
                         log.get());
    ASSERT_TRUE(idle.ok());
    EXPECT_LE(idle->compactions.size(), log->size() - before);
  }
  EXPECT_TRUE(rocks::Forget(kLogUri).ok());
}

CompactionRecord Record(const std::string& kind, uint64_t micros, bool gear, bool trivial = false) {
  CompactionRecord r;
  r.kind = kind;
  r.micros = micros;
  r.gear = gear;
  r.trivial = trivial;
  r.input_bytes = 10;
  r.output_bytes = 20;
  return r;
}

// GearDB's unit is the gear compaction: a step and the passive steps that
// cascade from it (3.3). A RocksDB compaction is one on its own; trivial
// moves are counted apart.
TEST(ZsbenchCompactionLogTest, PassiveStepsJoinTheGearCompactionBeforeThem) {
  const nlohmann::json j = CompactionsJson(
      {Record("active", 100, true), Record("passive", 50, true), Record("passive", 30, true),
       Record("window", 200, true), Record("level_size", 1000, false),
       Record("level_size", 5, false, /*trivial=*/true)});
  EXPECT_EQ(j["count"], 5);
  EXPECT_EQ(j["trivial_moves"], 1);
  EXPECT_DOUBLE_EQ(j["seconds"].get<double>(), 1380e-6);
  EXPECT_EQ(j["input_bytes"], 50);
  EXPECT_EQ(j["by_kind"]["passive"], 2);
  EXPECT_EQ(j["by_kind"]["level_size"], 1);
  EXPECT_EQ(j["chains"]["count"], 3);  // active+2 passive, window, the RocksDB one
  EXPECT_DOUBLE_EQ(j["chains"]["latency"]["mean_us"].get<double>(), (180.0 + 200 + 1000) / 3);
  EXPECT_EQ(j["latency"]["count"], 5);
  EXPECT_EQ(j["latency"]["max_us"], 1000);
  ASSERT_EQ(j["log"].size(), 5u);
  EXPECT_EQ(j["log"][0][4], "active");
}

// Where each level's new SSTs come from: compactions that write into it,
// with their bytes, and trivial moves into it; records of no known level
// (-1) are left out.
TEST(ZsbenchCompactionLogTest, CountsCompactionsAndTrivialMovesByOutputLevel) {
  std::vector<CompactionRecord> records = {
      Record("level_size", 10, false), Record("level_size", 10, false),
      Record("level_size", 10, false, /*trivial=*/true), Record("l0_files", 10, false),
      Record("level_size", 10, false)};
  records[0].output_level = 4;
  records[1].output_level = 4;
  records[2].output_level = 4;
  records[3].output_level = 1;
  const nlohmann::json j = CompactionsJson(records)["by_output_level"];
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j["L4"]["count"], 2);
  EXPECT_EQ(j["L4"]["output_bytes"], 40);
  EXPECT_EQ(j["L4"]["trivial_moves"], 1);
  EXPECT_EQ(j["L1"]["count"], 1);
  EXPECT_EQ(j["L1"]["trivial_moves"], 0);
}

TEST(ZsbenchCompactionLogTest, AMoveWhoseOutputsAreItsInputsIsTrivial) {
  rocksdb::CompactionJobInfo info;
  info.input_files = {"/db/000012.sst"};
  info.output_files = {"/db/000012.sst"};
  info.compaction_reason = rocksdb::CompactionReason::kLevelMaxLevelSize;
  info.output_level = 3;
  EXPECT_TRUE(FromJobInfo(info).trivial);
  EXPECT_EQ(FromJobInfo(info).output_level, 3);
  EXPECT_EQ(FromJobInfo(info).kind, "level_size");
  info.output_files = {"/db/000013.sst"};
  info.stats.elapsed_micros = 7;
  EXPECT_FALSE(FromJobInfo(info).trivial);
  EXPECT_EQ(FromJobInfo(info).micros, 7u);
}

}  // namespace
}  // namespace zonestack::zsbench
