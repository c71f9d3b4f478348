// "flush": "host": a Flush stages the bytes past what the log knows in a
// file in host memory, readers see them at once, and mount appends them
// after a crash of the process. A process crash is a copy of a file-backed
// device's image and of the staging directory taken while the writer is
// open, as both outlive the process. Every flushed byte must come back,
// nothing else; damaged staging must be refused, a torn last piece
// dropped.
#include <stdlib.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "zfs/format.h"
#include "zfs/host_staging.h"
#include "zfs_test_util.h"

namespace zonestack::zfs {
namespace {

using namespace testing_util;

class HostStagingTest : public VolumeTest {
 protected:
  static constexpr uint32_t kZones = 16;
  void SetUp() override {
    std::string tmpl = testing::TempDir() + "zfs_host_staging.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    std::filesystem::create_directory(dir_ + "/stage");
    FormatAndMount({OpenDev(Uri(Image()))}, Options(dir_ + "/stage"));
  }
  void TearDown() override {
    crashed_.reset();
    vol_.reset();
    devs_.clear();
    std::filesystem::remove_all(dir_);
  }
  static MountOptions Options(const std::string& root, bool read_only = false) {
    MountOptions o;
    o.flush = FlushMode::kHost;
    o.staging_root = root;
    o.read_only = read_only;
    return o;
  }
  std::string Image() const { return dir_ + "/dev.img"; }
  std::string Uri(const std::string& image) const { return ZnsUri(kZones, "&file=" + image); }
  std::string LiveStaging() const { return StagingDir(dir_ + "/stage", vol_->volume_id()); }
  std::string CrashStaging() const {
    return StagingDir(dir_ + "/crash-stage", vol_->volume_id());
  }
  uint64_t FileId(const std::string& path) const {
    for (const FileInfo& f : vol_->Files()) {
      if (!f.names.empty() && f.names[0] == path) return f.id;
    }
    ADD_FAILURE() << "no file " << path;
    return 0;
  }

  // Takes what a process crash now would leave: the device image and the
  // staging directory. `damage` may change the copy before it is mounted.
  void TakeCrashCopy() {
    crashed_.reset();
    crashed_devs_.clear();
    std::filesystem::remove_all(dir_ + "/crash-stage");
    const std::string cp = "cp --sparse=always '" + Image() + "' '" + dir_ + "/crash.img' && " +
                           "cp -r '" + dir_ + "/stage' '" + dir_ + "/crash-stage'";
    ASSERT_EQ(std::system(cp.c_str()), 0);
  }
  absl::Status MountCrashCopy(bool read_only = false) {
    crashed_.reset();
    crashed_devs_.clear();
    auto dev = device::OpenDevice(Uri(dir_ + "/crash.img"));
    if (!dev.ok()) return dev.status();
    crashed_devs_ = {std::shared_ptr<device::ZonedDevice>(std::move(*dev))};
    auto v = Volume::Mount(crashed_devs_, Options(dir_ + "/crash-stage", read_only));
    if (!v.ok()) return v.status();
    crashed_ = std::move(*v);
    return absl::OkStatus();
  }
  // After MountCrashCopy: `path` holds exactly bytes [0, size) of `seed`.
  void ExpectCrashedFile(const std::string& path, uint64_t seed, uint64_t size) {
    ExpectFileHolds(*crashed_, path, seed, size, " after the crash");
  }

  // Bytes of whole pieces a staging file's header counts.
  static uint64_t Staged(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    uint8_t header[kStageFileHeaderBytes] = {};
    f.read(reinterpret_cast<char*>(header), sizeof header);
    uint64_t count = 0;
    std::memcpy(&count, header + 8, 8);
    return count;
  }
  // Sets the count in a staging file's header.
  static void SetStaged(const std::string& path, uint64_t count) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(8);
    f.write(reinterpret_cast<const char*>(&count), 8);
  }
  uint64_t WalBytesWritten() const {
    return devs_[0]->Stats().by_class[static_cast<size_t>(device::IoClass::kWal)].write_bytes;
  }

