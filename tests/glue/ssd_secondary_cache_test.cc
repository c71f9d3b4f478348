// The SSD secondary cache (HHZS 3.5): RocksDB cache keys invert to (SST,
// offset) on real SSTs, and end to end on a hybrid volume blocks of
// HDD-resident SSTs are cached in SSD zones, hit, evicted FIFO, and reads
// stay correct across evictions, migration and reopen.
#include "glue/ssd_secondary_cache.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "../common/test_threads.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "rocksdb/cache.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/db.h"
#include "rocksdb/listener.h"
#include "rocksdb/options.h"
#include "rocksdb/statistics.h"
#include "rocksdb/table.h"
#include "device/emulated_device.h"
#include "policy/hhzs_options.h"
#include "policy/scheme_registry.h"
#include "glue/background_job.h"
#include "glue/open_db.h"
#include "glue/volume_registry.h"

namespace zonestack::rocks {
namespace {

// "/x/000123.sst" -> 123.
uint64_t SstNumberOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return std::strtoull(path.c_str() + (slash == std::string::npos ? 0 : slash + 1), nullptr, 10);
}

// Tells a key map about every SST RocksDB creates or deletes, as the glue's
// hint listener does for the real cache.
template <typename Sink>
class TableListener : public rocksdb::EventListener {
 public:
  explicit TableListener(Sink* sink) : sink_(sink) {}
  void OnTableFileCreated(const rocksdb::TableFileCreationInfo& info) override {
    if (info.status.ok()) sink_->AddTable(SstNumberOf(info.file_path), info.table_properties);
  }
  void OnTableFileDeleted(const rocksdb::TableFileDeletionInfo& info) override {
    sink_->RemoveTable(SstNumberOf(info.file_path));
  }

 private:
  Sink* sink_;
};

// Announces the SSTs of an opened DB (those from before the listener).
template <typename Sink>
void AddLiveTables(rocksdb::DB& db, Sink* sink) {
  rocksdb::TablePropertiesCollection props;
  ASSERT_TRUE(db.GetPropertiesOfAllTables(&props).ok());
  for (const auto& [path, p] : props) sink->AddTable(SstNumberOf(path), *p);
}

std::string Value(uint64_t i) {
  std::string v = absl::StrFormat("value%08d-", i);
  std::mt19937_64 rng(i);
  while (v.size() < 300) v.push_back(static_cast<char>('a' + rng() % 26));
  return v;
}
std::string Key(uint64_t i) { return absl::StrFormat("key%08d", i); }

// ------------------------------------------------ key inversion, default FS

// A secondary cache that only records what RocksDB hands it: each block's
// key inverted, and its payload checked against the SST file's bytes.
class RecordingCache : public rocksdb::SecondaryCache {
 public:
  explicit RecordingCache(std::string dir) : dir_(std::move(dir)) {}
  const char* Name() const override { return "RecordingCache"; }

  void AddTable(uint64_t number, const rocksdb::TableProperties& props) {
    EXPECT_TRUE(keys_.Add(number, props)) << number;
  }
  void RemoveTable(uint64_t number) { keys_.Remove(number); }

  rocksdb::Status Insert(const rocksdb::Slice& key, void* value,
                         const rocksdb::Cache::CacheItemHelper* helper) override {
    std::lock_guard<std::mutex> l(mu_);
    ++inserts_;
    const auto block = keys_.Invert(key);
    if (!block) {
      ++unknown_;
      return rocksdb::Status::OK();
    }
    std::string payload(helper->size_cb(value), '\0');
    EXPECT_TRUE(helper->saveto_cb(value, 0, payload.size(), payload.data()).ok());
    // The key keeps offset >> 2: the block starts in the 4 bytes from there.
    std::ifstream f(absl::StrFormat("%s/%06d.sst", dir_, block->sst), std::ios::binary);
    std::string bytes(payload.size() + 3, '\0');
    f.seekg(static_cast<std::streamoff>(block->offset));
    f.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    bool found = false;
    for (size_t d = 0; d < 4 && !found; ++d) found = bytes.compare(d, payload.size(), payload) == 0;
    if (!f || block->offset % 4 != 0 || !found) {
      ++mismatched_;
    } else {
      ++matched_;
      offsets_[block->sst].insert(block->offset);
    }
    return rocksdb::Status::OK();
  }
  std::unique_ptr<rocksdb::SecondaryCacheResultHandle> Lookup(
      const rocksdb::Slice&, const rocksdb::Cache::CreateCallback&, bool, bool,
      bool& is_in_sec_cache) override {
    is_in_sec_cache = false;
    return nullptr;
  }
  bool SupportForceErase() const override { return false; }
  void Erase(const rocksdb::Slice&) override {}
  void WaitAll(std::vector<rocksdb::SecondaryCacheResultHandle*>) override {}

