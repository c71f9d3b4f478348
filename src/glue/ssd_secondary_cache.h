// HHZS application-hinted caching (section 3.5) as a RocksDB SecondaryCache:
// blocks evicted from RocksDB's block cache whose SST lies on the HDD are
// appended to SSD cache zones borrowed from the WAL/cache pool, tracked by
// the scheme's policy::SsdCacheIndex (mapping table + FIFO of zones), and
// served from there on a block cache miss. The oldest cache zone is evicted
// whole when the pool runs out, for the cache or for a WAL.
//
// RocksDB names blocks by 16-byte cache keys, not (SST, offset); the key is
// inverted with a per-SST base key computed from the SST's table
// properties (docs/rocksdb.md section 3), so every live SST must be
// announced with AddTable.
//
// The cache is volatile: nothing survives a close (zfs resets leftover
// cache zones at mount; Close() gives the zones back to the pool).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "policy/scheme.h"
#include "policy/ssd_cache_index.h"
#include "rocksdb/secondary_cache.h"
#include "rocksdb/table_properties.h"
#include "zfs/volume.h"

namespace zonestack::rocks {

// Maps RocksDB block cache keys back to (SST number, block offset).
// RocksDB 7.8.3 keys a block of an SST as [k0][k1 ^ (offset >> 2)], where
// (k0, k1) is a base key derived from the SST's db_id, db_session_id and
// orig_file_number (cache_key.cc, unique_id.cc). k0 is unique per SST.
// Thread-safe.
class SstCacheKeyMap {
 public:
  // Records `file_number`'s base key. False (and nothing recorded) for an
  // SST whose properties lack a session id or original file number: RocksDB
  // keys those with the opening session's ids, which are not known here.
  bool Add(uint64_t file_number, const rocksdb::TableProperties& props);
  void Remove(uint64_t file_number);
  // The block a 16-byte cache key names, or nullopt when the key belongs to
  // no recorded SST. The key keeps only offset >> 2, so the offset returned
  // is the block's offset with its two low bits cleared: the block starts
  // within 3 bytes of it, and it still names one block (blocks are at
  // least 5 bytes long).
  std::optional<policy::BlockAddress> Invert(const rocksdb::Slice& key) const;
  size_t size() const;

  // RocksDB's base key (k0, k1) for an SST with these identifiers.
  static std::pair<uint64_t, uint64_t> BaseKey(const std::string& db_id,
                                               const std::string& db_session_id,
                                               uint64_t orig_file_number);