  std::string dir_;
  Devices crashed_devs_;
  std::unique_ptr<Volume> crashed_;
};

// Sizes as the chunk tests': partial blocks, whole blocks, and appends
// larger than a write batch (whole blocks go to the device before the
// Flush, so that Flush logs and syncs instead of staging).
TEST_F(HostStagingTest, EveryFlushedByteSurvivesAProcessCrash) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/wal", {.kind = FileKind::kWal}));
  uint64_t size = 0;
  for (int round = 0; round < 4; ++round) {
    for (uint64_t n : kFlushSizes) {
      ASSERT_OK(w->Append(Pattern(9, size, n)));
      size += n;
      ASSERT_OK(w->Flush());
    }
    ASSERT_NO_FATAL_FAILURE(TakeCrashCopy());
    ASSERT_OK(MountCrashCopy());
    ASSERT_NO_FATAL_FAILURE(ExpectCrashedFile("/wal", 9, size));
    // Mount appended what was staged and dropped the staging file.
    EXPECT_FALSE(std::filesystem::exists(StagingPath(CrashStaging(), FileId("/wal"))));
  }
  // Appended, not flushed: not acknowledged, and not recovered either.
  ASSERT_OK(w->Append(Pattern(9, size, 5000)));
  ASSERT_NO_FATAL_FAILURE(TakeCrashCopy());
  ASSERT_OK(MountCrashCopy());
  ASSERT_NO_FATAL_FAILURE(ExpectCrashedFile("/wal", 9, size));
  size += 5000;
  ASSERT_OK(w->Close());
  // Kept for the next writer, counting no piece.
  EXPECT_EQ(Staged(StagingPath(LiveStaging(), FileId("/wal"))), 0u);
  ASSERT_NO_FATAL_FAILURE(Remount());
  auto got = ReadFile(*vol_, "/wal");
  ASSERT_OK(got);
  EXPECT_TRUE(*got == Pattern(9, 0, size));
  ExpectConsistent(*vol_);
}

// Small Flushes write nothing to the device, and readers see them at once.
TEST_F(HostStagingTest, ReadersSeeFlushedBytesTheDeviceDoesNotHoldYet) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/wal", {.kind = FileKind::kWal}));
  const uint64_t written = WalBytesWritten();
  uint64_t size = 0;
  for (uint64_t n : {100, 130, 5000, 7}) {
    ASSERT_OK(w->Append(Pattern(4, size, n)));
    size += n;
    ASSERT_OK(w->Flush());
    ASSERT_OK_AND_ASSIGN(const FileStat st, vol_->Stat("/wal"));
    EXPECT_EQ(st.size, size);
    auto got = ReadFile(*vol_, "/wal");
    ASSERT_OK(got);
    EXPECT_TRUE(*got == Pattern(4, 0, size));
    // Part of the file from the middle of the staged bytes on.
    ASSERT_OK_AND_ASSIGN(auto r, vol_->Open("/wal"));
    std::vector<uint8_t> part(size);
    ASSERT_OK_AND_ASSIGN(const size_t n_read, r->Read(size / 2, part, device::IoClass::kOther));
    EXPECT_EQ(n_read, size - size / 2);
    part.resize(n_read);
    EXPECT_TRUE(MatchesPattern(4, size / 2, part));
  }
  EXPECT_EQ(WalBytesWritten(), written) << "a Flush wrote to the device";
  ASSERT_OK(w->Sync());
  EXPECT_EQ(Staged(StagingPath(LiveStaging(), FileId("/wal"))), 0u);
  EXPECT_GT(WalBytesWritten(), written);
  auto got = ReadFile(*vol_, "/wal");
  ASSERT_OK(got);
  EXPECT_TRUE(*got == Pattern(4, 0, size));
  ExpectConsistent(*vol_);
  ASSERT_OK(w->Close());
}

// A read-only mount serves what was staged and changes nothing; the next
// read-write mount appends it.
TEST_F(HostStagingTest, ReadOnlyMountSeesStagedBytesAndLeavesThem) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/wal", {.kind = FileKind::kWal}));
  ASSERT_OK(w->Append(Pattern(5, 0, 9000)));
  ASSERT_OK(w->Sync());
  ASSERT_OK(w->Append(Pattern(5, 9000, 300)));
  ASSERT_OK(w->Flush());
  const uint64_t id = FileId("/wal");
  ASSERT_NO_FATAL_FAILURE(TakeCrashCopy());
  ASSERT_OK(MountCrashCopy(/*read_only=*/true));
  ASSERT_NO_FATAL_FAILURE(ExpectCrashedFile("/wal", 5, 9300));
  EXPECT_GT(Staged(StagingPath(CrashStaging(), id)), 300u);
  ASSERT_OK(MountCrashCopy());
  ASSERT_NO_FATAL_FAILURE(ExpectCrashedFile("/wal", 5, 9300));
  EXPECT_FALSE(std::filesystem::exists(StagingPath(CrashStaging(), id)));
  ASSERT_OK(w->Close());
}

