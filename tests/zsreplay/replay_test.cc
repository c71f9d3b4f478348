// zsreplay's trace formats, generator and replay (src/tools/zsreplay/),
// on a small trace whose answer follows from the tier's rules.
#include <sstream>

#include <gtest/gtest.h>

#include "tools/zsreplay/replay.h"
#include "tools/zsreplay/trace.h"

namespace zonestack::zsreplay {
namespace {

constexpr uint64_t kZone = 128 * 1024;

// Zone 2: two blocks in place; an overwrite behind the pointer (cached);
// a write two blocks past the pointer (padded); a read of the first two
// blocks (one from the cache). Zone 3: an append and its read. Requests
// 2 s apart.
std::string SmallTrace() {
  const uint64_t t0 = 128166372000000000ull, s = 20'000'000;  // ticks of 100 ns
  const uint64_t z2 = 2 * kZone, z3 = 3 * kZone;
  std::ostringstream o;
  o << t0 << ",h,0,Write," << z2 << ",8192,10\n"
    << t0 + s << ",h,0,Write," << z2 + 4096 << ",4096,10\n"
    << t0 + 2 * s << ",h,0,Write," << z2 + 16384 << ",4096,10\n"
    << t0 + 3 * s << ",h,0,Read," << z2 << ",8192,10\n"
    << t0 + 4 * s << ",h,0,Write," << z3 << ",4096,10\n"
    << t0 + 5 * s << ",h,0,Read," << z3 << ",4096,10\n";
  return o.str();
}

ReplayConfig SmallConfig(const std::string& timing) {
  ReplayConfig c;
  c.drive_uri = "emu:st8000as0022?zones=40&scale=1/2048&mc=262144&timing=" + timing;
  c.ssd_uri = "emu:zn540?zones=4&conv=4&scale=1/2048&timing=" + timing;
  c.ssd_tier_bytes = 4 * kZone;
  c.cache_bytes = 32 * 4096;
  return c;
}

TEST(ZsreplayTest, ParsesMsrCsv) {
  std::istringstream in(SmallTrace());
  auto t = ParseTrace(in, TraceFormat::kMsr);
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->size(), 6u);
  EXPECT_TRUE((*t)[0].write);
  EXPECT_EQ((*t)[1].offset, 2 * kZone + 4096);
  EXPECT_EQ((*t)[3].time_ns, 6'000'000'000u);
  EXPECT_FALSE((*t)[3].write);
  std::istringstream bad("1,h,0,Trim,0,4096,1\n");
  EXPECT_FALSE(ParseTrace(bad, TraceFormat::kMsr).ok());
}

TEST(ZsreplayTest, ParsesBlkparseQueueEvents) {
  std::istringstream in(
      "  8,0    3        1     0.000000000   697  Q   W 2048 + 16 [kworker]\n"
      "  8,0    3        2     0.000010000   697  D   W 2048 + 16 [kworker]\n"
      "  8,0    1        3     0.500000000   700  Q   R 64 + 8 [cat]\n"
      "  8,0    1        4     0.600000000   700  Q  FN [sync]\n"
      "CPU0 (8,0):\n");
  auto t = ParseTrace(in, TraceFormat::kBlkparse);
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->size(), 2u);
  EXPECT_EQ((*t)[0].offset, 2048u * 512);
  EXPECT_EQ((*t)[0].length, 16u * 512);
  EXPECT_FALSE((*t)[1].write);
  EXPECT_EQ((*t)[1].time_ns, 500'000'000u);
}

TEST(ZsreplayTest, ReplayOfASmallTraceHasTheKnownAnswer) {
  std::istringstream in(SmallTrace());
  auto trace = ParseTrace(in, TraceFormat::kMsr);
  ASSERT_TRUE(trace.ok());
  auto r = Replay(*trace, SmallConfig("none"));
  ASSERT_TRUE(r.ok()) << r.status();
  const nlohmann::json& j = *r;
  EXPECT_EQ(j["requests"], 6);
  EXPECT_EQ(j["reads"], 2);
  EXPECT_EQ(j["writes"], 4);
  EXPECT_EQ(j["tier"]["sequential_writes"], 2);
  EXPECT_EQ(j["tier"]["cache_admissions"], 1);
  EXPECT_EQ(j["tier"]["padded_writes"], 1);
  EXPECT_EQ(j["tier"]["padding_bytes"], 8192);
  EXPECT_EQ(j["tier"]["cache_read_hits"], 1);
  EXPECT_EQ(j["drive_nsw_writes"], 0);
  EXPECT_EQ(j["tier"]["promotions"], 0);
  // No zone is in the SSD tier: the drive's zones serve every request.
  EXPECT_EQ(j["drive_reads"], 2);
  EXPECT_EQ(j["drive_writes"], 4);
}

TEST(ZsreplayTest, ReplaySchemesRunsEachSchemeAndKeepsFailures) {
  std::istringstream in(SmallTrace());
  auto trace = ParseTrace(in, TraceFormat::kMsr);
  ASSERT_TRUE(trace.ok());
  int failed = -1;
  const nlohmann::json j =
      ReplaySchemes(*trace, SmallConfig("none"), {"HA-256-CFC", "no-such", "HA-256-LRU"}, &failed);
  EXPECT_EQ(failed, 1);
  ASSERT_EQ(j["schemes"].size(), 3u);
  EXPECT_EQ(j["schemes"][0]["scheme"], "HA-256-CFC");
  EXPECT_EQ(j["schemes"][0]["tier"]["padded_writes"], 1);
  EXPECT_TRUE(j["schemes"][1].contains("error"));
  // The LRU baseline caches every write to a drive zone and pads none.
  EXPECT_EQ(j["schemes"][2]["requests"], 6);
  EXPECT_EQ(j["schemes"][2]["tier"]["padded_writes"], 0);
}

TEST(ZsreplayTest, HonoredTimestampsSetTheSimulatedTime) {
  std::istringstream in(SmallTrace());
  auto trace = ParseTrace(in, TraceFormat::kMsr);
  ASSERT_TRUE(trace.ok());
  ReplayConfig c = SmallConfig("sim");
  auto honored = Replay(*trace, c);
  ASSERT_TRUE(honored.ok()) << honored.status();
  c.honor_timestamps = false;
  auto afap = Replay(*trace, c);
  ASSERT_TRUE(afap.ok()) << afap.status();
  EXPECT_GE((*honored)["simulated_ms"].get<double>(), 10'000.0);
  EXPECT_LT((*afap)["simulated_ms"].get<double>(), 1'000.0);
  EXPECT_GT((*afap)["avg_response_us"]["writes"].get<double>(), 0.0);
}

TEST(ZsreplayTest, GeneratedTracesHaveTheProfilesWriteRatio) {
  auto p = FindTraceProfile("prxy_0");
  ASSERT_TRUE(p.ok());
  const auto t = GenerateTrace(*p, 5000, 40 * kZone, kZone, 3);
  ASSERT_EQ(t.size(), 5000u);
  uint64_t writes = 0;
  for (const TraceRequest& r : t) {
    writes += r.write ? 1 : 0;
    EXPECT_EQ(r.offset % 4096, 0u);
    EXPECT_LE(r.offset + r.length, 40 * kZone);
  }
  EXPECT_NEAR(static_cast<double>(writes) / 5000, p->write_ratio, 0.02);
  EXPECT_FALSE(FindTraceProfile("nope").ok());
}

}  // namespace
}  // namespace zonestack::zsreplay