  std::mutex mu_;
  uint64_t inserts_ = 0, unknown_ = 0, mismatched_ = 0, matched_ = 0;
  std::map<uint64_t, std::set<uint64_t>> offsets_;

 private:
  std::string dir_;
  SstCacheKeyMap keys_;
};

std::shared_ptr<rocksdb::Cache> SmallBlockCache(std::shared_ptr<rocksdb::SecondaryCache> sec,
                                                size_t capacity = 64 << 10) {
  rocksdb::LRUCacheOptions o;
  o.capacity = capacity;
  o.num_shard_bits = 0;
  o.strict_capacity_limit = false;
  o.secondary_cache = std::move(sec);
  return rocksdb::NewLRUCache(o);
}

rocksdb::BlockBasedTableOptions TableOptions(std::shared_ptr<rocksdb::Cache> cache) {
  rocksdb::BlockBasedTableOptions t;
  t.block_cache = std::move(cache);
  t.block_size = 1024;
  t.cache_index_and_filter_blocks = true;  // index and filter blocks go through the cache too
  t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  return t;
}

TEST(SstCacheKeyMapTest, EveryEvictedBlockMapsToItsSstAndOffset) {
  const std::string dir =
      absl::StrCat(std::filesystem::temp_directory_path().string(), "/zs_cache_keys_",
                   ::getpid());
  std::filesystem::remove_all(dir);
  auto recorder = std::make_shared<RecordingCache>(dir);
  // Two sessions: keys of SSTs written by an earlier session must invert too.
  for (int session = 0; session < 2; ++session) {
    rocksdb::Options o;
    o.create_if_missing = true;
    o.compression = rocksdb::kNoCompression;
    o.disable_auto_compactions = true;  // every SST stays live: no unknown key is excusable
    o.write_buffer_size = 128 << 10;
    o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(TableOptions(SmallBlockCache(recorder))));
    o.listeners.push_back(std::make_shared<TableListener<RecordingCache>>(recorder.get()));
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(o, dir, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    AddLiveTables(*db, recorder.get());
    for (uint64_t i = session * 2000u; i < (session + 1) * 2000u; ++i) {
      ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), Key(i), Value(i)).ok());
    }
    ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
    std::mt19937_64 rng(session);
    for (int r = 0; r < 3000; ++r) {
      const uint64_t i = rng() % ((session + 1) * 2000u);
      std::string v;
      ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), Key(i), &v).ok());
      ASSERT_EQ(v, Value(i));
    }
    ASSERT_TRUE(db->Close().ok());
  }
  std::filesystem::remove_all(dir);
  std::lock_guard<std::mutex> l(recorder->mu_);
  EXPECT_GT(recorder->inserts_, 500u);
  EXPECT_EQ(recorder->unknown_, 0u);
  EXPECT_EQ(recorder->mismatched_, 0u);
  EXPECT_EQ(recorder->matched_, recorder->inserts_);
  EXPECT_GE(recorder->offsets_.size(), 2u);  // blocks of several SSTs, both sessions
  size_t distinct = 0;
  for (const auto& [sst, offsets] : recorder->offsets_) distinct += offsets.size();
  EXPECT_GT(distinct, 100u);
}

TEST(SstCacheKeyMapTest, UnknownAndMalformedKeysDoNotInvert) {
  SstCacheKeyMap keys;
  rocksdb::TableProperties props;
  props.db_id = "db";
  props.db_session_id = "ABCDEFGHIJ0123456789";
  props.orig_file_number = 7;
  ASSERT_TRUE(keys.Add(12, props));
  const auto [k0, k1] = SstCacheKeyMap::BaseKey(props.db_id, props.db_session_id, 7);
  char key[16];
  const uint64_t second = k1 ^ (40960 >> 2);
  std::memcpy(key, &k0, 8);
  std::memcpy(key + 8, &second, 8);
  auto block = keys.Invert(rocksdb::Slice(key, 16));
  ASSERT_TRUE(block.has_value());
  EXPECT_EQ(block->sst, 12u);
  EXPECT_EQ(block->offset, 40960u);
  EXPECT_FALSE(keys.Invert(rocksdb::Slice(key, 15)).has_value());
  const uint64_t other = k0 ^ 1;
  std::memcpy(key, &other, 8);
  EXPECT_FALSE(keys.Invert(rocksdb::Slice(key, 16)).has_value());
  keys.Remove(12);
  std::memcpy(key, &k0, 8);
  EXPECT_FALSE(keys.Invert(rocksdb::Slice(key, 16)).has_value());
  // Old SSTs without a session id are keyed by the opening session: refused.
  props.db_session_id.clear();
  EXPECT_FALSE(keys.Add(13, props));
}


// ------------------------------------------------ the cache on a volume

