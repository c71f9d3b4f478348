// RocksDB's temperature-based tiered storage.
#include <gtest/gtest.h>

#include "policy/scheme_common.h"
#include "policy/hhzs_options.h"
#include "policy/scheme_registry.h"
#include "policy_test_util.h"

namespace zonestack::policy {
namespace {

using testing::Hdd;
using testing::ManifestHint;
using testing::Ssd;
using testing::SstHint;
using testing::WalHint;
using Devices = std::vector<uint32_t>;

TEST(TieredTest, ColdSstsOnHddEverythingElseOnSsd) {
  HhzsOptions o;
  auto s = MakeHhzsPaperScheme("tiered", o);
  ASSERT_TRUE(s.ok());
  std::vector<DeviceView> devices{Hdd(), Ssd(10, 5)};
  EXPECT_EQ((*s)->Place(SstHint(7, 6, 12), devices).devices, (Devices{0, 1}));
  EXPECT_EQ((*s)->Place(SstHint(7, 6, 12), devices).group, kSstGroupBase + 7);
  // Level does not matter, only the temperature RocksDB chose.
  EXPECT_EQ((*s)->Place(SstHint(8, 6, 0), devices).devices, (Devices{1, 0}));
  EXPECT_EQ((*s)->Place(SstHint(8, 1, 4), devices).devices, (Devices{1, 0}));
  EXPECT_EQ((*s)->Place(SstHint(8, 1, 8), devices).devices, (Devices{1, 0}));
  EXPECT_EQ((*s)->Place(SstHint(8, 0, 12), devices).devices, (Devices{0, 1}));
  PlacementDecision wal = (*s)->Place(WalHint(), devices);
  EXPECT_EQ(wal.devices, (Devices{1, 0}));
  EXPECT_EQ(wal.group, kWalGroup);
  EXPECT_FALSE(wal.pool);
  PlacementDecision meta = (*s)->Place(ManifestHint(), devices);
  EXPECT_EQ(meta.devices, (Devices{1, 0}));
  EXPECT_EQ(meta.group, kMetadataGroup);
  EXPECT_EQ((*s)->PoolZones(1, devices), 0u);
  EXPECT_EQ((*s)->MigrationRate(), 0);
  EXPECT_EQ((*s)->cache(), nullptr);
}

}  // namespace
}  // namespace zonestack::policy
