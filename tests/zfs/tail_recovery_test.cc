// A Flush in the zone of its file's tail mark logs no record: the chunk
// ends in a trailer, and mount walks the zone from the mark to find it
// (format.h, FlushTrailer). A process crash is a copy of a file-backed
// device's image taken while the writer is open: the device keeps what it
// was sent, as a device outlives the host process. Every flushed byte must
// come back, nothing else, and damaged flushed data must be refused.
#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "zfs_test_util.h"

namespace zonestack::zfs {
namespace {

using namespace testing_util;

class TailRecoveryTest : public VolumeTest {
 protected:
  static constexpr uint32_t kZones = 16;
  void SetUp() override {
    std::string tmpl = testing::TempDir() + "zfs_tail_recovery.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    FormatAndMount({OpenDev(Uri(Image()))});
  }
  void TearDown() override {
    crashed_.reset();
    vol_.reset();
    devs_.clear();
    std::filesystem::remove_all(dir_);
  }
  std::string Image() const { return dir_ + "/dev.img"; }
  std::string CrashImage() const { return dir_ + "/crash.img"; }
  std::string Uri(const std::string& image) const {
    return ZnsUri(kZones, limits_ + "&file=" + image);
  }
  // Formats the device afresh with `limits` (URI options) in its URI.
  void Reformat(const std::string& limits) {
    vol_.reset();
    devs_.clear();
    std::filesystem::remove(Image());
    limits_ = limits;
    FormatAndMount({OpenDev(Uri(Image()))});
  }

  // The device as a process crash now would leave it, mounted.
  absl::Status MountCrashImage() {
    crashed_.reset();
    crashed_devs_.clear();
    const std::string cp = "cp --sparse=always '" + Image() + "' '" + CrashImage() + "'";
    if (std::system(cp.c_str()) != 0) return absl::InternalError("cp failed");
    auto dev = device::OpenDevice(Uri(CrashImage()));
    if (!dev.ok()) return dev.status();
    crashed_devs_ = {std::shared_ptr<device::ZonedDevice>(std::move(*dev))};
    auto v = Volume::Mount(crashed_devs_, {});
    if (!v.ok()) return v.status();
    crashed_ = std::move(*v);
    return absl::OkStatus();
  }

  // After MountCrashImage: `path` holds exactly bytes [0, size) of `seed`.
  void ExpectCrashedFile(const std::string& path, uint64_t seed, uint64_t size) {
    ExpectFileHolds(*crashed_, path, seed, size, " after the crash");
  }


  std::string dir_;
  std::string limits_;
  Devices crashed_devs_;
  std::unique_ptr<Volume> crashed_;
};

// Sizes chosen so that some chunks leave fewer than 16 bytes of their last
// block (the trailer takes a block of its own), some end exactly on a
// block, and some are larger than a write batch (whole blocks written
// before the Flush, part of the chunk); together they cross zones.
TEST_F(TailRecoveryTest, EveryFlushedByteSurvivesAProcessCrash) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/wal", {.kind = FileKind::kWal}));
  uint64_t size = 0;
  for (int round = 0; round < 4; ++round) {
    for (uint64_t n : kFlushSizes) {
      ASSERT_OK(w->Append(Pattern(9, size, n)));
      size += n;
      ASSERT_OK(w->Flush());
    }
    ASSERT_OK(MountCrashImage());
    ASSERT_NO_FATAL_FAILURE(ExpectCrashedFile("/wal", 9, size));
  }
  // Appended, not flushed (whole blocks of it written by the batch): not
  // acknowledged, and not recovered either.
  ASSERT_OK(w->Append(Pattern(9, size, 2 << 20)));
  ASSERT_OK(MountCrashImage());
  ASSERT_NO_FATAL_FAILURE(ExpectCrashedFile("/wal", 9, size));
  size += 2 << 20;
  ASSERT_OK(w->Close());
  ASSERT_NO_FATAL_FAILURE(Remount());
  auto got = ReadFile(*vol_, "/wal");
  ASSERT_OK(got);
  EXPECT_TRUE(*got == Pattern(9, 0, size));
  ExpectConsistent(*vol_);
}

// Only the first Flush in a zone logs a record; the rest write chunks,
// and a Sync after them flushes them without a record; the Close logs.
TEST_F(TailRecoveryTest, AFlushInTheMarkedZoneLogsNothing) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/wal", {.kind = FileKind::kWal}));
  ASSERT_OK(w->Append(Pattern(2, 0, 100)));
  ASSERT_OK(w->Flush());
  ASSERT_OK_AND_ASSIGN(const auto before, vol_->DumpLog());
  for (int i = 1; i < 20; ++i) {
    ASSERT_OK(w->Append(Pattern(2, i * 100, 100)));
    ASSERT_OK(w->Flush());
  }
  ASSERT_OK_AND_ASSIGN(const auto after, vol_->DumpLog());
  EXPECT_EQ(after.size(), before.size());
  ASSERT_OK(w->Sync());
  ASSERT_OK_AND_ASSIGN(const auto synced, vol_->DumpLog());
  EXPECT_EQ(synced.size(), after.size());
  ASSERT_OK(w->Close());
  ASSERT_OK_AND_ASSIGN(const auto closed, vol_->DumpLog());
  EXPECT_GT(closed.size(), synced.size());
}