// zn540 at 1/1024: zones of 1102848 bytes. HM-SMR at 1/256: 1 MiB zones.
constexpr char kSsdUri[] = "emu:zn540?zones=16&scale=1/1024&timing=none";
constexpr char kHddUri[] = "emu:st14000nm0007?zones=48&scale=1/256&timing=none";

size_t StringSize(void* obj) { return static_cast<std::string*>(obj)->size(); }
rocksdb::Status SaveString(void* obj, size_t offset, size_t len, void* out) {
  std::memcpy(out, static_cast<std::string*>(obj)->data() + offset, len);
  return rocksdb::Status::OK();
}
void DeleteString(const rocksdb::Slice&, void* obj) { delete static_cast<std::string*>(obj); }
const rocksdb::Cache::CacheItemHelper kStringHelper(StringSize, SaveString, DeleteString);

rocksdb::Status MakeString(const void* buf, size_t size, void** out, size_t* charge) {
  *out = new std::string(static_cast<const char*>(buf), size);
  *charge = size;
  return rocksdb::Status::OK();
}

// The bytes of block (sst, offset): any block can be checked on a hit.
std::string BlockBytes(uint64_t sst, uint64_t offset, size_t size) {
  std::string b(size, '\0');
  std::mt19937_64 rng(sst * 1000003 + offset);
  for (char& c : b) c = static_cast<char>(rng());
  return b;
}

class SsdCacheTest : public ::testing::Test {
 protected:
  void SetUp() override { Mount(/*wal_cache_zones=*/2); }
  void TearDown() override {
    if (cache_) cache_->Close();
    cache_.reset();
    vol_.reset();
  }

  void Mount(uint32_t wal_cache_zones, uint32_t write_buffer_bytes = 64 << 10,
             bool second_chance = false, bool refresh = false) {
    devices_.clear();
    for (const char* uri : {kSsdUri, kHddUri}) {
      auto d = device::OpenDevice(uri);
      ASSERT_TRUE(d.ok()) << d.status();
      devices_.push_back(std::move(*d));
    }
    policy::HhzsOptions o;
    o.wal_cache_zones = wal_cache_zones;
    o.migration_bytes_per_sec = 0;
    o.cache_second_chance = second_chance;
    o.cache_refresh = refresh;
    auto scheme = policy::MakeHhzsPaperScheme("hhzs", o);
    ASSERT_TRUE(scheme.ok()) << scheme.status();
    scheme_ = *scheme;
    ASSERT_TRUE(zfs::Volume::Format(devices_).ok());
    auto vol = zfs::Volume::Mount(devices_, {.placement = scheme_});
    ASSERT_TRUE(vol.ok()) << vol.status();
    vol_ = std::move(*vol);
    cache_ = SsdSecondaryCache::Create(vol_.get(), scheme_, {.write_buffer_bytes = write_buffer_bytes});
    ASSERT_NE(cache_, nullptr);
  }

  // An SST the cache knows, placed on the HDD (or the SSD) as zfs would say.
  void AddSst(uint64_t sst, bool on_ssd = false) {
    cache_->AddTable(sst, Props(sst));
    scheme_->view().SetLocation(sst, absl::StrFormat("/db/%06d.sst", sst), on_ssd, 4 << 20);
  }
  static rocksdb::TableProperties Props(uint64_t sst) {
    rocksdb::TableProperties p;
    p.db_id = "9f3c1d2e-test-db";
    p.db_session_id = "7TQZ3K1WLM5XE0R9BQ4A";
    p.orig_file_number = sst;
    return p;
  }
  static std::string Key(uint64_t sst, uint64_t offset) {
    const auto [k0, k1] = SstCacheKeyMap::BaseKey(Props(sst).db_id, Props(sst).db_session_id, sst);
    const uint64_t second = k1 ^ (offset >> 2);
    std::string key(16, '\0');
    std::memcpy(key.data(), &k0, 8);
    std::memcpy(key.data() + 8, &second, 8);
    return key;
  }
  void Insert(uint64_t sst, uint64_t offset, size_t size) {
    std::string block = BlockBytes(sst, offset, size);
    EXPECT_TRUE(cache_->Insert(Key(sst, offset), &block, &kStringHelper).ok());
  }
  // The block on a hit, nullopt on a miss. `kept` gets what the cache told
  // RocksDB (false: hand the block back on eviction); null expects true.
  std::optional<std::string> Lookup(uint64_t sst, uint64_t offset, bool* kept = nullptr) {
    bool in_cache = false;
    auto h = cache_->Lookup(Key(sst, offset), MakeString, /*wait=*/true, false, in_cache);
    if (!h) return std::nullopt;
    EXPECT_TRUE(h->IsReady());
    if (kept) {
      *kept = in_cache;
    } else {
      EXPECT_TRUE(in_cache);
    }
    std::unique_ptr<std::string> value(static_cast<std::string*>(h->Value()));
    EXPECT_EQ(h->Size(), value->size());
    return *value;
  }
  // Hit with the right bytes; a hit with wrong bytes fails the test.
  bool Hits(uint64_t sst, uint64_t offset, size_t size) {
    auto v = Lookup(sst, offset);
    if (v) {
      EXPECT_EQ(*v, BlockBytes(sst, offset, size)) << sst << "@" << offset;
    }
    return v.has_value();
  }
  size_t CacheZonesInUse() const {
    size_t n = 0;
    for (const zfs::ZoneReport& z : vol_->Zones()) n += z.role == zfs::ZoneRole::kCache;
    return n;
  }

