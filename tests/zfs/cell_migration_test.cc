// zfs on an HZNS device (ZnH2): zones opened in the cell mode the policy
// asks for within the device's QLC limit, free space that grows as QLC
// zones open, and cell migration (ZnH2 3.3.1): the policy's order, Simple
// Copy or a host copy, and crash safety at every device command.
#include <map>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "absl/synchronization/mutex.h"
#include "test_clock.h"
#include "zfs_test_util.h"

namespace zonestack::zfs {
namespace {

using namespace testing_util;
using device::CellMode;
using device::IoClass;

// znh2 at 1/256: 4 MiB zones, 4 MiB in QLC and 1 MiB in SLC; 14 active
// zones, of them at most 9 in QLC.
constexpr uint64_t kQlcCap = 4 << 20, kSlcCap = 1 << 20;
std::string HznsUri(uint32_t zones = 32) {
  return absl::StrCat("emu:znh2?zones=", zones, "&scale=1/256&timing=none");
}

// Places every file on device 0 in its lifetime group (or the group the
// test gives its name), opening new zones in the mode the test sets; in a
// cell migration, SSTs go longest lifetime first, then fuller zones.
class CellPolicy : public PlacementPolicy {
 public:
  std::string name() const override { return "cell"; }
  PlacementDecision Place(const FileHint& f, const std::vector<DeviceView>&) override {
    absl::MutexLock l(&mu_);
    PlacementDecision d;
    d.devices = {0};
    auto it = groups_.find(f.name);
    d.group = it != groups_.end() ? it->second : LifetimeGroup(f);
    d.cell_mode = mode_;
    return d;
  }
  std::optional<double> CellMigrationPriority(const ExtentCandidate& x) const override {
    if (x.file->kind != FileKind::kSst) return std::nullopt;
    return static_cast<double>(x.file->lifetime) + x.zone_reclaim_ratio;
  }
  void SetMode(CellMode mode) {
    absl::MutexLock l(&mu_);
    mode_ = mode;
  }
  void SetGroup(const std::string& name, uint32_t group) {
    absl::MutexLock l(&mu_);
    groups_[name] = group;
  }

 private:
  mutable absl::Mutex mu_;
  CellMode mode_ ABSL_GUARDED_BY(mu_) = CellMode::kNone;
  std::map<std::string, uint32_t> groups_ ABSL_GUARDED_BY(mu_);
};

FileHint Sst(Lifetime lifetime) { return {.kind = FileKind::kSst, .lifetime = lifetime}; }

class CellMigrationTest : public VolumeTest {
 protected:
  void SetUp() override {
    FormatAndMount({OpenDev(HznsUri())}, {.placement = policy_, .clock = clock_});
  }
  absl::Status Write(const std::string& path, uint64_t size, const FileHint& hint) {
    files_[path] = size;
    return WriteFile(*vol_, path, Pattern(std::hash<std::string>()(path), size), hint);
  }
  // The cell modes of the zones holding `path`'s extents.
  std::set<CellMode> ModesOf(const std::string& path) {
    std::map<uint32_t, CellMode> zone_mode;
    for (const ZoneReport& z : vol_->Zones()) zone_mode[z.zone.index] = z.zone.cell_mode;
    std::set<CellMode> out;
    for (const FileInfo& f : vol_->Files()) {
      if (f.names[0] != path) continue;
      for (const ExtentInfo& x : f.extents) out.insert(zone_mode[x.zone]);
    }
    return out;
  }
  device::DeviceStats Stats() { return vol_->devices()[0]->Stats(); }
  absl::Status Migrate(uint64_t bytes, bool simple_copy = true) {
    return vol_->MigrateCells(
        {.device = 0, .to_mode = CellMode::kQlc, .bytes = bytes, .simple_copy = simple_copy});
  }

