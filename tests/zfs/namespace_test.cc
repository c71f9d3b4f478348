// Names and directories: create, list, stat, delete, rename (atomic
// replace, of files and of directories), links, directories, path checks, reopen for append, truncating
// create, and deleted-but-open files. Every change must also survive a
// remount, since a metadata record that replays differently from how it
// applied live is the classic bug here.
#include <gtest/gtest.h>

#include "zfs_test_util.h"

namespace zonestack::zfs {
namespace {

using namespace testing_util;

class NamespaceTest : public VolumeTest {
 protected:
  void SetUp() override { FormatAndMount({OpenDev(ZnsUri(16))}); }

  void Write(const std::string& path, uint64_t seed, uint64_t len) {
    ASSERT_OK(WriteFile(*vol_, path, Pattern(seed, len)));
  }
  // The file holds exactly `len` bytes of stream `seed`.
  void ExpectContent(const std::string& path, uint64_t seed, uint64_t len) {
    auto got = ReadFile(*vol_, path);
    ASSERT_TRUE(got.ok()) << path << ": " << got.status();
    EXPECT_EQ(got->size(), len) << path;
    EXPECT_TRUE(*got == Pattern(seed, len)) << path << ": content differs";
  }
  bool Exists(const std::string& path) { return vol_->Stat(path).ok(); }
};

TEST_F(NamespaceTest, CreateListStatDelete) {
  ASSERT_OK(vol_->CreateDir("/db"));
  Write("/db/a", 1, 1000);
  Write("/db/b", 2, 0);
  ASSERT_OK_AND_ASSIGN(auto names, vol_->List("/db"));
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b"}));
  ASSERT_OK_AND_ASSIGN(FileStat st, vol_->Stat("/db/a"));
  EXPECT_EQ(st.size, 1000u);
  EXPECT_FALSE(st.is_dir);
  EXPECT_EQ(st.links, 1u);
  EXPECT_GT(st.mtime_us, 0u);
  ASSERT_OK_AND_ASSIGN(FileStat dir, vol_->Stat("/db"));
  EXPECT_TRUE(dir.is_dir);
  ASSERT_OK(vol_->Delete("/db/a"));
  EXPECT_EQ(vol_->Stat("/db/a").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(vol_->Delete("/db/a").code(), absl::StatusCode::kNotFound);
  ASSERT_OK_AND_ASSIGN(names, vol_->List("/db"));
  EXPECT_EQ(names, std::vector<std::string>{"b"});
  ExpectConsistent(*vol_);
  ASSERT_NO_FATAL_FAILURE(Remount());
  ASSERT_OK_AND_ASSIGN(names, vol_->List("/db"));
  EXPECT_EQ(names, std::vector<std::string>{"b"});
  ExpectConsistent(*vol_);
}

TEST_F(NamespaceTest, RenameOverExistingFileReplacesItAtomically) {
  // The CURRENT-file pattern: write a temp file, sync it, rename it over.
  Write("/CURRENT", 1, 100);
  auto tmp = vol_->Create("/CURRENT.tmp", {});
  ASSERT_OK(tmp);
  ASSERT_OK((*tmp)->Append(Pattern(2, 200)));
  ASSERT_OK((*tmp)->Sync());
  ASSERT_OK(vol_->Rename("/CURRENT.tmp", "/CURRENT"));
  ASSERT_OK((*tmp)->Close());
  EXPECT_FALSE(Exists("/CURRENT.tmp"));
  ExpectContent("/CURRENT", 2, 200);
  ExpectConsistent(*vol_);
  ASSERT_NO_FATAL_FAILURE(Remount());
  EXPECT_FALSE(Exists("/CURRENT.tmp"));
  ExpectContent("/CURRENT", 2, 200);
  EXPECT_EQ(vol_->Files().size(), 1u);
  ExpectConsistent(*vol_);
}

TEST_F(NamespaceTest, RenameOverATargetWithOtherLinksKeepsThem) {
  Write("/a", 1, 100);
  Write("/b", 2, 200);
  ASSERT_OK(vol_->Link("/b", "/b2"));
  ASSERT_OK(vol_->Rename("/a", "/b"));
  ASSERT_NO_FATAL_FAILURE(Remount());
  ExpectContent("/b", 1, 100);
  ExpectContent("/b2", 2, 200);
  EXPECT_FALSE(Exists("/a"));
  ExpectConsistent(*vol_);
}

TEST_F(NamespaceTest, LinkThenDeletingOneNameKeepsTheData) {
  Write("/a", 1, 5000);
  ASSERT_OK(vol_->Link("/a", "/b"));
  ASSERT_OK_AND_ASSIGN(FileStat st, vol_->Stat("/b"));
  EXPECT_EQ(st.links, 2u);
  EXPECT_EQ(vol_->Link("/a", "/b").code(), absl::StatusCode::kAlreadyExists);
  const uint64_t resets = ZoneResets(*vol_);
  ASSERT_OK(vol_->Delete("/a"));
  EXPECT_EQ(ZoneResets(*vol_), resets);
  ExpectContent("/b", 1, 5000);
  ASSERT_NO_FATAL_FAILURE(Remount());
  EXPECT_FALSE(Exists("/a"));
  ExpectContent("/b", 1, 5000);
  ASSERT_OK_AND_ASSIGN(st, vol_->Stat("/b"));
  EXPECT_EQ(st.links, 1u);
  ExpectConsistent(*vol_);
}

TEST_F(NamespaceTest, RenameMovesAFileAcrossDirectories) {
  ASSERT_OK(vol_->CreateDir("/x"));
  ASSERT_OK(vol_->CreateDir("/y"));
  Write("/x/f", 3, 12345);
  ASSERT_OK(vol_->Rename("/x/f", "/y/g"));
  EXPECT_EQ(vol_->Rename("/y/g", "/nodir/g").code(), absl::StatusCode::kNotFound);
  ASSERT_NO_FATAL_FAILURE(Remount());
  EXPECT_TRUE(vol_->List("/x")->empty());
  EXPECT_EQ(*vol_->List("/y"), std::vector<std::string>{"g"});
  ExpectContent("/y/g", 3, 12345);
  ExpectConsistent(*vol_);
}

TEST_F(NamespaceTest, RenameOntoADirectoryFails) {
  ASSERT_OK(vol_->CreateDir("/d"));
  Write("/f", 1, 10);
  EXPECT_FALSE(vol_->Rename("/f", "/d").ok());
  EXPECT_TRUE(vol_->Stat("/d")->is_dir);
  ExpectContent("/f", 1, 10);
  ExpectConsistent(*vol_);
}

TEST_F(NamespaceTest, RenameMovesADirectoryWithEverythingBelowIt) {
  // A RocksDB checkpoint: SSTs hard-linked into a temporary directory,
  // which is then renamed to its final name.
  ASSERT_OK(vol_->CreateDir("/db"));
  ASSERT_OK(vol_->CreateDir("/cp.tmp/sub"));
  Write("/db/1.sst", 1, 5000);
  ASSERT_OK(vol_->Link("/db/1.sst", "/cp.tmp/1.sst"));
  Write("/cp.tmp/CURRENT", 2, 16);
  Write("/cp.tmp/sub/f", 3, 100);
  ASSERT_OK(vol_->Rename("/cp.tmp", "/cp"));
  auto check = [&] {
    EXPECT_FALSE(Exists("/cp.tmp"));
    EXPECT_FALSE(Exists("/cp.tmp/1.sst"));
    EXPECT_EQ(*vol_->List("/"), (std::vector<std::string>{"cp", "db"}));
    EXPECT_EQ(*vol_->List("/cp"), (std::vector<std::string>{"1.sst", "CURRENT", "sub"}));
    EXPECT_EQ(*vol_->List("/cp/sub"), std::vector<std::string>{"f"});
    ExpectContent("/cp/1.sst", 1, 5000);
    ExpectContent("/db/1.sst", 1, 5000);
    ExpectContent("/cp/CURRENT", 2, 16);
    ExpectContent("/cp/sub/f", 3, 100);
    EXPECT_EQ(vol_->Stat("/db/1.sst")->links, 2u);
    ExpectConsistent(*vol_);
  };
  check();
  ASSERT_NO_FATAL_FAILURE(Remount());
  check();
  // The link outside the directory stays one file with the moved name.
  ASSERT_OK(vol_->Delete("/db/1.sst"));
  ExpectContent("/cp/1.sst", 1, 5000);
  ASSERT_NO_FATAL_FAILURE(Remount());
  ExpectContent("/cp/1.sst", 1, 5000);
  ExpectConsistent(*vol_);
}

TEST_F(NamespaceTest, RenameOfADirectoryKeepsAWriterWriting) {
  ASSERT_OK(vol_->CreateDir("/a"));
  auto w = vol_->Create("/a/f", {});
  ASSERT_OK(w);
  ASSERT_OK((*w)->Append(Pattern(1, 3000)));
  ASSERT_OK(vol_->Rename("/a", "/b"));
  ASSERT_OK((*w)->Append(Pattern(2, 10)));
  ASSERT_OK((*w)->Close());
  ASSERT_NO_FATAL_FAILURE(Remount());
  ASSERT_OK_AND_ASSIGN(FileStat st, vol_->Stat("/b/f"));
  EXPECT_EQ(st.size, 3010u);
  EXPECT_FALSE(Exists("/a"));
  ExpectConsistent(*vol_);
}

TEST_F(NamespaceTest, RenameOfADirectoryFollowsRename2) {
  ASSERT_OK(vol_->CreateDir("/d/sub"));
  Write("/d/f", 1, 10);
  ASSERT_OK(vol_->CreateDir("/empty"));
  ASSERT_OK(vol_->CreateDir("/full"));
  Write("/full/g", 2, 10);
  Write("/file", 3, 10);
  // Into itself, onto a file, onto a non-empty directory, under a missing
  // parent: refused, nothing changed.
  EXPECT_EQ(vol_->Rename("/d", "/d/sub/x").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(vol_->Rename("/d", "/file").code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(vol_->Rename("/d", "/full").code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(vol_->Rename("/d", "/nodir/d").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(vol_->Rename("/nodir", "/x").code(), absl::StatusCode::kNotFound);
  ExpectContent("/d/f", 1, 10);
  ExpectContent("/file", 3, 10);
  // An empty directory is replaced; a directory moves under another.
  ASSERT_OK(vol_->Rename("/d", "/empty"));
  ASSERT_OK(vol_->Rename("/empty", "/full/d"));
  ASSERT_NO_FATAL_FAILURE(Remount());
  EXPECT_FALSE(Exists("/d"));
  EXPECT_FALSE(Exists("/empty"));
  EXPECT_EQ(*vol_->List("/full"), (std::vector<std::string>{"g", "d"}));  // files, then dirs
  EXPECT_EQ(*vol_->List("/full/d"), (std::vector<std::string>{"f", "sub"}));
  ExpectContent("/full/d/f", 1, 10);
  ExpectConsistent(*vol_);
}

TEST_F(NamespaceTest, CreateDirCreatesMissingParents) {
  ASSERT_OK(vol_->CreateDir("/a/b/c"));
  EXPECT_TRUE(vol_->Stat("/a")->is_dir);
  EXPECT_TRUE(vol_->Stat("/a/b")->is_dir);
  EXPECT_TRUE(vol_->Stat("/a/b/c")->is_dir);
  EXPECT_OK(vol_->CreateDir("/a/b"));  // exists: fine, like mkdir -p
  EXPECT_EQ(*vol_->List("/a"), std::vector<std::string>{"b"});
  ASSERT_NO_FATAL_FAILURE(Remount());
  EXPECT_TRUE(vol_->Stat("/a/b/c")->is_dir);
  Write("/a/b/c/f", 1, 10);
  EXPECT_EQ(vol_->CreateDir("/a/b/c/f/g").code(), absl::StatusCode::kAlreadyExists);
}

TEST_F(NamespaceTest, DeleteDirRefusesANonEmptyDirectory) {
  ASSERT_OK(vol_->CreateDir("/d/sub"));
  EXPECT_EQ(vol_->DeleteDir("/d").code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_OK(vol_->DeleteDir("/d/sub"));
  Write("/d/f", 1, 10);
  EXPECT_EQ(vol_->DeleteDir("/d").code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_OK(vol_->Delete("/d/f"));
  ASSERT_OK(vol_->DeleteDir("/d"));
  EXPECT_FALSE(Exists("/d"));
  EXPECT_EQ(vol_->DeleteDir("/").code(), absl::StatusCode::kInvalidArgument);
  ASSERT_NO_FATAL_FAILURE(Remount());
  EXPECT_FALSE(Exists("/d"));
  EXPECT_TRUE(vol_->List("/")->empty());
}

TEST_F(NamespaceTest, PathsMustBeAbsolute) {
  Write("/f", 1, 10);
  const auto invalid = absl::StatusCode::kInvalidArgument;
  EXPECT_EQ(vol_->Create("f", {}).status().code(), invalid);
  EXPECT_EQ(vol_->Create("", {}).status().code(), invalid);
  EXPECT_EQ(vol_->Create("/dir/", {}).status().code(), invalid);
  EXPECT_EQ(vol_->CreateDir("d").code(), invalid);
  EXPECT_EQ(vol_->Rename("/f", "g").code(), invalid);
  EXPECT_EQ(vol_->Link("/f", "g").code(), invalid);
  EXPECT_TRUE(vol_->List("/")->size() == 1);
}

TEST_F(NamespaceTest, CreateInAMissingDirectoryFails) {
  EXPECT_EQ(vol_->Create("/no/f", {}).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(NamespaceTest, ReopenAppendsAfterTheExistingData) {
  const auto all = Pattern(7, 30000);
  ASSERT_OK(WriteFile(*vol_, "/log", std::span(all).first(10001)));
  {
    ASSERT_OK_AND_ASSIGN(auto w, vol_->Reopen("/log"));
    EXPECT_EQ(w->size(), 10001u);
    EXPECT_EQ(vol_->Reopen("/log").status().code(), absl::StatusCode::kFailedPrecondition);
    ASSERT_OK(w->Append(std::span(all).subspan(10001, 9999)));
    ASSERT_OK(w->Close());
  }
  ExpectContent("/log", 7, 20000);
  ASSERT_NO_FATAL_FAILURE(Remount());
  {
    ASSERT_OK_AND_ASSIGN(auto w, vol_->Reopen("/log"));
    ASSERT_OK(w->Append(std::span(all).subspan(20000)));
    ASSERT_OK(w->Close());
  }
  ExpectContent("/log", 7, 30000);
  ASSERT_NO_FATAL_FAILURE(Remount());
  ExpectContent("/log", 7, 30000);
  EXPECT_EQ(vol_->Reopen("/nofile").status().code(), absl::StatusCode::kNotFound);
  ExpectConsistent(*vol_);
}

TEST_F(NamespaceTest, CreatingOverAnExistingFileTruncatesIt) {
  Write("/f", 1, 100000);
  Write("/f", 2, 10);
  ExpectContent("/f", 2, 10);
  ExpectConsistent(*vol_);
  ASSERT_NO_FATAL_FAILURE(Remount());
  ExpectContent("/f", 2, 10);
  EXPECT_EQ(vol_->Files().size(), 1u);
  ExpectConsistent(*vol_);
}

TEST_F(NamespaceTest, CreatingOverAFileOpenForWritingFails) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/f", {}));
  EXPECT_EQ(vol_->Create("/f", {}).status().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_OK(w->Close());
}

TEST_F(NamespaceTest, DeletedButOpenFileStaysReadableUntilClosed) {
  // A file of its own group alone in its zone, so the zone dies with it.
  const FileHint hint{.kind = FileKind::kSst,
                              .lifetime = Lifetime::kExtreme};
  ASSERT_OK(WriteFile(*vol_, "/f", Pattern(4, 300000), hint));
  const uint32_t zone = vol_->Files()[0].extents[0].zone;
  ASSERT_OK_AND_ASSIGN(auto r, vol_->Open("/f"));
  const uint64_t resets = ZoneResets(*vol_);
  ASSERT_OK(vol_->Delete("/f"));
  EXPECT_FALSE(Exists("/f"));
  std::vector<uint8_t> buf(300000);
  ASSERT_OK_AND_ASSIGN(size_t n, r->Read(0, buf));
  EXPECT_EQ(n, buf.size());
  EXPECT_TRUE(buf == Pattern(4, 300000));
  EXPECT_EQ(ZoneResets(*vol_), resets) << "zone reset under an open reader";
  ExpectConsistent(*vol_);
  r.reset();
  EXPECT_EQ(ZoneResets(*vol_), resets + 1);
  for (const ZoneReport& z : vol_->Zones()) {
    if (z.device == 0 && z.zone.index == zone) {
      EXPECT_EQ(z.zone.state, device::ZoneState::kEmpty);
      EXPECT_EQ(z.valid_bytes, 0u);
    }
  }
  ExpectConsistent(*vol_);
}

TEST_F(NamespaceTest, FileDeletedWhileOpenForWritingFreesItsZoneOnClose) {
  const FileHint hint{.kind = FileKind::kSst,
                              .lifetime = Lifetime::kExtreme};
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/f", hint));
  ASSERT_OK(w->Append(Pattern(1, 200000)));
  ASSERT_OK(w->Sync());
  ASSERT_OK(vol_->Delete("/f"));
  ASSERT_OK(w->Append(Pattern(1, 200000, 1000)));
  EXPECT_OK(w->Sync());  // nothing to log for a file without a name
  const uint64_t resets = ZoneResets(*vol_);
  ASSERT_OK(w->Close());
  EXPECT_EQ(ZoneResets(*vol_), resets + 1);
  EXPECT_EQ(vol_->Space()[0].valid_bytes, 0u);
  ASSERT_NO_FATAL_FAILURE(Remount());
  EXPECT_FALSE(Exists("/f"));
  ExpectConsistent(*vol_);
}

}  // namespace
}  // namespace zonestack::zfs
