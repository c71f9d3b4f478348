// Workload specs, properties parsing, key names and the operation chooser.
// Tolerances as in generators_test.cc: 5 binomial sd per count, chi-square
// under df + 6 sqrt(2 df).
#include "bench/workloads.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench/key_name.h"
#include "bench/operation_chooser.h"
#include "bench_test_util.h"

namespace zonestack::bench {
namespace {

using testing_util::ChiSquareBound;
using testing_util::FiveSigma;
using testing_util::ValueOrDie;

// Every property of a spec, name and phase aside.
std::string Properties(const WorkloadSpec& spec) {
  std::string text = FormatWorkloadProperties(spec);
  return text.substr(text.find('\n') + 1);
}

// ------------------------------------------------------------ Key names

TEST(KeyNameTest, HashedByDefaultAsYcsb) {
  KeyFormat format;
  EXPECT_EQ(BuildKeyName(0, format), "user6284781860667377211");
  EXPECT_EQ(BuildKeyName(1, format), "user8517097267634966620");
  EXPECT_EQ(YcsbKeyName(42, 1, /*ordered=*/true), "user42");
  EXPECT_EQ(YcsbKeyName(5, 8, /*ordered=*/true), "user00000005");  // YCSB's zeropadding example
}

TEST(KeyNameTest, KeySizePadsWithZerosOrTruncates) {
  KeyFormat format;
  format.key_size = 24;  // HHZS: "user" + 20 digits
  EXPECT_EQ(BuildKeyName(1, format), "user08517097267634966620");
  std::set<std::string> keys;
  for (int64_t k = 0; k < 20'000; ++k) {
    const std::string key = BuildKeyName(k, format);
    ASSERT_EQ(key.size(), 24u) << key;
    keys.insert(key);
  }
  EXPECT_EQ(keys.size(), 20'000u);  // padding keeps names distinct
  format.ordered = true;
  EXPECT_EQ(BuildKeyName(7, format), "user00000000000000000007");
  format.key_size = 10;
  format.ordered = false;
  EXPECT_EQ(BuildKeyName(0, format), "user628478");
}

// ------------------------------------------------------------ YCSB specs

TEST(WorkloadSpecTest, CoreWorkloadsMatchYcsbFiles) {
  struct Expected {
    WorkloadSpec spec;
    double read, update, insert, scan, rmw;
    RequestDistribution distribution;
  };
  const Expected expected[] = {
      {YcsbWorkloadA(), 0.5, 0.5, 0, 0, 0, RequestDistribution::kZipfian},
      {YcsbWorkloadB(), 0.95, 0.05, 0, 0, 0, RequestDistribution::kZipfian},
      {YcsbWorkloadC(), 1, 0, 0, 0, 0, RequestDistribution::kZipfian},
      {YcsbWorkloadD(), 0.95, 0, 0.05, 0, 0, RequestDistribution::kLatest},
      {YcsbWorkloadE(), 0, 0, 0.05, 0.95, 0, RequestDistribution::kZipfian},
      {YcsbWorkloadF(), 0.5, 0, 0, 0, 0.5, RequestDistribution::kZipfian}};
  for (const Expected& e : expected) {
    SCOPED_TRACE(e.spec.name);
    EXPECT_EQ(e.spec.read_proportion, e.read);
    EXPECT_EQ(e.spec.update_proportion, e.update);
    EXPECT_EQ(e.spec.insert_proportion, e.insert);
    EXPECT_EQ(e.spec.scan_proportion, e.scan);
    EXPECT_EQ(e.spec.read_modify_write_proportion, e.rmw);
    EXPECT_EQ(e.spec.request_distribution, e.distribution);
    EXPECT_EQ(e.spec.record_count, 1000);
    EXPECT_EQ(e.spec.operation_count, 1000);
    EXPECT_EQ(e.spec.zipfian_constant, 0.99);
    EXPECT_EQ(e.spec.insert_order, InsertOrder::kHashed);
    EXPECT_EQ(e.spec.value_size(), 1000);
    EXPECT_TRUE(ValidateWorkloadSpec(e.spec).ok());
  }
  EXPECT_EQ(YcsbWorkloadE().max_scan_length, 100);
  EXPECT_EQ(YcsbWorkloadE().scan_length_distribution, ScanLengthDistribution::kUniform);
}

// YCSB's workloads/workloada, verbatim apart from the license header.
constexpr char kYcsbWorkloadA[] = R"(# Yahoo! Cloud System Benchmark
# Workload A: Update heavy workload
#   Application example: Session store recording recent actions
#
#   Read/update ratio: 50/50
#   Default data size: 1 KB records (10 fields, 100 bytes each, plus key)
#   Request distribution: zipfian

recordcount=1000
operationcount=1000
workload=site.ycsb.workloads.CoreWorkload

readallfields=true

readproportion=0.5
updateproportion=0.5
scanproportion=0
insertproportion=0

requestdistribution=zipfian
)";

TEST(PropertiesTest, ReadsYcsbWorkloadFile) {
  WorkloadSpec spec = ValueOrDie(ParseWorkloadProperties(kYcsbWorkloadA));
  EXPECT_EQ(Properties(spec), Properties(YcsbWorkloadA()));
}

TEST(PropertiesTest, FormatRoundTrips) {
  for (const char* name : {"ycsb-d", "ycsb-e", "hhzs-w3", "hhzs-a-load"}) {
    const WorkloadSpec spec = ValueOrDie(WorkloadByName(name));
    const WorkloadSpec back = ValueOrDie(ParseWorkloadProperties(FormatWorkloadProperties(spec)));
    EXPECT_EQ(Properties(back), Properties(spec)) << name;
  }
}

TEST(PropertiesTest, ErrorsNameTheLineAndKey) {
  auto error = [](const char* text) {
    absl::StatusOr<WorkloadSpec> spec = ParseWorkloadProperties(text);
    EXPECT_FALSE(spec.ok()) << text;
    return std::string(spec.status().message());
  };
  EXPECT_NE(error("recordcount=10\nthreadcount=4\n").find("line 2: unknown key \"threadcount\""),
            std::string::npos);
  EXPECT_NE(error("readproportion=lots").find("line 1: readproportion=lots: expected a finite"),
            std::string::npos);
  EXPECT_NE(error("requestdistribution=exponential").find("not supported"), std::string::npos);
  EXPECT_NE(error("# comment\nrecordcount").find("line 2: expected key=value"), std::string::npos);
  EXPECT_NE(error("recordcount=0").find("recordcount"), std::string::npos);
  EXPECT_NE(error("zipfianconstant=-1").find("zipfianconstant"), std::string::npos);
  EXPECT_NE(error("zipfianitems=0").find("zipfianitems"), std::string::npos);
  EXPECT_NE(error("readproportion=0\nupdateproportion=0").find("all 0"), std::string::npos);
  EXPECT_NE(error("maxscanlength=0").find("maxscanlength"), std::string::npos);
  EXPECT_NE(error("fieldlengthdistribution=zipfian").find("expected constant"), std::string::npos);
  // Later keys win, as in java.util.Properties; ':' separates too.
  const WorkloadSpec spec =
      ValueOrDie(ParseWorkloadProperties("recordcount=5\nrecordcount : 7\nkeysize=24\nzipfianitems=4882812"));
  EXPECT_EQ(spec.record_count, 7);
  EXPECT_EQ(spec.key_size, 24);
  EXPECT_EQ(spec.zipfian_items, 4882812);
}

// ------------------------------------------------------------ HHZS specs

TEST(HhzsTest, W1ToW4AreThePapersMixes) {
  const double reads[] = {0.1, 0.5, 0.5, 1.0};
  const double alphas[] = {0.9, 0.9, 1.2, 1.2};
  for (int w = 1; w <= 4; ++w) {
    const WorkloadSpec spec = ValueOrDie(HhzsWorkload(w));
    SCOPED_TRACE(spec.name);
    EXPECT_EQ(spec.name, "hhzs-w" + std::to_string(w));
    EXPECT_DOUBLE_EQ(spec.read_proportion, reads[w - 1]);
    EXPECT_DOUBLE_EQ(spec.update_proportion, 1 - reads[w - 1]);
    EXPECT_EQ(spec.insert_proportion + spec.scan_proportion + spec.read_modify_write_proportion, 0);
    EXPECT_EQ(spec.zipfian_constant, alphas[w - 1]);
    EXPECT_EQ(spec.request_distribution, RequestDistribution::kZipfian);
    EXPECT_EQ(spec.operation_count, 5'000'000);
    EXPECT_EQ(spec.record_count, 209'715'200);  // 200 GiB of 1 KiB objects
    EXPECT_EQ(BuildKeyName(0, spec.key_format()).size(), 24u);
    EXPECT_EQ(spec.value_size(), 1000);
  }
  EXPECT_FALSE(HhzsWorkload(5).ok());
}

TEST(HhzsTest, SweepsAndYcsbRuns) {
  std::vector<double> alphas, reads;
  for (const WorkloadSpec& s : HhzsSkewSweep()) {
    alphas.push_back(s.zipfian_constant);
    EXPECT_EQ(s.read_proportion, 0.5);
  }
  for (const WorkloadSpec& s : HhzsReadRatioSweep()) {
    reads.push_back(s.read_proportion);
    EXPECT_EQ(s.zipfian_constant, 0.9);
  }
  EXPECT_EQ(alphas, (std::vector<double>{0.8, 0.9, 1.0, 1.1, 1.2}));
  EXPECT_EQ(reads, (std::vector<double>{0.1, 0.3, 0.5, 0.7, 0.9}));
  for (char letter = 'a'; letter <= 'f'; ++letter) {
    const WorkloadSpec spec = ValueOrDie(HhzsYcsbWorkload(letter));
    EXPECT_EQ(spec.operation_count, 1'000'000);
    EXPECT_EQ(spec.zipfian_constant, letter == 'd' ? 0.99 : 0.9) << letter;
  }
  EXPECT_FALSE(WorkloadByName("ycsb-g").ok());
  EXPECT_EQ(ValueOrDie(WorkloadByName("hhzs-w2-load")).phase, Phase::kLoad);
}

// ------------------------------------------------------ OperationChooser

WorkloadSpec Small(WorkloadSpec spec) {
  spec.record_count = 10'000;
  spec.operation_count = 100'000;
  return spec;
}

TEST(OperationChooserTest, ProportionsMatchYcsbCoreWorkloads) {
  constexpr int64_t kOps = 100'000;
  for (WorkloadSpec spec : {YcsbWorkloadA(), YcsbWorkloadB(), YcsbWorkloadC(), YcsbWorkloadD(),
                            YcsbWorkloadE(), YcsbWorkloadF()}) {
    spec = Small(spec);
    SCOPED_TRACE(spec.name);
    SharedWorkloadState shared(spec);
    OperationChooser chooser = ValueOrDie(OperationChooser::Create(spec, &shared, 1));
    std::map<OpType, int64_t> counts;
    for (int64_t i = 0; i < kOps; ++i) {
      const Operation op = chooser.Next();
      ++counts[op.type];
      ASSERT_GE(op.keynum, 0);
      if (op.type == OpType::kInsert) {
        ASSERT_EQ(op.keynum, spec.record_count + counts[op.type] - 1);  // sequential
      } else {
        ASSERT_LE(op.keynum, shared.insert_sequence.Last());
      }
      chooser.Acknowledge(op);
    }
    const std::pair<OpType, double> expected[] = {
        {OpType::kRead, spec.read_proportion}, {OpType::kUpdate, spec.update_proportion},
        {OpType::kInsert, spec.insert_proportion}, {OpType::kScan, spec.scan_proportion},
        {OpType::kReadModifyWrite, spec.read_modify_write_proportion}};
    for (const auto& [type, p] : expected) {
      EXPECT_NEAR(counts[type], kOps * p, FiveSigma(kOps, p)) << OpTypeName(type);
    }
  }
}

TEST(OperationChooserTest, ScanLengthsAreUniformFromOneToMax) {
  const WorkloadSpec spec = Small(YcsbWorkloadE());
  SharedWorkloadState shared(spec);
  OperationChooser chooser = ValueOrDie(OperationChooser::Create(spec, &shared, 2));
  std::vector<int64_t> counts(101);
  int64_t scans = 0;
  for (int i = 0; i < 100'000; ++i) {
    const Operation op = chooser.Next();
    chooser.Acknowledge(op);
    if (op.type != OpType::kScan) {
      EXPECT_EQ(op.scan_length, 0);
      continue;
    }
    ASSERT_GE(op.scan_length, 1);
    ASSERT_LE(op.scan_length, 100);
    ++counts[op.scan_length];
    ++scans;
  }
  const double expected = scans / 100.0;
  double chi2 = 0;
  for (int len = 1; len <= 100; ++len) {
    chi2 += (counts[len] - expected) * (counts[len] - expected) / expected;
  }
  EXPECT_LT(chi2, ChiSquareBound(99));
}

// Workload D reads the newest acknowledged inserts, never one in flight.
TEST(OperationChooserTest, LatestReadsAcknowledgedRecentInserts) {
  const WorkloadSpec spec = Small(YcsbWorkloadD());
  SharedWorkloadState shared(spec);
  OperationChooser chooser = ValueOrDie(OperationChooser::Create(spec, &shared, 3));
  std::vector<Operation> in_flight;
  std::map<int64_t, int64_t> reads;
  for (int i = 0; i < 20'000; ++i) {
    const Operation op = chooser.Next();
    if (op.type == OpType::kInsert) {
      in_flight.push_back(op);
    } else {
      ASSERT_LT(op.keynum, spec.record_count);  // nothing acknowledged yet
      ++reads[op.keynum];
    }
  }
  EXPECT_EQ(std::max_element(reads.begin(), reads.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; })
                ->first,
            spec.record_count - 1);
  for (const Operation& op : in_flight) chooser.Acknowledge(op);
  EXPECT_EQ(shared.insert_sequence.Last(),
            spec.record_count - 1 + static_cast<int64_t>(in_flight.size()));
  int64_t newest = 0;
  for (int i = 0; i < 10'000; ++i) {
    const Operation op = chooser.Next();
    chooser.Acknowledge(op);
    newest += op.type == OpType::kRead && op.keynum >= spec.record_count;
  }
  EXPECT_GT(newest, 10'000 / 2);  // the ~1000 new keys now take most reads
}

TEST(OperationChooserTest, LoadInsertsEveryRecordOnce) {
  const WorkloadSpec spec = LoadWorkload(Small(YcsbWorkloadA()));
  SharedWorkloadState shared(spec);
  OperationChooser a = ValueOrDie(OperationChooser::Create(spec, &shared, 4));
  OperationChooser b = ValueOrDie(OperationChooser::Create(spec, &shared, 5));
  std::set<int64_t> keys;
  for (int64_t i = 0; i < spec.operation_count; ++i) {
    const Operation op = (i % 2 ? a : b).Next();
    ASSERT_EQ(op.type, OpType::kInsert);
    keys.insert(op.keynum);
  }
  EXPECT_EQ(keys.size(), static_cast<size_t>(spec.record_count));
  EXPECT_EQ(*keys.rbegin(), spec.record_count - 1);
  EXPECT_EQ(a.KeyName(0), "user6284781860667377211");
}

TEST(OperationChooserTest, SameSeedSameOperations) {
  auto run = [](const WorkloadSpec& spec, uint64_t seed) {
    SharedWorkloadState shared(spec);
    OperationChooser chooser = ValueOrDie(OperationChooser::Create(spec, &shared, seed));
    std::vector<int64_t> out;
    for (int i = 0; i < 2000; ++i) {
      const Operation op = chooser.Next();
      chooser.Acknowledge(op);
      out.insert(out.end(), {static_cast<int64_t>(op.type), op.keynum, op.scan_length});
    }
    return out;
  };
  for (const WorkloadSpec& spec : {Small(YcsbWorkloadE()), Small(ValueOrDie(HhzsWorkload(3)))}) {
    EXPECT_EQ(run(spec, 7), run(spec, 7)) << spec.name;
    EXPECT_NE(run(spec, 7), run(spec, 8)) << spec.name;
  }
}

TEST(OperationChooserTest, RunsEverySweepPointIncludingThetaOne) {
  for (WorkloadSpec spec : HhzsSkewSweep()) {
    spec = Small(spec);
    SharedWorkloadState shared(spec);
    OperationChooser chooser = ValueOrDie(OperationChooser::Create(spec, &shared, 6));
    for (int i = 0; i < 1000; ++i) ASSERT_LT(chooser.Next().keynum, spec.record_count);
  }
}

}  // namespace
}  // namespace zonestack::bench
