// Zone accounting and allocation: resets when the last live extent dies,
// the active-zone limit under more writers than active zones (idle writers
// give their zones up; writers in the middle of a write are waited for,
// until the volume's clock passes the wait's limit), a full volume
// and its recovery, and the metadata log's roll with every active zone
// already taken by data.
#include <atomic>
#include <functional>

#include <gtest/gtest.h>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "hooked_writes.h"
#include "recording_policy.h"
#include "test_clock.h"
#include "zfs_test_util.h"

namespace zonestack::zfs {
namespace {

using namespace testing_util;
using testing_common::TestThread;
using testing_common::WaitFor;

class ZonesTest : public VolumeTest {
 protected:
  ZoneReport Zone(uint32_t device, uint32_t zone) {
    for (const ZoneReport& z : vol_->Zones()) {
      if (z.device == device && z.zone.index == zone) return z;
    }
    ADD_FAILURE() << "no zone " << zone;
    return {};
  }
  std::set<uint32_t> ZonesOf(const std::string& path) {
    std::set<uint32_t> out;
    for (const FileInfo& f : vol_->Files()) {
      if (f.names[0] != path) continue;
      for (const ExtentInfo& x : f.extents) out.insert(x.zone);
    }
    return out;
  }
};

TEST_F(ZonesTest, ZoneIsResetOnlyWhenItsLastLiveExtentDies) {
  FormatAndMount({OpenDev(ZnsUri(16))});
  ASSERT_OK(WriteFile(*vol_, "/a", Pattern(1, 100000)));
  ASSERT_OK(WriteFile(*vol_, "/b", Pattern(2, 100000)));
  ASSERT_EQ(ZonesOf("/a"), ZonesOf("/b")) << "one group, one zone";
  const uint32_t zone = *ZonesOf("/a").begin();
  const uint64_t resets = ZoneResets(*vol_);
  const uint64_t valid = Zone(0, zone).valid_bytes;
  ASSERT_OK(vol_->Delete("/a"));
  EXPECT_EQ(ZoneResets(*vol_), resets);
  EXPECT_LT(Zone(0, zone).valid_bytes, valid);
  EXPECT_GT(Zone(0, zone).valid_bytes, 0u);
  ExpectConsistent(*vol_);
  ASSERT_OK(vol_->Delete("/b"));
  EXPECT_EQ(ZoneResets(*vol_), resets + 1);
  const ZoneReport z = Zone(0, zone);
  EXPECT_EQ(z.zone.state, device::ZoneState::kEmpty);
  EXPECT_EQ(z.role, ZoneRole::kFree);
  EXPECT_EQ(z.valid_bytes, 0u);
  EXPECT_EQ(z.written_bytes, 0u);
  EXPECT_EQ(vol_->Space()[0].valid_bytes, 0u);
  ExpectConsistent(*vol_);
}

// Two files of different groups written side by side on a disk, each
// synced after every append so each takes zones as it grows. Each fills
// two zones; a_ and b_ are their zones, in file order.
class DiskRunTest : public ZonesTest {
 protected:
  void Interleave(uint32_t run_zones) {
    MountOptions o;
    o.disk_run_zones = run_zones;
    FormatAndMount({OpenDev(SmrUri(64))}, o);
    FileHint short_lived, long_lived;
    short_lived.lifetime = Lifetime::kShort;
    long_lived.lifetime = Lifetime::kLong;
    auto a = vol_->Create("/a", short_lived);
    ASSERT_TRUE(a.ok()) << a.status();
    auto b = vol_->Create("/b", long_lived);
    ASSERT_TRUE(b.ok()) << b.status();
    const uint64_t chunk = 256 << 10;  // a quarter of a zone at 1/256
    for (uint64_t i = 0; i < 12; ++i) {
      auto& f = i % 2 == 0 ? *a : *b;
      ASSERT_OK(f->Append(Pattern(i, chunk)));
      ASSERT_OK(f->Sync());
    }
    ASSERT_OK((*a)->Close());
    ASSERT_OK((*b)->Close());
    ExpectConsistent(*vol_);
    a_ = Zones("/a");
    b_ = Zones("/b");
    ASSERT_EQ(a_.size(), 2u);
    ASSERT_EQ(b_.size(), 2u);
  }
  std::vector<uint32_t> Zones(const std::string& path) {
    std::vector<uint32_t> out;
    for (const FileInfo& f : vol_->Files()) {
      if (f.names[0] != path) continue;
      for (const ExtentInfo& x : f.extents) {
        if (out.empty() || out.back() != x.zone) out.push_back(x.zone);
      }
    }
    return out;
  }
  std::vector<uint32_t> a_, b_;
};

TEST_F(DiskRunTest, FilesWrittenSideBySideGrowIntoRunsOfTheirOwn) {
  ASSERT_NO_FATAL_FAILURE(Interleave(4));
  EXPECT_EQ(a_[1], a_[0] + 1);
  EXPECT_EQ(b_[1], b_[0] + 1);
  EXPECT_GE(b_[0], a_[0] + 4) << "/b starts clear of /a's run";
}

TEST_F(DiskRunTest, AFileInAdjacentZonesIsReadInOneRequest) {
  for (uint32_t run : {4u, 1u}) {
    SCOPED_TRACE(run);
    ASSERT_NO_FATAL_FAILURE(Interleave(run));
    const uint64_t before = devs_[0]->Stats().Total().read_ops;
    auto got = ReadFile(*vol_, "/a");
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ(got->size(), 6u * (256 << 10));
    for (uint64_t k = 0; k < 6; ++k) {
      EXPECT_TRUE(MatchesPattern(2 * k, 0, std::span(*got).subspan(k * (256 << 10), 256 << 10)))
          << "append " << k;
    }
    // Two zones: one request when they are adjacent, two otherwise.
    EXPECT_EQ(devs_[0]->Stats().Total().read_ops - before, run == 4 ? 1u : 2u);
    vol_.reset();
  }
}

TEST_F(DiskRunTest, RunOfOneTakesTheLowestEmptyZone) {
  // The old allocation, for contrast: the files' zones alternate.
  ASSERT_NO_FATAL_FAILURE(Interleave(1));
  EXPECT_EQ(b_[0], a_[0] + 1);
  EXPECT_EQ(a_[1], a_[0] + 2);
}

TEST_F(ZonesTest, DeletingAFileLargerThanAZoneResetsEveryZoneItFilled) {
  FormatAndMount({OpenDev(ZnsUri(16))});
  const auto before = vol_->Space()[0];
  ASSERT_OK(WriteFile(*vol_, "/big", Pattern(1, 10 << 20), {}, 1 << 20));
  const size_t zones = ZonesOf("/big").size();
  EXPECT_GE(zones, 3u);
  ExpectConsistent(*vol_);
  const uint64_t resets = ZoneResets(*vol_);
  ASSERT_OK(vol_->Delete("/big"));
  EXPECT_EQ(ZoneResets(*vol_), resets + zones);
  const auto after = vol_->Space()[0];
  EXPECT_EQ(after.empty_zones, before.empty_zones);
  EXPECT_EQ(after.free_bytes, before.free_bytes);
  EXPECT_EQ(after.written_bytes, 0u);
  ExpectConsistent(*vol_);
}

TEST_F(ZonesTest, SpaceCountsLiveDataInBlocks) {
  FormatAndMount({OpenDev(ZnsUri(16))});
  ASSERT_OK(WriteFile(*vol_, "/a", Pattern(1, 10000)));  // 3 blocks
  ASSERT_OK(WriteFile(*vol_, "/b", Pattern(2, 4096)));   // 1 block
  EXPECT_EQ(vol_->Space()[0].valid_bytes, 4u * 4096);
}

TEST_F(ZonesTest, ZoneGoneOfflineDoesNotPreventMount) {
  FormatAndMount({OpenDev(ZnsUri(16))});
  ASSERT_OK(WriteFile(*vol_, "/lost", Pattern(1, 100000)));
  const uint32_t zone = *ZonesOf("/lost").begin();
  ASSERT_OK(WriteFile(*vol_, "/kept", Pattern(2, 100000),
                      {.kind = FileKind::kSst, .lifetime = Lifetime::kLong}));
  ASSERT_NE(*ZonesOf("/kept").begin(), zone);
  vol_.reset();
  Emu(devs_[0])->SetZoneOffline(zone);
  ASSERT_NO_FATAL_FAILURE(Mount());
  EXPECT_FALSE(ReadFile(*vol_, "/lost").ok());
  EXPECT_TRUE(*ReadFile(*vol_, "/kept") == Pattern(2, 100000));
  const auto problems = vol_->Check();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("offline"), std::string::npos) << problems[0];
  ASSERT_OK(vol_->Delete("/lost"));
  ExpectConsistent(*vol_);
  for (int i = 0; i < 12; ++i) {
    const std::string path = "/new" + std::to_string(i);
    ASSERT_OK(WriteFile(*vol_, path, Pattern(i, 3 << 20), {}, 1 << 20));
    EXPECT_FALSE(ZonesOf(path).contains(zone));
    ASSERT_OK(vol_->Delete(path));
  }
  ExpectConsistent(*vol_);
}

TEST_F(ZonesTest, ReadOnlyZoneStaysReadableAndIsNeverWritten) {
  FormatAndMount({OpenDev(ZnsUri(16))});
  ASSERT_OK(WriteFile(*vol_, "/old", Pattern(1, 100000)));
  const uint32_t zone = *ZonesOf("/old").begin();
  vol_.reset();
  Emu(devs_[0])->SetZoneReadOnly(zone);
  ASSERT_NO_FATAL_FAILURE(Mount());
  EXPECT_TRUE(*ReadFile(*vol_, "/old") == Pattern(1, 100000));
  ASSERT_OK(WriteFile(*vol_, "/new", Pattern(2, 100000)));
  EXPECT_FALSE(ZonesOf("/new").contains(zone));
  ASSERT_NO_FATAL_FAILURE(Remount());
  EXPECT_TRUE(*ReadFile(*vol_, "/old") == Pattern(1, 100000));
  EXPECT_TRUE(*ReadFile(*vol_, "/new") == Pattern(2, 100000));
}

// Set by a thread whose device writes stall until the test releases them:
// a writer caught in the middle of a write.
thread_local bool t_stall = false;

// A ZN540 on a clock that moves only when the test moves it, every active
// zone of which but the metadata log's is leased by a file ("/fN") this
// thread has written a chunk to and not closed: its writers are idle.
class ActiveZoneWaitTest : public ZonesTest {
 protected:
  void SetUp() override {
    policy_->SetDevices({0}, {0});
    auto dev = std::make_shared<HookedWrites>(OpenDev(ZnsUri(40)), [this](uint64_t) {
      if (t_stall) {
        ++stalled_;
        release_.WaitForNotification();
      }
      return absl::OkStatus();
    });
    FormatAndMount({dev}, {.placement = policy_, .clock = clock_});
    holders_ = static_cast<int>(vol_->devices()[0]->info().max_active_zones) - 1;
    for (int t = 0; t < holders_; ++t) {
      ASSERT_OK_AND_ASSIGN(auto w, vol_->Create(Name(t), {}));
      ASSERT_OK(w->Append(Chunk(t, 0)));
      ASSERT_OK(w->Sync());
      holding_.push_back(std::move(w));
    }
  }
  void TearDown() override {
    if (!release_.HasBeenNotified()) release_.Notify();
    stalling_.clear();
    holding_.clear();
  }
  static std::string Name(int t) { return "/f" + std::to_string(t); }
  static std::vector<uint8_t> Chunk(int t, int i) { return Pattern(t, i * 50000, 50000); }
  // Every holder writes its next chunk and syncs, in its own thread, and
  // stalls in the device in the middle of that write.
  void StallHolders() {
    for (int t = 0; t < holders_; ++t) {
      stalling_.emplace_back([this, t] {
        t_stall = true;
        absl::Status s = holding_[t]->Append(Chunk(t, 1));
        if (s.ok()) s = holding_[t]->Sync();
        EXPECT_TRUE(s.ok()) << Name(t) << ": " << s;
      });
    }
    ASSERT_TRUE(WaitFor([&] { return stalled_.load() == holders_; }));
  }
  // The holders write on from chunk `from` to 8 and close; then every file
  // reads back whole.
  void HoldersFinishAndAllReadBack(int from, int others) {
    for (int t = 0; t < holders_; ++t) {
      for (int i = from; i < 8; ++i) {
        ASSERT_OK(holding_[t]->Append(Chunk(t, i)));
        ASSERT_OK(holding_[t]->Sync());
      }
      ASSERT_OK(holding_[t]->Close());
    }
    for (int t = 0; t < holders_ + others; ++t) {
      auto got = ReadFile(*vol_, Name(t));
      ASSERT_OK(got);
      EXPECT_TRUE(*got == Pattern(t, 400000)) << Name(t);
    }
    ExpectConsistent(*vol_);
  }

