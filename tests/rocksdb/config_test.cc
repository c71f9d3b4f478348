#include "rocksdb/config.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "rocksdb/zs_files.h"

namespace zonestack::rocks {
namespace {

TEST(ConfigTest, OneDeviceUriIsLifetimeIfNeeded) {
  auto c = ParseUri("zonestack://emu:zn540?zones=32&scale=1/256&timing=none");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->devices, std::vector<std::string>{"emu:zn540?zones=32&scale=1/256&timing=none"});
  EXPECT_EQ(c->placement, "lifetime");
  EXPECT_EQ(c->format, FormatMode::kIfNeeded);
  EXPECT_TRUE(c->rocksdb_options.empty());
}

TEST(ConfigTest, DeviceListIsHybridAndTrimmed) {
  auto c = ParseUri("zonestack://emu:zn540?zones=8 ; emu:st14000nm0007?zones=8");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->devices,
            (std::vector<std::string>{"emu:zn540?zones=8", "emu:st14000nm0007?zones=8"}));
  EXPECT_EQ(c->placement, "hybrid");
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

TEST(ConfigTest, JsonConfigWithEverything) {
  auto c = ParseConfigJson(R"({
      "devices": ["emu:zn540?zones=16", "emu:st14000nm0007?zones=16"],
      "placement": "lifetime", "format": "always",
      "rocksdb": {"write_buffer_size": "1048576", "max_background_jobs": 4,
                  "paranoid_checks": true}})",
                           "test.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->devices.size(), 2u);
  EXPECT_EQ(c->placement, "lifetime");  // given, so not the two-device default
  EXPECT_EQ(c->format, FormatMode::kAlways);
  EXPECT_EQ(c->rocksdb_options.at("write_buffer_size"), "1048576");
  EXPECT_EQ(c->rocksdb_options.at("max_background_jobs"), "4");
  EXPECT_EQ(c->rocksdb_options.at("paranoid_checks"), "true");
}

TEST(ConfigTest, JsonErrorsNameTheProblem) {
  auto expect_error = [](const std::string& json, const std::string& what) {
    auto c = ParseConfigJson(json, "cfg.json");
    ASSERT_FALSE(c.ok()) << json;
    EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(c.status().message().find(what), std::string::npos) << c.status();
    EXPECT_NE(c.status().message().find("cfg.json"), std::string::npos) << c.status();
  };
  expect_error("{", "not valid JSON");
  expect_error("[]", "JSON object");
  expect_error(R"({"devices": []})", "no devices");
  expect_error(R"({"devices": "emu:zn540"})", "array");
  expect_error(R"({"devices": ["emu:zn540"], "placement": "best"})", "unknown placement");
  expect_error(R"({"devices": ["emu:zn540"], "format": "sometimes"})", "if-needed");
  expect_error(R"({"devices": ["emu:zn540"], "rocksdb": {"x": [1]}})", "'x'");
  expect_error(R"({"devices": ["emu:zn540"], "device": []})", "unknown key \"device\"");
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
  EXPECT_EQ(c->placement, "lifetime");
  std::remove(path.c_str());
  EXPECT_EQ(ParseUri("zonestack://" + path).status().code(), absl::StatusCode::kNotFound);
}

TEST(HintTest, KindFromFileName) {
  EXPECT_EQ(HintForPath("/db/000003.log").kind, policy::FileKind::kWal);
  EXPECT_EQ(HintForPath("/db/000012.sst").kind, policy::FileKind::kSst);
  EXPECT_EQ(HintForPath("/db/MANIFEST-000001").kind, policy::FileKind::kManifest);
  EXPECT_EQ(HintForPath("/db/LOG").kind, policy::FileKind::kOther);
  EXPECT_EQ(HintForPath("/db/CURRENT").kind, policy::FileKind::kOther);
  EXPECT_EQ(HintForPath("/db/OPTIONS-000005").kind, policy::FileKind::kOther);
  EXPECT_EQ(HintForPath("/wal.log.d/IDENTITY").kind, policy::FileKind::kOther);
  EXPECT_EQ(HintForPath("/db/000012.sst").lifetime, policy::Lifetime::kNotSet);
  EXPECT_EQ(HintForPath("/db/000012.sst").name, "/db/000012.sst");
}

TEST(HintTest, LifetimeValuesMatchRocksDb) {
  EXPECT_EQ(ToLifetime(rocksdb::Env::WLTH_NOT_SET), policy::Lifetime::kNotSet);
  EXPECT_EQ(ToLifetime(rocksdb::Env::WLTH_SHORT), policy::Lifetime::kShort);
  EXPECT_EQ(ToLifetime(rocksdb::Env::WLTH_MEDIUM), policy::Lifetime::kMedium);
  EXPECT_EQ(ToLifetime(rocksdb::Env::WLTH_EXTREME), policy::Lifetime::kExtreme);
}

}  // namespace
}  // namespace zonestack::rocks
