// zfs's subzone allocator (SplitZNS 4.2-4.3, src/zfs/subzones.cc) on the
// emulated splitzns device: a file the policy sends to a subzone gets one
// of its own, sequentially written and finished at close; a subzone whose
// file dies is reset, and a split zone whose subzones are all empty is
// merged back; new writers fill the split zone with the most subzones in
// use, so concurrent writers sit on distinct chips; files in subzones
// survive a remount and a power cut (with several subzone writers open),
// every byte read back and checked. Device faults: subzone_fault_test.cc.
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "subzone_policy.h"
#include "zfs_test_util.h"

namespace zonestack::zfs {
namespace {

using namespace testing_util;

// splitzns at 1/64: 8 MiB zones of 16 subzones of 512 KiB, 24 active zones.
std::string SplitUri(uint32_t zones = 24) {
  return absl::StrCat("emu:splitzns?zones=", zones, "&scale=1/64&timing=none");
}

class SubzoneTest : public VolumeTest {
 protected:
  void SetUp() override {
    FormatAndMount({OpenDev(SplitUri())}, {.placement = std::make_shared<SubzonePolicy>()});
  }
  const device::DeviceInfo& info() const { return devs_[0]->info(); }

  // Where a file's extents lie: (zone, subzone) of each; fails the test if
  // an extent is not inside one subzone of a split zone.
  std::set<std::pair<uint32_t, uint32_t>> SubzonesOf(const std::string& path) {
    std::set<std::pair<uint32_t, uint32_t>> out;
    for (const FileInfo& f : vol_->Files()) {
      if (f.names[0] != path) continue;
      for (const ExtentInfo& x : f.extents) {
        auto zi = devs_[0]->ReportZone(x.zone);
        EXPECT_TRUE(zi.ok() && zi->IsSplit()) << path << ": zone " << x.zone << " is not split";
        const uint64_t in_zone = x.offset - devs_[0]->ZoneStart(x.zone);
        const auto sub = static_cast<uint32_t>(in_zone / info().subzone_size());
        EXPECT_LE(in_zone + x.length, sub * info().subzone_size() + info().subzone_capacity())
            << path << ": extent crosses its subzone";
        out.insert({x.zone, sub});
      }
    }
    return out;
  }
  device::SubzoneInfo Subzone(uint32_t zone, uint32_t sub) {
    auto subs = devs_[0]->ReportSubzones(zone);
    EXPECT_TRUE(subs.ok()) << subs.status();
    return subs.ok() ? (*subs)[sub] : device::SubzoneInfo{};
  }
  // Writes `size` bytes of the path's pattern and closes the file.
  void Write(const std::string& path, uint64_t size) {
    ASSERT_OK(WriteFile(*vol_, path, Pattern(std::hash<std::string>()(path), size),
                        {.name = path, .kind = FileKind::kSst}));
    files_[path] = size;
  }

  // Opens "/sub0" .. "/sub<n-1>" at once, each with 64 KiB written and
  // synced, none closed.
  void OpenSyncedWriters(uint32_t n, std::vector<std::unique_ptr<WritableFile>>* writers) {
    for (uint32_t i = 0; i < n; ++i) {
      const std::string path = absl::StrCat("/sub", i);
      auto f = vol_->Create(path, {.name = path, .kind = FileKind::kSst});
      ASSERT_TRUE(f.ok()) << f.status();
      ASSERT_OK((*f)->Append(Pattern(std::hash<std::string>()(path), 64 << 10)));
      ASSERT_OK((*f)->Sync());
      writers->push_back(std::move(*f));
      files_[path] = 64 << 10;
    }
  }