TEST_F(HostStagingTest, DamagedStagingIsRefusedATornLastPieceDropped) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/wal", {.kind = FileKind::kWal}));
  ASSERT_OK(w->Append(Pattern(6, 0, 200)));
  ASSERT_OK(w->Flush());
  ASSERT_OK(w->Append(Pattern(6, 200, 300)));
  ASSERT_OK(w->Flush());
  const std::string staged = StagingPath(CrashStaging(), FileId("/wal"));
  ASSERT_NO_FATAL_FAILURE(TakeCrashCopy());
  ASSERT_EQ(Staged(staged), 2 * kStageHeaderBytes + 500);
  {  // one bit of the first piece's data
    std::fstream f(staged, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(kStageFileHeaderBytes + kStageHeaderBytes + 10);
    f.put(static_cast<char>(Pattern(6, 10, 1)[0] ^ 1));
  }
  absl::Status s = MountCrashCopy();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), staged)) << s;

  // A count past the file's end is damage too.
  ASSERT_NO_FATAL_FAILURE(TakeCrashCopy());
  SetStaged(staged, std::filesystem::file_size(staged));
  s = MountCrashCopy();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;

  // The count not yet past the second piece: the process died copying it,
  // and the Flush it came from never returned.
  ASSERT_NO_FATAL_FAILURE(TakeCrashCopy());
  SetStaged(staged, kStageHeaderBytes + 200);
  ASSERT_OK(MountCrashCopy());
  ASSERT_NO_FATAL_FAILURE(ExpectCrashedFile("/wal", 6, 200));

  // A count that ends inside a piece is damage: it is stored only after
  // a whole piece.
  ASSERT_NO_FATAL_FAILURE(TakeCrashCopy());
  SetStaged(staged, kStageHeaderBytes + 199);
  s = MountCrashCopy();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  ASSERT_OK(w->Close());
}

// Pieces holding file `id`'s bytes [100, 200) of Pattern(9), each with the
// CRC of its own data or, with `running_crc`, of every piece's so far.
static std::vector<uint8_t> StagedPieces(uint64_t id, bool running_crc) {
  std::vector<uint8_t> bytes;
  uint32_t running = 0;
  for (uint64_t offset : {100, 150}) {
    const std::vector<uint8_t> data = Pattern(9, offset, 50);
    running = DataCrc(running_crc ? running : 0, data.data(), data.size());
    uint8_t header[kStageHeaderBytes];
    EncodeStageHeader({.length = 50, .file_id = id, .offset = offset, .crc = running}, header);
    bytes.insert(bytes.end(), header, header + sizeof header);
    bytes.insert(bytes.end(), data.begin(), data.end());
  }
  return bytes;
}

// A staging file written by pwritev, without the mapped file's header
// (earlier versions), still mounts: its pieces end at the file's size, a
// short last piece dropped.
TEST_F(HostStagingTest, AStagingFileWithoutAHeaderStillMounts) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/wal", {.kind = FileKind::kWal}));
  ASSERT_OK(w->Append(Pattern(9, 0, 100)));
  ASSERT_OK(w->Sync());
  const uint64_t id = FileId("/wal");
  ASSERT_NO_FATAL_FAILURE(TakeCrashCopy());
  const std::vector<uint8_t> bytes = StagedPieces(id, /*running_crc=*/false);
  const std::string staged = StagingPath(CrashStaging(), id);
  std::filesystem::create_directories(CrashStaging());
  {
    std::ofstream f(staged, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size() - 1));
  }
  ASSERT_OK(MountCrashCopy());
  ASSERT_NO_FATAL_FAILURE(ExpectCrashedFile("/wal", 9, 150));

  // All zeroes: the process died making it, before any piece.
  ASSERT_NO_FATAL_FAILURE(TakeCrashCopy());
  std::filesystem::create_directories(CrashStaging());
  { std::ofstream f(staged, std::ios::binary | std::ios::trunc); }
  std::filesystem::resize_file(staged, 4096);
  ASSERT_OK(MountCrashCopy());
  ASSERT_NO_FATAL_FAILURE(ExpectCrashedFile("/wal", 9, 100));
  ASSERT_OK(w->Close());
}

