// ZoneStackFileSystem over a real mounted volume on an instant emulator.
#include "glue/zs_file_system.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>

#include "absl/strings/str_cat.h"
#include "glue/background_job.h"
#include "glue/config.h"
#include "rocksdb/convenience.h"
#include "rocksdb/env.h"
#include "glue/registration.h"
#include "glue/volume_registry.h"

namespace zonestack::rocks {
namespace {

constexpr char kUri[] = "zonestack://emu:zn540?zones=32&scale=1/256&timing=none";

class FileSystemTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto fs = NewZoneStackFileSystem(kUri);
    ASSERT_TRUE(fs.ok()) << fs.status();
    fs_ = std::move(*fs);
  }
  void TearDown() override {
    fs_.reset();
    EXPECT_TRUE(Forget(kUri).ok());
  }

  void Write(const std::string& path, const std::string& data) {
    std::unique_ptr<rocksdb::FSWritableFile> f;
    ASSERT_TRUE(fs_->NewWritableFile(path, {}, &f, nullptr).ok());
    ASSERT_TRUE(f->Append(data, io_, nullptr).ok());
    ASSERT_TRUE(f->Sync(io_, nullptr).ok());
    ASSERT_TRUE(f->Close(io_, nullptr).ok());
  }

  std::string ReadAll(const std::string& path) {
    std::unique_ptr<rocksdb::FSRandomAccessFile> f;
    rocksdb::IOStatus s = fs_->NewRandomAccessFile(path, {}, &f, nullptr);
    if (!s.ok()) return absl::StrCat("<", s.ToString(), ">");
    std::string scratch(1 << 20, '\0');
    rocksdb::Slice out;
    s = f->Read(0, scratch.size(), io_, &out, scratch.data(), nullptr);
    if (!s.ok()) return absl::StrCat("<", s.ToString(), ">");
    return out.ToString();
  }

  std::unique_ptr<ZoneStackFileSystem> fs_;
  rocksdb::IOOptions io_;
};

TEST_F(FileSystemTest, WriteThenReadRandomAndSequential) {
  ASSERT_TRUE(fs_->CreateDirIfMissing("/db", io_, nullptr).ok());
  Write("/db/000001.sst", "hello zoned world");
  EXPECT_EQ(ReadAll("/db/000001.sst"), "hello zoned world");

  std::unique_ptr<rocksdb::FSSequentialFile> seq;
  ASSERT_TRUE(fs_->NewSequentialFile("/db/000001.sst", {}, &seq, nullptr).ok());
  char buf[16];
  rocksdb::Slice out;
  ASSERT_TRUE(seq->Read(5, io_, &out, buf, nullptr).ok());
  EXPECT_EQ(out.ToString(), "hello");
  ASSERT_TRUE(seq->Skip(7).ok());
  ASSERT_TRUE(seq->Read(16, io_, &out, buf, nullptr).ok());
  EXPECT_EQ(out.ToString(), "world");
  ASSERT_TRUE(seq->Read(16, io_, &out, buf, nullptr).ok());
  EXPECT_TRUE(out.empty());  // end of file
  ASSERT_TRUE(seq->Skip(100).ok());
  ASSERT_TRUE(seq->Read(16, io_, &out, buf, nullptr).ok());
  EXPECT_TRUE(out.empty());
}

