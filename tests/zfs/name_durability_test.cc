// When names and closes reach the media: a name created with
// durable_name = false (RocksDB's glue) is lost by a power cut until the
// file's first Sync, SyncNamespace or another durable change, and nothing
// else is; a delete with durable = false likewise comes undone, with the
// file whole, and flushes the log only to reset a zone it emptied; a Close
// after a Sync flushes nothing, CloseUnsynced only its data; hints are logged
// without a flush; SyncNamespace flushes only for a deferred name or
// delete. Each case cuts the power (zfs_test_util.h, Crash) and mounts.
#include <gtest/gtest.h>

#include "zfs_test_util.h"

namespace zonestack::zfs {
namespace {

using namespace testing_util;

class NameDurabilityTest : public VolumeTest {
 protected:
  void SetUp() override { FormatAndMount({OpenDev(ZnsUri(16))}); }
  uint64_t Flushes() const { return devs_[0]->Stats().flushes; }
  bool Exists(const std::string& path) { return vol_->Stat(path).ok(); }
  // Cuts the power with `open` writers still open, then mounts.
  void CutAndMount(std::vector<std::unique_ptr<WritableFile>> open = {}) {
    Crash(devs_, vol_, open);
    Mount();
  }
};

TEST_F(NameDurabilityTest, ADeferredNameIsLostByAPowerCutAndNothingElse) {
  ASSERT_OK(WriteFile(*vol_, "/kept", Pattern(1, 5000)));
  const uint64_t before = Flushes();
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/new", {}, /*durable_name=*/false));
  EXPECT_EQ(Flushes(), before) << "a deferred name flushed the device";
  ASSERT_OK(w->Append(Pattern(2, 100)));
  std::vector<std::unique_ptr<WritableFile>> open;
  open.push_back(std::move(w));
  CutAndMount(std::move(open));
  EXPECT_FALSE(Exists("/new"));
  ASSERT_NO_FATAL_FAILURE(ExpectFileHolds(*vol_, "/kept", 1, 5000));
  ExpectConsistent(*vol_);
}

TEST_F(NameDurabilityTest, SyncNamespaceMakesADeferredNameDurable) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/new", {}, /*durable_name=*/false));
  const uint64_t before = Flushes();
  ASSERT_OK(vol_->SyncNamespace());
  const uint64_t after = Flushes();
  EXPECT_GT(after, before);
  ASSERT_OK(vol_->SyncNamespace());
  EXPECT_EQ(Flushes(), after) << "nothing new to make durable, yet a flush";
  std::vector<std::unique_ptr<WritableFile>> open;
  open.push_back(std::move(w));
  CutAndMount(std::move(open));
  EXPECT_TRUE(Exists("/new"));
  ExpectConsistent(*vol_);
}

// A directory sync promises names: with none deferred it flushes nothing,
// whatever else is logged unflushed (a Close after a Sync, a hint).
TEST_F(NameDurabilityTest, SyncNamespaceFlushesOnlyForADeferredName) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/sst", {}, /*durable_name=*/false));
  ASSERT_OK(w->Append(Pattern(8, 5000)));
  ASSERT_OK(w->Sync());
  ASSERT_OK(w->Close());
  ASSERT_OK(vol_->SetHint("/sst", {.kind = FileKind::kSst, .level = 1}));
  uint64_t before = Flushes();
  ASSERT_OK(vol_->SyncNamespace());
  EXPECT_EQ(Flushes(), before) << "no name to make durable, yet a flush";
  ASSERT_OK_AND_ASSIGN(auto wal, vol_->Create("/wal", {}, /*durable_name=*/false));
  before = Flushes();
  ASSERT_OK(vol_->SyncNamespace());
  EXPECT_GT(Flushes(), before);
  std::vector<std::unique_ptr<WritableFile>> open;
  open.push_back(std::move(wal));
  CutAndMount(std::move(open));
  EXPECT_TRUE(Exists("/wal"));
  ASSERT_NO_FATAL_FAILURE(ExpectFileHolds(*vol_, "/sst", 8, 5000));
  ExpectConsistent(*vol_);
}