// A headed staging file of `version` holding the file's bytes [100, 200)
// in two pieces, each with the CRC `version` 1 gives it (its own data's)
// or `version` 2's (the pieces' data so far), or the other when `swap`.
static void WriteHeadedStaging(const std::string& path, uint64_t id, uint32_t version,
                               bool swap) {
  std::vector<uint8_t> bytes(kStageFileHeaderBytes);
  std::memcpy(bytes.data(), &kStageFileMagic, 4);
  std::memcpy(bytes.data() + 4, &version, 4);
  const std::vector<uint8_t> pieces =
      StagedPieces(id, /*running_crc=*/(version == kStageFileVersion) != swap);
  bytes.insert(bytes.end(), pieces.begin(), pieces.end());
  const uint64_t count = bytes.size() - kStageFileHeaderBytes;
  std::memcpy(bytes.data() + 8, &count, 8);
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// Version 2 pieces carry the CRC of every piece's data so far, version 1
// pieces their own; each is read as its version says, and a piece with
// the other version's CRC is damage.
TEST_F(HostStagingTest, EachStagingVersionsChecksumsAreVerified) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/wal", {.kind = FileKind::kWal}));
  ASSERT_OK(w->Append(Pattern(9, 0, 100)));
  ASSERT_OK(w->Sync());
  const uint64_t id = FileId("/wal");
  const std::string staged = StagingPath(CrashStaging(), id);
  for (uint32_t version : {kStageFileVersionPieceCrc, kStageFileVersion}) {
    for (bool swap : {false, true}) {
      SCOPED_TRACE(testing::Message() << "version " << version << (swap ? ", swapped" : ""));
      ASSERT_NO_FATAL_FAILURE(TakeCrashCopy());
      WriteHeadedStaging(staged, id, version, swap);
      absl::Status s = MountCrashCopy();
      if (swap) {
        EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
        EXPECT_TRUE(absl::StrContains(s.message(), "bad data CRC")) << s;
      } else {
        ASSERT_OK(s);
        ASSERT_NO_FATAL_FAILURE(ExpectCrashedFile("/wal", 9, 200));
      }
    }
  }
  ASSERT_OK(w->Close());
}

// The CRCs of staged bytes written to the device come from the staging
// file's running CRC and the bytes past the last piece boundary
// (ExtentCrc): with pieces of many sizes cut by write-outs anywhere, by a
// large append, a Sync and the Close, every extent's CRC matches its data.
TEST_F(HostStagingTest, StagedBytesReachTheDeviceWithTheirChecksums) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/wal", {.kind = FileKind::kWal}));
  uint64_t size = 0;
  uint64_t n = 1;
  auto flushes = [&](int count) {
    for (int i = 0; i < count; ++i) {
      n = (n * 1103515245 + 12345) % 9001 + 1;  // 1 to 9001 bytes
      ASSERT_OK(w->Append(Pattern(13, size, n)));
      size += n;
      ASSERT_OK(w->Flush());
    }
  };
  ASSERT_NO_FATAL_FAILURE(flushes(600));
  ExpectConsistent(*vol_, " with the writer open");
  ASSERT_OK(w->Append(Pattern(13, size, 3 << 20)));  // written out past the Flushes
  size += 3 << 20;
  ASSERT_NO_FATAL_FAILURE(flushes(300));
  ASSERT_OK(w->Sync());
  ASSERT_NO_FATAL_FAILURE(flushes(600));
  ASSERT_OK(w->CloseUnsynced());
  ExpectConsistent(*vol_, " after the close");
  ASSERT_NO_FATAL_FAILURE(Remount());
  auto got = ReadFile(*vol_, "/wal");
  ASSERT_OK(got);
  EXPECT_TRUE(*got == Pattern(13, 0, size));
  ExpectConsistent(*vol_, " after the remount");
}