// Direct reads: the file says so, with the device's block size, and an
// aligned read into an aligned buffer returns the file's bytes, also where
// an extent does not lie block-aligned on the device (the one after a Sync
// that ended short of a block), and short at the end of the file.
TEST_F(FileSystemTest, DirectReadsAreAlignedToTheBlockSize) {
  std::string data;
  for (int i = 0; data.size() < 15000; ++i) data += absl::StrCat(i, ",");
  {
    std::unique_ptr<rocksdb::FSWritableFile> f;
    ASSERT_TRUE(fs_->NewWritableFile("/000007.sst", {}, &f, nullptr).ok());
    ASSERT_TRUE(f->Append(rocksdb::Slice(data.data(), 5000), io_, nullptr).ok());
    ASSERT_TRUE(f->Sync(io_, nullptr).ok());
    ASSERT_TRUE(f->Append(rocksdb::Slice(data.data() + 5000, data.size() - 5000), io_, nullptr)
                    .ok());
    ASSERT_TRUE(f->Close(io_, nullptr).ok());
  }
  std::unique_ptr<rocksdb::FSRandomAccessFile> buffered;
  ASSERT_TRUE(fs_->NewRandomAccessFile("/000007.sst", {}, &buffered, nullptr).ok());
  EXPECT_FALSE(buffered->use_direct_io());

  rocksdb::FileOptions direct_options;
  direct_options.use_direct_reads = true;
  std::unique_ptr<rocksdb::FSRandomAccessFile> direct;
  ASSERT_TRUE(fs_->NewRandomAccessFile("/000007.sst", direct_options, &direct, nullptr).ok());
  ASSERT_TRUE(direct->use_direct_io());
  const size_t align = direct->GetRequiredBufferAlignment();
  EXPECT_EQ(align, 4096u);  // zn540's block
  std::unique_ptr<char, decltype(&std::free)> buf(
      static_cast<char*>(std::aligned_alloc(align, 4 * align)), &std::free);
  rocksdb::Slice out;
  for (size_t offset = 0; offset < data.size(); offset += align) {
    ASSERT_TRUE(direct->Read(offset, 2 * align, io_, &out, buf.get(), nullptr).ok()) << offset;
    const size_t want = std::min(2 * align, data.size() - offset);
    ASSERT_EQ(out.size(), want) << offset;
    EXPECT_EQ(out.ToString(), data.substr(offset, want)) << offset;
  }
}

TEST_F(FileSystemTest, NewWritableFileReplacesAndReopenAppends) {
  Write("/f", "old contents");
  Write("/f", "new");
  EXPECT_EQ(ReadAll("/f"), "new");

  std::unique_ptr<rocksdb::FSWritableFile> w;
  ASSERT_TRUE(fs_->ReopenWritableFile("/f", {}, &w, nullptr).ok());
  EXPECT_EQ(w->GetFileSize(io_, nullptr), 3u);
  ASSERT_TRUE(w->Append("+more", io_, nullptr).ok());
  ASSERT_TRUE(w->Close(io_, nullptr).ok());
  EXPECT_EQ(ReadAll("/f"), "new+more");
  EXPECT_FALSE(w->Append("x", io_, nullptr).ok());  // after close

  ASSERT_TRUE(fs_->ReopenWritableFile("/g", {}, &w, nullptr).ok());  // creates
  ASSERT_TRUE(w->Close(io_, nullptr).ok());
  EXPECT_TRUE(fs_->FileExists("/g", io_, nullptr).ok());
}

TEST_F(FileSystemTest, ReuseWritableFileDeletesTheOld) {
  Write("/000004.log", "old wal");
  std::unique_ptr<rocksdb::FSWritableFile> w;
  ASSERT_TRUE(fs_->ReuseWritableFile("/000009.log", "/000004.log", {}, &w, nullptr).ok());
  ASSERT_TRUE(w->Close(io_, nullptr).ok());
  EXPECT_TRUE(fs_->FileExists("/000004.log", io_, nullptr).IsNotFound());
  EXPECT_TRUE(fs_->FileExists("/000009.log", io_, nullptr).ok());
}

TEST_F(FileSystemTest, MissingFilesGivePosixLikeCodes) {
  EXPECT_TRUE(fs_->FileExists("/nope", io_, nullptr).IsNotFound());
  uint64_t size = 0;
  EXPECT_TRUE(fs_->GetFileSize("/nope", io_, &size, nullptr).IsPathNotFound());
  std::unique_ptr<rocksdb::FSRandomAccessFile> r;
  EXPECT_TRUE(fs_->NewRandomAccessFile("/nope", {}, &r, nullptr).IsPathNotFound());
  std::vector<std::string> children;
  EXPECT_TRUE(fs_->GetChildren("/nodir", io_, &children, nullptr).IsNotFound());
  std::unique_ptr<rocksdb::FSWritableFile> w;
  EXPECT_TRUE(fs_->NewWritableFile("/nodir/x", {}, &w, nullptr).IsPathNotFound());
  EXPECT_TRUE(fs_->DeleteFile("/nope", io_, nullptr).IsPathNotFound());
}

