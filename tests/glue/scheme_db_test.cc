// RocksDB on volumes with the HHZS paper's schemes, through OpenDb: where
// SSTs land (B3, tiered, HHZS), data intact across reopens, the block
// cache OpenDb builds, one DB per scheme.
#include "rocksdb/cache.h"
#include "glue/ssd_secondary_cache.h"
#include "rocksdb/table.h"
#include "scheme_test_util.h"

namespace zonestack::rocks {
namespace {

void ExpectNoMismatches(const std::vector<std::string>& problems) {
  for (const std::string& p : problems) ADD_FAILURE() << p;
}

bool AllOn(const ZfsSst& s, uint32_t device) {
  return !s.devices.empty() &&
         std::all_of(s.devices.begin(), s.devices.end(), [&](uint32_t d) { return d == device; });
}

TEST_F(SchemeDbTest, B3PutsLevelsFromThreeOnTheHdd) {
  const std::string config = WriteConfig(R"("scheme": {"name": "b3"})");
  rocksdb::Options options = LevelOptions();
  // Every SST written at its final level: B3 does not migrate moved ones.
  options.sst_partitioner_factory = std::make_shared<NoTrivialMoveFactory>();
  auto db = OpenDb(config, "/db", options);
  ASSERT_TRUE(db.ok()) << db.status();
  Model model;
  Fill(db->get(), 5000, 400, 20000, 5, &model);
  ExpectNoMismatches(SettledMismatches(db->get()));
  ASSERT_GE(MaxLevel(db->get()), 3) << "the workload should reach L3";

  std::vector<rocksdb::LiveFileMetaData> live;
  (*db)->GetLiveFilesMetaData(&live);
  const auto zfs = ZfsSsts(*PartsOf(**db)->volume);
  int on_ssd = 0, on_hdd = 0;
  for (const auto& f : live) {
    auto z = zfs.find(SstPath(f));
    ASSERT_NE(z, zfs.end()) << SstPath(f);
    // The SSD has room for every SST of L0-L2 here.
    const uint32_t want = f.level >= 3 ? kHdd : kSsd;
    EXPECT_TRUE(AllOn(z->second, want))
        << SstPath(f) << " at L" << f.level << " is not all on device " << want;
    (want == kSsd ? on_ssd : on_hdd)++;
  }
  EXPECT_GT(on_ssd, 0);
  EXPECT_GT(on_hdd, 0);
  CheckModel(db->get(), model);
}

TEST_F(SchemeDbTest, TieredPutsColdLastLevelSstsOnTheHdd) {
  const std::string config = WriteConfig(R"("scheme": {"name": "tiered"})");
  rocksdb::Options options = LevelOptions();
  options.num_levels = 3;  // L2 is the last level, and cold
  auto db = OpenDb(config, "/db", options);
  ASSERT_TRUE(db.ok()) << db.status();
  EXPECT_EQ((*db)->GetOptions().last_level_temperature, rocksdb::Temperature::kCold);
  Model model;
  Fill(db->get(), 3000, 400, 20000, 6, &model);
  ExpectNoMismatches(SettledMismatches(db->get()));

  std::vector<rocksdb::LiveFileMetaData> live;
  (*db)->GetLiveFilesMetaData(&live);
  auto parts = PartsOf(**db);
  const auto zfs = ZfsSsts(*parts->volume);
  int cold = 0, warm = 0;
  for (const auto& f : live) {
    auto z = zfs.find(SstPath(f));
    ASSERT_NE(z, zfs.end()) << SstPath(f);
    const bool is_cold = f.temperature == rocksdb::Temperature::kCold;
    if (f.level == 2 && !is_cold) {
      // RocksDB allows trivial moves into the last level even when a
      // partitioner refuses them elsewhere, and a moved SST keeps its
      // temperature (docs/rocksdb.md section 1).
      auto sst = parts->scheme->view().Sst(f.file_number);
      ASSERT_TRUE(sst.has_value());
      EXPECT_TRUE(sst->trivially_moved) << SstPath(f) << " at L2 is neither cold nor moved";
    } else {
      EXPECT_EQ(is_cold, f.level == 2) << SstPath(f) << " at L" << f.level;
    }
    EXPECT_TRUE(AllOn(z->second, is_cold ? kHdd : kSsd))
        << SstPath(f) << " (L" << f.level << ", cold " << is_cold << ") on the wrong device";
    (is_cold ? cold : warm)++;
  }
  EXPECT_GT(cold, 0);
  EXPECT_GT(warm, 0);
  CheckModel(db->get(), model);
}

TEST_F(SchemeDbTest, TieredKeepsTheCallersTemperature) {
  const std::string config = WriteConfig(R"("scheme": {"name": "tiered"})");
  rocksdb::Options options = LevelOptions();
  options.last_level_temperature = rocksdb::Temperature::kWarm;
  auto db = OpenDb(config, "/db", options);
  ASSERT_TRUE(db.ok()) << db.status();
  EXPECT_EQ((*db)->GetOptions().last_level_temperature, rocksdb::Temperature::kWarm);
}

TEST_F(SchemeDbTest, OtherSchemesLeaveTheTemperatureAlone) {
  const std::string config = WriteConfig(R"("scheme": {"name": "b3"})");
  auto db = OpenDb(config, "/db", LevelOptions());
  ASSERT_TRUE(db.ok()) << db.status();
  EXPECT_EQ((*db)->GetOptions().last_level_temperature, rocksdb::Temperature::kUnknown);
}

// HHZS on an SSD too small for the tree: placement, migration and the SSD
// cache all run, and every key reads back, before and after a restart.
TEST_F(SchemeDbTest, HhzsKeepsEveryKeyAcrossReopen) {
  const std::string config = WriteConfig(
      R"("scheme": {"name": "hhzs", "decision_interval_ms": 20,
                    "migration_mib_per_sec": 64, "hdd_random_read_iops": 2},
         "block_cache_bytes": 131072)",
      /*ssd_zones=*/16, /*hdd_zones=*/256);
  Model model;
  {
    auto db = OpenDb(config, "/db", LevelOptions());
    ASSERT_TRUE(db.ok()) << db.status();
    auto parts = PartsOf(**db);
    ASSERT_NE(parts->cache, nullptr) << "hhzs caches";
    Fill(db->get(), 6000, 400, 20000, 7, &model);
    ExpectNoMismatches(SettledMismatches(db->get()));
    CheckModel(db->get(), model);
    CheckModel(db->get(), model);  // again: blocks evicted before come from the SSD cache
    int on_hdd = 0;
    for (const auto& [path, s] : ZfsSsts(*parts->volume)) {
      for (uint32_t d : s.devices) on_hdd += d == kSsd ? 0 : 1;
    }
    // Flushed SSTs (L0) went to the SSD. Not the settled tree's SSTs: once
    // compactions settle, whether any low-level SST is left on the SSD
    // depends on their timing (a loaded machine left none, 2 runs in 10).
    const device::DeviceStats ssd = parts->volume->devices()[kSsd]->Stats();
    EXPECT_GT(ssd.by_class[static_cast<int>(device::IoClass::kFlush)].write_bytes, 0u)
        << "HHZS keeps low levels on the SSD";
    EXPECT_GT(on_hdd, 0) << "the SSD is too small for the whole tree";
    const policy::CacheStats stats = parts->cache->stats();
    EXPECT_GT(stats.admitted, 0u) << "no HDD block reached the SSD cache";
    EXPECT_GT(stats.hits, 0u) << "the SSD cache served no block";
  }
  absl::Status unmounted = Unmount(kUriScheme + config);
  ASSERT_TRUE(unmounted.ok()) << unmounted;
  auto db = OpenDb(config, "/db", LevelOptions());
  ASSERT_TRUE(db.ok()) << db.status();
  CheckModel(db->get(), model);
  Fill(db->get(), 2000, 400, 20000, 8, &model);
  ExpectNoMismatches(SettledMismatches(db->get()));
  CheckModel(db->get(), model);
  for (const std::string& p : PartsOf(**db)->volume->Check()) ADD_FAILURE() << p;
}

