#include <gtest/gtest.h>

#include "policy/lsm_view.h"
#include "policy/scheme_registry.h"

namespace zonestack::policy {
namespace {

TEST(SstNumberTest, ParsesRocksDbTableFileNames) {
  EXPECT_EQ(SstNumber("/db/000123.sst"), 123);
  EXPECT_EQ(SstNumber("000007.sst"), 7);
  EXPECT_EQ(SstNumber("/a/b/c/42.sst"), 42);
  EXPECT_EQ(SstNumber("/db/000000.sst"), 0);
}

TEST(SstNumberTest, AnythingElseIsMinusOne) {
  EXPECT_EQ(SstNumber("/db/000123.log"), -1);
  EXPECT_EQ(SstNumber("/db/MANIFEST-000005"), -1);
  EXPECT_EQ(SstNumber("/db/.sst"), -1);
  EXPECT_EQ(SstNumber("/db/12a.sst"), -1);
  EXPECT_EQ(SstNumber("/db/-1.sst"), -1);
  EXPECT_EQ(SstNumber("/db/+1.sst"), -1);
  EXPECT_EQ(SstNumber("/db/000123.sst.tmp"), -1);
  EXPECT_EQ(SstNumber("/db/000123.sst/"), -1);
  EXPECT_EQ(SstNumber("/db/99999999999999999999.sst"), -1);
  EXPECT_EQ(SstNumber(""), -1);
}

TEST(PlacementPolicyTest, LifetimeAndHybridStillWork) {
  std::vector<DeviceView> devices(2);
  devices[0].is_ssd = false;
  devices[1].is_ssd = true;
  FileHint wal;
  wal.kind = FileKind::kWal;
  auto hybrid = MakeScheme("hybrid");
  ASSERT_TRUE(hybrid.ok());
  EXPECT_EQ((*hybrid)->Place(wal, devices).devices, (std::vector<uint32_t>{1, 0}));
  auto lifetime = MakeScheme("lifetime");
  ASSERT_TRUE(lifetime.ok());
  EXPECT_EQ((*lifetime)->Place(wal, devices).devices, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ((*lifetime)->MigrationRate(), 0);
  EXPECT_FALSE((*lifetime)->NextMigration(devices).has_value());
  // "ldp" is lifetime with SplitZNS's GC threshold (tests/policy/splitzns_test.cc).
  auto ldp = MakeScheme("ldp");
  ASSERT_TRUE(ldp.ok());
  EXPECT_EQ((*ldp)->Place(wal, devices).devices, (std::vector<uint32_t>{0, 1}));
}

}  // namespace
}  // namespace zonestack::policy
