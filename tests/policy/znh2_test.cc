// ZnH2's HM Hybrid scheme ("znh2") driven by synthetic hints and device
// views: when a new zone opens in QLC, how the cap table (ZnH2 Table 1)
// decides it, when a migration is due and which extents go first.
#include <gtest/gtest.h>

#include "policy_test_util.h"

namespace zonestack::policy {
namespace {

using namespace testing;
using device::CellMode;
using json = nlohmann::json;

constexpr uint64_t kZone = 64 << 20;  // native (QLC) capacity; SLC holds 16 MiB

// An HZNS device of 100 zones as zfs would describe it.
device::DeviceInfo HznsInfo() {
  device::DeviceInfo i;
  i.zone_size = i.zone_capacity = kZone;
  i.num_zones = 100;
  i.native_cell_mode = CellMode::kQlc;
  i.default_cell_mode = CellMode::kSlc;
  i.supports_slc = true;
  i.supports_simple_copy = true;
  i.max_open_qlc_zones = i.max_active_qlc_zones = 9;
  return i;
}

DeviceView Hzns(const device::DeviceInfo& info, uint64_t slc_bytes, uint64_t qlc_bytes,
                uint32_t active_qlc = 0) {
  DeviceView v = Ssd(100, 50);
  v.info = &info;
  v.zone_capacity = kZone;
  v.slc_written_bytes = slc_bytes;
  v.native_written_bytes = qlc_bytes;
  v.active_native_zones = active_qlc;
  return v;
}

std::shared_ptr<Scheme> Znh2(const json& options = json::object()) {
  json c = options;
  c["name"] = "znh2";
  auto config = ParseSchemeConfig(c);
  EXPECT_TRUE(config.ok()) << config.status();
  auto s = MakeScheme(*config);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : nullptr;
}

FileHint Sst(Lifetime lifetime) {
  FileHint h = SstHint(7);
  h.lifetime = lifetime;
  return h;
}

TEST(Znh2Test, NewZonesOpenInSlcWhileTheCacheIsUnderItsCap) {
  auto s = Znh2();
  ASSERT_NE(s, nullptr);
  const device::DeviceInfo info = HznsInfo();
  // 100 zones of 64 MiB: 6400 MiB of flash. 300 MiB of SLC data is 1200
  // MiB of flash: 18.75 % used, under that tenth's 56 % cap.
  const PlacementDecision d = s->Place(Sst(Lifetime::kLong), {Hzns(info, 300 << 20, 0)});
  EXPECT_EQ(d.cell_mode, CellMode::kNone);
  EXPECT_EQ(d.devices, std::vector<uint32_t>{0});
  EXPECT_EQ(d.group, zfs::LifetimeGroup(Sst(Lifetime::kLong)));
}

TEST(Znh2Test, ANewZoneOpensInQlcWhenTheSlcCacheIsOverTheCapOfItsUsedCapacity) {
  auto s = Znh2();
  ASSERT_NE(s, nullptr);
  const device::DeviceInfo info = HznsInfo();
  // 400 MiB of SLC data is 1600 MiB of flash. Alone: 25 % used, cap 50 %
  // (3200 MiB), it fits. With 2000 MiB of QLC data: 56.25 % used, cap 25 %
  // (1600 MiB), exactly at the cap. With 2400 MiB of QLC data: 62.5 %
  // used, cap 20 % (1280 MiB), over it: the cap shrinks as the device fills.
  EXPECT_EQ(s->Place(Sst(Lifetime::kLong), {Hzns(info, 400 << 20, 0)}).cell_mode, CellMode::kNone);
  EXPECT_EQ(s->Place(Sst(Lifetime::kLong), {Hzns(info, 400 << 20, 2000ull << 20)}).cell_mode,
            CellMode::kNone);
  EXPECT_EQ(s->Place(Sst(Lifetime::kLong), {Hzns(info, 400 << 20, 2400ull << 20)}).cell_mode,
            CellMode::kQlc);
  // Any file: the WAL too, as in H-ZenFS.
  EXPECT_EQ(s->Place(WalHint(), {Hzns(info, 400 << 20, 2400ull << 20)}).cell_mode, CellMode::kQlc);
  EXPECT_EQ(s->counters().at("qlc_decisions"), 2);
}

TEST(Znh2Test, TheQlcLimitKeepsNewZonesInSlc) {
  const device::DeviceInfo info = HznsInfo();
  auto s = Znh2();
  ASSERT_NE(s, nullptr);
  const uint64_t slc = 400 << 20, qlc = 2400ull << 20;
  EXPECT_EQ(s->Place(Sst(Lifetime::kLong), {Hzns(info, slc, qlc, 8)}).cell_mode, CellMode::kQlc);
  EXPECT_EQ(s->Place(Sst(Lifetime::kLong), {Hzns(info, slc, qlc, 9)}).cell_mode, CellMode::kNone);
  EXPECT_EQ(s->counters().at("qlc_limit_hits"), 1);
  // A lower limit of the scheme's own.
  auto four = Znh2({{"max_qlc_zones", 4}});
  ASSERT_NE(four, nullptr);
  EXPECT_EQ(four->Place(Sst(Lifetime::kLong), {Hzns(info, slc, qlc, 3)}).cell_mode,
            CellMode::kQlc);
  EXPECT_EQ(four->Place(Sst(Lifetime::kLong), {Hzns(info, slc, qlc, 4)}).cell_mode,
            CellMode::kNone);
}

TEST(Znh2Test, ADeviceWithoutSlcZonesIsLeftAlone) {
  auto s = Znh2();
  ASSERT_NE(s, nullptr);
  device::DeviceInfo qlc_only = HznsInfo();
  qlc_only.supports_slc = false;
  qlc_only.default_cell_mode = CellMode::kQlc;
  const DeviceView v = Hzns(qlc_only, 0, 6000ull << 20);
  EXPECT_EQ(s->Place(Sst(Lifetime::kLong), {v}).cell_mode, CellMode::kNone);
  EXPECT_FALSE(s->NextCellMigration({v}).has_value());
  // Views made without device facts too.
  EXPECT_EQ(s->Place(Sst(Lifetime::kLong), {Ssd(10, 5)}).cell_mode, CellMode::kNone);
}

TEST(Znh2Test, MigrationIsDueOnlyOverTheCapAndMovesTheExcess) {
  const device::DeviceInfo info = HznsInfo();
  auto s = Znh2();
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->CellMigrationPeriodNs(), 5'000'000'000u) << "ZnH2 3.3.1: every 5 s";
  EXPECT_FALSE(s->NextCellMigration({Hzns(info, 400 << 20, 2000ull << 20)}).has_value());
  // 400 MiB of SLC data at 62.5 % used: 1600 MiB of flash against a cap
  // of 20 % of 6400 = 1280 MiB.
  auto m = s->NextCellMigration({Ssd(10, 5), Hzns(info, 400 << 20, 2400ull << 20)});
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->device, 1u);
  EXPECT_EQ(m->to_mode, CellMode::kQlc);
  EXPECT_EQ(m->bytes, 320ull << 20);
  EXPECT_TRUE(m->simple_copy);
  auto host = Znh2({{"simple_copy", false}, {"period_ms", 100}});
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->CellMigrationPeriodNs(), 100'000'000u);
  m = host->NextCellMigration({Hzns(info, 400 << 20, 2400ull << 20)});
  ASSERT_TRUE(m.has_value());
  EXPECT_FALSE(m->simple_copy);
}