TEST_F(FileSystemTest, Directories) {
  ASSERT_TRUE(fs_->CreateDirIfMissing("/a/b//c/", io_, nullptr).ok());  // parents, slashes
  ASSERT_TRUE(fs_->CreateDirIfMissing("/a/b/c", io_, nullptr).ok());
  EXPECT_FALSE(fs_->CreateDir("/a/b", io_, nullptr).ok());  // exists
  ASSERT_TRUE(fs_->CreateDir("/a/d", io_, nullptr).ok());
  Write("/a/file", "x");
  std::vector<std::string> children;
  ASSERT_TRUE(fs_->GetChildren("/a", io_, &children, nullptr).ok());
  std::sort(children.begin(), children.end());
  EXPECT_EQ(children, (std::vector<std::string>{"b", "d", "file"}));
  bool is_dir = false;
  ASSERT_TRUE(fs_->IsDirectory("/a/b", io_, &is_dir, nullptr).ok());
  EXPECT_TRUE(is_dir);
  ASSERT_TRUE(fs_->IsDirectory("/a/file", io_, &is_dir, nullptr).ok());
  EXPECT_FALSE(is_dir);
  ASSERT_TRUE(fs_->IsDirectory("/", io_, &is_dir, nullptr).ok());
  EXPECT_TRUE(is_dir);
  EXPECT_FALSE(fs_->CreateDirIfMissing("/a/file", io_, nullptr).ok());

  std::unique_ptr<rocksdb::FSDirectory> dir;
  ASSERT_TRUE(fs_->NewDirectory("/a", io_, &dir, nullptr).ok());
  EXPECT_TRUE(dir->Fsync(io_, nullptr).ok());
  EXPECT_TRUE(dir->Close(io_, nullptr).ok());
  EXPECT_FALSE(fs_->NewDirectory("/a/file", io_, &dir, nullptr).ok());
  EXPECT_FALSE(fs_->NewDirectory("/zz", io_, &dir, nullptr).ok());

  EXPECT_TRUE(fs_->DeleteDir("/a/d", io_, nullptr).ok());
  EXPECT_FALSE(fs_->DeleteDir("/a", io_, nullptr).ok());  // not empty
}

TEST_F(FileSystemTest, RenameMovesADirectoryWithItsFiles) {
  // What a checkpoint does: links into "/db/.checkpoint1.tmp", then a
  // rename of that directory to the checkpoint's name.
  ASSERT_TRUE(fs_->CreateDirIfMissing("/db", io_, nullptr).ok());
  Write("/db/000007.sst", "table");
  ASSERT_TRUE(fs_->CreateDir("/db/.checkpoint1.tmp", io_, nullptr).ok());
  ASSERT_TRUE(fs_->LinkFile("/db/000007.sst", "/db/.checkpoint1.tmp/000007.sst", io_, nullptr).ok());
  Write("/db/.checkpoint1.tmp/CURRENT", "MANIFEST-000005\n");
  ASSERT_TRUE(fs_->RenameFile("/db/.checkpoint1.tmp/", "/cp", io_, nullptr).ok());
  EXPECT_TRUE(fs_->FileExists("/db/.checkpoint1.tmp", io_, nullptr).IsNotFound());
  std::vector<std::string> children;
  ASSERT_TRUE(fs_->GetChildren("/cp", io_, &children, nullptr).ok());
  std::sort(children.begin(), children.end());
  EXPECT_EQ(children, (std::vector<std::string>{"000007.sst", "CURRENT"}));
  EXPECT_EQ(ReadAll("/cp/000007.sst"), "table");
  bool same = false;
  ASSERT_TRUE(fs_->AreFilesSame("/db/000007.sst", "/cp/000007.sst", io_, &same, nullptr).ok());
  EXPECT_TRUE(same);
  std::unique_ptr<rocksdb::FSDirectory> dir;
  ASSERT_TRUE(fs_->NewDirectory("/cp", io_, &dir, nullptr).ok());
  EXPECT_TRUE(dir->Fsync(io_, nullptr).ok());
  // A directory cannot replace a file, nor a non-empty directory.
  EXPECT_FALSE(fs_->RenameFile("/cp", "/db/000007.sst", io_, nullptr).ok());
  EXPECT_FALSE(fs_->RenameFile("/cp", "/db", io_, nullptr).ok());
  EXPECT_FALSE(fs_->DeleteDir("/cp", io_, nullptr).ok());  // not empty
  ASSERT_TRUE(fs_->DeleteFile("/cp/000007.sst", io_, nullptr).ok());
  ASSERT_TRUE(fs_->DeleteFile("/cp/CURRENT", io_, nullptr).ok());
  ASSERT_TRUE(fs_->DeleteDir("/cp", io_, nullptr).ok());
  EXPECT_TRUE(fs_->FileExists("/cp", io_, nullptr).IsNotFound());
  EXPECT_EQ(ReadAll("/db/000007.sst"), "table");
}