  std::shared_ptr<TestClock> clock_ = std::make_shared<TestClock>();
  std::shared_ptr<CellPolicy> policy_ = std::make_shared<CellPolicy>();
  std::map<std::string, uint64_t> files_;
};

TEST_F(CellMigrationTest, EmptyZonesCountAtSlcCapacityAndQlcZonesGrowTheVolume) {
  const DeviceSpace empty = vol_->Space()[0];
  EXPECT_EQ(empty.free_bytes, empty.empty_zones * kSlcCap);
  ASSERT_OK(Write("/slc.sst", 300 << 10, Sst(Lifetime::kLong)));
  EXPECT_EQ(ModesOf("/slc.sst"), std::set<CellMode>{CellMode::kSlc});
  const DeviceSpace before = vol_->Space()[0];

  policy_->SetMode(CellMode::kQlc);
  ASSERT_OK(Write("/qlc.sst", 300 << 10, Sst(Lifetime::kExtreme)));
  EXPECT_EQ(ModesOf("/qlc.sst"), std::set<CellMode>{CellMode::kQlc});
  const DeviceSpace after = vol_->Space()[0];
  // One empty zone (1 MiB as SLC) became a QLC zone of 4 MiB.
  EXPECT_EQ(after.capacity_bytes, before.capacity_bytes + kQlcCap - kSlcCap);
  EXPECT_EQ(after.free_bytes, before.free_bytes - kSlcCap + kQlcCap - (300 << 10));
  EXPECT_EQ(Stats().programmed_bytes[static_cast<int>(CellMode::kQlc)], 300u << 10);

  // The zones keep their modes across a remount.
  ASSERT_NO_FATAL_FAILURE(Remount());
  EXPECT_EQ(ModesOf("/qlc.sst"), std::set<CellMode>{CellMode::kQlc});
  EXPECT_EQ(vol_->Space()[0].free_bytes, after.free_bytes);
  ExpectFilesIntact(*vol_, files_);
  ExpectConsistent(*vol_);
}

TEST_F(CellMigrationTest, QlcZonesStayWithinTheDevicesLimitAndTheRestOpenInSlc) {
  policy_->SetMode(CellMode::kQlc);
  std::vector<std::unique_ptr<WritableFile>> writers;
  for (int i = 0; i < 12; ++i) {
    const std::string name = absl::StrCat("/w", i);
    policy_->SetGroup(name, 100 + i);  // a zone each
    ASSERT_OK_AND_ASSIGN(auto w, vol_->Create(name, Sst(Lifetime::kLong)));
    ASSERT_OK(w->Append(Pattern(i, 64 << 10)));
    ASSERT_OK(w->Sync());
    writers.push_back(std::move(w));
  }
  int qlc = 0, slc = 0;
  for (const ZoneReport& z : vol_->Zones()) {
    if (z.role != ZoneRole::kData || z.written_bytes == 0) continue;
    (z.zone.cell_mode == CellMode::kQlc ? qlc : slc)++;
  }
  EXPECT_EQ(qlc, 9);
  EXPECT_EQ(slc, 3);
  for (auto& w : writers) ASSERT_OK(w->Close());
  ExpectConsistent(*vol_);
}

TEST_F(CellMigrationTest, MigrationMovesTheLongestLivedExtentsFirstBySimpleCopy) {
  policy_->SetGroup("/long-x.sst", 10);
  policy_->SetGroup("/long-y.sst", 11);
  policy_->SetGroup("/long-y-dead.sst", 11);
  policy_->SetGroup("/extreme.sst", 12);
  ASSERT_OK(Write("/long-x.sst", 256 << 10, Sst(Lifetime::kLong)));
  ASSERT_OK(Write("/long-y.sst", 256 << 10, Sst(Lifetime::kLong)));
  ASSERT_OK(Write("/long-y-dead.sst", 256 << 10, Sst(Lifetime::kLong)));
  ASSERT_OK(Write("/extreme.sst", 256 << 10, Sst(Lifetime::kExtreme)));
  ASSERT_OK(Write("/000004.log", 256 << 10, {.kind = FileKind::kWal}));
  // The zone of /long-y now has a reclaim ratio of 1/4, /long-x's 0.
  ASSERT_OK(vol_->Delete("/long-y-dead.sst"));
  files_.erase("/long-y-dead.sst");
  const uint64_t resets = ZoneResets(*vol_);

  // One byte asked for: the one best extent goes.
  ASSERT_OK(Migrate(1));
  EXPECT_EQ(ModesOf("/extreme.sst"), std::set<CellMode>{CellMode::kQlc});
  EXPECT_EQ(ModesOf("/long-x.sst"), std::set<CellMode>{CellMode::kSlc});
  EXPECT_EQ(ModesOf("/long-y.sst"), std::set<CellMode>{CellMode::kSlc});
  // Inside the device: no host traffic, one copy command, QLC programs.
  device::DeviceStats s = Stats();
  EXPECT_EQ(s.simple_copies, 1u);
  EXPECT_EQ(s.copy_bytes, 256u << 10);
  EXPECT_EQ(s.by_class[static_cast<int>(IoClass::kMigration)].read_bytes, 0u);
  EXPECT_EQ(s.by_class[static_cast<int>(IoClass::kMigration)].write_bytes, 0u);
  EXPECT_EQ(s.migration_programmed_bytes[static_cast<int>(CellMode::kQlc)], 256u << 10);
  // Its old SLC zone held nothing else: reset.
  EXPECT_EQ(ZoneResets(*vol_), resets + 1);

  // Equal lifetimes: the zone closer to wholly invalid first.
  ASSERT_OK(Migrate(1));
  EXPECT_EQ(ModesOf("/long-y.sst"), std::set<CellMode>{CellMode::kQlc});
  EXPECT_EQ(ModesOf("/long-x.sst"), std::set<CellMode>{CellMode::kSlc});
  ASSERT_OK(Migrate(1));
  EXPECT_EQ(ModesOf("/long-x.sst"), std::set<CellMode>{CellMode::kQlc});
  // The WAL is not the policy's to move.
  ASSERT_OK(Migrate(1));
  EXPECT_EQ(ModesOf("/000004.log"), std::set<CellMode>{CellMode::kSlc});
  const CellMigrationStats cs = vol_->cell_migration_stats();
  EXPECT_EQ(cs.runs, 4u);
  EXPECT_EQ(cs.extents_moved, 3u);
  EXPECT_EQ(cs.bytes_moved, 3u * (256 << 10));

  ExpectFilesIntact(*vol_, files_);
  ExpectConsistent(*vol_);
  ExpectNoLeakedSpace(*vol_);
  ASSERT_NO_FATAL_FAILURE(Remount());
  EXPECT_EQ(ModesOf("/long-y.sst"), std::set<CellMode>{CellMode::kQlc});
  ExpectFilesIntact(*vol_, files_);
}

TEST_F(CellMigrationTest, WithoutSimpleCopyTheDataCrossesTheHost) {
  ASSERT_OK(Write("/a.sst", 256 << 10, Sst(Lifetime::kLong)));
  ASSERT_OK(Migrate(UINT64_MAX, /*simple_copy=*/false));
  EXPECT_EQ(ModesOf("/a.sst"), std::set<CellMode>{CellMode::kQlc});
  const device::DeviceStats s = Stats();
  EXPECT_EQ(s.simple_copies, 0u);
  EXPECT_EQ(s.by_class[static_cast<int>(IoClass::kMigration)].read_bytes, 256u << 10);
  EXPECT_EQ(s.by_class[static_cast<int>(IoClass::kMigration)].write_bytes, 256u << 10);
  EXPECT_EQ(s.migration_programmed_bytes[static_cast<int>(CellMode::kQlc)], 256u << 10);
  ExpectFilesIntact(*vol_, files_);
  ExpectConsistent(*vol_);
}

TEST_F(CellMigrationTest, ExtentsLargerThanTheRoomLeftGoThroughTheHostInPieces) {
  // Five files of 900 KiB in one group fill SLC zones of 1 MiB back to
  // back after a log of 300 KiB that stays, so extents straddle zones; they
  // all move to QLC zones of 4 MiB of that group, where the one copied at
  // 3796 KiB (704 KiB) no longer fits the room left.
  policy_->SetGroup("/x.log", 20);
  ASSERT_OK(Write("/x.log", 300 << 10, {.kind = FileKind::kWal}));
  uint64_t total = 0;
  for (int i = 0; i < 5; ++i) {
    const std::string name = absl::StrCat("/f", i, ".sst");
    policy_->SetGroup(name, 20);
    ASSERT_OK(Write(name, 900 << 10, Sst(Lifetime::kLong)));
    total += 900 << 10;
  }
  ASSERT_OK(Migrate(UINT64_MAX));
  for (const auto& [name, size] : files_) {
    if (name == "/x.log") continue;
    EXPECT_EQ(ModesOf(name), std::set<CellMode>{CellMode::kQlc}) << name;
  }
  const device::DeviceStats s = Stats();
  EXPECT_GT(s.simple_copies, 0u);
  const uint64_t host = s.by_class[static_cast<int>(IoClass::kMigration)].write_bytes;
  EXPECT_GT(host, 0u);
  EXPECT_EQ(s.copy_bytes + host, total);
  EXPECT_EQ(vol_->cell_migration_stats().bytes_moved, total);
  ExpectFilesIntact(*vol_, files_);
  ExpectConsistent(*vol_);  // every moved extent's CRC, pieces included
  ExpectNoLeakedSpace(*vol_);
}

TEST_F(CellMigrationTest, ARequestForAModeTheDeviceLacksIsRefused) {
  auto s = vol_->MigrateCells({.device = 0, .to_mode = CellMode::kSlc, .bytes = 1});
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  s = vol_->MigrateCells({.device = 3, .to_mode = CellMode::kQlc, .bytes = 1});
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
}

// A power cut at every device command of a migration: whatever was cut,
// every file reads back whole from where the metadata says it is, nothing
// leaks, and a finished migration left every SST in QLC. An old zone reset
// before its data's new place was durable would show as lost data here.
void CutMigrationAtEveryCommand(bool simple_copy) {
  auto clock = std::make_shared<TestClock>();
  auto policy = std::make_shared<CellPolicy>();
  const MountOptions options{.placement = policy, .clock = clock};
  bool finished = false;
  for (uint64_t budget = 0; budget < 400 && !finished; ++budget) {
    SCOPED_TRACE(absl::StrCat("power cut after ", budget, " commands"));
    Devices devs{OpenDev(HznsUri())};
    ASSERT_OK(Volume::Format(devs));
    ASSERT_OK_AND_ASSIGN(auto vol, Volume::Mount(devs, options));
    std::map<std::string, uint64_t> files;
    auto write = [&](const std::string& path, uint64_t size, const FileHint& hint) {
      files[path] = size;
      return WriteFile(*vol, path, Pattern(std::hash<std::string>()(path), size), hint);
    };
    policy->SetGroup("/a.sst", 10);
    policy->SetGroup("/b.sst", 10);
    policy->SetGroup("/dead.sst", 11);
    policy->SetGroup("/c.sst", 11);
    ASSERT_OK(write("/a.sst", 700 << 10, Sst(Lifetime::kLong)));
    ASSERT_OK(write("/b.sst", 500 << 10, Sst(Lifetime::kMedium)));  // straddles two zones
    ASSERT_OK(write("/dead.sst", 300 << 10, Sst(Lifetime::kExtreme)));
    ASSERT_OK(write("/c.sst", 200 << 10, Sst(Lifetime::kExtreme)));
    ASSERT_OK(write("/000004.log", 100 << 10, {.kind = FileKind::kWal}));
    ASSERT_OK(vol->Delete("/dead.sst"));
    files.erase("/dead.sst");

    Emu(devs[0])->PowerOffAfter(budget);
    (void)vol->MigrateCells(
        {.device = 0, .to_mode = CellMode::kQlc, .bytes = UINT64_MAX, .simple_copy = simple_copy});
    const bool cut = Emu(devs[0])->powered_off();
    Crash(devs, vol);
    ASSERT_OK_AND_ASSIGN(vol, Volume::Mount(devs, options));
    ExpectFilesIntact(*vol, files);
    ExpectConsistent(*vol, " after the cut");
    ExpectNoLeakedSpace(*vol);
    if (::testing::Test::HasFailure()) return;
    if (!cut) {
      finished = true;
      std::map<uint32_t, CellMode> mode;
      for (const ZoneReport& z : vol->Zones()) mode[z.zone.index] = z.zone.cell_mode;
      for (const FileInfo& f : vol->Files()) {
        const CellMode want =
            f.hint.kind == FileKind::kSst ? CellMode::kQlc : CellMode::kSlc;
        for (const ExtentInfo& x : f.extents) EXPECT_EQ(mode[x.zone], want) << f.names[0];
      }
    }
    // The volume keeps working, in both modes.
    policy->SetMode(CellMode::kQlc);
    ASSERT_OK(write("/after.sst", 300 << 10, Sst(Lifetime::kLong)));
    policy->SetMode(CellMode::kNone);
    ExpectFilesIntact(*vol, files);
    ExpectConsistent(*vol, " after writing again");
  }
  EXPECT_TRUE(finished) << "the migration never ran to its end";
}

TEST(CellMigrationCrashTest, SimpleCopyMigrationSurvivesAPowerCutAtEveryCommand) {
  CutMigrationAtEveryCommand(/*simple_copy=*/true);
}

TEST(CellMigrationCrashTest, HostCopyMigrationSurvivesAPowerCutAtEveryCommand) {
  CutMigrationAtEveryCommand(/*simple_copy=*/false);
}

}  // namespace
}  // namespace zonestack::zfs