TEST(Znh2Test, LongerLifetimesMigrateFirstThenFullerReclaimableZones) {
  auto s = Znh2();
  ASSERT_NE(s, nullptr);
  const FileHint medium = Sst(Lifetime::kMedium), lng = Sst(Lifetime::kLong),
                 extreme = Sst(Lifetime::kExtreme), wal = WalHint();
  auto priority = [&](const FileHint& f, double ratio, CellMode mode = CellMode::kSlc) {
    return s->CellMigrationPriority(
        {.file = &f, .bytes = 4096, .zone_mode = mode, .zone_reclaim_ratio = ratio});
  };
  ASSERT_TRUE(priority(extreme, 0).has_value());
  EXPECT_GT(*priority(extreme, 0), *priority(lng, 0.95));
  EXPECT_GT(*priority(lng, 0), *priority(medium, 0.95));
  EXPECT_GT(*priority(lng, 0.6), *priority(lng, 0.2));
  // Only SSTs, and only out of SLC zones.
  EXPECT_FALSE(priority(wal, 0.5).has_value());
  EXPECT_FALSE(priority(extreme, 0.5, CellMode::kQlc).has_value());
}

TEST(Znh2Test, BadOptionsAreRefusedNamingThem) {
  auto c = ParseSchemeConfig(json{{"name", "znh2"}, {"period_ms", 0}});
  const absl::Status status = c.ok() ? MakeScheme(*c).status() : c.status();
  EXPECT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("period_ms"), std::string::npos) << status;
}

}  // namespace
}  // namespace zonestack::policy