TEST_F(FileSystemTest, AppendOnlyFilesRefuseRandomWritesAndShrinking) {
  // Zoned files are append-only. RocksDB then leaves an ingested file's
  // global sequence number unwritten and keeps it in the MANIFEST.
  Write("/f", "data");
  std::unique_ptr<rocksdb::FSRandomRWFile> rw;
  EXPECT_TRUE(fs_->NewRandomRWFile("/f", {}, &rw, nullptr).IsNotSupported());
  // DeleteScheduler's chunked deletion truncates through a reopened file;
  // it must hear NotSupported (and delete whole), not a false OK.
  std::unique_ptr<rocksdb::FSWritableFile> w;
  ASSERT_TRUE(fs_->ReopenWritableFile("/f", {}, &w, nullptr).ok());
  EXPECT_TRUE(w->Truncate(4, io_, nullptr).ok());  // its own size: nothing to do
  EXPECT_TRUE(w->Truncate(2, io_, nullptr).IsNotSupported());
  ASSERT_TRUE(w->Close(io_, nullptr).ok());
  EXPECT_EQ(ReadAll("/f"), "data");
}

TEST_F(FileSystemTest, RenameLinkAndSameness) {
  Write("/x", "data");
  Write("/y", "other");
  ASSERT_TRUE(fs_->RenameFile("/x", "/y", io_, nullptr).ok());  // replaces /y
  EXPECT_EQ(ReadAll("/y"), "data");
  EXPECT_TRUE(fs_->FileExists("/x", io_, nullptr).IsNotFound());

  ASSERT_TRUE(fs_->LinkFile("/y", "/z", io_, nullptr).ok());
  uint64_t links = 0;
  ASSERT_TRUE(fs_->NumFileLinks("/z", io_, &links, nullptr).ok());
  EXPECT_EQ(links, 2u);
  Write("/w", "data");
  bool same = false;
  ASSERT_TRUE(fs_->AreFilesSame("/y", "/z", io_, &same, nullptr).ok());
  EXPECT_TRUE(same);
  ASSERT_TRUE(fs_->AreFilesSame("/y", "/w", io_, &same, nullptr).ok());
  EXPECT_FALSE(same);
  ASSERT_TRUE(fs_->AreFilesSame("/w", "/w", io_, &same, nullptr).ok());
  EXPECT_TRUE(same);
}

TEST_F(FileSystemTest, MetadataQueries) {
  Write("/m", "12345");
  uint64_t size = 0, mtime = 0;
  ASSERT_TRUE(fs_->GetFileSize("/m", io_, &size, nullptr).ok());
  EXPECT_EQ(size, 5u);
  ASSERT_TRUE(fs_->GetFileModificationTime("/m", io_, &mtime, nullptr).ok());
  const uint64_t now = static_cast<uint64_t>(time(nullptr));
  // time() reads the coarse clock, which can lag the one mtime came from
  // by a tick: across a second boundary mtime is then one second ahead.
  EXPECT_LE(mtime, now + 1);
  EXPECT_GE(mtime + 60, now);  // seconds, not microseconds

  uint64_t free_bytes = 0;
  ASSERT_TRUE(fs_->GetFreeSpace("/", io_, &free_bytes, nullptr).ok());
  EXPECT_GT(free_bytes, 0u);

  std::string out;
  EXPECT_TRUE(fs_->GetAbsolutePath("relative/db", io_, &out, nullptr).IsInvalidArgument());
  ASSERT_TRUE(fs_->GetAbsolutePath("/db/", io_, &out, nullptr).ok());
  EXPECT_EQ(out, "/db");
  ASSERT_TRUE(fs_->GetTestDirectory(io_, &out, nullptr).ok());
  EXPECT_TRUE(fs_->FileExists(out, io_, nullptr).ok());
  EXPECT_TRUE(fs_->Truncate("/m", 1, io_, nullptr).IsNotSupported());
}

