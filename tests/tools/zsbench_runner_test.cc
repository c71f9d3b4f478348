// zsbench's runner end to end on an instant emulated volume: the load
// phase inserts every record, the run phase finds every key it reads (so
// load and run name keys alike), proportions and metrics are filled in.
#include <gtest/gtest.h>

#include "rocksdb/open_db.h"
#include "rocksdb/statistics.h"
#include "rocksdb/volume_registry.h"
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
}

TEST(ZsbenchPhaseTest, UnknownWorkloadListsTheValidOnes) {
  auto p = PhaseByName("ycsb-z");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(std::string(p.status().message()).find("ycsb-a..ycsb-f"), std::string::npos);
  EXPECT_FALSE(PhaseByName("mix:2:0.9").ok());
  auto mix = PhaseByName("mix:0.3:1.2");
  ASSERT_TRUE(mix.ok());
  EXPECT_DOUBLE_EQ(mix->workload.zipfian_constant, 1.2);
}

}  // namespace
}  // namespace zonestack::zsbench
