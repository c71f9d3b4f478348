// What zfs tells the placement policy (OnPlaced, OnRemoved) and migration
// (HHZS 3.4): Migrate moves a file under readers no faster than its rate,
// counts what it moved and what failed, does not hold GC up, and the
// background thread runs the policy's requests and stops at unmount. Time
// is the volume's simulated clock (test_clock.h): a copy's pauses are
// checked against its rate without waiting for them.
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include <gtest/gtest.h>

#include "recording_policy.h"
#include "test_clock.h"
#include "zfs_test_util.h"

namespace zonestack::zfs {
namespace {

using namespace testing_util;
using testing_common::TestThread;
using testing_common::WaitFor;

constexpr uint64_t kSecond = 1'000'000'000;

// The ids of this process's threads.
std::set<std::string> ThreadIds() {
  std::set<std::string> ids;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    ids.insert(task.path().filename().string());
  }
  return ids;
}

class MigrationTest : public VolumeTest {
 protected:
  // A ZN540 and an HM-SMR disk; files go to the SSD first. The volume's
  // clock is clock_, or with `real_clock` the real one.
  void SetUpVolume(double migration_rate = 0, bool real_clock = false) {
    policy_ = std::make_shared<RecordingPolicy>();
    policy_->SetMigrationRate(migration_rate);
    MountOptions options{.placement = policy_};
    if (!real_clock) options.clock = clock_;
    FormatAndMount({OpenDev(ZnsUri(16)), OpenDev(SmrUri(64))}, std::move(options));
  }
  // A copy a failed test left held between two chunks must not hold the
  // unmount up.
  void TearDown() override { clock_->Release(); }
  absl::Status Write(const std::string& path, uint64_t size, const FileHint& hint = {}) {
    return WriteFile(*vol_, path, Pattern(std::hash<std::string>()(path), size), hint, 1 << 20);
  }
  uint64_t MigrationBytesWritten(uint32_t device) {
    return vol_->devices()[device]
        ->Stats()
        .by_class[static_cast<int>(device::IoClass::kMigration)]
        .write_bytes;
  }