// An empty file synced: the Sync has no data to log, but the name.
TEST_F(NameDurabilityTest, TheFirstSyncMakesADeferredNameDurable) {
  ASSERT_OK_AND_ASSIGN(auto empty, vol_->Create("/empty", {}, /*durable_name=*/false));
  ASSERT_OK(empty->Sync());
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/data", {}, /*durable_name=*/false));
  ASSERT_OK(w->Append(Pattern(3, 7000)));
  ASSERT_OK(w->Sync());
  std::vector<std::unique_ptr<WritableFile>> open;
  open.push_back(std::move(empty));
  open.push_back(std::move(w));
  CutAndMount(std::move(open));
  EXPECT_TRUE(Exists("/empty"));
  ASSERT_NO_FATAL_FAILURE(ExpectFileHolds(*vol_, "/data", 3, 7000));
  ExpectConsistent(*vol_);
}

TEST_F(NameDurabilityTest, ACloseAfterASyncFlushesNothingAndLosesNothing) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/f", {}));
  ASSERT_OK(w->Append(Pattern(4, 10000)));
  ASSERT_OK(w->Sync());
  const uint64_t before = Flushes();
  ASSERT_OK(w->Close());
  EXPECT_EQ(Flushes(), before) << "a Close with nothing new flushed the device";
  // Another writer takes the zone after the closed file's tail mark.
  ASSERT_OK_AND_ASSIGN(auto other, vol_->Create("/other", {}));
  ASSERT_OK(other->Append(Pattern(5, 3000)));
  ASSERT_OK(other->Sync());
  std::vector<std::unique_ptr<WritableFile>> open;
  open.push_back(std::move(other));
  CutAndMount(std::move(open));
  ASSERT_NO_FATAL_FAILURE(ExpectFileHolds(*vol_, "/f", 4, 10000));
  ASSERT_NO_FATAL_FAILURE(ExpectFileHolds(*vol_, "/other", 5, 3000));
  ExpectConsistent(*vol_);
}

// A Close with bytes not yet synced still syncs them (zfs's contract).
TEST_F(NameDurabilityTest, ACloseWithNewBytesStillSyncsThem) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/f", {}, /*durable_name=*/false));
  ASSERT_OK(w->Append(Pattern(6, 9000)));
  ASSERT_OK(w->Close());
  CutAndMount();
  ASSERT_NO_FATAL_FAILURE(ExpectFileHolds(*vol_, "/f", 6, 9000));
  ExpectConsistent(*vol_);
}

TEST_F(NameDurabilityTest, AHintIsLoggedWithoutAFlush) {
  ASSERT_OK(WriteFile(*vol_, "/f", Pattern(7, 100)));
  const uint64_t before = Flushes();
  ASSERT_OK(vol_->SetHint("/f", {.kind = FileKind::kSst, .level = 3}));
  EXPECT_EQ(Flushes(), before);
  ASSERT_OK(vol_->SyncNamespace());
  CutAndMount();
  ASSERT_OK_AND_ASSIGN(FileStat st, vol_->Stat("/f"));
  EXPECT_EQ(st.size, 100u);
  ExpectConsistent(*vol_);
}

// Sizes to share a zone (4.2 MiB at this scale) or fill some of their own.
constexpr uint64_t kSmall = 20000;
constexpr uint64_t kLarge = 12 << 20;

TEST_F(NameDurabilityTest, ADeferredDeleteIsUndoneByAPowerCutWithTheFileWhole) {
  ASSERT_OK(WriteFile(*vol_, "/old", Pattern(11, kSmall)));
  ASSERT_OK(WriteFile(*vol_, "/kept", Pattern(12, kSmall)));
  const uint64_t flushes = Flushes(), resets = devs_[0]->Stats().zone_resets;
  ASSERT_OK(vol_->Delete("/old", /*durable=*/false));
  EXPECT_FALSE(Exists("/old"));
  EXPECT_EQ(Flushes(), flushes) << "a deferred delete flushed the device";
  EXPECT_EQ(devs_[0]->Stats().zone_resets, resets) << "a zone /kept shares was reset";
  CutAndMount();
  ASSERT_NO_FATAL_FAILURE(ExpectFileHolds(*vol_, "/old", 11, kSmall));
  ASSERT_NO_FATAL_FAILURE(ExpectFileHolds(*vol_, "/kept", 12, kSmall));
  ExpectConsistent(*vol_);
}