// A writer idle between Flushes can lose its zone to writers that need an
// active zone (zones.cc, RevokeIdleLease); they write after its chunks in
// that zone, or the zone is finished. Its flushed bytes still come back,
// and its next Flush, in another zone, logs a new mark.
TEST_F(TailRecoveryTest, AWriterWhoseZoneWasTakenKeepsItsFlushedBytes) {
  // 4 active zones (3 for data, the log keeps one) and 12 data zones.
  ASSERT_NO_FATAL_FAILURE(Reformat("&max_open=4&max_active=4"));
  const FileHint wal{.kind = FileKind::kWal};
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/wal", wal));
  uint64_t size = 0;
  for (int i = 0; i < 5; ++i) {  // the first Flush logs a mark, the rest are chunks
    ASSERT_OK(w->Append(Pattern(3, size, 1000)));
    ASSERT_OK(w->Flush());
    size += 1000;
  }
  const uint32_t active = vol_->devices()[0]->info().max_active_zones;
  ASSERT_EQ(active, 4u);
  std::vector<std::unique_ptr<WritableFile>> others;
  for (uint32_t t = 0; t < active; ++t) {  // more writers than active zones
    ASSERT_OK_AND_ASSIGN(auto o, vol_->Create("/o" + std::to_string(t), wal));
    ASSERT_OK(o->Append(Pattern(100 + t, 0, 5000)));
    ASSERT_OK(o->Flush());
    others.push_back(std::move(o));
  }
  for (int i = 0; i < 5; ++i) {
    ASSERT_OK(w->Append(Pattern(3, size, 1000)));
    ASSERT_OK(w->Flush());
    size += 1000;
  }
  std::set<uint32_t> zones;
  for (const FileInfo& f : vol_->Files()) {
    if (f.names[0] != "/wal") continue;
    for (const ExtentInfo& x : f.extents) zones.insert(x.zone);
  }
  EXPECT_GE(zones.size(), 2u) << "the idle writer kept its zone";
  ASSERT_OK(MountCrashImage());
  ExpectCrashedFile("/wal", 3, size);
  for (uint32_t t = 0; t < active; ++t) ExpectCrashedFile("/o" + std::to_string(t), 100 + t, 5000);
}

// Syncs move the mark; the recovered file continues after the last one.
TEST_F(TailRecoveryTest, FlushesAfterSyncsSurvive) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/wal", {.kind = FileKind::kWal}));
  uint64_t size = 0;
  for (int i = 0; i < 60; ++i) {
    const uint64_t n = 100 + (i * 977) % 9000;
    ASSERT_OK(w->Append(Pattern(3, size, n)));
    size += n;
    ASSERT_OK(i % 7 == 0 ? w->Sync() : w->Flush());
  }
  ASSERT_OK(MountCrashImage());
  ASSERT_NO_FATAL_FAILURE(ExpectCrashedFile("/wal", 3, size));
}

// A log roll's snapshot carries the mark, so chunks flushed before and
// after the roll are found.
TEST_F(TailRecoveryTest, TheMarkSurvivesALogRoll) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/wal", {.kind = FileKind::kWal}));
  uint64_t size = 0;
  auto flush_some = [&] {
    for (int i = 0; i < 5; ++i) {
      ASSERT_OK(w->Append(Pattern(4, size, 300)));
      size += 300;
      ASSERT_OK(w->Flush());
    }
  };
  ASSERT_NO_FATAL_FAILURE(flush_some());
  const uint64_t zone_before = ZoneResets(*vol_);
  // Each directory is a record of a block: enough to fill a metadata zone.
  const uint64_t records = devs_[0]->info().zone_capacity / devs_[0]->info().block_size + 10;
  for (uint64_t i = 0; i < records; ++i) ASSERT_OK(vol_->CreateDir("/d" + std::to_string(i)));
  EXPECT_GT(ZoneResets(*vol_), zone_before) << "the log did not roll";
  ASSERT_NO_FATAL_FAILURE(flush_some());
  ASSERT_OK(MountCrashImage());
  ASSERT_NO_FATAL_FAILURE(ExpectCrashedFile("/wal", 4, size));
}

