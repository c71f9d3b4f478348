#include "glue/config.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "absl/strings/match.h"
#include "policy/hhzs_options.h"

#include "glue/zs_files.h"

namespace zonestack::rocks {
namespace {

// `json` is refused as invalid, with a message naming the file and `what`.
void ExpectError(const std::string& json, const std::string& what) {
  auto c = ParseConfigJson(json, "cfg.json");
  ASSERT_FALSE(c.ok()) << json;
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find(what), std::string::npos) << c.status();
  EXPECT_NE(c.status().message().find("cfg.json"), std::string::npos) << c.status();
}

TEST(ConfigTest, OneDeviceUriIsLifetimeIfNeeded) {
  auto c = ParseUri("zonestack://emu:zn540?zones=32&scale=1/256&timing=none");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->devices, std::vector<std::string>{"emu:zn540?zones=32&scale=1/256&timing=none"});
  EXPECT_EQ(c->scheme.name, "lifetime");
  EXPECT_EQ(c->format, FormatMode::kIfNeeded);
  EXPECT_TRUE(c->rocksdb_options.empty());
}

TEST(ConfigTest, DeviceListIsHybridAndTrimmed) {
  auto c = ParseUri("zonestack://emu:zn540?zones=8 ; emu:st14000nm0007?zones=8");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->devices,
            (std::vector<std::string>{"emu:zn540?zones=8", "emu:st14000nm0007?zones=8"}));
  EXPECT_EQ(c->scheme.name, "hybrid");
  EXPECT_EQ(VolumeKey(*c), "emu:zn540?zones=8;emu:st14000nm0007?zones=8");
}

TEST(ConfigTest, SchemeIsOptional) {
  auto c = ParseUri("emu:zn540");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->devices.size(), 1u);
}

TEST(ConfigTest, BadDeviceListsAreRejected) {
  EXPECT_EQ(ParseUri("zonestack://").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseUri("zonestack://emu:a;").status().code(), absl::StatusCode::kInvalidArgument);
  auto twice = ParseUri("zonestack://emu:a;emu:a");
  EXPECT_EQ(twice.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(twice.status().message().find("listed twice"), std::string::npos);
}

TEST(ConfigTest, FlushDefaultsToHostAndTakesDevicesAndNone) {
  auto c = ParseUri("zonestack://emu:zn540?zones=8");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->flush, zfs::FlushMode::kHost);
  EXPECT_EQ(c->staging_root, "/dev/shm");
  c = ParseConfigJson(R"({"devices": ["emu:zn540?zones=8"], "flush": "none"})", "cfg.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->flush, zfs::FlushMode::kNone);
  c = ParseConfigJson(
      R"({"devices": ["emu:zn540?zones=8"], "flush": "devices", "staging_root": "/tmp/s"})",
      "cfg.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->flush, zfs::FlushMode::kDevices);
  EXPECT_EQ(c->staging_root, "/tmp/s");
  c = ParseConfigJson(R"({"devices": ["emu:zn540?zones=8"], "flush": "os"})", "cfg.json");
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(absl::StrContains(c.status().message(), "\"flush\" must be")) << c.status();
}

TEST(ConfigTest, JsonConfigWithEverything) {
  auto c = ParseConfigJson(R"({
      "devices": ["emu:zn540?zones=16", "emu:st14000nm0007?zones=16"],
      "placement": "lifetime", "format": "always",
      "rocksdb": {"write_buffer_size": "1048576", "max_background_jobs": 4,
                  "paranoid_checks": true}})",
                           "test.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->devices.size(), 2u);
  EXPECT_EQ(c->scheme.name, "lifetime");  // given, so not the two-device default
  EXPECT_EQ(c->format, FormatMode::kAlways);
  EXPECT_EQ(c->rocksdb_options.at("write_buffer_size"), "1048576");
  EXPECT_EQ(c->rocksdb_options.at("max_background_jobs"), "4");
  EXPECT_EQ(c->rocksdb_options.at("paranoid_checks"), "true");
}

TEST(ConfigTest, JsonErrorsNameTheProblem) {
  ExpectError("{", "not valid JSON");
  ExpectError("[]", "JSON object");
  ExpectError(R"({"devices": []})", "no devices");
  ExpectError(R"({"devices": "emu:zn540"})", "array");
  ExpectError(R"({"devices": ["emu:zn540"], "placement": "best"})", "unknown scheme 'best'");
  ExpectError(R"({"devices": ["emu:zn540"], "format": "sometimes"})", "if-needed");
  ExpectError(R"({"devices": ["emu:zn540"], "rocksdb": {"x": [1]}})", "'x'");
  ExpectError(R"({"devices": ["emu:zn540"], "device": []})", "unknown key \"device\"");
  ExpectError(R"({"devices": ["emu:zn540"], "gc": 0.2})", "\"gc\" must be an object");
  ExpectError(R"({"devices": ["emu:zn540"], "gc": {"threshold": 1.5}})", "in [0, 1]");
  ExpectError(R"({"devices": ["emu:zn540"], "gc": {"victims": "oldest"}})", "cost-benefit");
  ExpectError(R"({"devices": ["emu:zn540"], "gc": {"period": 1}})", "unknown key \"period\"");
}

// GearDB's baselines (docs/geardb.md): the log layout with zfs's GC.
TEST(ConfigTest, GcSetsTheThresholdAndVictimsAndTellsPlacementsApart) {
  auto c = ParseConfigJson(
      R"({"devices": ["emu:zn540"], "scheme": "log",
          "gc": {"threshold": 0.2, "victims": "cost-benefit"}})", "t");
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(c->gc_threshold.has_value());
  EXPECT_EQ(*c->gc_threshold, 0.2);
  EXPECT_TRUE(c->gc_cost_benefit);
  auto greedy = ParseConfigJson(
      R"({"devices": ["emu:zn540"], "scheme": "log", "gc": {"threshold": 0.2}})", "t");
  ASSERT_TRUE(greedy.ok()) << greedy.status();
  EXPECT_FALSE(greedy->gc_cost_benefit);
  auto none = ParseConfigJson(R"({"devices": ["emu:zn540"], "scheme": "log"})", "t");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->gc_threshold.has_value());
  EXPECT_NE(PlacementKey(*c), PlacementKey(*greedy));
  EXPECT_NE(PlacementKey(*greedy), PlacementKey(*none));
}