TEST_F(NameDurabilityTest, SyncNamespaceMakesADeferredDeleteDurable) {
  ASSERT_OK(WriteFile(*vol_, "/old", Pattern(13, kSmall)));
  ASSERT_OK(WriteFile(*vol_, "/kept", Pattern(14, kSmall)));
  ASSERT_OK(vol_->Delete("/old", /*durable=*/false));
  const uint64_t before = Flushes();
  ASSERT_OK(vol_->SyncNamespace());
  EXPECT_GT(Flushes(), before);
  CutAndMount();
  EXPECT_FALSE(Exists("/old"));
  ASSERT_NO_FATAL_FAILURE(ExpectFileHolds(*vol_, "/kept", 14, kSmall));
  ExpectConsistent(*vol_);
}

// A zone the delete empties is reset at once, so the delete is flushed
// first: a power cut after it cannot bring back a file whose zone is gone.
TEST_F(NameDurabilityTest, ADeferredDeleteIsFlushedBeforeItsZoneIsReset) {
  ASSERT_OK(WriteFile(*vol_, "/large", Pattern(15, kLarge)));
  ASSERT_OK(WriteFile(*vol_, "/kept", Pattern(16, kSmall)));
  const uint64_t flushes = Flushes(), resets = devs_[0]->Stats().zone_resets;
  ASSERT_OK(vol_->Delete("/large", /*durable=*/false));
  EXPECT_GT(devs_[0]->Stats().zone_resets, resets) << "no zone of /large was reset";
  EXPECT_GT(Flushes(), flushes);
  CutAndMount();
  EXPECT_FALSE(Exists("/large"));
  ASSERT_NO_FATAL_FAILURE(ExpectFileHolds(*vol_, "/kept", 16, kSmall));
  ExpectConsistent(*vol_);
}

// POSIX's close: only the new data's device is flushed (before the record,
// which is not); a power cut keeps what the Sync reached.
TEST_F(NameDurabilityTest, CloseUnsyncedFlushesOnlyItsDataAndKeepsWhatTheSyncReached) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/f", {}, /*durable_name=*/false));
  ASSERT_OK(w->Append(Pattern(17, 0, 5000)));
  ASSERT_OK(w->Sync());
  ASSERT_OK(w->Append(Pattern(17, 5000, 4000)));
  const uint64_t before = Flushes();
  ASSERT_OK(w->CloseUnsynced());
  EXPECT_EQ(Flushes(), before + 1) << "not one flush, of the data";
  ASSERT_OK(w->Close());  // after CloseUnsynced: nothing
  EXPECT_EQ(Flushes(), before + 1);
  ASSERT_OK_AND_ASSIGN(FileStat st, vol_->Stat("/f"));
  EXPECT_EQ(st.size, 9000u);
  CutAndMount();
  ASSERT_NO_FATAL_FAILURE(ExpectFileHolds(*vol_, "/f", 17, 5000));
  ExpectConsistent(*vol_);
}

// A Close after a Sync with nothing new flushes nothing; the log's next
// flush makes a CloseUnsynced record durable.
TEST_F(NameDurabilityTest, CloseUnsyncedIsDurableWithTheLogsNextFlush) {
  ASSERT_OK_AND_ASSIGN(auto synced, vol_->Create("/synced", {}, /*durable_name=*/false));
  ASSERT_OK(synced->Append(Pattern(19, 0, 7000)));
  ASSERT_OK(synced->Sync());
  uint64_t before = Flushes();
  ASSERT_OK(synced->CloseUnsynced());
  EXPECT_EQ(Flushes(), before) << "nothing new, yet a flush";
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/f", {}, /*durable_name=*/false));
  ASSERT_OK(w->Append(Pattern(18, 0, 9000)));
  ASSERT_OK(w->CloseUnsynced());
  before = Flushes();
  ASSERT_OK(vol_->SyncNamespace());
  EXPECT_EQ(Flushes(), before + 1) << "the data was flushed at the close: the log's flush alone";
  CutAndMount();
  ASSERT_NO_FATAL_FAILURE(ExpectFileHolds(*vol_, "/f", 18, 9000));
  ASSERT_NO_FATAL_FAILURE(ExpectFileHolds(*vol_, "/synced", 19, 7000));
  ExpectConsistent(*vol_);
}

}  // namespace
}  // namespace zonestack::zfs