  std::shared_ptr<TestClock> clock_ = std::make_shared<TestClock>();
  std::shared_ptr<RecordingPolicy> policy_ = std::make_shared<RecordingPolicy>();
  int holders_ = 0;
  std::vector<std::unique_ptr<WritableFile>> holding_;
  std::atomic<int> stalled_{0};
  absl::Notification release_;
  std::vector<TestThread> stalling_;
};

// An idle writer (RocksDB keeps an old WAL open, unwritten, until its
// memtables are flushed) must not keep an active zone from writers that
// need one: they take the idle writers' zones, which lease others when
// they write again.
TEST_F(ActiveZoneWaitTest, WritersTakeTheZonesOfIdleWriters) {
  constexpr int kOthers = 11;
  std::atomic<int> synced{0};  // chunks the other writers made durable
  std::vector<TestThread> others;
  for (int t = holders_; t < holders_ + kOthers; ++t) {
    others.emplace_back([&, t] {
      auto w = vol_->Create(Name(t), {});
      ASSERT_TRUE(w.ok()) << Name(t) << ": " << w.status();
      for (int i = 0; i < 8; ++i) {
        absl::Status s = (*w)->Append(Chunk(t, i));
        if (s.ok()) s = (*w)->Sync();
        ASSERT_TRUE(s.ok()) << Name(t) << ": " << s;
        ++synced;
      }
      EXPECT_OK((*w)->Close());
    }, [&] { clock_->Advance(60'000'000'000); });  // a failed test ends their wait
  }
  // The clock never moves: no writer gives up, each gets a zone while the
  // holders stay open and idle.
  ASSERT_TRUE(WaitFor([&] { return synced.load() == 8 * kOthers; }));
  for (TestThread& w : others) w.Join();
  HoldersFinishAndAllReadBack(1, kOthers);
}

// A writer in the middle of a write keeps its zone: a writer that needs
// one waits, as long as the volume's clock allows.
TEST_F(ActiveZoneWaitTest, WritersInTheMiddleOfAWriteKeepTheirZones) {
  ASSERT_NO_FATAL_FAILURE(StallHolders());
  absl::Status synced;
  std::atomic<bool> done{false};
  TestThread late([&] {
    auto w = vol_->Create("/late", {});
    synced = w.ok() ? (*w)->Append(Chunk(99, 0)) : w.status();
    if (synced.ok()) synced = (*w)->Sync();
    done = true;
  }, [&] { clock_->Advance(60'000'000'000); });  // a failed test ends its wait
  ASSERT_TRUE(WaitFor([&] { return policy_->place_calls("/late") > 0; }));
  EXPECT_FALSE(done.load()) << "a zone was taken from a writer in the middle of a write";
  clock_->Advance(60'000'000'000);  // past the 10 s a writer waits for a zone
  ASSERT_TRUE(WaitFor([&] { return done.load(); }));
  EXPECT_EQ(synced.code(), absl::StatusCode::kResourceExhausted) << synced;
  // The volume is not full: the message says what is, and which files
  // hold the zones.
  const std::string msg(synced.message());
  EXPECT_NE(msg.find("every active zone is being written"), std::string::npos) << msg;
  const auto held_by = msg.find("held by: ");
  ASSERT_NE(held_by, std::string::npos) << msg;
  for (int t = 0; t < holders_; ++t) {  // in zone order: each ends with " " or ")"
    EXPECT_TRUE(msg.find(Name(t) + " ", held_by) != std::string::npos ||
                msg.find(Name(t) + ")", held_by) != std::string::npos) << msg;
  }
  release_.Notify();
  for (TestThread& t : stalling_) t.Join();
  HoldersFinishAndAllReadBack(2, 0);
}

TEST_F(ZonesTest, FullVolumeReportsResourceExhaustedAndRecoversAfterDeletes) {
  FormatAndMount({OpenDev(ZnsUri(10))});
  const auto chunk = Pattern(9, 1 << 20);
  std::vector<std::string> files;
  absl::Status full;
  for (int i = 0; i < 100 && full.ok(); ++i) {
    const std::string path = "/f" + std::to_string(i);
    ASSERT_OK_AND_ASSIGN(auto w, vol_->Create(path, {}));
    files.push_back(path);
    for (int j = 0; j < 3 && full.ok(); ++j) {
      full = w->Append(chunk);
      if (full.ok()) full = w->Sync();
    }
    absl::Status closed = w->Close();
    if (full.ok()) ASSERT_OK(closed);
  }
  ASSERT_EQ(full.code(), absl::StatusCode::kResourceExhausted) << full;
  ExpectConsistent(*vol_, " when full");
  // Still full: a sync with new data fails the same way.
  {
    ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/more", {}));
    absl::Status s = w->Append(chunk);
    if (s.ok()) s = w->Sync();
    EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
    (void)w->Close();
  }
  for (const std::string& f : files) ASSERT_OK(vol_->Delete(f));
  ASSERT_OK(vol_->Delete("/more"));
  ExpectConsistent(*vol_, " after deletes");
  for (int i = 0; i < 8; ++i) {
    ASSERT_OK(WriteFile(*vol_, "/again" + std::to_string(i), chunk));
  }
  ExpectConsistent(*vol_);
  ASSERT_NO_FATAL_FAILURE(Remount());
  auto got = ReadFile(*vol_, "/again7");
  ASSERT_OK(got);
  EXPECT_TRUE(*got == chunk);
  ExpectConsistent(*vol_);
}

// A volume filled to its GC reserve while "/open" holds a zone: closed
// files of one zone each, every byte live, so GC has nothing to take.
class FullVolumeWaitTest : public ZonesTest {
 protected:
  void SetUp() override {
    FormatAndMount({OpenDev(ZnsUri(12))});
    auto open = vol_->Create("/open", {});
    ASSERT_OK(open);
    open_ = std::move(*open);
    ASSERT_OK(open_->Append(Pattern(1, 4096)));
    ASSERT_OK(open_->Sync());
    const uint64_t cap = devs_[0]->info().zone_capacity;
    for (int i = 0; FreeZones() > 1; ++i) {
      ASSERT_OK(WriteFile(*vol_, "/z" + std::to_string(i), Pattern(i + 2, cap)));
    }
  }
  int FreeZones() {
    int n = 0;
    for (const ZoneReport& z : vol_->Zones()) n += z.role == ZoneRole::kFree ? 1 : 0;
    return n;
  }
  std::unique_ptr<WritableFile> open_;
};

TEST_F(FullVolumeWaitTest, AWriterWithNoRoomWaitsForAnotherWritersDeletes) {
  // What a compaction's end does: its inputs die, their zones come back.
  std::atomic<bool> done{false};
  absl::Status late;
  TestThread writer([&] {
    late = WriteFile(*vol_, "/late", Pattern(99, 1 << 20));
    done = true;
  });
  absl::SleepFor(absl::Milliseconds(300));
  EXPECT_FALSE(done.load()) << "wrote without room: " << late;
  ASSERT_OK(vol_->Delete("/z0"));
  writer.Join();
  EXPECT_OK(late);
  ASSERT_OK(open_->Close());
  ExpectConsistent(*vol_);
  auto got = ReadFile(*vol_, "/late");
  ASSERT_OK(got);
  EXPECT_TRUE(*got == Pattern(99, 1 << 20));
}

TEST_F(FullVolumeWaitTest, AFullVolumeFailsAfterOneWaitThenAtOnce) {
  const auto start = absl::Now();
  absl::Status first = WriteFile(*vol_, "/late", Pattern(99, 1 << 20));
  const absl::Duration waited = absl::Now() - start;
  EXPECT_EQ(first.code(), absl::StatusCode::kResourceExhausted) << first;
  EXPECT_GE(waited, absl::Seconds(1)) << "failed without waiting for room";
  // Nothing emptied since: known full, the next writer is not held.
  const auto again = absl::Now();
  absl::Status second = WriteFile(*vol_, "/later", Pattern(98, 1 << 20));
  EXPECT_EQ(second.code(), absl::StatusCode::kResourceExhausted) << second;
  EXPECT_LT(absl::Now() - again, absl::Seconds(1));
  ASSERT_OK(open_->Close());
  ExpectConsistent(*vol_, " when full");
}

TEST_F(ZonesTest, MetadataLogRollsWhileDataHoldsEveryActiveZone) {
  // 13 writers keep 13 zones active, the limit after the log's own zone.
  // Renames of a file with a long name then write two-block records, so
  // the log zone is left with a block it cannot use: it is still active
  // when the log rolls to the other zone, which needs an active zone too.
  FormatAndMount({OpenDev(ZnsUri(40))});
  std::vector<std::unique_ptr<WritableFile>> writers;
  for (int i = 0; i < 13; ++i) {
    ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/f" + std::to_string(i), {}));
    ASSERT_OK(w->Append(Pattern(i, 0, 10)));
    ASSERT_OK(w->Sync());
    writers.push_back(std::move(w));
  }
  const std::string a = "/" + std::string(4500, 'a'), b = "/" + std::string(4500, 'b');
  ASSERT_OK(WriteFile(*vol_, a, {}));  // empty: it needs no zone
  const std::string first_zone = (*vol_->DumpLog())[0];
  for (int i = 0; i < 600; ++i) {
    const absl::Status s = i % 2 == 0 ? vol_->Rename(a, b) : vol_->Rename(b, a);
    ASSERT_TRUE(s.ok()) << "rename " << i << ": " << s;
  }
  EXPECT_NE((*vol_->DumpLog())[0], first_zone) << "the log should have rolled";
  for (int i = 0; i < 13; ++i) {
    ASSERT_OK(writers[i]->Append(Pattern(i, 10, 10)));
    ASSERT_OK(writers[i]->Close());
  }
  ExpectConsistent(*vol_);
  ASSERT_NO_FATAL_FAILURE(Remount());
  for (int i = 0; i < 13; ++i) {
    ASSERT_OK_AND_ASSIGN(FileStat st, vol_->Stat("/f" + std::to_string(i)));
    EXPECT_EQ(st.size, 20u);
  }
  EXPECT_OK(vol_->Stat(a));
  ExpectConsistent(*vol_);
}

}  // namespace
}  // namespace zonestack::zfs