TEST(ConfigTest, SchemeObjectSetsSchemeOptions) {
  auto c = ParseConfigJson(R"({
      "devices": ["emu:zn540?zones=16", "emu:st14000nm0007?zones=16"],
      "scheme": {"name": "b3+m", "wal_cache_zones": 3,
                 "migration_mib_per_sec": 0.5, "hdd_random_read_iops": 200,
                 "level_threshold": 2, "ssd_write_mib_per_sec": 800,
                 "decision_interval_ms": 250, "hdd_read_window_ms": 4000,
                 "priority": "read_rate", "spare_placement": true,
                 "cache_second_chance": true, "cache_refresh": true},
      "block_cache_bytes": 1048576})",
                           "test.json");
  ASSERT_TRUE(c.ok()) << c.status();
  const nlohmann::json& o = c->scheme.options;
  EXPECT_EQ(c->scheme.name, "b3+m");
  EXPECT_EQ(o["wal_cache_zones"], 3);
  EXPECT_EQ(o["migration_mib_per_sec"], 0.5);
  EXPECT_EQ(o["hdd_random_read_iops"], 200.0);
  EXPECT_EQ(o["level_threshold"], 2);
  EXPECT_EQ(o["ssd_write_mib_per_sec"], 800.0);
  EXPECT_EQ(o["decision_interval_ms"], 250);
  EXPECT_EQ(o["hdd_read_window_ms"], 4000);
  EXPECT_EQ(o["priority"], "read_rate");
  EXPECT_EQ(o["spare_placement"], true);
  EXPECT_EQ(o["cache_second_chance"], true);
  EXPECT_EQ(o["cache_refresh"], true);
  EXPECT_EQ(c->block_cache_bytes, 1048576u);
}