TEST_F(FileSystemTest, LifetimeHintReachesZfs) {
  std::unique_ptr<rocksdb::FSWritableFile> f;
  ASSERT_TRUE(fs_->NewWritableFile("/000007.sst", {}, &f, nullptr).ok());
  f->SetWriteLifeTimeHint(rocksdb::Env::WLTH_LONG);
  EXPECT_EQ(f->GetWriteLifeTimeHint(), rocksdb::Env::WLTH_LONG);
  ASSERT_TRUE(f->Append("x", io_, nullptr).ok());
  ASSERT_TRUE(f->Close(io_, nullptr).ok());
  bool found = false;
  for (const zfs::FileInfo& info : fs_->volume()->Files()) {
    if (info.names == std::vector<std::string>{"/000007.sst"}) {
      found = true;
      EXPECT_EQ(info.hint.kind, zfs::FileKind::kSst);
      EXPECT_EQ(info.hint.lifetime, zfs::Lifetime::kLong);
    }
  }
  EXPECT_TRUE(found);
}

uint64_t WriteBytes(zfs::Volume& volume, device::IoClass c) {
  uint64_t bytes = 0;
  for (const auto& d : volume.devices()) {
    bytes += d->Stats().by_class[static_cast<int>(c)].write_bytes;
  }
  return bytes;
}

// An SST's writes count as flush or compaction traffic by the job that
// writes it, not by its level: an intra-L0 compaction writes L0 SSTs.
TEST_F(FileSystemTest, SstWritesAreClassedByTheJobWritingThem) {
  zfs::Volume& volume = *fs_->volume();
  const std::string data(64 << 10, 'c');
  EnterBackgroundJob(BackgroundJob::kCompaction);
  Write("/000011.sst", data);
  LeaveBackgroundJob(BackgroundJob::kCompaction);
  EXPECT_GE(WriteBytes(volume, device::IoClass::kCompaction), data.size());
  EXPECT_EQ(WriteBytes(volume, device::IoClass::kFlush), 0u);
  EnterBackgroundJob(BackgroundJob::kFlush);
  Write("/000012.sst", data);
  LeaveBackgroundJob(BackgroundJob::kFlush);
  EXPECT_GE(WriteBytes(volume, device::IoClass::kFlush), data.size());
}

TEST_F(FileSystemTest, SecondLockOfAPathFailsUntilUnlocked) {
  rocksdb::FileLock* lock = nullptr;
  ASSERT_TRUE(fs_->LockFile("/db/LOCK", io_, &lock, nullptr).ok());
  // Another FileSystem over the same volume shares the lock table.
  auto other = NewZoneStackFileSystem(kUri);
  ASSERT_TRUE(other.ok()) << other.status();
  rocksdb::FileLock* second = nullptr;
  rocksdb::IOStatus s = (*other)->LockFile("/db/LOCK", io_, &second, nullptr);
  EXPECT_TRUE(s.IsIOError());
  EXPECT_NE(s.ToString().find("lock held"), std::string::npos) << s.ToString();
  EXPECT_EQ(second, nullptr);
  ASSERT_TRUE(fs_->UnlockFile(lock, io_, nullptr).ok());
  ASSERT_TRUE((*other)->LockFile("/db/LOCK", io_, &second, nullptr).ok());
  ASSERT_TRUE((*other)->UnlockFile(second, io_, nullptr).ok());
}

TEST_F(FileSystemTest, FullVolumeIsNoSpace) {
  // Writes until zfs runs out of zones; RocksDB must see IsNoSpace.
  std::unique_ptr<rocksdb::FSWritableFile> f;
  ASSERT_TRUE(fs_->NewWritableFile("/big.sst", {}, &f, nullptr).ok());
  const std::string chunk(1 << 20, 'z');
  rocksdb::IOStatus s;
  for (int i = 0; i < 1024 && s.ok(); ++i) s = f->Append(chunk, io_, nullptr);
  if (s.ok()) s = f->Sync(io_, nullptr);
  EXPECT_TRUE(s.IsNoSpace()) << s.ToString();
  f->Close(io_, nullptr).PermitUncheckedError();
}

