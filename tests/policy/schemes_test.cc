#include "policy/schemes.h"

#include <gtest/gtest.h>

#include <vector>

#include "../common/test_threads.h"
#include "policy_test_util.h"

namespace zonestack::policy {
namespace {

using testing::Hdd;
using testing::Ssd;
using testing::SstHint;

TEST(MakeSchemeTest, KnowsEveryScheme) {
  EXPECT_EQ(SchemeNames(), (std::vector<std::string>{"hhzs", "p+m+c", "p", "p+m", "b1", "b2", "b3",
                                                     "b4", "b3+m", "auto", "tiered"}));
  for (const std::string& name : SchemeNames()) {
    SchemeOptions o;
    o.name = name;
    auto s = MakeScheme(o);
    ASSERT_TRUE(s.ok()) << name << ": " << s.status();
    EXPECT_EQ((*s)->name(), name);
    EXPECT_EQ((*s)->options().name, name);
  }
}

TEST(MakeSchemeTest, NamesAreCaseInsensitive) {
  SchemeOptions o;
  o.name = "P+M";
  auto s = MakeScheme(o);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->name(), "p+m");
}

TEST(MakeSchemeTest, UnknownNameListsTheKnownOnes) {
  for (const char* name : {"b5", "", "lifetime", "hhzs "}) {
    SchemeOptions o;
    o.name = name;
    auto s = MakeScheme(o);
    ASSERT_FALSE(s.ok()) << name;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(s.status().message(),
              std::string("unknown scheme '") + name +
                  "'; known: hhzs, p+m+c, p, p+m, b1, b2, b3, b4, b3+m, auto, tiered");
  }
}

TEST(MakeSchemeTest, OptionsReachTheScheme) {
  SchemeOptions o;
  o.name = "p+m";
  o.migration_bytes_per_sec = 123;
  o.wal_cache_zones = 5;
  auto s = MakeScheme(o);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->MigrationRate(), 123);
  EXPECT_EQ((*s)->PoolZones(0, {Ssd(10, 5), Hdd()}), 5u);
}

// zfs calls Place/OnPlaced/OnRemoved from many threads while the glue
// feeds hints; under the sanitizers this checks nothing is shared unguarded.
TEST(MakeSchemeTest, ConcurrentCallsAreSafe) {
  SchemeOptions o;
  o.name = "hhzs";
  auto s = *MakeScheme(o);
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