  std::shared_ptr<TestClock> clock_ = std::make_shared<TestClock>();
  std::shared_ptr<RecordingPolicy> policy_;
};

TEST_F(MigrationTest, PolicyHearsWhereFilesAreAndWhenTheyGo) {
  SetUpVolume();
  ASSERT_OK(Write("/a", 100000, {.kind = FileKind::kSst}));
  auto placed = policy_->PlacedOf("/a");
  ASSERT_EQ(placed.size(), 1u) << "at its first zone only";
  EXPECT_EQ(placed[0].device, 0u);
  EXPECT_TRUE(placed[0].is_ssd);

  // A writer moving on to a zone of another device.
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/big", {.kind = FileKind::kSst}));
  ASSERT_OK(w->Append(Pattern(std::hash<std::string>()("/big"), 1 << 20)));
  ASSERT_OK(w->Sync());
  policy_->SetDevices({1}, {1});
  ASSERT_OK(w->Append(Pattern(std::hash<std::string>()("/big"), 1 << 20, 4 << 20)));
  ASSERT_OK(w->Close());
  placed = policy_->PlacedOf("/big");
  ASSERT_EQ(placed.size(), 2u);
  EXPECT_EQ(placed[0].device, 0u);
  EXPECT_EQ(placed[1].device, 1u);
  EXPECT_FALSE(placed[1].is_ssd);
  EXPECT_GT(placed[1].size, 1u << 20) << "the bytes written before the move";
  EXPECT_EQ(DevicesOf(*vol_, "/big"), (std::set<uint32_t>{0, 1}));

  // Removal: when the last name goes.
  ASSERT_OK(vol_->Delete("/a"));
  EXPECT_EQ(policy_->removed(), std::vector<std::string>{"/a"});
  ASSERT_OK(vol_->Link("/big", "/big2"));
  ASSERT_OK(vol_->Delete("/big"));
  EXPECT_EQ(policy_->removed().size(), 1u);
  ASSERT_OK(vol_->Delete("/big2"));
  EXPECT_EQ(policy_->removed().size(), 2u);
  // A file replaced by a rename or by a create loses its last name too.
  policy_->SetDevices({0, 1}, {0, 1});
  ASSERT_OK(Write("/b", 5000));
  ASSERT_OK(Write("/c", 5000));
  ASSERT_OK(vol_->Rename("/c", "/b"));
  EXPECT_EQ(policy_->removed().back(), "/b");
  ASSERT_OK(Write("/b", 7000));  // replaces the renamed /c
  EXPECT_EQ(policy_->removed().size(), 4u);

  // Mount reports every file with data, on the device of its last extent.
  ASSERT_OK(Write("/hdd", 5000));
  ASSERT_OK(vol_->Relocate("/hdd", 1));
  ASSERT_OK(Write("/empty", 0));
  policy_->ClearEvents();
  ASSERT_NO_FATAL_FAILURE(Remount());
  std::map<std::string, uint32_t> at_mount;
  for (const auto& p : policy_->placed()) {
    EXPECT_FALSE(at_mount.contains(p.name)) << p.name << " reported twice";
    at_mount[p.name] = p.device;
    EXPECT_EQ(p.is_ssd, p.device == 0);
  }
  EXPECT_EQ(at_mount, (std::map<std::string, uint32_t>{{"/b", 0}, {"/hdd", 1}}));
  EXPECT_EQ(policy_->PlacedOf("/b")[0].size, 7000u);
  EXPECT_TRUE(policy_->removed().empty());
}

TEST_F(MigrationTest, MigrateMovesAFileUnderReadersAtItsRate) {
  SetUpVolume();
  constexpr uint64_t kSize = 2 << 20;
  constexpr double kRate = 4 << 20;
  ASSERT_OK(Write("/f", kSize));
  ASSERT_EQ(DevicesOf(*vol_, "/f"), std::set<uint32_t>{0});
  ASSERT_OK_AND_ASSIGN(auto r, vol_->Open("/f"));
  policy_->ClearEvents();
  {
    PatternReader reader(*r, std::hash<std::string>()("/f"));
    // The copy pauses after each chunk. Held there, it goes on when the
    // test moves the clock to the pause's end, the reader reading meanwhile.
    clock_->Hold();
    const uint64_t start = clock_->NowNs();
    absl::Status migrated;
    std::atomic<bool> done{false};
    TestThread mover(
        [&] {
          migrated = vol_->Migrate("/f", 1, kRate);
          done = true;
        },
        [&] { clock_->Release(); });
    int pauses = 0;
    for (;;) {
      std::optional<uint64_t> pause;
      ASSERT_TRUE(WaitFor([&] { return done || (pause = clock_->Paused()).has_value(); }));
      if (!pause) break;
      ++pauses;
      // No faster than the rate since the start, the chunk just copied
      // included.
      const double copied = static_cast<double>(MigrationBytesWritten(1));
      EXPECT_EQ(*pause - start, static_cast<uint64_t>(std::ceil(copied * 1e9 / kRate)));
      ASSERT_TRUE(reader.WaitForReads(reader.reads() + 10)) << "reading while the move pauses";
      clock_->Set(*pause);
    }
    mover.Join();
    ASSERT_OK(migrated);
    EXPECT_GE(pauses, 2) << "a pause after each 1 MiB chunk (the disk's zone)";
    EXPECT_EQ(clock_->NowNs() - start, static_cast<uint64_t>(kSize / kRate * kSecond))
        << "the whole copy took as long as its rate asks";
  }
  r.reset();
  EXPECT_EQ(DevicesOf(*vol_, "/f"), std::set<uint32_t>{1});
  const MigrationStats stats = vol_->migration_stats();
  EXPECT_EQ(stats.files_moved, 1u);
  EXPECT_EQ(stats.bytes_moved, kSize);
  EXPECT_EQ(stats.failures, 0u);
  EXPECT_GE(MigrationBytesWritten(1), kSize);
  const auto placed = policy_->PlacedOf("/f");
  ASSERT_EQ(placed.size(), 1u);
  EXPECT_EQ(placed[0].device, 1u);
  EXPECT_FALSE(placed[0].is_ssd);
  EXPECT_EQ(placed[0].size, kSize);
  ExpectConsistent(*vol_);
  ExpectNoLeakedSpace(*vol_);
  ASSERT_NO_FATAL_FAILURE(Remount());
  EXPECT_EQ(DevicesOf(*vol_, "/f"), std::set<uint32_t>{1});
  ExpectFilesIntact(*vol_, std::map<std::string, uint64_t>{{"/f", kSize}});
  ExpectConsistent(*vol_);
}

TEST_F(MigrationTest, SlowMigrationDoesNotHoldGcUpAndAFileDeletedMidMoveFails) {
  SetUpVolume();
  ASSERT_OK(Write("/f", 4 << 20));
  // Dead space for GC to find on the SSD, in zones of another group (the
  // WAL's) than /f's: /x fills most of a zone, /y the rest and more.
  ASSERT_OK(Write("/x", 4 << 20, {.kind = FileKind::kWal}));
  ASSERT_OK(Write("/y", 300000, {.kind = FileKind::kWal}));
  ASSERT_OK(vol_->Delete("/x"));
  // The move, held in its pause after the first chunk.
  clock_->Hold();
  absl::Status migrated;
  TestThread mover([&] { migrated = vol_->Migrate("/f", 1, 1 << 20); },
                   [&] { clock_->Release(); });
  ASSERT_TRUE(WaitFor([&] { return clock_->Paused().has_value(); })) << "the move never paused";
  const uint64_t copied = MigrationBytesWritten(1);
  ASSERT_GT(copied, 0u);
  ASSERT_LT(copied, 4u << 20);
  // GC runs to its end while the move is paused.
  absl::StatusOr<GcStats> gc;
  std::atomic<bool> collected{false};
  TestThread collector(
      [&] {
        gc = vol_->CollectGarbage(/*force=*/true);
        collected = true;
      },
      [&] { clock_->Release(); });
  ASSERT_TRUE(WaitFor([&] { return collected.load(); })) << "GC waited for the paused migration";
  collector.Join();
  ASSERT_OK(gc);
  EXPECT_GT(gc->zones_reclaimed, 0u);
  // Deleted mid-move, the file is not copied on: the move stops at its
  // next chunk.
  ASSERT_OK(vol_->Delete("/f"));
  ASSERT_TRUE(clock_->Paused().has_value());
  clock_->Release();
  mover.Join();
  EXPECT_EQ(migrated.code(), absl::StatusCode::kAborted) << migrated;
  EXPECT_EQ(MigrationBytesWritten(1), copied) << "chunks copied after the delete";
  const MigrationStats stats = vol_->migration_stats();
  EXPECT_EQ(stats.files_moved, 0u);
  EXPECT_EQ(stats.failures, 1u);
  EXPECT_EQ(stats.aborted, 1u);
  EXPECT_EQ(stats.no_room, 0u);
  EXPECT_EQ(vol_->Space()[1].valid_bytes, 0u) << "the copies are given back";
  ExpectConsistent(*vol_);
  ExpectNoLeakedSpace(*vol_);

  // Other failures count too.
  EXPECT_EQ(vol_->Migrate("/none", 1, 0).code(), absl::StatusCode::kNotFound);
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Reopen("/y"));
  EXPECT_EQ(vol_->Migrate("/y", 1, 0).code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_OK(w->Close());
  EXPECT_EQ(vol_->migration_stats().failures, 3u);
  EXPECT_EQ(vol_->migration_stats().aborted, 1u);
}

TEST_F(MigrationTest, CopiesInChunksOfTwoMebibytes) {
  // Two SSDs of 4.2 MiB zones, so neither side splits a 4 MiB file: its
  // copy is read in 2 MiB chunks (the authors' chunk), each a disk seek
  // between user reads when the source is an HDD.
  policy_ = std::make_shared<RecordingPolicy>();
  FormatAndMount({OpenDev(ZnsUri(16)), OpenDev(ZnsUri(16))}, {.placement = policy_});
  ASSERT_OK(Write("/f", 4 << 20));
  ASSERT_EQ(DevicesOf(*vol_, "/f"), std::set<uint32_t>{0});
  ASSERT_OK(vol_->Migrate("/f", 1, 0));
  EXPECT_EQ(DevicesOf(*vol_, "/f"), std::set<uint32_t>{1});
  const device::IoCounters read =
      vol_->devices()[0]->Stats().by_class[static_cast<int>(device::IoClass::kMigration)];
  EXPECT_EQ(read.read_bytes, uint64_t{4} << 20);
  EXPECT_EQ(read.read_ops, 2u);
  ExpectFilesIntact(*vol_, std::map<std::string, uint64_t>{{"/f", 4 << 20}});
}

TEST_F(MigrationTest, AMoveThatRunsOutOfZonesIsCountedAsNoRoom) {
  SetUpVolume();
  // Fill all but about one of the SSD's data zones, then put a file of
  // several zones on the disk and ask for it on the SSD.
  const uint64_t zone = vol_->devices()[0]->info().zone_capacity;
  const uint32_t data_zones = vol_->Space()[0].empty_zones;
  ASSERT_OK(Write("/fill", (data_zones - 2) * zone));
  policy_->SetDevices({1}, {1});
  ASSERT_OK(Write("/h", 3 * zone));
  policy_->SetDevices({0, 1}, {0, 1});
  const absl::Status s = vol_->Migrate("/h", 0, 0);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  const MigrationStats stats = vol_->migration_stats();
  EXPECT_EQ(stats.failures, 1u);
  EXPECT_EQ(stats.no_room, 1u);
  EXPECT_EQ(stats.aborted, 0u);
  EXPECT_EQ(DevicesOf(*vol_, "/h"), std::set<uint32_t>{1});
  ExpectFilesIntact(*vol_, std::map<std::string, uint64_t>{{"/fill", (data_zones - 2) * zone},
                                                          {"/h", 3 * zone}});
  ExpectConsistent(*vol_);
  ExpectNoLeakedSpace(*vol_);
}

TEST_F(MigrationTest, BackgroundThreadRunsThePolicysMigrations) {
  SetUpVolume(/*migration_rate=*/16 << 20);
  ASSERT_OK(Write("/f", 1 << 20));
  ASSERT_OK(Write("/g", 300000));
  policy_->QueueMigration("/none", 1);
  policy_->QueueMigration("/f", 1);
  // The thread asks the policy once a period of the volume's clock has
  // passed since it last found nothing to do.
  ASSERT_TRUE(AdvanceUntil(*clock_, kSecond, [&] {
    const MigrationStats s = vol_->migration_stats();
    return s.files_moved == 1 && s.failures == 1;
  })) << "moved " << vol_->migration_stats().files_moved << ", failed "
      << vol_->migration_stats().failures;
  EXPECT_EQ(DevicesOf(*vol_, "/f"), std::set<uint32_t>{1});
  EXPECT_EQ(DevicesOf(*vol_, "/g"), std::set<uint32_t>{0});
  EXPECT_EQ(vol_->migration_stats().bytes_moved, 1u << 20);
  EXPECT_GE(policy_->next_migration_calls(), 2);
  EXPECT_EQ(policy_->last_views().size(), 2u);
  ExpectConsistent(*vol_);
  // The thread keeps asking.
  const int asked = policy_->next_migration_calls();
  ASSERT_TRUE(AdvanceUntil(*clock_, kSecond,
                           [&] { return policy_->next_migration_calls() > asked; }));
  // A read-only mount starts no thread at all (a thread exists once
  // std::thread's constructor returns), so no migration runs.
  vol_.reset();
  policy_->QueueMigration("/f", 0);
  const int calls = policy_->next_migration_calls();
  options_.read_only = true;
  const std::set<std::string> before = ThreadIds();
  ASSERT_NO_FATAL_FAILURE(Mount());
  for (const std::string& id : ThreadIds()) {
    EXPECT_TRUE(before.contains(id)) << "the read-only mount started thread " << id;
  }
  vol_.reset();
  EXPECT_EQ(policy_->next_migration_calls(), calls);
  EXPECT_EQ(policy_->queued_migrations(), 1u);
}

TEST_F(MigrationTest, UnmountStopsASlowMigrationPromptly) {
  // On the real clock, at a rate (64 B/s) whose first pause would last
  // hours: only the unmount can end it.
  SetUpVolume(/*migration_rate=*/64, /*real_clock=*/true);
  ASSERT_OK(Write("/f", 2 << 20));
  policy_->QueueMigration("/f", 1);
  ASSERT_TRUE(WaitFor([&] { return MigrationBytesWritten(1) > 0; }));
  // The test passes when the unmount returns at all. One that waits for
  // the pause cannot be stopped, so after the hang guard the run ends.
  std::atomic<bool> unmounted{false};
  TestThread unmount([&] {
    vol_.reset();
    unmounted = true;
  });
  if (!WaitFor([&] { return unmounted.load(); })) {
    ADD_FAILURE() << "the unmount waits for the end of the migration's pause";
    std::abort();
  }
  unmount.Join();
  policy_->SetMigrationRate(0);
  ASSERT_NO_FATAL_FAILURE(Mount());
  EXPECT_EQ(DevicesOf(*vol_, "/f"), std::set<uint32_t>{0});
  ExpectFilesIntact(*vol_, std::map<std::string, uint64_t>{{"/f", 2 << 20}});
  ExpectConsistent(*vol_);
  ExpectNoLeakedSpace(*vol_);
}

}  // namespace
}  // namespace zonestack::zfs
