// A Sync that ends a chunk flushes the device once: the chunk's trailer
// proves its data at mount, so the data need not be durable before a
// record names it (files.cc, EndChunk; VolumeImpl::SyncChunk). Each case
// counts the device's cache flushes and cuts the power (zfs_test_util.h,
// Crash), or cuts it at every device command of a Sync.
#include <gtest/gtest.h>

#include "zfs_test_util.h"

namespace zonestack::zfs {
namespace {

using namespace testing_util;

class SyncChunkTest : public VolumeTest {
 protected:
  void SetUp() override { FormatAndMount({OpenDev(ZnsUri(16))}); }
  uint64_t Flushes() const { return devs_[0]->Stats().flushes; }
  // Cuts the power with `w` still open, then mounts.
  void CutAndMount(std::unique_ptr<WritableFile> w = nullptr) {
    std::vector<std::unique_ptr<WritableFile>> open;
    if (w) open.push_back(std::move(w));
    Crash(devs_, vol_, open);
    Mount();
  }
  // Appends `len` bytes of stream `seed` from `offset` and syncs;
  // returns the cache flushes the Sync made.
  uint64_t AppendAndSync(WritableFile& w, uint64_t seed, uint64_t offset, uint64_t len) {
    EXPECT_OK(w.Append(Pattern(seed, offset, len)));
    const uint64_t before = Flushes();
    EXPECT_OK(w.Sync());
    return Flushes() - before;
  }
};

TEST_F(SyncChunkTest, EverySyncFlushesOnceAndItsDataSurvives) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/f", {}));
  EXPECT_EQ(AppendAndSync(*w, 1, 0, 10000), 1u) << "the first Sync";
  EXPECT_EQ(AppendAndSync(*w, 1, 10000, 5000), 1u) << "a later Sync";
  const uint64_t before = Flushes();
  ASSERT_OK(w->Sync());
  EXPECT_EQ(Flushes(), before) << "a Sync with nothing new flushed";
  CutAndMount(std::move(w));
  ASSERT_NO_FATAL_FAILURE(ExpectFileHolds(*vol_, "/f", 1, 15000));
  ExpectConsistent(*vol_);
}

// The name, the tail mark and the chunk reach the media in one flush.
TEST_F(SyncChunkTest, ADeferredNameAndTheDataTakeOneFlush) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/new", {}, /*durable_name=*/false));
  EXPECT_EQ(AppendAndSync(*w, 2, 0, 7000), 1u);
  CutAndMount(std::move(w));
  ASSERT_NO_FATAL_FAILURE(ExpectFileHolds(*vol_, "/new", 2, 7000));
  ExpectConsistent(*vol_);
}

// A Close after such a Sync logs the file's extents without a flush; a
// power cut that takes that record leaves the tail mark, and mount walks
// the chunks again.
TEST_F(SyncChunkTest, ACloseAfterAChunkSyncFlushesNothing) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/f", {}));
  EXPECT_EQ(AppendAndSync(*w, 3, 0, 20000), 1u);
  const uint64_t before = Flushes();
  ASSERT_OK(w->Close());
  EXPECT_EQ(Flushes(), before);
  CutAndMount();
  ASSERT_NO_FATAL_FAILURE(ExpectFileHolds(*vol_, "/f", 3, 20000));
  ExpectConsistent(*vol_);
  // And once the Close's record is durable, no walk is needed.
  Remount();
  ASSERT_NO_FATAL_FAILURE(ExpectFileHolds(*vol_, "/f", 3, 20000));
}

// RocksDB flushes before it syncs: the Flush ends the chunk (no cache
// flush) and the Sync makes it durable with one.
TEST_F(SyncChunkTest, AFlushThenASyncFlushOnce) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/f", {}));
  ASSERT_OK(w->Append(Pattern(4, 9000)));
  uint64_t before = Flushes();
  ASSERT_OK(w->Flush());
  EXPECT_EQ(Flushes(), before) << "a Flush flushed the device";
  ASSERT_OK(w->Sync());
  EXPECT_EQ(Flushes(), before + 1);
  ASSERT_OK(w->Append(Pattern(4, 9000, 3000)));
  before = Flushes();
  ASSERT_OK(w->Flush());
  ASSERT_OK(w->Sync());
  EXPECT_EQ(Flushes(), before + 1);
  CutAndMount(std::move(w));
  ASSERT_NO_FATAL_FAILURE(ExpectFileHolds(*vol_, "/f", 4, 12000));
  ExpectConsistent(*vol_);
}

// Data written out in another zone before the first Sync cannot be in a
// chunk after a new mark: that Sync flushes the data, then logs it; the
// next one ends a chunk again.
TEST_F(SyncChunkTest, DataInAnotherZoneIsLoggedAndTheNextSyncFlushesOnce) {
  const uint64_t zone = devs_[0]->info().zone_capacity;
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/f", {}));
  EXPECT_EQ(AppendAndSync(*w, 5, 0, zone + 10000), 2u);
  EXPECT_EQ(AppendAndSync(*w, 5, zone + 10000, 4000), 1u);
  CutAndMount(std::move(w));
  ASSERT_NO_FATAL_FAILURE(ExpectFileHolds(*vol_, "/f", 5, zone + 14000));
  ExpectConsistent(*vol_);
}

// The power goes after 0, 1, 2, ... device commands of a Sync: mount
// always succeeds, the file holds what was synced before and, if the
// Sync was acknowledged, its bytes too.
TEST(SyncChunkCutTest, ACutAtEveryCommandOfASyncLosesOnlyWhatItDidNotAcknowledge) {
  for (uint64_t budget = 0;; ++budget) {
    SCOPED_TRACE(absl::StrCat("cut after ", budget, " commands"));
    Devices devs = {OpenDev(ZnsUri(16))};
    ASSERT_OK(Volume::Format(devs));
    ASSERT_OK_AND_ASSIGN(auto vol, Volume::Mount(devs));
    std::vector<std::unique_ptr<WritableFile>> open;
    ASSERT_OK_AND_ASSIGN(auto w, vol->Create("/f", {}, /*durable_name=*/false));
    ASSERT_OK(w->Append(Pattern(6, 0, 6000)));
    ASSERT_OK(w->Sync());
    ASSERT_OK(w->Append(Pattern(6, 6000, 3000)));
    Emu(devs[0])->PowerOffAfter(budget);
    const bool acked = w->Sync().ok();
    const bool cut = Emu(devs[0])->powered_off();
    open.push_back(std::move(w));
    Crash(devs, vol, open);
    ASSERT_OK_AND_ASSIGN(vol, Volume::Mount(devs));
    ASSERT_OK_AND_ASSIGN(FileStat st, vol->Stat("/f"));
    EXPECT_TRUE(st.size == 6000 || st.size == 9000) << st.size;
    if (acked) {
      EXPECT_EQ(st.size, 9000u);
    }
    ASSERT_NO_FATAL_FAILURE(ExpectFileHolds(*vol, "/f", 6, st.size));
    ExpectConsistent(*vol);
    if (!cut) break;
    ASSERT_LT(budget, 100u) << "the Sync never ends";
  }
}

}  // namespace
}  // namespace zonestack::zfs