// RocksDB installs CURRENT by renaming a temp file over the old one, and
// rewrites OPTIONS/IDENTITY in place: both must survive a remount.
TEST_F(FileSystemTest, ReplacedNamesSurviveRemount) {
  Write("/CURRENT", "MANIFEST-000001\n");
  Write("/000005.dbtmp", "MANIFEST-000005\n");
  ASSERT_TRUE(fs_->RenameFile("/000005.dbtmp", "/CURRENT", io_, nullptr).ok());
  Write("/IDENTITY", "old");
  Write("/IDENTITY", "new");
  fs_.reset();
  ASSERT_TRUE(Unmount(kUri).ok());
  auto fs = NewZoneStackFileSystem(kUri);
  ASSERT_TRUE(fs.ok()) << fs.status();
  fs_ = std::move(*fs);
  EXPECT_EQ(ReadAll("/CURRENT"), "MANIFEST-000005\n");
  EXPECT_EQ(ReadAll("/IDENTITY"), "new");
  EXPECT_TRUE(fs_->FileExists("/000005.dbtmp", io_, nullptr).IsNotFound());
}

TEST(RegistrationTest, EnvFromUriUsesZoneStack) {
  rocksdb::ConfigOptions cfg;
  cfg.ignore_unsupported_options = false;
  rocksdb::Env* env = nullptr;
  std::shared_ptr<rocksdb::Env> guard;
  rocksdb::Status s = rocksdb::Env::CreateFromUri(cfg, "", kUri, &env, &guard);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_NE(env, nullptr);
  EXPECT_STREQ(env->GetFileSystem()->Name(), ZoneStackFileSystem::kClassName());
  ASSERT_TRUE(env->CreateDirIfMissing("/reg").ok());
  EXPECT_TRUE(env->FileExists("/reg").ok());
  guard.reset();
  EXPECT_TRUE(Forget(kUri).ok());
}

TEST(RegistrationTest, BadUriIsAnErrorNotANullEnv) {
  rocksdb::ConfigOptions cfg;
  rocksdb::Env* env = nullptr;
  std::shared_ptr<rocksdb::Env> guard;
  rocksdb::Status s =
      rocksdb::Env::CreateFromUri(cfg, "", "zonestack://emu:nosuchpreset", &env, &guard);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("nosuchpreset"), std::string::npos) << s.ToString();
}

TEST(VolumeRegistryTest, SharedUntilUnmountedAndRefusedWhileInUse) {
  auto config = ParseUri(kUri);
  ASSERT_TRUE(config.ok());
  auto a = AcquireVolume(*config);
  ASSERT_TRUE(a.ok()) << a.status();
  auto b = AcquireVolume(*config);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->get(), b->get());
  auto found = FindVolume(kUri);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->get(), a->get());
  EXPECT_EQ(Unmount(kUri).code(), absl::StatusCode::kFailedPrecondition);
  a->reset();
  b->reset();
  found->reset();
  EXPECT_TRUE(Unmount(kUri).ok());
  EXPECT_EQ(FindVolume(kUri).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(Unmount(kUri).code(), absl::StatusCode::kNotFound);

  // Another placement while mounted is refused; a device in two volumes too.
  ASSERT_TRUE(AcquireVolume(*config).ok());
  ZoneStackConfig hybrid = *config;
  hybrid.scheme = policy::SchemeConfig{"hybrid"};
  EXPECT_EQ(AcquireVolume(hybrid).status().code(), absl::StatusCode::kFailedPrecondition);
  ZoneStackConfig wider = *config;
  wider.devices.push_back("emu:zn540?zones=16&scale=1/256&timing=none");
  EXPECT_EQ(AcquireVolume(wider).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(Forget(kUri).ok());
}

TEST(VolumeRegistryTest, FormatNeverOnBlankDevicesFails) {
  auto config = ParseUri(kUri);
  ASSERT_TRUE(config.ok());
  config->format = FormatMode::kNever;
  EXPECT_EQ(AcquireVolume(*config).status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(Forget(kUri).ok());
}

}  // namespace
}  // namespace zonestack::rocks