uint64_t UserReadOps(zfs::Volume& volume) {
  uint64_t ops = 0;
  for (const auto& d : volume.devices()) {
    ops += d->Stats().by_class[static_cast<int>(device::IoClass::kUserRead)].read_ops;
  }
  return ops;
}

// Flushes and compactions read SSTs (table verification, compaction
// inputs), raised to IO_USER while writes are delayed: none of it may
// count as a user read, in the device counters or in the SST read counts
// behind HHZS's migration. Reads by the client do.
TEST_F(SchemeDbTest, BackgroundReadsAreNotUserReads) {
  const std::string config = WriteConfig(R"("scheme": {"name": "hhzs"})");
  rocksdb::Options options = LevelOptions();
  options.level0_slowdown_writes_trigger = 2;  // writes delayed while L0 holds 2 SSTs
  auto db = OpenDb(config, "/db", options);
  ASSERT_TRUE(db.ok()) << db.status();
  auto parts = PartsOf(**db);
  Model model;
  Fill(db->get(), 6000, 400, 20000, 9, &model);
  ExpectNoMismatches(SettledMismatches(db->get()));
  ASSERT_GE(MaxLevel(db->get()), 2) << "the workload should compact";
  EXPECT_EQ(UserReadOps(*parts->volume), 0u);
  for (const policy::SstInfo& s : parts->scheme->view().Ssts()) {
    EXPECT_EQ(s.reads, 0u) << "SST " << s.number << " at L" << s.level;
  }

  CheckModel(db->get(), model);
  EXPECT_GT(UserReadOps(*parts->volume), 0u);
  uint64_t sst_reads = 0;
  for (const policy::SstInfo& s : parts->scheme->view().Ssts()) sst_reads += s.reads;
  EXPECT_GT(sst_reads, 0u);
}