TEST(ConfigTest, UnsetSchemeFieldsKeepTheirDefaults) {
  auto c = ParseConfigJson(R"({"devices": ["emu:zn540"], "scheme": {"name": "hhzs"}})", "t");
  ASSERT_TRUE(c.ok()) << c.status();
  const nlohmann::json defaults = policy::HhzsOptionTable().Render(policy::HhzsOptions{});
  EXPECT_EQ(c->scheme.name, "hhzs");
  EXPECT_EQ(c->scheme.options, defaults);
  EXPECT_FALSE(c->block_cache_bytes.has_value());
}

TEST(ConfigTest, SchemeNameInPlacementOrAsString) {
  for (const char* json : {R"({"devices": ["emu:zn540"], "placement": "tiered"})",
                           R"({"devices": ["emu:zn540"], "scheme": "tiered"})",
                           R"({"devices": ["emu:zn540"], "placement": "tiered",
                               "scheme": {"name": "tiered"}})"}) {
    auto c = ParseConfigJson(json, "t");
    ASSERT_TRUE(c.ok()) << c.status() << json;
    EXPECT_EQ(c->scheme.name, "tiered");
  }
  // Every registered scheme is accepted.
  for (const std::string& name : policy::SchemeNames()) {
    auto c = ParseConfigJson(R"({"devices": ["emu:zn540"], "placement": ")" + name + "\"}", "t");
    ASSERT_TRUE(c.ok()) << name << ": " << c.status();
    EXPECT_EQ(c->scheme.name, name);
  }
  // Names are case-insensitive, kept lowercase.
  auto upper = ParseConfigJson(R"({"devices": ["emu:zn540"], "placement": "B3+M"})", "t");
  ASSERT_TRUE(upper.ok()) << upper.status();
  EXPECT_EQ(upper->scheme.name, "b3+m");
}

TEST(ConfigTest, PlacementKeyTellsSchemesAndTheirOptionsApart) {
  auto parse = [](const std::string& json) {
    auto c = ParseConfigJson(json, "t");
    EXPECT_TRUE(c.ok()) << c.status();
    return PlacementKey(*c);
  };
  const std::string hhzs = parse(R"({"devices": ["emu:a"], "placement": "hhzs"})");
  EXPECT_EQ(hhzs, parse(R"({"devices": ["emu:a"], "scheme": {"name": "hhzs"}})"));
  EXPECT_NE(hhzs, parse(R"({"devices": ["emu:a"], "scheme": {"name": "p"}})"));
  EXPECT_NE(hhzs, parse(R"({"devices": ["emu:a"], "scheme": {"name": "hhzs", "wal_cache_zones": 9}})"));
  EXPECT_EQ(parse(R"({"devices": ["emu:a"], "placement": "hybrid"})"), "hybrid {}");
}