  std::vector<std::shared_ptr<device::ZonedDevice>> devices_;
  std::shared_ptr<policy::Scheme> scheme_;
  std::unique_ptr<zfs::Volume> vol_;
  std::shared_ptr<SsdSecondaryCache> cache_;
};

TEST_F(SsdCacheTest, BlocksAreServedFromTheWriteBufferThenFromTheZone) {
  AddSst(10);
  Insert(10, 0, 3000);
  EXPECT_TRUE(Hits(10, 0, 3000));  // still in memory
  EXPECT_EQ(cache_->counters().buffer_reads, 1u);
  EXPECT_EQ(cache_->counters().zone_writes, 0u);
  for (uint64_t i = 1; i < 100; ++i) Insert(10, i * 4096, 3000);  // ~300 KB: several flushes
  EXPECT_GT(cache_->counters().zone_writes, 2u);
  for (uint64_t i = 0; i < 100; ++i) EXPECT_TRUE(Hits(10, i * 4096, 3000)) << i;
  EXPECT_GT(cache_->counters().device_reads, 50u);
  EXPECT_EQ(cache_->counters().verify_failures, 0u);
  const policy::CacheStats s = cache_->stats();
  EXPECT_EQ(s.admitted, 100u);
  EXPECT_EQ(s.cached_blocks, 100u);
  EXPECT_EQ(s.hits, 101u);
  EXPECT_EQ(CacheZonesInUse(), 1u);
}

TEST_F(SsdCacheTest, AdmitsOnlyBlocksOfHddSstsAndOnlyOnce) {
  AddSst(10);
  AddSst(11, /*on_ssd=*/true);
  cache_->AddTable(12, Props(12));  // known key, but zfs has not placed it
  Insert(10, 8192, 2000);
  Insert(10, 8192, 2000);  // cached already
  Insert(11, 8192, 2000);
  Insert(12, 8192, 2000);
  Insert(13, 8192, 2000);  // no AddTable: its key means nothing
  EXPECT_TRUE(Hits(10, 8192, 2000));
  EXPECT_FALSE(Hits(11, 8192, 2000));
  EXPECT_FALSE(Hits(12, 8192, 2000));
  EXPECT_FALSE(Hits(13, 8192, 2000));
  EXPECT_FALSE(Hits(10, 4096, 2000));  // never inserted
  const policy::CacheStats s = cache_->stats();
  EXPECT_EQ(s.admitted, 1u);
  EXPECT_EQ(s.rejected, 1u);
  EXPECT_EQ(cache_->counters().not_on_hdd, 2u);
  EXPECT_EQ(cache_->counters().unknown_keys, 1u);
}

TEST_F(SsdCacheTest, SecondChanceAdmitsABlockOnItsSecondEviction) {
  cache_->Close();
  Mount(/*wal_cache_zones=*/2, 64 << 10, /*second_chance=*/true);
  AddSst(10);
  AddSst(11, /*on_ssd=*/true);
  Insert(10, 8192, 2000);
  EXPECT_FALSE(Hits(10, 8192, 2000));  // first eviction: only remembered
  Insert(10, 8192, 2000);
  EXPECT_TRUE(Hits(10, 8192, 2000));
  Insert(11, 8192, 2000);  // on the SSD: not even a sighting
  Insert(11, 8192, 2000);
  EXPECT_FALSE(Hits(11, 8192, 2000));
  const policy::CacheStats s = cache_->stats();
  EXPECT_EQ(s.admitted, 1u);
  EXPECT_EQ(s.first_sightings, 1u);
}