// A staging file that starts past the file's end means synced bytes are
// missing: DataLoss, not a file with a hole.
TEST_F(HostStagingTest, StagingPastTheFileEndIsDataLoss) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/wal", {.kind = FileKind::kWal}));
  ASSERT_OK(w->Append(Pattern(7, 0, 100)));
  ASSERT_OK(w->Sync());
  ASSERT_OK(w->Close());
  const uint64_t id = FileId("/wal");
  std::filesystem::create_directories(LiveStaging());
  {
    ASSERT_OK_AND_ASSIGN(auto f, StagingFile::Create(StagingPath(LiveStaging(), id), 1 << 16));
    ASSERT_OK(f.Stage(id, 200, Pattern(7, 200, 50)));
  }
  vol_.reset();
  auto v = Volume::Mount(devs_, options_);
  EXPECT_EQ(v.status().code(), absl::StatusCode::kDataLoss) << v.status();
  EXPECT_TRUE(absl::StrContains(v.status().message(), "/wal")) << v.status();
}

// The staging file of a file deleted before the crash is dropped.
TEST_F(HostStagingTest, StagingOfADeletedFileIsDropped) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/old", {.kind = FileKind::kWal}));
  ASSERT_OK(w->Append(Pattern(8, 0, 100)));
  ASSERT_OK(w->Flush());
  const uint64_t id = FileId("/old");
  ASSERT_OK(vol_->Delete("/old"));
  ASSERT_NO_FATAL_FAILURE(TakeCrashCopy());
  ASSERT_TRUE(std::filesystem::exists(StagingPath(CrashStaging(), id)));
  ASSERT_OK(MountCrashCopy());
  EXPECT_FALSE(crashed_->Stat("/old").ok());
  EXPECT_FALSE(std::filesystem::exists(StagingPath(CrashStaging(), id)));
  ASSERT_OK(w->Close());
}

// A closed writer's staging file, cleared, becomes the next writer's
// (renamed to its file id): a crash at any point applies only the live
// writer's pieces, and unmounting deletes the idle ones.
TEST_F(HostStagingTest, AClosedWritersStagingFileIsReused) {
  // A WAL holding bytes [0, n) of `seed`, flushed (staged), not synced.
  auto flushed_wal = [&](const std::string& path, uint64_t seed, uint64_t n) {
    auto w = vol_->Create(path, {.kind = FileKind::kWal});
    EXPECT_OK(w);
    if (!w.ok()) return std::unique_ptr<WritableFile>();
    EXPECT_OK((*w)->Append(Pattern(seed, 0, n)));
    EXPECT_OK((*w)->Flush());
    return std::move(*w);
  };
  auto w1 = flushed_wal("/wal1", 5, 3000);
  ASSERT_NE(w1, nullptr);
  ASSERT_OK(w1->Close());
  const std::string first = StagingPath(LiveStaging(), FileId("/wal1"));
  ASSERT_TRUE(std::filesystem::exists(first));
  EXPECT_EQ(Staged(first), 0u);
  ASSERT_NO_FATAL_FAILURE(TakeCrashCopy());
  ASSERT_OK(MountCrashCopy());
  ASSERT_NO_FATAL_FAILURE(ExpectCrashedFile("/wal1", 5, 3000));
  EXPECT_FALSE(std::filesystem::exists(StagingPath(CrashStaging(), FileId("/wal1"))));

  auto w2 = flushed_wal("/wal2", 6, 700);
  ASSERT_NE(w2, nullptr);
  const std::string second = StagingPath(LiveStaging(), FileId("/wal2"));
  EXPECT_FALSE(std::filesystem::exists(first));
  EXPECT_GT(Staged(second), 0u);
  ASSERT_NO_FATAL_FAILURE(TakeCrashCopy());
  ASSERT_OK(MountCrashCopy());
  ASSERT_NO_FATAL_FAILURE(ExpectCrashedFile("/wal1", 5, 3000));
  ASSERT_NO_FATAL_FAILURE(ExpectCrashedFile("/wal2", 6, 700));
  ASSERT_OK(w2->Close());
  w1.reset();
  w2.reset();
  const std::string dir = LiveStaging();
  vol_.reset();
  EXPECT_FALSE(std::filesystem::exists(dir));
}