// After a crash and its recovery the file can be reopened and flushed
// again, and a second crash keeps both parts.
TEST_F(TailRecoveryTest, ARecoveredFileTakesMoreFlushes) {
  {
    ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/wal", {.kind = FileKind::kWal}));
    ASSERT_OK(w->Append(Pattern(6, 0, 5000)));
    ASSERT_OK(w->Flush());
    ASSERT_OK(w->Append(Pattern(6, 5000, 3000)));
    ASSERT_OK(w->Flush());
    ASSERT_OK(MountCrashImage());
  }
  // Carry on from the crashed image as the volume.
  vol_.reset();
  devs_.clear();
  std::filesystem::rename(CrashImage(), Image());
  crashed_.reset();
  crashed_devs_.clear();
  devs_ = {OpenDev(Uri(Image()))};
  ASSERT_NO_FATAL_FAILURE(Mount());
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Reopen("/wal"));
  ASSERT_OK(w->Append(Pattern(6, 8000, 2000)));
  ASSERT_OK(w->Flush());
  ASSERT_OK(w->Append(Pattern(6, 10000, 100)));
  ASSERT_OK(w->Flush());
  ASSERT_OK(MountCrashImage());
  ASSERT_NO_FATAL_FAILURE(ExpectCrashedFile("/wal", 6, 10100));
}

// A closed file's zone may be written by another file; the closed file's
// walk must not take that file's chunks, and each gets its own.
TEST_F(TailRecoveryTest, ClosedWritersLeaveNoMark) {
  {
    ASSERT_OK_AND_ASSIGN(auto a, vol_->Create("/a", {.kind = FileKind::kWal}));
    ASSERT_OK(a->Append(Pattern(1, 0, 700)));
    ASSERT_OK(a->Flush());
    ASSERT_OK(a->Append(Pattern(1, 700, 700)));
    ASSERT_OK(a->Flush());
    ASSERT_OK(a->Close());
  }
  ASSERT_OK_AND_ASSIGN(auto b, vol_->Create("/b", {.kind = FileKind::kWal}));
  ASSERT_OK(b->Append(Pattern(2, 0, 900)));
  ASSERT_OK(b->Flush());
  ASSERT_OK(b->Append(Pattern(2, 900, 900)));
  ASSERT_OK(b->Flush());
  ASSERT_OK(MountCrashImage());
  ASSERT_NO_FATAL_FAILURE(ExpectCrashedFile("/a", 1, 1400));
  ASSERT_NO_FATAL_FAILURE(ExpectCrashedFile("/b", 2, 1800));
}

// Flushed data that changed on the device is refused at mount, naming the
// file; repair keeps what precedes the damage.
TEST_F(TailRecoveryTest, DamagedFlushedDataIsRefused) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/wal", {.kind = FileKind::kWal}));
  ASSERT_OK(w->Append(Pattern(8, 0, 5000)));
  ASSERT_OK(w->Flush());  // logged: the first Flush sets the mark
  ASSERT_OK(w->Append(Pattern(8, 5000, 3000)));
  ASSERT_OK(w->Flush());  // a chunk
  ASSERT_OK(w->Append(Pattern(8, 8000, 3000)));
  ASSERT_OK(w->Flush());  // a chunk
  std::vector<ExtentInfo> extents;
  for (const FileInfo& f : vol_->Files()) {
    if (f.names[0] == "/wal") extents = f.extents;
  }
  ASSERT_GE(extents.size(), 3u);
  const std::string cp = "cp --sparse=always '" + Image() + "' '" + CrashImage() + "'";
  ASSERT_EQ(std::system(cp.c_str()), 0);
  {
    // One byte of the second chunk's data, in the image's zone data
    // (docs/format.md: header, zone table, then the zones).
    const uint64_t data_offset = 4096 + (kZones * 32 + 4095) / 4096 * 4096;
    std::fstream f(CrashImage(), std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(f.is_open());
    const auto at = static_cast<std::streamoff>(data_offset + extents[2].offset + 10);
    f.seekg(at);
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ 0x40);
    f.seekp(at);
    f.write(&c, 1);
  }
  {
    auto dev = device::OpenDevice(Uri(CrashImage()));
    ASSERT_OK(dev);
    Devices devs = {std::shared_ptr<device::ZonedDevice>(std::move(*dev))};
    auto v = Volume::Mount(devs, {});
    ASSERT_FALSE(v.ok());
    EXPECT_EQ(v.status().code(), absl::StatusCode::kDataLoss) << v.status();
    EXPECT_TRUE(absl::StrContains(v.status().message(), "flushed tail of /wal")) << v.status();
    auto report = Volume::Repair(devs, {});
    ASSERT_OK(report);
    auto repaired = Volume::Mount(devs, {});
    ASSERT_OK(repaired);
    auto got = ReadFile(**repaired, "/wal");
    ASSERT_OK(got);
    EXPECT_TRUE(*got == Pattern(8, 0, 8000));
  }
}

}  // namespace
}  // namespace zonestack::zfs
