// RocksDB on a SplitZNS volume (scheme "splitzns") through OpenDb, on the
// emulated splitzns device at 1/64 (8 MiB zones of 16 subzones of 512
// KiB): OpenDb sizes SSTs to the subzones, SSTs of the subzone levels lie
// in split zones one subzone each, those below in wide zones, and every
// key reads back after a remount and after a power cut.
#include "db_test_util.h"
#include "scheme_test_util.h"

namespace zonestack::rocks {
namespace {

class SplitZnsDbTest : public SchemeDbTest {
 protected:
  void WriteConfig(const std::string& scheme) {
    config_ = WriteConfigOn({"emu:splitzns?zones=48&scale=1/64&timing=none"},
                            "\"scheme\": " + scheme);
  }
  std::string config_;
};

// LevelOptions with every SST written at its level (no trivial moves), so
// each SST's placement follows the level it is written for.
rocksdb::Options SplitOptions() {
  rocksdb::Options o = LevelOptions();
  o.write_buffer_size = 256 << 10;
  o.max_bytes_for_level_base = 512 << 10;
  o.max_manifest_file_size = 1 << 20;
  o.sst_partitioner_factory = std::make_shared<NoTrivialMoveFactory>();
  return o;
}

// For each live SST: whether its extents lie in subzones (all of them in
// split zones, each extent inside one subzone); fails the test for an SST
// with extents of both kinds.
std::map<uint64_t, bool> InSubzones(rocksdb::DB* db) {
  zfs::Volume& volume = *PartsOf(*db)->volume;
  const device::ZonedDevice& dev = *volume.devices()[0];
  const std::map<std::string, ZfsSst> ssts = ZfsSsts(volume);
  std::map<std::string, std::vector<zfs::ExtentInfo>> extents;
  for (const zfs::FileInfo& f : volume.Files()) {
    for (const std::string& n : f.names) extents[n] = f.extents;
  }
  std::vector<rocksdb::LiveFileMetaData> live;
  db->GetLiveFilesMetaData(&live);
  std::map<uint64_t, bool> out;
  for (const auto& f : live) {
    int split = 0, wide = 0;
    for (const zfs::ExtentInfo& x : extents[SstPath(f)]) {
      auto zi = dev.ReportZone(x.zone);
      EXPECT_TRUE(zi.ok());
      if (!zi.ok() || !zi->IsSplit()) {
        ++wide;
        continue;
      }
      ++split;
      const uint64_t in_zone = x.offset - dev.ZoneStart(x.zone);
      const uint64_t sub = in_zone / dev.info().subzone_size();
      EXPECT_LE(in_zone + x.length, sub * dev.info().subzone_size() + dev.info().subzone_capacity());
    }
    EXPECT_TRUE(split == 0 || wide == 0) << SstPath(f) << " lies in both kinds of zone";
    out[f.file_number] = split > 0;
  }
  return out;
}

void ExpectSubzonesForLevels(rocksdb::DB* db, int min_level) {
  std::vector<rocksdb::LiveFileMetaData> live;
  db->GetLiveFilesMetaData(&live);
  const std::map<uint64_t, bool> in_subzones = InSubzones(db);
  int high = 0;
  for (const auto& f : live) {
    high += f.level >= min_level ? 1 : 0;
    EXPECT_EQ(in_subzones.at(f.file_number), f.level >= min_level)
        << SstPath(f) << " at L" << f.level;
  }
  EXPECT_GT(high, 0) << "no SST reached L" << min_level;
}

void ExpectFsckClean(rocksdb::DB* db) {
  zfs::Volume& volume = *PartsOf(*db)->volume;
  for (const std::string& p : volume.Check()) ADD_FAILURE() << p;
  for (const std::string& p : volume.CheckData()) ADD_FAILURE() << p;
}

void Settle(rocksdb::DB* db) {
  ASSERT_TRUE(testing_common::WaitFor([&] { return JobsInFlight(db) == 0; }));
}

TEST_F(SplitZnsDbTest, HighLevelSstsFillSubzonesAndSurviveRemountAndPowerCut) {
  WriteConfig(R"({"name": "splitzns", "subzone_min_level": 2})");
  const rocksdb::Options options = SplitOptions();
  Model model;
  {
    auto db = OpenDb(config_, "/db", options);
    ASSERT_TRUE(db.ok()) << db.status();
    // SSTs sized to the 512 KiB subzones, less room for index and filter.
    const uint64_t subzone = PartsOf(**db)->volume->devices()[0]->info().subzone_capacity();
    EXPECT_EQ((*db)->GetOptions().target_file_size_base, subzone - subzone / 16);
    Fill(db->get(), 8000, 1000, 6000, 21, &model);
    ASSERT_NO_FATAL_FAILURE(Settle(db->get()));
    EXPECT_GE(MaxLevel(db->get()), 2);
    ExpectSubzonesForLevels(db->get(), 2);
    CheckModel(db->get(), model);
    ExpectFsckClean(db->get());
  }
  absl::Status unmounted = Unmount(kUriScheme + config_);
  ASSERT_TRUE(unmounted.ok()) << unmounted;
  std::vector<device::EmulatedDevice*> devs;
  {
    auto db = OpenDb(config_, "/db", options);
    ASSERT_TRUE(db.ok()) << db.status();
    CheckModel(db->get(), model);
    ExpectFsckClean(db->get());
    // More writes, synced, then the power goes while RocksDB may be
    // flushing and compacting into subzones.
    Fill(db->get(), 4000, 1000, 6000, 22, &model);
    // A synced write syncs every live WAL, and with it the puts before.
    rocksdb::WriteOptions sync;
    sync.sync = true;
    ASSERT_TRUE((*db)->Put(sync, "synced", "yes").ok());
    model["synced"] = "yes";
    for (const auto& d : PartsOf(**db)->volume->devices()) {
      devs.push_back(dynamic_cast<device::EmulatedDevice*>(d.get()));
    }
    for (auto* d : devs) d->PowerOff();
    (void)(*db)->Close();  // fails: no power
  }
  ASSERT_TRUE(Unmount(kUriScheme + config_).ok());
  for (auto* d : devs) d->PowerOn();
  auto db = OpenDb(config_, "/db", options);
  ASSERT_TRUE(db.ok()) << db.status();
  CheckModel(db->get(), model);
  ExpectFsckClean(db->get());
  Fill(db->get(), 2000, 1000, 6000, 23, &model);
  ASSERT_NO_FATAL_FAILURE(Settle(db->get()));
  ExpectSubzonesForLevels(db->get(), 2);
  CheckModel(db->get(), model);
  ExpectFsckClean(db->get());
}

TEST_F(SplitZnsDbTest, NativePutsEverySstInASubzone) {
  WriteConfig(R"({"name": "splitzns", "subzone_min_level": 0})");
  Model model;
  auto db = OpenDb(config_, "/db", SplitOptions());
  ASSERT_TRUE(db.ok()) << db.status();
  Fill(db->get(), 3000, 1000, 6000, 31, &model);
  ASSERT_NO_FATAL_FAILURE(Settle(db->get()));
  ExpectSubzonesForLevels(db->get(), 0);
  CheckModel(db->get(), model);
  ExpectFsckClean(db->get());
}

}  // namespace
}  // namespace zonestack::rocks
