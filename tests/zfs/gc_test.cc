// Garbage collection and relocation: zones holding files of mixed
// lifetimes (one placement group) are reclaimed once half their files die,
// survivors stay intact across GC and remount, cost-benefit GC weighs
// zone ages on the volume's clock, the GC thread collects once a period of
// that clock passes, a writer on a full volume gets room from GC, and
// Relocate moves a file between devices under a reader.
#include <atomic>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/synchronization/mutex.h"
#include "test_clock.h"
#include "ssd_first_placement.h"
#include "zfs_test_util.h"

namespace zonestack::zfs {
namespace {

using namespace testing_util;
using testing_common::TestThread;

class GcTest : public VolumeTest {
 protected:
  // `count` files of `size` bytes written one after another: one group, so
  // each zone holds several files.
  void WriteFiles(int count, uint64_t size) {
    for (int i = 0; i < count; ++i) {
      ASSERT_OK(WriteFile(*vol_, Name(i), Pattern(i, size)));
    }
  }
  void DeleteOddFiles(int count) {
    for (int i = 1; i < count; i += 2) ASSERT_OK(vol_->Delete(Name(i)));
  }
  void ExpectEvenFiles(int count, uint64_t size) {
    for (int i = 0; i < count; i += 2) {
      auto got = ReadFile(*vol_, Name(i));
      ASSERT_OK(got);
      EXPECT_TRUE(*got == Pattern(i, size)) << Name(i);
    }
  }
  static std::string Name(int i) { return "/f" + std::to_string(i); }
};

TEST_F(GcTest, ForcedGcReclaimsHalfDeadZonesAndKeepsTheSurvivors) {
  // No background GC: the forced run must find the victims itself.
  FormatAndMount({OpenDev(ZnsUri(24))}, {.gc_free_zone_threshold = 0});
  constexpr int kFiles = 60;
  constexpr uint64_t kSize = 300000;
  WriteFiles(kFiles, kSize);
  DeleteOddFiles(kFiles);
  const auto before = vol_->Space()[0];
  ASSERT_LT(before.valid_bytes, before.written_bytes);
  ASSERT_OK_AND_ASSIGN(GcStats stats, vol_->CollectGarbage(/*force=*/true));
  EXPECT_GT(stats.zones_reclaimed, 0u);
  EXPECT_GT(stats.bytes_relocated, 0u);
  const auto after = vol_->Space()[0];
  EXPECT_GT(after.empty_zones, before.empty_zones);
  EXPECT_LT(after.written_bytes, before.written_bytes);
  EXPECT_EQ(after.valid_bytes, before.valid_bytes);
  ExpectConsistent(*vol_);
  ExpectEvenFiles(kFiles, kSize);
  ASSERT_NO_FATAL_FAILURE(Remount());
  ExpectEvenFiles(kFiles, kSize);
  ExpectConsistent(*vol_);
  ExpectNoLeakedSpace(*vol_);
}

TEST_F(GcTest, GreedyAndCostBenefitBothReclaim) {
  FormatAndMount({OpenDev(ZnsUri(24))},
                 {.gc_free_zone_threshold = 0, .gc_cost_benefit = true});
  WriteFiles(40, 300000);
  DeleteOddFiles(40);
  ASSERT_OK_AND_ASSIGN(GcStats stats, vol_->CollectGarbage(/*force=*/true));
  EXPECT_GT(stats.zones_reclaimed, 0u);
  ExpectEvenFiles(40, 300000);
  ExpectConsistent(*vol_);
}

TEST_F(GcTest, CostBenefitWeighsZoneAgesOnTheVolumesClock) {
  auto clock = std::make_shared<TestClock>();
  FormatAndMount({OpenDev(ZnsUri(16))},
                 {.gc_free_zone_threshold = 0, .gc_cost_benefit = true, .clock = clock});
  const device::DeviceInfo& info = vol_->devices()[0]->info();
  const uint64_t blocks = info.zone_capacity / info.block_size;
  auto write = [&](const std::string& path, uint64_t size) {
    return WriteFile(*vol_, path, Pattern(std::hash<std::string>()(path), size));
  };
  // Two zones filled by two files each; once the second files go, the
  // older zone is 60% live, the one written an hour of the clock later 50%.
  const uint64_t old_live = blocks * 6 / 10 * info.block_size;
  const uint64_t young_live = blocks / 2 * info.block_size;
  ASSERT_OK(write("/old", old_live));
  ASSERT_OK(write("/old_dead", info.zone_capacity - old_live));
  clock->Advance(3600'000'000'000);
  ASSERT_OK(write("/young", young_live));
  ASSERT_OK(write("/young_dead", info.zone_capacity - young_live));
  clock->Advance(1'000'000'000);
  ASSERT_OK(vol_->Delete("/old_dead"));
  ASSERT_OK(vol_->Delete("/young_dead"));
  ASSERT_OK_AND_ASSIGN(GcStats stats, vol_->CollectGarbage(/*force=*/true));
  EXPECT_EQ(stats.zones_reclaimed, 2u);
  // Greedy would move the younger zone's data first (there is less of
  // it); weighed by age the older zone's goes first, so it starts first in
  // the zone both move to.
  auto start = [&](const std::string& path) {
    for (const FileInfo& f : vol_->Files()) {
      if (f.names[0] == path && !f.extents.empty()) return f.extents[0].offset;
    }
    ADD_FAILURE() << "no " << path;
    return uint64_t{0};
  };
  EXPECT_LT(start("/old"), start("/young"));
  ExpectFilesIntact(*vol_, std::map<std::string, uint64_t>{{"/old", old_live},
                                                          {"/young", young_live}});
  ExpectConsistent(*vol_);
}

TEST_F(GcTest, AWriterOutOfRoomCollectsTheLeastLiveZonesFirstUnderCostBenefit) {
  // The writer waits on this run, so it takes the zones that give room
  // back for the least copying, however old the others are (GcTrigger).
  auto clock = std::make_shared<TestClock>();
  FormatAndMount({OpenDev(ZnsUri(16))},
                 {.gc_free_zone_threshold = 0, .gc_cost_benefit = true, .clock = clock});
  const device::DeviceInfo& info = vol_->devices()[0]->info();
  const uint64_t blocks = info.zone_capacity / info.block_size;
  auto write = [&](const std::string& path, uint64_t size) {
    return WriteFile(*vol_, path, Pattern(std::hash<std::string>()(path), size));
  };
  // As in CostBenefitWeighsZoneAgesOnTheVolumesClock: cost-benefit would
  // move the old zone (60% live) first, greedy the young one (50%).
  const uint64_t old_live = blocks * 6 / 10 * info.block_size;
  const uint64_t young_live = blocks / 2 * info.block_size;
  ASSERT_OK(write("/old", old_live));
  ASSERT_OK(write("/old_dead", info.zone_capacity - old_live));
  clock->Advance(3600'000'000'000);
  ASSERT_OK(write("/young", young_live));
  ASSERT_OK(write("/young_dead", info.zone_capacity - young_live));
  // The rest of the volume full of live data, one zone per file.
  int fills = 0;
  for (;; ++fills) {
    const std::string path = "/fill" + std::to_string(fills);
    absl::Status s = write(path, info.zone_capacity);
    if (!s.ok()) {
      ASSERT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
      ASSERT_OK(vol_->Delete(path));
      break;
    }
  }
  ASSERT_GT(fills, 0);
  clock->Advance(1'000'000'000);
  ASSERT_OK(vol_->Delete("/old_dead"));
  ASSERT_OK(vol_->Delete("/young_dead"));
  // New data only GC makes room for (GC's reserve zone stays out of
  // writers' reach, so what comes back is less than the two zones' dead
  // data).
  const uint64_t new_size = blocks / 4 * info.block_size;
  const GcTotals before = vol_->gc_totals();
  ASSERT_OK(write("/new", new_size));
  // The writer started a run of its own (the GC thread may run too: at
  // threshold 0 it starts once no zone is empty), and the totals count it
  // among all runs.
  const GcTotals after = vol_->gc_totals();
  EXPECT_GE(after.writer_runs - before.writer_runs, 1u);
  EXPECT_GE(after.runs - before.runs, after.writer_runs - before.writer_runs);
  EXPECT_GE(after.writer_zones_reclaimed - before.writer_zones_reclaimed, 1u);
  auto start = [&](const std::string& path) {
    for (const FileInfo& f : vol_->Files()) {
      if (f.names[0] == path && !f.extents.empty()) return f.extents[0].offset;
    }
    ADD_FAILURE() << "no " << path;
    return uint64_t{0};
  };
  EXPECT_LT(start("/young"), start("/old"));
  std::map<std::string, uint64_t> live{
      {"/old", old_live}, {"/young", young_live}, {"/new", new_size}};
  for (int i = 0; i < fills; ++i) live["/fill" + std::to_string(i)] = info.zone_capacity;
  ExpectFilesIntact(*vol_, live);
  ExpectConsistent(*vol_);
}

TEST_F(GcTest, BackgroundGcFreesZonesBelowTheThreshold) {
  auto clock = std::make_shared<TestClock>();
  FormatAndMount({OpenDev(ZnsUri(16))}, {.gc_free_zone_threshold = 0.4, .clock = clock});
  WriteFiles(110, 300000);
  DeleteOddFiles(110);
  const auto data_zones = vol_->Space()[0].data_zones;
  ASSERT_LE(vol_->Space()[0].empty_zones, 0.4 * data_zones);
  // Only the GC thread collects here, once a period of the clock passes. A
  // run is counted when it ends, after the zones it frees are empty, so the
  // wait is for both.
  EXPECT_TRUE(AdvanceUntil(*clock, 1'000'000'000, [&] {
    return vol_->Space()[0].empty_zones > 0.4 * data_zones && vol_->gc_totals().runs > 0;
  })) << vol_->Space()[0].empty_zones << " empty zones of " << data_zones << ", "
      << vol_->gc_totals().runs << " GC runs";
  // The GC thread's runs, none a writer's.
  EXPECT_GT(vol_->gc_totals().runs, 0u);
  EXPECT_EQ(vol_->gc_totals().writer_runs, 0u);
  ExpectEvenFiles(110, 300000);
  ExpectConsistent(*vol_);
}

TEST_F(GcTest, WriterOnAFullVolumeGetsRoomFromGc) {
  FormatAndMount({OpenDev(ZnsUri(12))}, {.gc_free_zone_threshold = 0});
  // Fill the volume, then free half of every zone.
  int files = 0;
  for (;; ++files) {
    absl::Status s = WriteFile(*vol_, Name(files), Pattern(files, 300000));
    if (!s.ok()) {
      ASSERT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
      // Every zone live: the error says GC had nothing to collect.
      EXPECT_TRUE(absl::StrContains(s.message(), "GC found no full zone with dead data")) << s;
      ASSERT_OK(vol_->Delete(Name(files)));  // the one that did not fit
      break;
    }
  }
  DeleteOddFiles(files);
  const uint64_t free = vol_->Space()[0].free_bytes;
  // More than the free zones hold: only GC can make the room.
  const uint64_t size = free + (4 << 20);
  ASSERT_OK(WriteFile(*vol_, "/big", Pattern(777, size), {}, 1 << 20));
  auto got = ReadFile(*vol_, "/big");
  ASSERT_OK(got);
  EXPECT_TRUE(*got == Pattern(777, size));
  ExpectEvenFiles(files, 300000);
  ExpectConsistent(*vol_);
  ExpectNoLeakedSpace(*vol_);
}

TEST_F(GcTest, GcUnderConcurrentWritersDeletersAndReaders) {
  FormatAndMount({OpenDev(ZnsUri(16))}, {.gc_free_zone_threshold = 0.3});
  absl::Mutex mu;
  std::map<std::string, uint64_t> live;  // guarded by mu
  std::atomic<int> writers_done{0};
  {
    std::vector<TestThread> threads;
    for (int t = 0; t < 3; ++t) {
      threads.emplace_back([&, t](std::stop_token stop) {
        std::mt19937_64 rng(t);
        std::vector<std::string> mine;
        for (int i = 0; i < 40 && !stop.stop_requested() && !::testing::Test::HasFailure();
             ++i) {
          const std::string path = absl::StrCat("/t", t, "_", i);
          const uint64_t size = 1 + rng() % (900 << 10);
          const std::vector<uint8_t> data = Pattern(std::hash<std::string>()(path), size);
          const absl::Status written = WriteFile(*vol_, path, data, {}, 1 + rng() % (200 << 10));
          if (!written.ok()) {
            ADD_FAILURE() << path << ": " << written;
            break;
          }
          {
            absl::MutexLock l(&mu);
            live[path] = size;
          }
          mine.push_back(path);
          if (mine.size() > 6) {  // keep a few, delete one at random
            const size_t k = rng() % mine.size();
            {
              absl::MutexLock l(&mu);
              live.erase(mine[k]);
            }
            const absl::Status deleted = vol_->Delete(mine[k]);
            if (!deleted.ok()) {
              ADD_FAILURE() << mine[k] << ": " << deleted;
              break;
            }
            mine.erase(mine.begin() + static_cast<long>(k));
          }
        }
        ++writers_done;
      });
    }
    auto pick = [&](std::mt19937_64& rng) -> std::optional<std::string> {
      absl::MutexLock l(&mu);
      if (live.empty()) return std::nullopt;
      auto it = live.begin();
      std::advance(it, rng() % live.size());
      return it->first;
    };
    PatternReader reader1(*vol_, pick, 50), reader2(*vol_, pick, 51);
    // Forced runs besides the background GC's, racing the others.
    while (writers_done < 3) {
      ASSERT_OK(vol_->CollectGarbage(/*force=*/true));
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  ExpectFilesIntact(*vol_, live);
  ExpectConsistent(*vol_);
  ExpectNoLeakedSpace(*vol_);
  ASSERT_NO_FATAL_FAILURE(Remount());
  ExpectConsistent(*vol_);
  ExpectNoLeakedSpace(*vol_);
}

class RelocateTest : public VolumeTest {
 protected:
  void SetUp() override {
    FormatAndMount({OpenDev(ZnsUri(16)), OpenDev(SmrUri(64))},
                   {.placement = SsdFirst()});
  }
};

TEST_F(RelocateTest, MovesAFileToTheOtherDeviceUnderAReader) {
  constexpr uint64_t kSize = 6 << 20;
  ASSERT_OK(WriteFile(*vol_, "/f", Pattern(5, kSize), {}, 1 << 20));
  ASSERT_EQ(DevicesOf(*vol_, "/f"), std::set<uint32_t>{0});
  ASSERT_OK_AND_ASSIGN(auto r, vol_->Open("/f"));
  {
    PatternReader reader(*r, 5);
    const uint64_t resets = ZoneResets(*vol_, 0);
    ASSERT_OK(vol_->Relocate("/f", 1));
    EXPECT_EQ(DevicesOf(*vol_, "/f"), std::set<uint32_t>{1});
    EXPECT_GT(ZoneResets(*vol_, 0), resets) << "the SSD zones it left are reset";
    ASSERT_OK(vol_->Relocate("/f", 0));
    EXPECT_EQ(DevicesOf(*vol_, "/f"), std::set<uint32_t>{0});
    ASSERT_OK(vol_->Relocate("/f", 1));
    ASSERT_TRUE(reader.WaitForReads(20));
  }
  r.reset();
  ExpectConsistent(*vol_);
  ASSERT_NO_FATAL_FAILURE(Remount());
  EXPECT_EQ(DevicesOf(*vol_, "/f"), std::set<uint32_t>{1});
  auto got = ReadFile(*vol_, "/f");
  ASSERT_OK(got);
  EXPECT_TRUE(*got == Pattern(5, kSize));
  ExpectConsistent(*vol_);
  ExpectNoLeakedSpace(*vol_);
}

TEST_F(RelocateTest, RefusesBadRequests) {
  ASSERT_OK(WriteFile(*vol_, "/f", Pattern(1, 1000)));
  EXPECT_EQ(vol_->Relocate("/f", 2).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(vol_->Relocate("/none", 1).code(), absl::StatusCode::kNotFound);
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Reopen("/f"));
  EXPECT_EQ(vol_->Relocate("/f", 1).code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_OK(w->Close());
  EXPECT_OK(vol_->Relocate("/f", 1));
  EXPECT_OK(vol_->Relocate("/f", 1));  // already there: nothing to do
  ExpectConsistent(*vol_);
}

}  // namespace
}  // namespace zonestack::zfs