 private:
  struct Base {
    uint64_t file_number = 0;
    uint64_t k1 = 0;
  };
  mutable absl::Mutex mu_;
  absl::flat_hash_map<uint64_t, Base> by_prefix_ ABSL_GUARDED_BY(mu_);       // k0 -> SST
  absl::flat_hash_map<uint64_t, uint64_t> by_number_ ABSL_GUARDED_BY(mu_);   // SST -> k0
};

// Thread-safety: every method may be called from any thread. Insert and
// Lookup come from RocksDB's foreground threads; zfs calls the reclaimer
// from any thread, also while another thread is inside Insert.
class SsdSecondaryCache : public rocksdb::SecondaryCache,
                          public std::enable_shared_from_this<SsdSecondaryCache> {
 public:
  struct Options {
    // Inserted blocks are packed in memory and written to the active cache
    // zone in whole device blocks once this many bytes are buffered
    // (clamped to [block size, zone capacity / 4], rounded to blocks).
    uint32_t write_buffer_bytes = 64 << 10;
  };

  // Counters of what the cache did beyond the index's statistics.
  struct Counters {
    uint64_t unknown_keys = 0;      // key of no announced SST
    uint64_t not_on_hdd = 0;        // inserts refused: SST unplaced, on the SSD or gone
    uint64_t no_zone = 0;           // inserts dropped: no cache zone to be had
    uint64_t zones_opened = 0;
    uint64_t zone_writes = 0, bytes_written = 0;
    uint64_t buffer_reads = 0;      // lookups served (partly) from the write buffer
    uint64_t device_reads = 0;
    uint64_t raced_evictions = 0;   // lookups whose zone was evicted meanwhile
    uint64_t verify_failures = 0;   // stored key, length or checksum did not match
    uint64_t io_errors = 0;
    uint64_t background_lookups = 0;  // lookups of flush/compaction threads, declined
  };

  // Blocks of HDD-resident SSTs go to SSD cache zones of `volume` on its
  // first SSD, tracked by scheme->cache(); scheme->view() says where SSTs
  // lie. Registers a reclaimer with volume->cache_zones().SetReclaimer so a WAL that
  // needs a pool zone can make the cache give up its oldest zone.
  // Returns nullptr if the scheme has no cache index or the volume no SSD.
  // REQUIRES: `volume` outlives the cache, or Close() is called before the
  // volume goes away (the block cache holding this may outlive a DB).
  static std::shared_ptr<SsdSecondaryCache> Create(zfs::Volume* volume,
                                                   std::shared_ptr<policy::Scheme> scheme);
  static std::shared_ptr<SsdSecondaryCache> Create(zfs::Volume* volume,
                                                   std::shared_ptr<policy::Scheme> scheme,
                                                   const Options& options);
  ~SsdSecondaryCache() override;  // Close()

  // Lets the cache map RocksDB cache keys back to (SST number, offset):
  // must be called for every live SST (at open and for each new one).
  void AddTable(uint64_t file_number, const rocksdb::TableProperties& props);
  // The SST was deleted: its cached blocks are forgotten.
  void RemoveTable(uint64_t file_number);

  // Gives every cache zone back to the pool; afterwards inserts are dropped
  // and lookups miss. Idempotent.
  void Close();
  // Evicts the oldest cache zone (FIFO, HHZS 3.5) and releases it to the
  // pool. False if the cache holds no zone. What the reclaimer calls.
  bool EvictOldestZone();

  policy::CacheStats stats() const;
  Counters counters() const;

  // --- rocksdb::SecondaryCache
  static const char* kClassName() { return "ZoneStackSsdCache"; }
  const char* Name() const override { return kClassName(); }
  // Admits the block if its SST lies on the HDD and it is not cached yet;
  // anything else is silently dropped (a cache may refuse). Always OK.
  rocksdb::Status Insert(const rocksdb::Slice& key, void* value,
                         const rocksdb::Cache::CacheItemHelper* helper) override;
  // Synchronous: the handle is ready when returned (`wait` is moot).
  // `is_in_sec_cache` is true on a hit: the cache keeps its copy.
  // Serves user reads only: RocksDB promotes every secondary hit into its
  // block cache, even for a compaction read that would never fill it, so a
  // compaction scanning a cached SST would push the user's hot blocks out
  // of the (small) block cache. The code public as h2zone-project/h2zone,
  // which we take to be the HHZS authors', checks its SSD cache on random
  // reads only, and compaction reads the HDD sequentially anyway.
  std::unique_ptr<rocksdb::SecondaryCacheResultHandle> Lookup(
      const rocksdb::Slice& key, const rocksdb::Cache::CreateCallback& create_cb, bool wait,
      bool advise_erase, bool& is_in_sec_cache) override;
  // Cached blocks leave only with their zone (FIFO) or their SST.
  bool SupportForceErase() const override { return false; }
  // No-op: a block's bytes never change while its SST lives, and the index
  // has no per-block removal.
  void Erase(const rocksdb::Slice& key) override;
  void WaitAll(std::vector<rocksdb::SecondaryCacheResultHandle*> handles) override;
  std::string GetPrintableOptions() const override;

 private:
  struct ActiveZone {
    uint64_t id = 0;
    zfs::CacheZone zone;
    uint64_t capacity = 0;  // usable bytes, whole device blocks
    uint64_t used = 0;      // bytes admitted (== the index's reservation)
  };
  struct ZoneEntry {
    zfs::CacheZone zone;
    bool failed = false;  // a write failed: its blocks are never read
  };

  SsdSecondaryCache(zfs::Volume* volume, std::shared_ptr<policy::Scheme> scheme,
                    uint32_t device, const Options& options);

  // Places a serialized record (header + payload) for `block`.
  void Append(const policy::BlockAddress& block, const std::string& record);
  // A new zone from the pool, evicting the oldest one if the pool is empty.
  std::optional<zfs::CacheZone> AcquireZone();
  // Writes the buffer's whole blocks (all of it, padded, when `seal`).
  void FlushLocked(bool seal) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Reads `size` bytes at `offset` of cache zone `id` into `out`, from the
  // write buffer and/or the device. False if the zone is gone or failed.
  bool ReadRecord(uint64_t id, uint64_t offset, uint32_t size, std::string* out);
  bool ZoneAlive(uint64_t id) const;
  void Count(uint64_t Counters::*field, uint64_t n = 1);

  zfs::Volume* const volume_;
  const std::shared_ptr<policy::Scheme> scheme_;
  policy::SsdCacheIndex* const index_;
  const uint32_t device_;
  const uint32_t block_size_;
  const uint64_t zone_capacity_;  // of the device's zones, for size checks
  const uint32_t flush_bytes_;
  SstCacheKeyMap keys_;
  std::atomic<bool> closed_{false};

  // Lock order: mu_, then zones_mu_. No zfs call that may allocate pool
  // zones (CacheZones::Acquire) or reset (CacheZones::Release) runs under mu_,
  // so a reclaimer call can always take it.
  mutable absl::Mutex mu_;
  std::optional<ActiveZone> active_ ABSL_GUARDED_BY(mu_);
  // Bytes [buffer_start_, active_->used) of the active zone, not yet on the
  // device; buffer_start_ is block-aligned.
  std::string buffer_ ABSL_GUARDED_BY(mu_);
  uint64_t buffer_start_ ABSL_GUARDED_BY(mu_) = 0;
  bool rotating_ ABSL_GUARDED_BY(mu_) = false;  // a thread is acquiring a zone
  uint64_t next_zone_id_ ABSL_GUARDED_BY(mu_) = 0;

  // Every cache zone held, by the id the index knows it by. Ids are never
  // reused, so "still here after a read" proves it was not reset during it.
  mutable absl::Mutex zones_mu_;
  absl::flat_hash_map<uint64_t, ZoneEntry> zones_ ABSL_GUARDED_BY(zones_mu_);

  mutable absl::Mutex counters_mu_;
  Counters counters_ ABSL_GUARDED_BY(counters_mu_);
};

}  // namespace zonestack::rocks