TEST(ConfigTest, SchemeErrorsNameTheProblem) {
  const std::string dev = R"("devices": ["emu:zn540"], )";
  ExpectError("{" + dev + R"("scheme": {"name": "b9"}})", "unknown scheme 'b9'");
  ExpectError("{" + dev + R"("scheme": {"name": "b9"}})", "hhzs");  // lists the known ones
  ExpectError("{" + dev + R"("scheme": {"wal_cache_zones": 1}})", "needs a \"name\"");
  ExpectError("{" + dev + R"("scheme": 3})", "object or a scheme name");
  ExpectError("{" + dev + R"("scheme": {"name": 3}})", "\"name\" must be a string");
  ExpectError("{" + dev + R"("scheme": {"name": "p", "sst_byte": 1}})",
               "scheme 'p': unknown option \"sst_byte\"");
  ExpectError("{" + dev + R"("scheme": {"name": "p", "priority": "hot"}})",
               "\"priority\" must be one of \"level\"");
  ExpectError("{" + dev + R"("scheme": {"name": "p", "spare_placement": 1}})",
               "\"spare_placement\" must be true or false");
  ExpectError("{" + dev + R"("scheme": {"name": "p", "cache_second_chance": "yes"}})",
               "\"cache_second_chance\" must be true or false");
  ExpectError("{" + dev + R"("scheme": {"name": "p", "cache_refresh": 1}})",
               "\"cache_refresh\" must be true or false");
  ExpectError("{" + dev + R"("scheme": {"name": "p", "sst_bytes": 1}})",
               "unknown option \"sst_bytes\"");  // no scheme reads it
  ExpectError("{" + dev + R"("scheme": {"name": "p", "wal_cache_zones": -5}})", "integer");
  ExpectError("{" + dev + R"("scheme": {"name": "p", "wal_cache_zones": 1.5}})", "integer");
  ExpectError("{" + dev + R"("scheme": {"name": "p", "wal_cache_zones": "2"}})",
               "wal_cache_zones");
  ExpectError("{" + dev + R"("scheme": {"name": "p", "migration_mib_per_sec": -1}})",
               "migration_mib_per_sec\" must be a number >= 0");
  ExpectError("{" + dev + R"("scheme": {"name": "p", "hdd_random_read_iops": 0}})",
               "hdd_random_read_iops\" must be a number > 0");
  ExpectError("{" + dev + R"("scheme": {"name": "p", "level_threshold": 100}})",
               "level_threshold");
  ExpectError("{" + dev + R"("scheme": {"name": "p", "decision_interval_ms": 0}})",
               "decision_interval_ms");
  ExpectError("{" + dev + R"("placement": "lifetime", "scheme": {"name": "p"}})",
               "disagree");
  ExpectError("{" + dev + R"("placement": "hhzs", "scheme": {"name": "p"}})", "disagree");
  ExpectError("{" + dev + R"("placement": "best"})", "known: ");
  ExpectError("{" + dev + R"("placement": {"name": "p"}})", "must be a scheme name");
  ExpectError("{" + dev + R"("block_cache_bytes": 0})", "block_cache_bytes");
  ExpectError("{" + dev + R"("block_cache_bytes": "8M"})", "block_cache_bytes");
}

TEST(ConfigTest, JsonFileThroughUri) {
  const std::string path = ::testing::TempDir() + "/zs_config_test.json";
  {
    std::ofstream out(path);
    out << R"({"devices": ["emu:zn540?zones=16"], "format": "never"})";
  }
  auto c = ParseUri("zonestack://" + path);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->format, FormatMode::kNever);
  EXPECT_EQ(c->scheme.name, "lifetime");
  std::remove(path.c_str());
  EXPECT_EQ(ParseUri("zonestack://" + path).status().code(), absl::StatusCode::kNotFound);
}

TEST(HintTest, KindFromFileName) {
  EXPECT_EQ(HintForPath("/db/000003.log").kind, zfs::FileKind::kWal);
  EXPECT_EQ(HintForPath("/db/000012.sst").kind, zfs::FileKind::kSst);
  EXPECT_EQ(HintForPath("/db/MANIFEST-000001").kind, zfs::FileKind::kManifest);
  EXPECT_EQ(HintForPath("/db/LOG").kind, zfs::FileKind::kOther);
  EXPECT_EQ(HintForPath("/db/CURRENT").kind, zfs::FileKind::kOther);
  EXPECT_EQ(HintForPath("/db/OPTIONS-000005").kind, zfs::FileKind::kOther);
  EXPECT_EQ(HintForPath("/wal.log.d/IDENTITY").kind, zfs::FileKind::kOther);
  EXPECT_EQ(HintForPath("/db/000012.sst").lifetime, zfs::Lifetime::kNotSet);
  EXPECT_EQ(HintForPath("/db/000012.sst").name, "/db/000012.sst");
}

TEST(HintTest, LifetimeValuesMatchRocksDb) {
  EXPECT_EQ(ToLifetime(rocksdb::Env::WLTH_NOT_SET), zfs::Lifetime::kNotSet);
  EXPECT_EQ(ToLifetime(rocksdb::Env::WLTH_SHORT), zfs::Lifetime::kShort);
  EXPECT_EQ(ToLifetime(rocksdb::Env::WLTH_MEDIUM), zfs::Lifetime::kMedium);
  EXPECT_EQ(ToLifetime(rocksdb::Env::WLTH_EXTREME), zfs::Lifetime::kExtreme);
}

}  // namespace
}  // namespace zonestack::rocks