TEST_F(SsdCacheTest, RefreshKeepsABlockHitAgainPastItsZonesEviction) {
  cache_->Close();
  Mount(/*wal_cache_zones=*/2, 64 << 10, /*second_chance=*/false, /*refresh=*/true);
  AddSst(10);
  // ~297 blocks of 3500 B fill a ~1 MB zone: 350 open the second zone.
  uint64_t next = 0;
  for (; next < 350; ++next) Insert(10, next * 4096, 3500);
  ASSERT_EQ(cache_->stats().evicted_zones, 0u);
  bool kept = true;
  ASSERT_TRUE(Lookup(10, 0, &kept).has_value());
  EXPECT_FALSE(kept);  // in the older zone: RocksDB is to hand it back
  ASSERT_TRUE(Lookup(10, (next - 1) * 4096, &kept).has_value());
  EXPECT_TRUE(kept);  // in the active zone
  Insert(10, 0, 3500);  // the block cache evicts block 0 again
  EXPECT_EQ(cache_->stats().refreshed, 1u);
  // A third zone's worth: the first zone is evicted, block 0 is not.
  for (; cache_->stats().evicted_zones == 0 && next < 2000; ++next) {
    Insert(10, next * 4096, 3500);
  }
  ASSERT_EQ(cache_->stats().evicted_zones, 1u);
  EXPECT_FALSE(Hits(10, 4096, 3500));
  const std::optional<std::string> block0 = Lookup(10, 0, &kept);
  ASSERT_TRUE(block0.has_value());
  EXPECT_EQ(*block0, BlockBytes(10, 0, 3500));
  EXPECT_FALSE(kept);  // its zone is no longer the active one
  EXPECT_EQ(cache_->counters().verify_failures, 0u);
}

TEST_F(SsdCacheTest, FlushAndCompactionLookupsAreDeclined) {
  AddSst(10);
  Insert(10, 0, 3000);
  for (BackgroundJob job : {BackgroundJob::kCompaction, BackgroundJob::kFlush}) {
    EnterBackgroundJob(job);
    EXPECT_FALSE(Hits(10, 0, 3000));
    LeaveBackgroundJob(job);
  }
  EXPECT_EQ(cache_->counters().background_lookups, 2u);
  EXPECT_TRUE(Hits(10, 0, 3000));  // still cached for the user's reads
  EXPECT_EQ(cache_->stats().hits, 1u);
}

TEST_F(SsdCacheTest, DeletedOrMigratedSstsAreNeverServed) {
  for (uint64_t sst : {10, 11, 12}) {
    AddSst(sst);
    for (uint64_t i = 0; i < 40; ++i) Insert(sst, i * 4096, 3500);
  }
  ASSERT_TRUE(Hits(10, 0, 3500));
  ASSERT_TRUE(Hits(11, 0, 3500));
  ASSERT_TRUE(Hits(12, 0, 3500));
  cache_->RemoveTable(10);  // RocksDB deleted it
  scheme_->view().TableFileDeleted(11);  // the view learnt first
  scheme_->view().SetLocation(12, "/db/000012.sst", /*on_ssd=*/true, 4 << 20);  // migrated
  for (uint64_t i = 0; i < 40; ++i) {
    EXPECT_FALSE(Hits(10, i * 4096, 3500));
    EXPECT_FALSE(Hits(11, i * 4096, 3500));
    EXPECT_FALSE(Hits(12, i * 4096, 3500));
  }
  // A deleted SST's blocks still leave the block cache: not admitted again.
  Insert(10, 0, 3500);
  Insert(12, 0, 3500);
  EXPECT_FALSE(Hits(10, 0, 3500));
  EXPECT_FALSE(Hits(12, 0, 3500));
}

TEST_F(SsdCacheTest, FullPoolEvictsTheOldestZoneFirst) {
  AddSst(10);
  // Three zones' worth through a pool of two: the first zone goes.
  constexpr uint64_t kBlocks = 900;  // 900 * (3500 + 32) B ~ 3.2 MB
  for (uint64_t i = 0; i < kBlocks; ++i) Insert(10, i * 4096, 3500);
  const policy::CacheStats s = cache_->stats();
  EXPECT_GE(s.evicted_zones, 1u);
  EXPECT_GT(s.evicted_blocks, 200u);
  EXPECT_EQ(s.admitted, kBlocks);
  EXPECT_LE(CacheZonesInUse(), 2u);
  // FIFO: what misses is a prefix of the insertion order.
  uint64_t first_hit = kBlocks;
  for (uint64_t i = 0; i < kBlocks; ++i) {
    const bool hit = Hits(10, i * 4096, 3500);
    if (hit && first_hit == kBlocks) first_hit = i;
    if (first_hit != kBlocks) {
      EXPECT_TRUE(hit) << "block " << i << " after " << first_hit;
    }
  }
  EXPECT_GT(first_hit, 0u);
  EXPECT_LT(first_hit, kBlocks - 200);
  EXPECT_EQ(cache_->counters().verify_failures, 0u);
  // Evicted blocks are admitted again, into the newest zone.
  Insert(10, 0, 3500);
  EXPECT_TRUE(Hits(10, 0, 3500));
}

