// zsbench as a user runs it: its exit status tells the truth (0 only if
// every operation succeeded, 1 if some failed, 2 for bad usage), bad
// numbers are refused before anything runs, and VOLUME URIs keep their own
// '=' signs.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_tool.h"

namespace zonestack::tools_test {
namespace {

constexpr char kVolume[] = "zonestack://emu:zn540?zones=16&scale=1/256&timing=none";

ToolRun Zsbench(const std::string& args, int seconds = 20) {
  return RunTool(ZSBENCH_BIN, args + " --quiet", seconds);
}

// A tiny run; `extra` may name the workload, fillseq if not.
std::string Small(const std::string& extra) {
  const bool workload = extra.find("--workload") != std::string::npos;
  return "--volume " + Quote(kVolume) + (workload ? " " : " --workload fillseq ") + extra;
}

TEST(ZsbenchCliTest, NegativeAndAbsurdNumbersAreUsageErrors) {
  // Once: --value-size -1 aborted with std::length_error, --ops -5 ran
  // forever, --records -5 printed DBL_MAX in 300 digits.
  const struct {
    const char* args;
    const char* flag;
  } cases[] = {{"--records 50 --value-size -1", "--value-size"},
               {"--records 50 --workload readrandom --ops -5", "--ops"},
               {"--records -5", "--records"},
               {"--records 0", "--records"},
               {"--records 50 --key-size -3", "--key-size"},
               {"--records 50 --threads 0", "--threads"},
               {"--records 50 --interval 0", "--interval"},
               {"--records 50 --seconds -1", "--seconds"},
               {"--records 50 --rate -1", "--rate"},
               {"--records 50 --zipf-items -1", "--zipf-items"},
               {"--records 50 --seed -1", "--seed"},
               {"--records 50 --value-size 99999999999", "--value-size"},
               {"--records 5000000000000", "--records"}};
  for (const auto& c : cases) {
    const ToolRun r = Zsbench(Small(c.args), 10);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << Describe(r);
    EXPECT_NE(r.err.find(c.flag), std::string::npos) << c.args << "\n" << Describe(r);
    EXPECT_LT(r.err.size(), 300u) << c.args << ": not a clear message\n" << Describe(r);
    EXPECT_TRUE(r.out.empty()) << c.args << ": it ran\n" << Describe(r);
  }
}

TEST(ZsbenchCliTest, SchemeUriWithoutNameKeepsItsEqualsSigns) {
  const ToolRun r = Zsbench("--scheme " + Quote(kVolume) + " --workload fillseq --records 200");
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("default"), std::string::npos) << Describe(r);
  // A device URI without the zonestack:// prefix too.
  const ToolRun bare = Zsbench(
      "--scheme 'emu:zn540?zones=16&scale=1/256&timing=none' --workload fillseq --records 200");
  EXPECT_EQ(bare.exit_code, 0) << Describe(bare);
  const ToolRun named =
      Zsbench("--scheme " + Quote(std::string("mine=") + kVolume) +
              " --workload fillseq --records 200");
  ASSERT_EQ(named.exit_code, 0) << Describe(named);
  EXPECT_NE(named.out.find("mine"), std::string::npos) << Describe(named);
  const ToolRun empty = Zsbench("--scheme " + Quote(std::string("=") + kVolume));
  EXPECT_EQ(empty.exit_code, 2) << Describe(empty);
  EXPECT_NE(empty.err.find("NAME before '=' is empty"), std::string::npos) << Describe(empty);
}

TEST(ZsbenchCliTest, UnwritableJsonFailsBeforeTheRun) {
  const ToolRun r = Zsbench(Small("--records 2000 --json /nonexistent-dir/out.json"));
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_NE(r.err.find("/nonexistent-dir/out.json"), std::string::npos) << Describe(r);
  EXPECT_TRUE(r.out.empty()) << "the run started before the check\n" << Describe(r);
}

TEST(ZsbenchCliTest, SecondsLimitRunPhasesButALoadLoadsEveryRecord) {
  // Once --seconds cut loads short too (513 of 3000 records), so the run
  // phase after it read a smaller tree than asked for.
  const std::string json = ::testing::TempDir() + "/load_" + std::to_string(::getpid()) + ".json";
  const ToolRun r = Zsbench(Small("--workload ycsb-a-load --records 3000 --rate 2000 --seconds 0.2"
                                  " --interval 0.1 --json " + Quote(json)), 60);
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  const std::string j = ReadAll(json);
  EXPECT_NE(j.find("\"ops\": 3000"), std::string::npos) << j.substr(0, 3000);
}

TEST(ZsbenchCliTest, FailedOperationsExitOneAndSayWhich) {
  // 8 zones of 2 MiB cannot hold 20 MB of values twice over (WAL and SSTs).
  const std::string tiny = "zonestack://emu:zn540?zones=8&scale=1/1024&timing=none";
  const std::string json = ::testing::TempDir() + "/full_" + std::to_string(::getpid()) + ".json";
  const ToolRun r = Zsbench("--volume " + Quote(tiny) +
                            " --workload fillseq --records 20000 --value-size 1000"
                            " --rocksdb-option write_buffer_size=1048576 --json " + Quote(json),
                            60);  // a full volume makes a writer wait for room (2 s) first
  ASSERT_EQ(r.exit_code, 1) << Describe(r);
  EXPECT_NE(r.err.find("FAILED"), std::string::npos) << Describe(r);
  EXPECT_NE(r.err.find("no space"), std::string::npos) << Describe(r);
  EXPECT_NE(r.out.find("failed operations"), std::string::npos) << Describe(r);
  const std::string j = ReadAll(json);
  EXPECT_NE(j.find("\"no_space\""), std::string::npos) << j.substr(0, 2000);
  // The flush that found no room is a background error, and its message
  // is kept, not only counted.
  const size_t messages = j.find("\"background_error_messages\"");
  ASSERT_NE(messages, std::string::npos) << j.substr(0, 3000);
  EXPECT_NE(j.find("flush", messages), std::string::npos) << j.substr(messages, 400);
  EXPECT_NE(j.find("No space left on device", messages), std::string::npos) << j.substr(messages, 400);
}

TEST(ZsbenchCliTest, DrainFlushesSettlesAndPaysTheGcThePhaseLeft) {
  // A threshold of 1 wants GC whatever is free, so the drain must run it;
  // the phase's 300 puts fit in its MemTable, so only the drain flushes.
  const std::string dir = ::testing::TempDir() + "/drain_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const std::string config = dir + "/volume.json";
  std::ofstream(config) << R"({"devices": ["emu:zn540?zones=16&scale=1/256&timing=none"],
                              "scheme": "lifetime", "gc": {"threshold": 1}})";
  const std::string json = dir + "/out.json";
  const ToolRun r = Zsbench("--volume " + Quote("zonestack://" + config) +
                                " --workload fillrandom,drain --records 300 --json " + Quote(json),
                            60);
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  const nlohmann::json j = nlohmann::json::parse(ReadAll(json));
  const nlohmann::json& phases = j.at("schemes").at(0).at("phases");
  ASSERT_EQ(phases.size(), 2u) << phases.dump().substr(0, 2000);
  const nlohmann::json& put = phases[0];
  const nlohmann::json& drain = phases[1];
  EXPECT_EQ(drain.at("name"), "drain");
  EXPECT_EQ(drain.at("errors"), 0);
  EXPECT_GT(drain.at("gc").at("runs").get<uint64_t>(), put.at("gc").at("runs").get<uint64_t>())
      << "the drain ran no GC\n" << drain.dump().substr(0, 2000);
  // The device counters of the drain: an SST was written (its bytes
  // beyond the WAL's and the metadata log's), none in the puts.
  // (at(): a missing key fails the test rather than nlohmann's assertion.)
  auto flushed = [](const nlohmann::json& phase) {
    const nlohmann::json& d = phase.at("devices").at(0);
    uint64_t sst = d.at("total").at("write_bytes").get<uint64_t>();
    for (const char* c : {"wal", "metadata"}) {
      if (d.contains("by_class") && d.at("by_class").contains(c)) {
        sst -= d.at("by_class").at(c).at("write_bytes").get<uint64_t>();
      }
    }
    return sst;
  };
  EXPECT_EQ(flushed(put), 0u) << put.at("devices").dump().substr(0, 2000);
  EXPECT_GT(flushed(drain), 0u) << "the drain did not flush\n" << drain.dump().substr(0, 2000);
  // The compactions that completed in the drain are its own, as a phase's.
  ASSERT_TRUE(drain.contains("compactions")) << drain.dump().substr(0, 2000);
  EXPECT_TRUE(drain.at("compactions").contains("by_output_level"));
}

}  // namespace
}  // namespace zonestack::tools_test