// The glue's Close (no sync): the staged bytes go to the device, flushed
// before their record, which is not, and the staging file is recycled; a
// process crash keeps every flushed byte.
TEST_F(HostStagingTest, CloseUnsyncedKeepsEveryFlushedByteAcrossAProcessCrash) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/wal", {.kind = FileKind::kWal}));
  uint64_t size = 0;
  for (uint64_t n : kFlushSizes) {
    ASSERT_OK(w->Append(Pattern(21, size, n)));
    size += n;
    ASSERT_OK(w->Flush());
  }
  const uint64_t flushes = devs_[0]->Stats().flushes;
  ASSERT_OK(w->CloseUnsynced());
  EXPECT_EQ(devs_[0]->Stats().flushes, flushes + 1) << "not one flush, of the data";
  EXPECT_EQ(Staged(StagingPath(LiveStaging(), FileId("/wal"))), 0u);
  ASSERT_NO_FATAL_FAILURE(TakeCrashCopy());
  ASSERT_OK(MountCrashCopy());
  ASSERT_NO_FATAL_FAILURE(ExpectCrashedFile("/wal", 21, size));
  ExpectConsistent(*crashed_);
}

// A writer that never syncs keeps its staging file bounded: past the limit
// a Flush logs and syncs instead.
TEST_F(HostStagingTest, StagingStaysBounded) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/wal", {.kind = FileKind::kWal}));
  uint64_t size = 0;
  uint64_t most = 0;
  const std::string staged = StagingPath(LiveStaging(), FileId("/wal"));
  while (size < (12 << 20)) {
    ASSERT_OK(w->Append(Pattern(3, size, 3000)));
    size += 3000;
    ASSERT_OK(w->Flush());
    most = std::max(most, Staged(staged));
    ASSERT_EQ(std::filesystem::file_size(staged), 4u << 20);
  }
  EXPECT_LE(most, (4u << 20) - kStageFileHeaderBytes);
  EXPECT_GE(most, (4u << 20) - kStageFileHeaderBytes - 2 * (3000 + kStageHeaderBytes));
  ASSERT_NO_FATAL_FAILURE(TakeCrashCopy());
  ASSERT_OK(MountCrashCopy());
  ASSERT_NO_FATAL_FAILURE(ExpectCrashedFile("/wal", 3, size));
  ASSERT_OK(w->Close());
}

// When the host cannot stage (here its directory is gone), a Flush syncs
// to the devices instead: it still succeeds, and a crash keeps its bytes.
TEST_F(HostStagingTest, AFlushTheHostCannotStageGoesToTheDevices) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/wal", {.kind = FileKind::kWal}));
  std::filesystem::remove_all(dir_ + "/stage");
  uint64_t size = 0;
  for (uint64_t n : {100, 200, 5000, 1}) {
    ASSERT_OK(w->Append(Pattern(2, size, n)));
    size += n;
    ASSERT_OK(w->Flush());
  }
  std::filesystem::create_directory(dir_ + "/stage");  // empty: nothing staged survives
  ASSERT_NO_FATAL_FAILURE(TakeCrashCopy());
  ASSERT_OK(MountCrashCopy());
  ASSERT_NO_FATAL_FAILURE(ExpectCrashedFile("/wal", 2, size));
  ASSERT_OK(w->Close());
}

// On an emulator in memory a crash loses the volume too: nothing is staged
// on the host, readers still see what was flushed.
TEST(HostStagingMemoryTest, AVolumeInMemoryStagesNothing) {
  std::string tmpl = testing::TempDir() + "zfs_host_staging_mem.XXXXXX";
  ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
  Devices devs = {OpenDev(ZnsUri(8))};
  ASSERT_OK(Volume::Format(devs));
  MountOptions o;
  o.flush = FlushMode::kHost;
  o.staging_root = tmpl;
  {
    ASSERT_OK_AND_ASSIGN(auto vol, Volume::Mount(devs, o));
    ASSERT_OK_AND_ASSIGN(auto w, vol->Create("/wal", {.kind = FileKind::kWal}));
    ASSERT_OK(w->Append(Pattern(1, 0, 10)));
    ASSERT_OK(w->Flush());
    auto got = ReadFile(*vol, "/wal");
    ASSERT_OK(got);
    EXPECT_EQ(got->size(), 10u);
    EXPECT_TRUE(std::filesystem::is_empty(tmpl));
    ASSERT_OK(w->Close());
  }
  std::filesystem::remove_all(tmpl);
}

}  // namespace
}  // namespace zonestack::zfs