TEST_F(SsdCacheTest, AWalNeedingAPoolZoneTakesTheOldestCacheZone) {
  AddSst(10);
  // The cache takes both pool zones.
  for (uint64_t i = 0; i < 400; ++i) Insert(10, i * 4096, 3500);
  ASSERT_EQ(CacheZonesInUse(), 2u);
  ASSERT_EQ(cache_->stats().evicted_zones, 0u);
  // A WAL filling more than a zone: zfs calls the cache's reclaimer.
  ASSERT_TRUE(vol_->CreateDir("/db").ok());
  auto wal = vol_->Create("/db/000005.log", {.kind = zfs::FileKind::kWal});
  ASSERT_TRUE(wal.ok()) << wal.status();
  const std::vector<uint8_t> chunk(64 << 10, 0x5a);
  for (int i = 0; i < 24; ++i) ASSERT_TRUE((*wal)->Append(chunk).ok());
  ASSERT_TRUE((*wal)->Sync().ok());
  ASSERT_TRUE((*wal)->Close().ok());
  EXPECT_GE(cache_->stats().evicted_zones, 1u);
  EXPECT_LE(CacheZonesInUse(), 1u);
  EXPECT_FALSE(Hits(10, 0, 3500));  // in the zone the WAL took
  EXPECT_EQ(cache_->counters().verify_failures, 0u);
}

TEST_F(SsdCacheTest, CloseGivesEveryZoneBackAndStopsServing) {
  AddSst(10);
  for (uint64_t i = 0; i < 400; ++i) Insert(10, i * 4096, 3500);
  ASSERT_GT(CacheZonesInUse(), 0u);
  cache_->Close();
  EXPECT_EQ(CacheZonesInUse(), 0u);
  EXPECT_FALSE(Hits(10, 400 * 4096 - 4096, 3500));
  Insert(10, 999 * 4096, 3500);
  EXPECT_FALSE(Hits(10, 999 * 4096, 3500));
  EXPECT_EQ(cache_->stats().cached_blocks, 0u);
  // A new cache on the same scheme starts empty and works.
  cache_ = SsdSecondaryCache::Create(vol_.get(), scheme_);
  ASSERT_NE(cache_, nullptr);
  AddSst(10);
  Insert(10, 0, 3500);
  EXPECT_TRUE(Hits(10, 0, 3500));
}

TEST_F(SsdCacheTest, LostCacheWritesAreDetectedNotServed) {
  AddSst(10);
  for (uint64_t i = 0; i < 100; ++i) Insert(10, i * 4096, 3500);
  ASSERT_TRUE(Hits(10, 0, 3500));
  // Cache writes are never flushed: a power cycle of the SSD loses them.
  auto* ssd = dynamic_cast<device::EmulatedDevice*>(devices_[0].get());
  ASSERT_NE(ssd, nullptr);
  ssd->PowerOff();
  EXPECT_FALSE(Hits(10, 0, 3500));  // the read fails
  EXPECT_GT(cache_->counters().io_errors, 0u);
  ssd->PowerOn();
  for (uint64_t i = 0; i < 100; ++i) EXPECT_FALSE(Hits(10, i * 4096, 3500)) << i;
  const SsdSecondaryCache::Counters c = cache_->counters();
  EXPECT_GT(c.verify_failures + c.io_errors, 1u);
}

// Many readers and writers while zones are evicted under them: every hit
// must carry the right bytes (and ASan/UBSan see the races, if any).
TEST_F(SsdCacheTest, ConcurrentInsertLookupAndEviction) {
  for (uint64_t sst = 10; sst < 14; ++sst) AddSst(sst);
  constexpr int kOpsPerEviction = 500;
  std::atomic<uint64_t> hits{0};
  std::atomic<int> ops{0}, evictions{0};
  {
    std::vector<testing_common::TestThread> workers;
    for (int t = 0; t < 4; ++t) {
      workers.emplace_back([&, t] {
        std::mt19937_64 rng(t);
        for (int i = 0; i < 3000; ++i, ++ops) {
          const uint64_t sst = 10 + rng() % 4, offset = (rng() % 100) * 4096;
          const size_t size = 1000 + (sst * 7 + offset / 4096) % 3000;  // fixed per block
          if (rng() % 2) {
            Insert(sst, offset, size);
          } else if (Hits(sst, offset, size)) {
            ++hits;
          }
        }
      });
    }
    // An eviction every kOpsPerEviction operations of the others, however
    // fast they run.
    testing_common::TestThread evictor([&](std::stop_token stop) {
      while (!stop.stop_requested()) {
        if (ops.load() < (evictions.load() + 1) * kOpsPerEviction) {
          std::this_thread::yield();
          continue;
        }
        cache_->EvictOldestZone();
        ++evictions;
      }
    });
    for (auto& w : workers) w.Join();
    ASSERT_TRUE(testing_common::WaitFor(
        [&] { return evictions.load() == 4 * 3000 / kOpsPerEviction; }));
  }
  EXPECT_GT(hits.load(), 100u);
  EXPECT_GT(cache_->stats().evicted_zones, 0u);
  EXPECT_EQ(cache_->counters().verify_failures, 0u);
  EXPECT_EQ(cache_->counters().io_errors, 0u);
}

