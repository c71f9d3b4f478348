#include "policy/scheme_registry.h"

#include <gtest/gtest.h>

#include <vector>

#include "../common/test_threads.h"
#include "policy/hhzs_options.h"
#include "policy_test_util.h"

namespace zonestack::policy {
namespace {

using testing::Hdd;
using testing::Ssd;
using testing::SstHint;

using nlohmann::json;

// Registration order is the order of the files in src/policy/schemes/.
TEST(SchemeRegistryTest, KnowsEveryScheme) {
  EXPECT_EQ(SchemeNames(),
            (std::vector<std::string>{"auto", "b1", "b2", "b3", "b4", "b3+m", "geardb", "log",
                                      "hhzs", "p+m+c", "p", "p+m", "lifetime", "ldp", "hybrid",
                                      "tiered", "splitzns", "znh2"}));
  for (const SchemeSpec& spec : Schemes()) {
    EXPECT_FALSE(spec.summary.empty()) << spec.name;
    auto s = MakeScheme(spec.name);
    ASSERT_TRUE(s.ok()) << spec.name << ": " << s.status();
    EXPECT_EQ((*s)->name(), spec.name);
    EXPECT_EQ((*s)->hinted(),
              spec.name != "lifetime" && spec.name != "ldp" && spec.name != "hybrid" &&
                  spec.name != "znh2" && spec.name != "log")
        << spec.name;
  }
}

TEST(SchemeRegistryTest, NamesAreCaseInsensitive) {
  auto s = MakeScheme("P+M");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->name(), "p+m");
  auto c = ParseSchemeConfig(json{{"name", "HHZS"}});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->name, "hhzs");
}

TEST(SchemeRegistryTest, UnknownNameListsTheKnownOnes) {
  for (const char* name : {"b5", "", "hhzs "}) {
    auto s = MakeScheme(name);
    ASSERT_FALSE(s.ok()) << name;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(s.status().message(),
              std::string("unknown scheme '") + name +
                  "'; known: auto, b1, b2, b3, b4, b3+m, geardb, log, hhzs, p+m+c, p, p+m, "
                  "lifetime, ldp, hybrid, tiered, splitzns, znh2");
  }
}

// Each scheme parses its own options: an unknown option or a bad value is
// an error naming the scheme and the option.
TEST(SchemeRegistryTest, OptionsAreCheckedByTheirScheme) {
  auto bad = [](const json& j) {
    auto c = ParseSchemeConfig(j);
    EXPECT_FALSE(c.ok()) << j.dump();
    EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(c.status().message());
  };
  EXPECT_EQ(bad(json{{"name", "hhzs"}, {"migration_mib_per_sec", -1}}),
            "scheme 'hhzs': option \"migration_mib_per_sec\" must be a number >= 0");
  EXPECT_EQ(bad(json{{"name", "hhzs"}, {"wal_cache_zones", "2"}}),
            "scheme 'hhzs': option \"wal_cache_zones\" must be an integer in [0, 4294967295]");
  EXPECT_EQ(bad(json{{"name", "b3"}, {"priority", "fastest"}}),
            "scheme 'b3': option \"priority\" must be one of \"level\", \"read_rate\"");
  EXPECT_EQ(bad(json{{"name", "lifetime"}, {"wal_cache_zones", 2}}),
            "scheme 'lifetime': unknown option \"wal_cache_zones\"; options: none");
  const std::string unknown = bad(json{{"name", "p"}, {"sst_byte", 1}});
  EXPECT_TRUE(unknown.starts_with("scheme 'p': unknown option \"sst_byte\"; options: "
                                  "wal_cache_zones, migration_mib_per_sec"))
      << unknown;
  EXPECT_FALSE(ParseSchemeConfig(json{{"nam", "p"}}).ok());
  EXPECT_FALSE(ParseSchemeConfig(json(3)).ok());
}

TEST(SchemeRegistryTest, OptionsReachTheScheme) {
  auto c = ParseSchemeConfig(
      json{{"name", "p+m"}, {"migration_mib_per_sec", 2}, {"wal_cache_zones", 5}});
  ASSERT_TRUE(c.ok()) << c.status();
  auto s = MakeScheme(*c);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->MigrationRate(), 2 << 20);
  EXPECT_EQ((*s)->PoolZones(0, {Ssd(10, 5), Hdd()}), 5u);
  // From a struct, as tests and tools build them.
  HhzsOptions o;
  o.migration_bytes_per_sec = 123;
  auto t = MakeHhzsPaperScheme("p+m", o);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)->MigrationRate(), 123);
}

// A parsed config holds every option (defaults filled), so two configs
// that mean the same scheme compare equal.
TEST(SchemeRegistryTest, ConfigsAreComplete) {
  auto a = ParseSchemeConfig(json("hhzs"));
  auto b = ParseSchemeConfig(json{{"name", "hhzs"}, {"wal_cache_zones", 2}});
  auto c = ParseSchemeConfig(json{{"name", "hhzs"}, {"wal_cache_zones", 3}});
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a->Key(), b->Key());
  EXPECT_NE(a->Key(), c->Key());
  EXPECT_EQ(a->options["priority"], "level");
  EXPECT_EQ(a->options["migration_mib_per_sec"], 4.0);
  EXPECT_EQ(ParseSchemeConfig(json("lifetime"))->Key(), "lifetime {}");
}

// zsctl schemes prints these.
TEST(SchemeRegistryTest, SchemesDocumentTheirOptions) {
  const SchemeSpec* hhzs = FindScheme("hhzs");
  ASSERT_NE(hhzs, nullptr);
  ASSERT_FALSE(hhzs->options.empty());
  EXPECT_EQ(hhzs->options[0].key, "wal_cache_zones");
  EXPECT_EQ(hhzs->options[0].default_value, "2");
  for (const OptionDoc& o : hhzs->options) EXPECT_FALSE(o.help.empty()) << o.key;
  EXPECT_TRUE(FindScheme("hybrid")->options.empty());
  EXPECT_EQ(FindScheme("nope"), nullptr);
}

// zfs calls Place/OnPlaced/OnRemoved from many threads while the glue
// feeds hints; under the sanitizers this checks nothing is shared unguarded.
TEST(MakeSchemeTest, ConcurrentCallsAreSafe) {
  auto s = *MakeScheme("hhzs");
  std::vector<DeviceView> devices{Ssd(20, 10, 2, 1), Hdd()};
  std::vector<testing_common::TestThread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t i = 0; i < 200; ++i) {
        const uint64_t n = t * 1000 + i;
        s->view().CompactionStarted(static_cast<int>(n), 1 + t % 3, {{n + 500, t % 3}});
        s->view().CompactionFileStarted(static_cast<int>(n), n);
        PlacementDecision d = s->Place(SstHint(n), devices);
        s->OnPlaced(SstHint(n), d.devices[0], devices[d.devices[0]].is_ssd, 4096);
        s->view().RecordRead(n);
        s->view().CompactionFinished(static_cast<int>(n), {n});
        s->NextMigration(devices);
        if (i % 2 == 0) s->OnRemoved(SstHint(n));
      }
    });
  }
  for (auto& th : threads) th.Join();
  EXPECT_EQ(s->view().Ssts().size(), 4u * 100 + 4u * 200);  // kept outputs + inputs
}

}  // namespace
}  // namespace zonestack::policy