TEST_F(SchemeDbTest, OneDbAtATimePerScheme) {
  const std::string config = WriteConfig(R"("placement": "p")");
  {
    auto a = OpenDb(config, "/a");
    ASSERT_TRUE(a.ok()) << a.status();
    auto b = OpenDb(config, "/b");
    EXPECT_EQ(b.status().code(), absl::StatusCode::kFailedPrecondition) << b.status();
    EXPECT_NE(b.status().message().find("'/a'"), std::string::npos) << b.status();
    auto again = OpenDb(config, "/a/");
    EXPECT_EQ(again.status().code(), absl::StatusCode::kFailedPrecondition) << again.status();
  }
  auto b = OpenDb(config, "/b");  // /a closed: its claim is gone
  EXPECT_TRUE(b.ok()) << b.status();
}

TEST_F(SchemeDbTest, FailedOpenReleasesTheScheme) {
  const std::string config = WriteConfig(R"("placement": "p")");
  rocksdb::Options options;
  options.create_if_missing = false;
  options.error_if_exists = true;
  ASSERT_TRUE(OpenDb(config, "/a").ok());  // creates /a, then closes it
  auto failed = OpenDb(config, "/a", options);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().message().find("already serves"), std::string::npos);
  EXPECT_TRUE(OpenDb(config, "/b").ok()) << "the failed open kept its claim";
}

size_t BlockCacheCapacity(rocksdb::DB& db) {
  auto* table = db.GetOptions().table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
  return table && table->block_cache ? table->block_cache->GetCapacity() : 0;
}

TEST_F(SchemeDbTest, BlockCacheBytesSizesTheBlockCache) {
  const std::string config = WriteConfig(R"("placement": "hybrid", "block_cache_bytes": 1048576)");
  rocksdb::BlockBasedTableOptions table;
  table.block_size = 8192;
  rocksdb::Options options;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  auto db = OpenDb(config, "/db", options);
  ASSERT_TRUE(db.ok()) << db.status();
  EXPECT_EQ(BlockCacheCapacity(**db), 1048576u);
  // The caller's other table options stay, and its factory is not changed.
  EXPECT_EQ((*db)->GetOptions().table_factory->GetOptions<rocksdb::BlockBasedTableOptions>()
                ->block_size,
            8192u);
  EXPECT_NE(options.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>()
                ->block_cache->GetCapacity(),
            1048576u);
  EXPECT_FALSE(PartsOf(**db)->scheme);
}

TEST_F(SchemeDbTest, CachingSchemeKeepsTheCallersBlockCacheSize) {
  const std::string config = WriteConfig(R"("placement": "hhzs")");
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = rocksdb::NewLRUCache(2 << 20);
  rocksdb::Options options;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  auto db = OpenDb(config, "/db", options);
  ASSERT_TRUE(db.ok()) << db.status();
  EXPECT_EQ(BlockCacheCapacity(**db), size_t{2} << 20);
  auto parts = PartsOf(**db);
  ASSERT_TRUE(parts.has_value());
  EXPECT_NE(parts->cache, nullptr);
  EXPECT_EQ(parts->cache, FindSsdCache(*parts->volume));
  EXPECT_EQ(parts->scheme, FindScheme(*parts->volume));
  ASSERT_TRUE((*db)->Put(rocksdb::WriteOptions(), "k", "v").ok());
}

TEST_F(SchemeDbTest, CachingSchemeNeedsBlockBasedTables) {
  const std::string config = WriteConfig(R"("placement": "hhzs")");
  rocksdb::Options options;
  options.table_factory.reset(rocksdb::NewPlainTableFactory());
  auto db = OpenDb(config, "/db", options);
  EXPECT_EQ(db.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(db.status().message().find("block-based"), std::string::npos) << db.status();
  // No claim is left behind.
  EXPECT_TRUE(OpenDb(config, "/db").ok());
}

TEST_F(SchemeDbTest, AVolumeIsReusedOnlyWithTheSameScheme) {
  const std::string hhzs = WriteConfig(R"("placement": "hhzs")");
  auto db = OpenDb(hhzs, "/db");
  ASSERT_TRUE(db.ok()) << db.status();
  db->reset();
  // The same devices under another scheme: the mounted volume says no.
  const std::string b3 = WriteConfig(R"("scheme": {"name": "b3"})");
  auto other = OpenDb(b3, "/db");
  EXPECT_EQ(other.status().code(), absl::StatusCode::kFailedPrecondition) << other.status();
  EXPECT_NE(other.status().message().find("hhzs"), std::string::npos) << other.status();
}

}  // namespace
}  // namespace zonestack::rocks