// ------------------------------------------------ end to end through OpenDb

// RocksDB with a 64 KiB block cache in front of the SSD cache, on a ZN540 +
// HM-SMR volume under HHZS (placement without background migration, so
// the test decides what moves).
class SsdCacheDbTest : public ::testing::Test {
 protected:
  static constexpr uint64_t kKeys = 30000;

  void SetUp() override {
    config_path_ = absl::StrCat(std::filesystem::temp_directory_path().string(),
                                "/zs_ssd_cache_", ::getpid(), ".json");
    std::ofstream(config_path_) << absl::StrFormat(
        R"({"devices": ["emu:zn540?zones=24&scale=1/1024&timing=none", "%s"],
            "scheme": {"name": "hhzs", "wal_cache_zones": 2,
                       "migration_mib_per_sec": 0},
            "block_cache_bytes": 65536})",
        kHddUri);
    uri_ = absl::StrCat("zonestack://", config_path_);
  }
  void TearDown() override {
    db_.reset();
    parts_ = {};
    const absl::Status forgot = Forget(uri_);
    EXPECT_TRUE(forgot.ok()) << forgot;
    std::filesystem::remove(config_path_);
  }

  void Open() {
    rocksdb::Options o;
    o.compression = rocksdb::kNoCompression;
    o.write_buffer_size = 256 << 10;
    o.target_file_size_base = 256 << 10;
    o.max_bytes_for_level_base = 1 << 20;
    o.statistics = rocksdb::CreateDBStatistics();
    statistics_ = o.statistics;
    auto db = OpenDb(uri_, "/db", o);
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = std::move(*db);
    auto parts = PartsOf(*db_);
    ASSERT_TRUE(parts.has_value());
    ASSERT_NE(parts->cache, nullptr);
    parts_ = *parts;
  }
  void Load() {
    for (uint64_t i = 0; i < kKeys; ++i) {
      ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), Key(i), Value(i)).ok());
    }
    ASSERT_TRUE(db_->Flush(rocksdb::FlushOptions()).ok());
    ASSERT_TRUE(db_->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr).ok());
  }
  // Gets `keys` in a shuffled order `rounds` times; every value must match.
  void Read(const std::vector<uint64_t>& keys, int rounds, uint64_t seed) {
    std::vector<uint64_t> order = keys;
    std::mt19937_64 rng(seed);
    for (int r = 0; r < rounds; ++r) {
      std::shuffle(order.begin(), order.end(), rng);
      for (uint64_t i : order) {
        std::string v;
        const rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), Key(i), &v);
        ASSERT_TRUE(s.ok()) << Key(i) << ": " << s.ToString();
        ASSERT_EQ(v, Value(i)) << Key(i);
      }
    }
  }
  static std::vector<uint64_t> HotKeys() {
    std::vector<uint64_t> hot;
    for (uint64_t i = 0; i < kKeys; i += 20) hot.push_back(i);  // ~1500 keys, ~1 block each
    return hot;
  }
  // The first `n` of `keys` that lie in SSTs on the HDD.
  std::vector<uint64_t> OnHdd(const std::vector<uint64_t>& keys, size_t n) {
    std::vector<rocksdb::LiveFileMetaData> files;
    db_->GetLiveFilesMetaData(&files);
    std::vector<uint64_t> out;
    for (uint64_t i : keys) {
      for (const auto& f : files) {
        if (f.smallestkey <= Key(i) && Key(i) <= f.largestkey) {
          auto sst = parts_.scheme->view().Sst(f.file_number);
          if (sst && sst->placed && !sst->on_ssd) out.push_back(i);
          break;
        }
      }
      if (out.size() == n) break;
    }
    EXPECT_EQ(out.size(), n);
    return out;
  }
  size_t SstsOnHdd() {
    size_t n = 0;
    for (const policy::SstInfo& s : parts_.scheme->view().Ssts()) n += s.placed && !s.on_ssd;
    return n;
  }
  // The live SST holding `key`.
  rocksdb::LiveFileMetaData FileOf(const std::string& key) {
    std::vector<rocksdb::LiveFileMetaData> files;
    db_->GetLiveFilesMetaData(&files);
    for (const auto& f : files) {
      if (f.smallestkey <= key && key <= f.largestkey) return f;
    }
    ADD_FAILURE() << "no SST holds " << key;
    return {};
  }

  std::string config_path_, uri_;
  std::unique_ptr<rocksdb::DB> db_;
  std::shared_ptr<rocksdb::Statistics> statistics_;
  DbParts parts_;
};

