// RocksDB on an HZNS volume with ZnH2's HM Hybrid scheme ("znh2"), through
// OpenDb: the SLC cache fills, zones open in QLC, the migration thread
// moves SSTs from SLC to QLC by Simple Copy while RocksDB runs, the
// volume's capacity grows, and every key reads back, through a remount.
#include "scheme_test_util.h"

namespace zonestack::rocks {
namespace {

using device::CellMode;

class Znh2DbTest : public ::testing::Test {
 protected:
  void TearDown() override {
    EXPECT_TRUE(Forget(kUriScheme + config_).ok());
    std::remove(config_.c_str());
  }
  // znh2 at 1/1024: 64 zones of 1 MiB in QLC, 256 KiB in SLC. With every
  // zone in SLC the volume holds 16 MiB; the SLC cache goes over its cap
  // at about 7 MiB of SLC data (Table 1).
  void WriteConfig() {
    config_ = absl::StrCat(::testing::TempDir(), "/zs_znh2_db_test.json");
    std::ofstream out(config_);
    out << R"({"devices": ["emu:znh2?zones=64&scale=1/1024&timing=none"],)"
        << R"( "scheme": {"name": "znh2", "period_ms": 20}})";
  }
  std::string config_;
};

// Waits until RocksDB has no flush or compaction running or pending.
void Settle(rocksdb::DB* db) {
  ASSERT_TRUE(testing_common::WaitFor([&] { return JobsInFlight(db) == 0; }));
}

// Bytes of file data in zones of `mode`.
uint64_t LiveBytesIn(const zfs::Volume& volume, CellMode mode) {
  uint64_t bytes = 0;
  for (const zfs::ZoneReport& z : volume.Zones()) {
    if (z.role == zfs::ZoneRole::kData && z.zone.cell_mode == mode) bytes += z.valid_bytes;
  }
  return bytes;
}

TEST_F(Znh2DbTest, SstsMigrateToQlcWhileRocksDbRunsAndEveryKeySurvivesARemount) {
  WriteConfig();
  rocksdb::Options options = LevelOptions();
  options.write_buffer_size = 256 << 10;
  options.target_file_size_base = 128 << 10;
  Model model;
  {
    auto db = OpenDb(config_, "/db", options);
    ASSERT_TRUE(db.ok()) << db.status();
    // "znh2" needs only write-lifetime hints: OpenDb keeps no hinted
    // scheme for it, and the volume alone shows what it did.
    zfs::Volume& volume = *PartsOf(**db)->volume;
    const uint64_t slc_only = volume.Space()[0].capacity_bytes;
    Fill(db->get(), 12000, 1000, 9000, 11, &model);
    ASSERT_NO_FATAL_FAILURE(Settle(db->get()));
    // The migration thread moves SSTs into QLC zones (by Simple Copy)
    // while the SLC cache is over its cap.
    ASSERT_TRUE(testing_common::WaitFor([&] {
      return volume.cell_migration_stats().bytes_moved > 0;
    })) << "no cell migration";
    EXPECT_GT(volume.devices()[0]->Stats().simple_copies, 0u);
    EXPECT_GT(LiveBytesIn(volume, CellMode::kQlc), 0u);
    EXPECT_GT(volume.Space()[0].capacity_bytes, slc_only) << "QLC zones add capacity";
    // RocksDB's free space is zfs's, which counts QLC zones at their
    // capacity (the migration thread may change it between two looks).
    EXPECT_TRUE(testing_common::WaitFor([&] {
      uint64_t free_space = 0;
      const bool ok = (*db)->GetFileSystem()
                          ->GetFreeSpace("/db", rocksdb::IOOptions(), &free_space, nullptr)
                          .ok();
      return ok && free_space == volume.Space()[0].free_bytes;
    }));
    CheckModel(db->get(), model);
  }
  absl::Status unmounted = Unmount(kUriScheme + config_);
  ASSERT_TRUE(unmounted.ok()) << unmounted;
  auto db = OpenDb(config_, "/db", options);
  ASSERT_TRUE(db.ok()) << db.status();
  zfs::Volume& volume = *PartsOf(**db)->volume;
  EXPECT_GT(LiveBytesIn(volume, CellMode::kQlc), 0u) << "QLC zones are QLC after the remount";
  CheckModel(db->get(), model);
  Fill(db->get(), 3000, 1000, 9000, 12, &model);
  ASSERT_NO_FATAL_FAILURE(Settle(db->get()));
  CheckModel(db->get(), model);
  for (const std::string& p : volume.Check()) ADD_FAILURE() << p;
  for (const std::string& p : volume.CheckData()) ADD_FAILURE() << p;
}

}  // namespace
}  // namespace zonestack::rocks