  std::map<std::string, uint64_t> files_;
};

TEST_F(SubzoneTest, FileGetsASubzoneOfItsOwnFinishedAtClose) {
  Write("/sub1", 300 << 10);
  Write("/sub2", 200 << 10);
  Write("/wide", 300 << 10);
  const auto a = SubzonesOf("/sub1"), b = SubzonesOf("/sub2");
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_NE(*a.begin(), *b.begin());
  // Both in the one split zone: the second writer filled the split zone in use.
  EXPECT_EQ(a.begin()->first, b.begin()->first);
  EXPECT_EQ(Subzone(a.begin()->first, a.begin()->second).state, device::ZoneState::kFull);
  EXPECT_GE(Subzone(a.begin()->first, a.begin()->second).chip, 0);
  // The wide file is not in a split zone.
  for (const FileInfo& f : vol_->Files()) {
    if (f.names[0] != "/wide") continue;
    for (const ExtentInfo& x : f.extents) EXPECT_FALSE(devs_[0]->ReportZone(x.zone)->IsSplit());
  }
  ExpectFilesIntact(*vol_, files_);
  ExpectConsistent(*vol_);
  ExpectNoLeakedSpace(*vol_);
}

TEST_F(SubzoneTest, FileLargerThanItsSubzoneGoesOnInAnother) {
  const uint64_t size = info().subzone_capacity() + (100 << 10);
  Write("/sub-big", size);
  EXPECT_EQ(SubzonesOf("/sub-big").size(), 2u);
  ExpectFilesIntact(*vol_, files_);
  ExpectConsistent(*vol_);
}

TEST_F(SubzoneTest, DeadSubzoneIsResetAndEmptySplitZoneMerged) {
  Write("/sub1", 300 << 10);
  Write("/sub2", 300 << 10);
  const auto [zone, s1] = *SubzonesOf("/sub1").begin();
  const auto s2 = SubzonesOf("/sub2").begin()->second;
  ASSERT_OK(vol_->Delete("/sub1"));
  files_.erase("/sub1");
  // Reset on its own: the other subzone keeps its data, the zone stays split.
  EXPECT_EQ(Subzone(zone, s1).state, device::ZoneState::kEmpty);
  EXPECT_EQ(Subzone(zone, s1).write_pointer, Subzone(zone, s1).start);
  EXPECT_EQ(Subzone(zone, s2).state, device::ZoneState::kFull);
  EXPECT_GE(devs_[0]->Stats().subzone_resets, 1u);
  ExpectFilesIntact(*vol_, files_);
  ExpectConsistent(*vol_);
  // The reset subzone takes the next file.
  Write("/sub3", 100 << 10);
  EXPECT_EQ(SubzonesOf("/sub3"), (std::set<std::pair<uint32_t, uint32_t>>{{zone, s1}}));
  ASSERT_OK(vol_->Delete("/sub2"));
  ASSERT_OK(vol_->Delete("/sub3"));
  files_.clear();
  // Every subzone empty: a wide zone again, and empty.
  auto zi = devs_[0]->ReportZone(zone);
  ASSERT_TRUE(zi.ok());
  EXPECT_FALSE(zi->IsSplit());
  EXPECT_EQ(zi->state, device::ZoneState::kEmpty);
  ExpectConsistent(*vol_);
  ExpectNoLeakedSpace(*vol_);
}

TEST_F(SubzoneTest, ConcurrentWritersShareOneSplitZoneOnDistinctChips) {
  // Eight writers at once, each with a written block (Sync), none closed.
  std::vector<std::unique_ptr<WritableFile>> writers;
  ASSERT_NO_FATAL_FAILURE(OpenSyncedWriters(8, &writers));
  std::set<uint32_t> zones, chips;
  for (const auto& [path, size] : files_) {
    const auto where = SubzonesOf(path);
    ASSERT_EQ(where.size(), 1u) << path;
    zones.insert(where.begin()->first);
    chips.insert(static_cast<uint32_t>(Subzone(where.begin()->first, where.begin()->second).chip));
  }
  // One split zone (one active zone) holds them all, each on a chip of its own.
  EXPECT_EQ(zones.size(), 1u);
  EXPECT_EQ(chips.size(), 8u);
  for (auto& w : writers) ASSERT_OK(w->Close());
  ExpectFilesIntact(*vol_, files_);
  ExpectConsistent(*vol_);
}

TEST_F(SubzoneTest, NewWriterTakesTheSplitZoneWithTheMostSubzonesInUse) {
  // Sixteen open writers fill split zone A; a seventeenth splits zone B.
  const uint32_t n = info().subzones_per_zone;
  std::vector<std::unique_ptr<WritableFile>> writers;
  ASSERT_NO_FATAL_FAILURE(OpenSyncedWriters(n + 1, &writers));
  const uint32_t a = SubzonesOf("/sub0").begin()->first;
  const uint32_t b = SubzonesOf(absl::StrCat("/sub", n)).begin()->first;
  ASSERT_NE(a, b);
  // B's writer closes (1 subzone in use); A's first writer closes and its
  // file dies, while A's other writers go on (15 in use, 1 empty).
  ASSERT_OK(writers[n]->Close());
  ASSERT_OK(writers[0]->Close());
  ASSERT_OK(vol_->Delete("/sub0"));
  files_.erase("/sub0");
  Write("/sub-next", 64 << 10);
  EXPECT_EQ(SubzonesOf("/sub-next").begin()->first, a);
  for (auto& w : writers) ASSERT_OK(w->Close());
  // Every subzone of A full: A is finished, and gave back its active zone.
  EXPECT_EQ(devs_[0]->ReportZone(a)->state, device::ZoneState::kFull);
  EXPECT_NE(devs_[0]->ReportZone(b)->state, device::ZoneState::kFull);
  ExpectFilesIntact(*vol_, files_);
  ExpectConsistent(*vol_);
}

TEST_F(SubzoneTest, ResetSubzonesOfAFinishedSplitZoneTakeNewFilesWithoutGc) {
  // Sixteen files fill split zone A, which is then finished; three die.
  // The next three files reopen A and take its reset subzones: no zone is
  // split and nothing is moved (SplitZNS: a subzone is reused once its
  // SST dies, without migration).
  const uint32_t n = info().subzones_per_zone;
  for (uint32_t i = 0; i < n; ++i) Write(absl::StrCat("/sub", i), 200 << 10);
  const uint32_t a = SubzonesOf("/sub0").begin()->first;
  ASSERT_EQ(devs_[0]->ReportZone(a)->state, device::ZoneState::kFull);
  for (uint32_t i : {2u, 7u, 11u}) {
    ASSERT_OK(vol_->Delete(absl::StrCat("/sub", i)));
    files_.erase(absl::StrCat("/sub", i));
  }
  const uint64_t splits = devs_[0]->Stats().zone_splits;
  for (uint32_t i = 0; i < 3; ++i) {
    const std::string path = absl::StrCat("/sub-new", i);
    Write(path, 300 << 10);
    const auto where = SubzonesOf(path);
    ASSERT_EQ(where.size(), 1u) << path;
    EXPECT_EQ(where.begin()->first, a) << path;
  }
  EXPECT_EQ(devs_[0]->Stats().zone_splits, splits);
  EXPECT_EQ(vol_->gc_totals().bytes_relocated, 0u);
  // Full again, A gave its active zone back.
  EXPECT_EQ(devs_[0]->ReportZone(a)->state, device::ZoneState::kFull);
  ExpectFilesIntact(*vol_, files_);
  ExpectConsistent(*vol_);
  ExpectNoLeakedSpace(*vol_);
  Remount();
  ExpectFilesIntact(*vol_, files_);
  ExpectConsistent(*vol_, " after remount");
}

TEST_F(SubzoneTest, GcEmptiesAFinishedSplitZoneWithFewLiveSubzones) {
  // Sixteen files fill split zone A, which is then finished; eight more
  // open split zone B. Twelve of A's die. GC moves A's four live files
  // into B's empty subzones, never into A's reset ones, and A is merged:
  // a zone back without splitting another.
  const uint32_t n = info().subzones_per_zone;
  for (uint32_t i = 0; i < n; ++i) Write(absl::StrCat("/sub", i), 200 << 10);
  const uint32_t a = SubzonesOf("/sub0").begin()->first;
  ASSERT_EQ(devs_[0]->ReportZone(a)->state, device::ZoneState::kFull);
  for (uint32_t i = 0; i < n / 2; ++i) Write(absl::StrCat("/subB", i), 200 << 10);
  const uint32_t b = SubzonesOf("/subB0").begin()->first;
  ASSERT_NE(a, b);
  for (uint32_t i = 0; i < n - 4; ++i) {
    ASSERT_OK(vol_->Delete(absl::StrCat("/sub", i)));
    files_.erase(absl::StrCat("/sub", i));
  }
  ASSERT_TRUE(devs_[0]->ReportZone(a)->IsSplit());
  const uint64_t splits = devs_[0]->Stats().zone_splits;
  auto gc = vol_->CollectGarbage(/*force=*/true);
  ASSERT_TRUE(gc.ok()) << gc.status();
  EXPECT_GE(gc->zones_reclaimed, 1u);
  EXPECT_EQ(devs_[0]->Stats().zone_splits, splits);
  // A is a wide, empty zone again; its four live files are in B.
  EXPECT_FALSE(devs_[0]->ReportZone(a)->IsSplit());
  EXPECT_EQ(devs_[0]->ReportZone(a)->state, device::ZoneState::kEmpty);
  for (uint32_t i = n - 4; i < n; ++i) {
    const auto where = SubzonesOf(absl::StrCat("/sub", i));
    ASSERT_EQ(where.size(), 1u) << i;
    EXPECT_EQ(where.begin()->first, b) << i;
  }
  ExpectFilesIntact(*vol_, files_);
  ExpectConsistent(*vol_);
  ExpectNoLeakedSpace(*vol_);
}

TEST_F(SubzoneTest, GcLeavesSplitZonesWhoseSstsFitNowhereElse) {
  // Split zones A and B, full and finished; two files die in each, so each
  // has 14 live subzones and 2 empty ones. Emptying either would move 14
  // SSTs into a newly split zone: one zone for another, nothing freed.
  // A forced GC (a write found no room) must move nothing. It used to move
  // every split zone's SSTs on each such run (the K = 32 overwrite moved
  // GiBs for nothing and ran out of zones).
  const uint32_t n = info().subzones_per_zone;
  for (uint32_t i = 0; i < 2 * n; ++i) Write(absl::StrCat("/sub", i), 200 << 10);
  const uint32_t a = SubzonesOf("/sub0").begin()->first;
  const uint32_t b = SubzonesOf(absl::StrCat("/sub", n)).begin()->first;
  ASSERT_NE(a, b);
  for (uint32_t i : {0u, 5u, n, n + 5}) {
    ASSERT_OK(vol_->Delete(absl::StrCat("/sub", i)));
    files_.erase(absl::StrCat("/sub", i));
  }
  const uint64_t splits = devs_[0]->Stats().zone_splits;
  auto gc = vol_->CollectGarbage(/*force=*/true);
  ASSERT_TRUE(gc.ok()) << gc.status();
  EXPECT_EQ(gc->bytes_relocated, 0u);
  EXPECT_EQ(devs_[0]->Stats().zone_splits, splits);
  EXPECT_TRUE(devs_[0]->ReportZone(a)->IsSplit());
  EXPECT_TRUE(devs_[0]->ReportZone(b)->IsSplit());
  ExpectFilesIntact(*vol_, files_);
  ExpectConsistent(*vol_);
  ExpectNoLeakedSpace(*vol_);
}

class SubzoneGcTest : public VolumeTest {};

TEST_F(SubzoneGcTest, GcOfAWideZoneSplitsNoZoneWhenOnlyItsReserveIsLeft) {
  // A file the policy sends to a subzone lands in a wide zone when no zone
  // can be split (only GC's reserve is empty). GC of that wide zone must
  // not split its reserve for the file: the zone's other live files would
  // then find no zone to move into, GC would free nothing, and every
  // later forced GC would find no empty zone either (a K = 32 overwrite
  // failed 101,885 writes that way with 0.5 GiB of dead data on the
  // device).
  FormatAndMount({OpenDev(SplitUri(10))}, {.placement = std::make_shared<SubzonePolicy>()});
  const auto& dev = devs_[0];
  std::map<std::string, uint64_t> files;
  auto write = [&](const std::string& path, uint64_t size) {
    ASSERT_OK(WriteFile(*vol_, path, Pattern(std::hash<std::string>()(path), size),
                        {.name = path, .kind = FileKind::kSst}));
    files[path] = size;
  };
  auto empty = [&] { return vol_->Space()[0].empty_zones; };
  int i = 0;
  while (empty() > 1) write(absl::StrCat("/w", i++), 1 << 20);
  // The zone now being filled takes the subzone file, then wide files
  // until it is full.
  write("/sub-in-wide", 512 << 10);
  const uint32_t victim = [&] {
    for (const FileInfo& f : vol_->Files()) {
      if (f.names[0] == "/sub-in-wide") return f.extents.at(0).zone;
    }
    return UINT32_MAX;
  }();
  ASSERT_NE(victim, UINT32_MAX);
  ASSERT_FALSE(dev->ReportZone(victim)->IsSplit());
  // Fill the victim exactly: one wide file that lives on, one that dies.
  write("/w-live", 1 << 20);
  uint64_t left = 0;
  for (const ZoneReport& z : vol_->Zones()) {
    if (z.zone.index == victim) left = z.zone.capacity - z.written_bytes;
  }
  ASSERT_GT(left, 0u);
  write("/w-dies", left);
  ASSERT_EQ(dev->ReportZone(victim)->state, device::ZoneState::kFull);
  ASSERT_EQ(empty(), 1u);
  // Most of the victim dies; the wide file and the subzone file live on.
  for (const FileInfo& f : vol_->Files()) {
    const std::string& path = f.names[0];
    if (path == "/sub-in-wide" || path == "/w-live") continue;
    bool in_victim = false;
    for (const ExtentInfo& x : f.extents) in_victim |= x.zone == victim;
    if (!in_victim) continue;
    ASSERT_OK(vol_->Delete(path));
    files.erase(path);
  }
  const uint64_t splits = dev->Stats().zone_splits;
  auto gc = vol_->CollectGarbage(/*force=*/true);
  ASSERT_TRUE(gc.ok()) << gc.status();
  EXPECT_GE(gc->zones_reclaimed, 1u);
  EXPECT_EQ(dev->Stats().zone_splits, splits);
  EXPECT_GE(empty(), 1u);
  ExpectFilesIntact(*vol_, files);
  ExpectConsistent(*vol_);
  ExpectNoLeakedSpace(*vol_);
}

TEST_F(SubzoneTest, FilesInSubzonesSurviveRemount) {
  for (int i = 0; i < 20; ++i) Write(absl::StrCat("/sub", i), (100 + 37 * i) << 10);
  Write("/wide", 500 << 10);
  ASSERT_OK(vol_->Delete("/sub3"));
  files_.erase("/sub3");
  Remount();
  ExpectFilesIntact(*vol_, files_);
  ExpectConsistent(*vol_, " after remount");
  ExpectNoLeakedSpace(*vol_);
  // Allocation goes on: a new file gets a subzone, deletes reset subzones.
  Write("/sub-after", 100 << 10);
  for (int i = 0; i < 20; ++i) {
    if (i == 3) continue;
    ASSERT_OK(vol_->Delete(absl::StrCat("/sub", i)));
    files_.erase(absl::StrCat("/sub", i));
  }
  ExpectFilesIntact(*vol_, files_);
  ExpectConsistent(*vol_, " after deletes");
  ExpectNoLeakedSpace(*vol_);
}

TEST_F(SubzoneTest, FilesInSubzonesSurvivePowerCut) {
  for (int i = 0; i < 6; ++i) Write(absl::StrCat("/sub", i), (200 + 50 * i) << 10);
  ASSERT_OK(vol_->Delete("/sub1"));
  files_.erase("/sub1");
  // A writer that synced part of its file and then wrote more unsynced;
  // another that never synced.
  std::vector<std::unique_ptr<WritableFile>> writers;
  const std::string open = "/sub-open", lost = "/sub-unsynced";
  auto f = vol_->Create(open, {.name = open, .kind = FileKind::kSst});
  ASSERT_TRUE(f.ok());
  const auto data = Pattern(std::hash<std::string>()(open), 400 << 10);
  ASSERT_OK((*f)->Append(std::span(data).first(256 << 10)));
  ASSERT_OK((*f)->Sync());
  ASSERT_OK((*f)->Append(std::span(data).subspan(256 << 10)));
  writers.push_back(std::move(*f));
  auto g = vol_->Create(lost, {.name = lost, .kind = FileKind::kSst});
  ASSERT_TRUE(g.ok());
  ASSERT_OK((*g)->Append(Pattern(1, 2 << 20)));  // beyond one write batch: on the device
  writers.push_back(std::move(*g));

  Crash(devs_, vol_, writers);
  Mount();
  // Every closed file whole; the synced writer's file at least what it synced.
  ExpectFilesIntact(*vol_, files_);
  auto got = ReadFile(*vol_, open);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_GE(got->size(), 256u << 10);
  EXPECT_TRUE(MatchesPattern(std::hash<std::string>()(open), 0, *got));
  ExpectConsistent(*vol_, " after the power cut");
  ExpectNoLeakedSpace(*vol_);
  // Subzones the crash left written with no file in them were reset.
  Write("/sub-after", 100 << 10);
  ASSERT_OK(vol_->Delete(open));
  Remount();
  ExpectFilesIntact(*vol_, files_);
  ExpectConsistent(*vol_, " after a second mount");
  ExpectNoLeakedSpace(*vol_);
}

// Eight subzone writers in one split zone, each on its own chip, each with
// a synced part and an unsynced tail when the power goes: every synced
// byte is back, and the writers' subzones are cleaned up at mount.
TEST_F(SubzoneTest, PowerCutWithSeveralSubzoneWritersKeepsWhatEachSynced) {
  Write("/sub-closed", 300 << 10);
  std::vector<std::unique_ptr<WritableFile>> writers;
  ASSERT_NO_FATAL_FAILURE(OpenSyncedWriters(8, &writers));  // 64 KiB synced each
  std::map<std::string, uint64_t> synced;
  for (uint32_t i = 0; i < 8; ++i) {
    const std::string path = absl::StrCat("/sub", i);
    const auto data = Pattern(std::hash<std::string>()(path), 64 << 10, (32 + 16 * i) << 10);
    ASSERT_OK(writers[i]->Append(data));
    // Even writers sync their second part; odd ones leave it unsynced.
    if (i % 2 == 0) ASSERT_OK(writers[i]->Sync());
    synced[path] = (64 + (i % 2 == 0 ? 32 + 16 * i : 0)) << 10;
    files_.erase(path);
  }
  std::set<int32_t> chips;
  for (uint32_t i = 0; i < 8; ++i) {
    for (const auto& [zone, sub] : SubzonesOf(absl::StrCat("/sub", i))) {
      chips.insert(Subzone(zone, sub).chip);
    }
  }
  EXPECT_EQ(chips.size(), 8u) << "the writers share chips";

  Crash(devs_, vol_, writers);
  Mount();
  ExpectFilesIntact(*vol_, files_);
  for (const auto& [path, size] : synced) {
    auto got = ReadFile(*vol_, path);
    ASSERT_TRUE(got.ok()) << path << ": " << got.status();
    EXPECT_GE(got->size(), size) << path;
    EXPECT_TRUE(MatchesPattern(std::hash<std::string>()(path), 0, *got)) << path;
  }
  ExpectConsistent(*vol_, " after the power cut");
  ExpectNoLeakedSpace(*vol_);
  Remount();
  ExpectFilesIntact(*vol_, files_);
  ExpectConsistent(*vol_, " after a second mount");
}

TEST(SubzoneFallbackTest, DeviceWithoutSubzonesUsesWideZones) {
  Devices devs{OpenDev(ZnsUri(16))};
  ASSERT_OK(Volume::Format(devs));
  auto vol = Volume::Mount(devs, {.placement = std::make_shared<SubzonePolicy>()});
  ASSERT_TRUE(vol.ok()) << vol.status();
  const auto data = Pattern(5, 300 << 10);
  ASSERT_OK(WriteFile(**vol, "/sub1", data, {.name = "/sub1", .kind = FileKind::kSst}));
  auto got = ReadFile(**vol, "/sub1");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, data);
  ExpectConsistent(**vol);
}

}  // namespace
}  // namespace zonestack::zfs