TEST_F(SsdCacheDbTest, HddBlocksAreCachedHitEvictedAndStayCorrect) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(Load());
  ASSERT_GT(SstsOnHdd(), 10u) << "the test needs data on the HDD";
  const std::vector<uint64_t> hot = HotKeys();

  // Hot blocks (~6 MB of them, half on the HDD) overflow the 64 KiB block
  // cache into the SSD cache.
  ASSERT_NO_FATAL_FAILURE(Read(hot, 3, 1));
  SsdSecondaryCache& cache = *parts_.cache;
  policy::CacheStats s = cache.stats();
  EXPECT_GT(s.admitted, 500u);
  EXPECT_GT(s.hits, 100u);
  // Every hit of the index reached RocksDB as a secondary cache hit.
  EXPECT_EQ(statistics_->getTickerCount(rocksdb::SECONDARY_CACHE_HITS), s.hits);
  // ~3 MB of HDD blocks through a pool of two 1 MB zones: FIFO eviction.
  EXPECT_GT(s.evicted_zones, 0u);
  EXPECT_EQ(cache.counters().verify_failures, 0u);
  EXPECT_EQ(cache.counters().io_errors, 0u);

  // A working set that fits the cache: after one pass nearly all hit.
  const std::vector<uint64_t> warm = OnHdd(hot, 200);
  ASSERT_NO_FATAL_FAILURE(Read(warm, 1, 2));
  const uint64_t hits_before = cache.stats().hits;
  const uint64_t misses_before = cache.stats().misses;
  ASSERT_NO_FATAL_FAILURE(Read(warm, 3, 3));
  const uint64_t hits = cache.stats().hits - hits_before;
  const uint64_t misses = cache.stats().misses - misses_before;
  EXPECT_GT(hits, 4 * misses) << hits << " hits, " << misses << " misses";
}

TEST_F(SsdCacheDbTest, ReadsStayCorrectAfterMigrationAndReopen) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(Load());
  const std::vector<uint64_t> hot = HotKeys();
  const std::vector<uint64_t> warm = OnHdd(hot, 200);
  ASSERT_NO_FATAL_FAILURE(Read(warm, 2, 4));
  SsdSecondaryCache* cache = parts_.cache.get();
  ASSERT_GT(cache->stats().hits, 0u);

  // Migrate the HDD SST holding a warm key to the SSD (making room first).
  const rocksdb::LiveFileMetaData target = FileOf(Key(warm[0]));
  const std::string path = target.db_path + target.name;
  auto info = parts_.scheme->view().Sst(target.file_number);
  ASSERT_TRUE(info && info->placed && !info->on_ssd) << path << " is not on the HDD";
  absl::Status moved = parts_.volume->Migrate(path, 0, 0);
  if (absl::IsResourceExhausted(moved)) {
    for (const policy::SstInfo& sst : parts_.scheme->view().Ssts()) {
      if (sst.on_ssd && parts_.volume->Migrate(sst.path, 1, 0).ok()) break;
    }
    moved = parts_.volume->Migrate(path, 0, 0);
  }
  ASSERT_TRUE(moved.ok()) << moved;
  info = parts_.scheme->view().Sst(target.file_number);
  ASSERT_TRUE(info && info->on_ssd);
  const uint64_t refused = cache->counters().not_on_hdd;
  ASSERT_NO_FATAL_FAILURE(Read(warm, 2, 5));
  ASSERT_NO_FATAL_FAILURE(Read(hot, 1, 6));
  EXPECT_GT(cache->counters().not_on_hdd, refused);  // its blocks are no longer admitted
  EXPECT_EQ(cache->counters().verify_failures, 0u);

  // Close and reopen on the mounted volume: the cache (one per mount) and
  // its blocks carry over.
  db_.reset();
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(parts_.cache.get(), cache);
  const uint64_t hits_before = cache->stats().hits;
  ASSERT_NO_FATAL_FAILURE(Read(warm, 2, 7));
  EXPECT_GT(cache->stats().hits, hits_before);

  // A process restart: the cache starts empty on the new mount, and fills.
  db_.reset();
  parts_ = {};
  ASSERT_TRUE(Unmount(uri_).ok());
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(parts_.cache->stats().cached_blocks, 0u);
  ASSERT_NO_FATAL_FAILURE(Read(warm, 3, 8));
  ASSERT_NO_FATAL_FAILURE(Read(hot, 1, 9));
  EXPECT_GT(parts_.cache->stats().hits, 0u);
  EXPECT_EQ(parts_.cache->counters().verify_failures, 0u);
  EXPECT_EQ(parts_.cache->counters().io_errors, 0u);
}

}  // namespace
}  // namespace zonestack::rocks
