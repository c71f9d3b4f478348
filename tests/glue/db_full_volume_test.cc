// A full volume: RocksDB gets a no-space error, acknowledged data stays,
// and once space is freed the DB opens again and takes writes.
#include "absl/strings/str_cat.h"
#include "db_test_util.h"
#include "glue/open_db.h"

namespace zonestack::rocks {
namespace {

constexpr char kUri[] = "zonestack://emu:zn540?zones=16&scale=1/256&timing=none";

TEST(DbFullVolumeTest, NoSpaceThenReopenAfterSpaceIsFreed) {
  // Ballast takes most of the volume, so the DB fills the rest quickly.
  {
    auto vol = AcquireVolume(*ParseUri(kUri));
    ASSERT_TRUE(vol.ok()) << vol.status();
    ASSERT_TRUE((*vol)->CreateDir("/ballast").ok());
    auto f = (*vol)->Create("/ballast/blob", {.kind = zfs::FileKind::kOther});
    ASSERT_TRUE(f.ok());
    const std::vector<uint8_t> mib(1 << 20, 0xbb);
    for (int i = 0; i < 30; ++i) ASSERT_TRUE((*f)->Append(mib).ok());
    ASSERT_TRUE((*f)->Close().ok());
  }
  std::map<std::string, std::string> acked;
  rocksdb::Status failure;
  {
    TestDb t;
    ASSERT_TRUE(OpenTestDb(kUri, "/db", {}, SmallOptions(), &t).ok());
    rocksdb::WriteOptions sync;
    sync.sync = true;
    const std::string value(2000, 'v');
    for (int i = 0; i < 100000; ++i) {
      const std::string key = absl::StrCat("k", i);
      failure = t.db->Put(sync, key, value);
      if (!failure.ok()) break;
      acked[key] = value;
    }
    EXPECT_FALSE(failure.ok()) << "the volume never filled";
    // RocksDB passes the no-space error on as it is, or wrapped (as
    // Incomplete) once its background error handler has taken it.
    EXPECT_NE(failure.ToString().find("No space left"), std::string::npos) << failure.ToString();
    (void)t.Close();
  }
  ASSERT_GT(acked.size(), 100u);
  // Free the ballast, then reopen: every acknowledged write is there and
  // the DB writes again.
  {
    auto vol = FindVolume(kUri);
    ASSERT_TRUE(vol.ok());
    ASSERT_TRUE((*vol)->Delete("/ballast/blob").ok());
  }
  TestDb t;
  rocksdb::Status s = OpenTestDb(kUri, "/db", {}, SmallOptions(), &t);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (const auto& [k, v] : acked) {
    std::string got;
    ASSERT_TRUE(t.db->Get(rocksdb::ReadOptions(), k, &got).ok()) << k;
    ASSERT_EQ(got, v) << k;
  }
  ASSERT_TRUE(t.db->Put(rocksdb::WriteOptions(), "after", "space").ok());
  ASSERT_TRUE(t.db->Flush(rocksdb::FlushOptions()).ok());
  ASSERT_TRUE(t.Close().ok());
  {
    auto vol = FindVolume(kUri);
    ASSERT_TRUE(vol.ok());
    for (const std::string& p : (*vol)->Check()) ADD_FAILURE() << p;
  }
  EXPECT_TRUE(Forget(kUri).ok());
}

}  // namespace
}  // namespace zonestack::rocks
