#include "glue/ssd_secondary_cache.h"

#include <xxhash.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "glue/background_job.h"

namespace zonestack::rocks {
namespace {

// --- RocksDB 7.8.3's cache key derivation (util/math.h, table/unique_id.cc,
// cache/cache_key.cc, BlockBasedTable::SetupBaseCacheKey).

uint64_t ReverseBits(uint64_t v) {
  uint64_t r = __builtin_bswap64(v);
  r = ((r & 0x0f0f0f0f0f0f0f0fULL) << 4) | ((r >> 4) & 0x0f0f0f0f0f0f0f0fULL);
  r = ((r & 0x3333333333333333ULL) << 2) | ((r >> 2) & 0x3333333333333333ULL);
  r = ((r & 0x5555555555555555ULL) << 1) | ((r >> 1) & 0x5555555555555555ULL);
  return r;
}

uint64_t DownwardInvolution(uint64_t r) {
  r ^= r >> 32;
  r ^= (r & 0xffff0000ffff0000ULL) >> 16;
  r ^= (r & 0xff00ff00ff00ff00ULL) >> 8;
  r ^= (r & 0xf0f0f0f0f0f0f0f0ULL) >> 4;
  r ^= (r & 0xccccccccccccccccULL) >> 2;
  r ^= (r & 0xaaaaaaaaaaaaaaaaULL) >> 1;
  return r;
}

// Base-36 digits, either case (ParseBaseChars<36>); wraps as RocksDB's does.
bool ParseBase36(const char* p, size_t n, uint64_t* v) {
  for (size_t i = 0; i < n; ++i) {
    const char c = p[i];
    uint64_t d;
    if (c >= '0' && c <= '9') {
      d = static_cast<uint64_t>(c - '0');
    } else if (c >= 'A' && c <= 'Z') {
      d = static_cast<uint64_t>(c - 'A' + 10);
    } else if (c >= 'a' && c <= 'z') {
      d = static_cast<uint64_t>(c - 'a' + 10);
    } else {
      return false;
    }
    *v = *v * 36 + d;
  }
  return true;
}

// DecodeSessionId: 13..24 base-36 digits, the last 12 hold the low bits.
bool DecodeSessionId(const std::string& id, uint64_t* upper, uint64_t* lower) {
  const size_t len = id.size();
  if (len < 13 || len > 24) return false;
  uint64_t a = 0, b = 0;
  if (!ParseBase36(id.data(), len - 12, &a) || !ParseBase36(id.data() + len - 12, 12, &b)) {
    return false;
  }
  *upper = a >> 2;
  *lower = (b & (UINT64_MAX >> 2)) | (a << 62);
  return true;
}

// --- the record stored in a cache zone for one block:
//   magic (4) | payload length (4) | cache key (16) | XXH3-64 of payload (8)
//   | payload (the block without its 5-byte trailer, as saveto_cb writes it)
// Records are packed back to back; a zone's last device block is padded.
constexpr uint32_t kMagic = 0x42435a53;  // "SZCB"
constexpr size_t kHeaderBytes = 32;
constexpr size_t kKeyBytes = 16;

void EncodeHeader(const rocksdb::Slice& key, uint32_t len, uint64_t checksum, char* out) {
  std::memcpy(out, &kMagic, 4);
  std::memcpy(out + 4, &len, 4);
  std::memcpy(out + 8, key.data(), kKeyBytes);
  std::memcpy(out + 24, &checksum, 8);
}

// Whether `record` is the block `key` names, whole and intact.
bool VerifyRecord(const std::string& record, const rocksdb::Slice& key) {
  if (record.size() < kHeaderBytes) return false;
  uint32_t magic, len;
  uint64_t checksum;
  std::memcpy(&magic, record.data(), 4);
  std::memcpy(&len, record.data() + 4, 4);
  std::memcpy(&checksum, record.data() + 24, 8);
  return magic == kMagic && len == record.size() - kHeaderBytes &&
         std::memcmp(record.data() + 8, key.data(), kKeyBytes) == 0 &&
         XXH3_64bits(record.data() + kHeaderBytes, len) == checksum;
}

uint64_t RoundDown(uint64_t v, uint64_t unit) { return v / unit * unit; }
uint64_t RoundUp(uint64_t v, uint64_t unit) { return (v + unit - 1) / unit * unit; }

// Index ids of cache zones, unique in the process: a zone id is never
// reused, not even by another cache on the same index.
std::atomic<uint64_t> next_zone_id{1};

class ReadyHandle : public rocksdb::SecondaryCacheResultHandle {
 public:
  ReadyHandle(void* value, size_t charge) : value_(value), charge_(charge) {}
  bool IsReady() override { return true; }
  void Wait() override {}
  void* Value() override { return value_; }
  size_t Size() override { return charge_; }

 private:
  void* value_;
  size_t charge_;
};

}  // namespace

// ---------------------------------------------------------------- keys

std::pair<uint64_t, uint64_t> SstCacheKeyMap::BaseKey(const std::string& db_id,
                                                      const std::string& db_session_id,
                                                      uint64_t orig_file_number) {
  uint64_t session_upper = 0, session_lower = 0;
  if (!DecodeSessionId(db_session_id, &session_upper, &session_lower)) {
    // RocksDB's fallback for a malformed session id (GetSstInternalUniqueId).
    const XXH128_hash_t h = XXH3_128bits(db_session_id.data(), db_session_id.size());
    session_upper = h.high64;
    session_lower = h.low64;
    if (session_lower == 0) session_lower = session_upper | 1;
  }
  const XXH128_hash_t db_hash = XXH3_128bits_withSeed(db_id.data(), db_id.size(), session_upper);
  uint64_t id0 = session_lower;
  const uint64_t id1 = db_hash.high64 ^ orig_file_number;
  // OffsetableCacheKey::FromInternalUniqueId.
  if (id0 == 0) id0 = id1;
  uint64_t k0 = DownwardInvolution(id0) ^ ReverseBits(id1);
  uint64_t k1 = ReverseBits(id0);
  if (k0 == 0) std::swap(k0, k1);
  return {k0, k1};
}

bool SstCacheKeyMap::Add(uint64_t file_number, const rocksdb::TableProperties& props) {
  if (props.db_session_id.empty() || props.orig_file_number == 0) return false;
  const auto [k0, k1] = BaseKey(props.db_id, props.db_session_id, props.orig_file_number);
  absl::MutexLock l(&mu_);
  if (auto old = by_number_.find(file_number); old != by_number_.end()) {
    by_prefix_.erase(old->second);
  }
  by_prefix_[k0] = Base{file_number, k1};
  by_number_[file_number] = k0;
  return true;
}

void SstCacheKeyMap::Remove(uint64_t file_number) {
  absl::MutexLock l(&mu_);
  auto it = by_number_.find(file_number);
  if (it == by_number_.end()) return;
  auto p = by_prefix_.find(it->second);
  if (p != by_prefix_.end() && p->second.file_number == file_number) by_prefix_.erase(p);
  by_number_.erase(it);
}

std::optional<policy::BlockAddress> SstCacheKeyMap::Invert(const rocksdb::Slice& key) const {
  if (key.size() != kKeyBytes) return std::nullopt;
  uint64_t k0, k1;
  std::memcpy(&k0, key.data(), 8);  // native byte order, as CacheKey::AsSlice
  std::memcpy(&k1, key.data() + 8, 8);
  absl::ReaderMutexLock l(&mu_);
  auto it = by_prefix_.find(k0);
  if (it == by_prefix_.end()) return std::nullopt;
  // Blocks are at least 5 bytes, so RocksDB drops the offset's low 2 bits.
  return policy::BlockAddress{it->second.file_number, (k1 ^ it->second.k1) << 2};
}

size_t SstCacheKeyMap::size() const {
  absl::ReaderMutexLock l(&mu_);
  return by_number_.size();
}

// ---------------------------------------------------------------- cache

std::shared_ptr<SsdSecondaryCache> SsdSecondaryCache::Create(
    zfs::Volume* volume, std::shared_ptr<policy::Scheme> scheme) {
  return Create(volume, std::move(scheme), Options());
}

std::shared_ptr<SsdSecondaryCache> SsdSecondaryCache::Create(
    zfs::Volume* volume, std::shared_ptr<policy::Scheme> scheme, const Options& options) {
  if (volume == nullptr || scheme == nullptr || scheme->cache() == nullptr) return nullptr;
  const auto& devices = volume->devices();
  for (uint32_t d = 0; d < devices.size(); ++d) {
    if (!devices[d]->info().is_ssd()) continue;
    std::shared_ptr<SsdSecondaryCache> cache(
        new SsdSecondaryCache(volume, std::move(scheme), d, options));
    // The reclaimer holds only a weak reference: a cache that is gone (or
    // closed) simply has nothing to give back.
    std::weak_ptr<SsdSecondaryCache> weak = cache;
    volume->cache_zones().SetReclaimer([weak]() {
      auto c = weak.lock();
      return c != nullptr && c->EvictOldestZone();
    });
    return cache;
  }
  return nullptr;
}

SsdSecondaryCache::SsdSecondaryCache(zfs::Volume* volume, std::shared_ptr<policy::Scheme> scheme,
                                     uint32_t device, const Options& options)
    : volume_(volume),
      scheme_(std::move(scheme)),
      index_(scheme_->cache()),
      device_(device),
      block_size_(volume->devices()[device]->info().block_size),
      zone_capacity_(RoundDown(volume->devices()[device]->info().zone_capacity,
                               volume->devices()[device]->info().block_size)),
      flush_bytes_(static_cast<uint32_t>(
          std::max<uint64_t>(block_size_, RoundDown(std::min<uint64_t>(options.write_buffer_bytes,
                                                                       zone_capacity_ / 4),
                                                    block_size_)))) {
  scheme_->CacheAttached(zone_capacity_);
}

SsdSecondaryCache::~SsdSecondaryCache() { Close(); }

void SsdSecondaryCache::AddTable(uint64_t file_number, const rocksdb::TableProperties& props) {
  keys_.Add(file_number, props);
}

void SsdSecondaryCache::RemoveTable(uint64_t file_number) {
  keys_.Remove(file_number);
  index_->DropSst(file_number);
}

policy::CacheStats SsdSecondaryCache::stats() const { return index_->stats(); }

SsdSecondaryCache::Counters SsdSecondaryCache::counters() const {
  absl::MutexLock l(&counters_mu_);
  return counters_;
}

void SsdSecondaryCache::Count(uint64_t Counters::*field, uint64_t n) {
  absl::MutexLock l(&counters_mu_);
  counters_.*field += n;
}

void SsdSecondaryCache::Close() {
  if (closed_.exchange(true)) return;
  std::vector<zfs::CacheZone> release;
  {
    absl::MutexLock l(&mu_);
    active_.reset();
    buffer_.clear();
    buffer_start_ = 0;
    // The index belongs to the scheme, which may serve a later cache.
    while (index_->EvictOldestZone()) {
    }
    absl::MutexLock z(&zones_mu_);
    for (const auto& [id, entry] : zones_) release.push_back(entry.zone);
    zones_.clear();
  }
  for (const auto& zone : release) {
    if (!volume_->cache_zones().Release(zone).ok()) Count(&Counters::io_errors);
  }
}

bool SsdSecondaryCache::EvictOldestZone() {
  zfs::CacheZone zone;
  {
    absl::MutexLock l(&mu_);
    for (;;) {
      const std::optional<uint64_t> id = index_->EvictOldestZone();
      if (!id) return false;
      if (active_ && active_->id == *id) {
        active_.reset();
        buffer_.clear();
        buffer_start_ = 0;
      }
      // Gone from zones_ before the reset: a concurrent reader of the zone
      // sees that after its read and discards what it read.
      absl::MutexLock z(&zones_mu_);
      auto it = zones_.find(*id);
      if (it == zones_.end()) continue;  // not ours (cannot happen with one cache per index)
      zone = it->second.zone;
      zones_.erase(it);
      break;
    }
  }
  const absl::Status s = volume_->cache_zones().Release(zone);
  if (!s.ok()) Count(&Counters::io_errors);
  return s.ok();
}

rocksdb::Status SsdSecondaryCache::Insert(const rocksdb::Slice& key, void* value,
                                          const rocksdb::Cache::CacheItemHelper* helper) {
  if (closed_.load() || helper == nullptr || helper->size_cb == nullptr ||
      helper->saveto_cb == nullptr) {
    return rocksdb::Status::OK();
  }
  const std::optional<policy::BlockAddress> block = keys_.Invert(key);
  if (!block) {
    Count(&Counters::unknown_keys);
    return rocksdb::Status::OK();
  }
  // Admission (HHZS 3.5): only blocks of SSTs on the HDD.
  const std::optional<policy::SstInfo> sst = scheme_->view().Sst(block->sst);
  if (!sst || !sst->placed || sst->on_ssd) {
    Count(&Counters::not_on_hdd);
    return rocksdb::Status::OK();
  }
  if (!index_->PassesAdmission(*block)) return rocksdb::Status::OK();
  const size_t len = helper->size_cb(value);
  if (len == 0 || len > UINT32_MAX || kHeaderBytes + len > zone_capacity_) {
    return rocksdb::Status::OK();
  }
  std::string record(kHeaderBytes + len, '\0');
  if (!helper->saveto_cb(value, 0, len, record.data() + kHeaderBytes).ok()) {
    return rocksdb::Status::OK();
  }
  EncodeHeader(key, static_cast<uint32_t>(len), XXH3_64bits(record.data() + kHeaderBytes, len),
               record.data());
  Append(*block, record);
  return rocksdb::Status::OK();
}

void SsdSecondaryCache::Append(const policy::BlockAddress& block, const std::string& record) {
  const uint64_t size = record.size();
  for (int attempt = 0; attempt < 2; ++attempt) {
    {
      absl::MutexLock l(&mu_);
      if (closed_.load()) return;
      if (active_ && active_->used + size <= active_->capacity) {
        const std::optional<policy::CacheLocation> loc =
            index_->Admit(block, static_cast<uint32_t>(size));
        if (!loc) return;  // cached already, or refused
        if (loc->zone != active_->id || loc->offset != active_->used) {
          // The index reserved another place than the buffer's end: never
          // serve this block from there.
          index_->DropSst(block.sst);
          Count(&Counters::verify_failures);
          return;
        }
        active_->used += size;
        buffer_.append(record);
        if (buffer_.size() >= flush_bytes_) FlushLocked(/*seal=*/false);
        return;
      }
      if (active_) FlushLocked(/*seal=*/true);  // full: it leaves the write path
      if (rotating_) {
        Count(&Counters::no_zone);  // another thread is getting the next zone
        return;
      }
      rotating_ = true;
    }
    // Not under mu_: acquiring may wait on zfs, and evicting takes mu_.
    const std::optional<zfs::CacheZone> zone = AcquireZone();
    bool give_back = false;
    {
      absl::MutexLock l(&mu_);
      rotating_ = false;
      if (!zone) {
        Count(&Counters::no_zone);
        return;
      }
      if (closed_.load()) {
        give_back = true;
      } else {
        ActiveZone a;
        a.id = next_zone_id.fetch_add(1);
        a.zone = *zone;
        a.capacity = std::min(RoundDown(zone->capacity, block_size_), zone_capacity_);
        {
          absl::MutexLock z(&zones_mu_);
          zones_[a.id] = ZoneEntry{*zone, false};
        }
        index_->OpenZone(a.id, a.capacity);
        active_ = a;
        buffer_.clear();
        buffer_start_ = 0;
        Count(&Counters::zones_opened);
      }
    }
    if (give_back) {
      (void)volume_->cache_zones().Release(*zone);
      return;
    }
  }
  Count(&Counters::no_zone);  // the new zone filled up at once
}

std::optional<zfs::CacheZone> SsdSecondaryCache::AcquireZone() {
  for (int attempt = 0; attempt < 2; ++attempt) {
    absl::StatusOr<zfs::CacheZone> zone = volume_->cache_zones().Acquire(device_);
    if (zone.ok()) return *zone;
    if (!absl::IsResourceExhausted(zone.status())) {
      Count(&Counters::io_errors);
      return std::nullopt;
    }
    // The pool has no empty zone: FIFO eviction of the oldest cache zone.
    if (attempt == 0 && !EvictOldestZone()) return std::nullopt;
  }
  return std::nullopt;
}

void SsdSecondaryCache::FlushLocked(bool seal) {
  if (!active_) return;
  const uint64_t n = seal ? RoundUp(buffer_.size(), block_size_)
                          : RoundDown(buffer_.size(), block_size_);
  if (n > 0) {
    buffer_.resize(std::max<uint64_t>(buffer_.size(), n), '\0');  // pad a sealed zone's tail
    const absl::Status s = volume_->cache_zones().Write(
        active_->zone, buffer_start_,
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(buffer_.data()), n));
    if (!s.ok()) {
      // Its buffered blocks are lost; no block of the zone is served again.
      Count(&Counters::io_errors);
      {
        absl::MutexLock z(&zones_mu_);
        if (auto it = zones_.find(active_->id); it != zones_.end()) it->second.failed = true;
      }
      seal = true;
    } else {
      absl::MutexLock c(&counters_mu_);
      counters_.zone_writes += 1;
      counters_.bytes_written += n;
    }
    buffer_.erase(0, n);
    buffer_start_ += n;
  }
  if (seal) {
    active_.reset();
    buffer_.clear();
    buffer_start_ = 0;
  }
}

bool SsdSecondaryCache::ZoneAlive(uint64_t id) const {
  absl::ReaderMutexLock z(&zones_mu_);
  auto it = zones_.find(id);
  return it != zones_.end() && !it->second.failed;
}

bool SsdSecondaryCache::ReadRecord(uint64_t id, uint64_t offset, uint32_t size,
                                   std::string* out) {
  zfs::CacheZone zone;
  {
    absl::ReaderMutexLock z(&zones_mu_);
    auto it = zones_.find(id);
    if (it == zones_.end() || it->second.failed) return false;
    zone = it->second.zone;
  }
  out->assign(size, '\0');
  const uint64_t end = offset + size;
  uint64_t device_end = end;  // [offset, device_end) is on the device
  {
    absl::MutexLock l(&mu_);
    if (active_ && active_->id == id && end > buffer_start_) {
      if (end > buffer_start_ + buffer_.size()) return false;
      const uint64_t from = std::max(offset, buffer_start_);
      std::memcpy(out->data() + (from - offset), buffer_.data() + (from - buffer_start_),
                  end - from);
      device_end = from;
      Count(&Counters::buffer_reads);
    }
  }
  if (device_end > offset) {
    // Whole device blocks; all of them are written (the buffer starts at a
    // block boundary, a sealed zone's tail is padded).
    const uint64_t first = RoundDown(offset, block_size_);
    std::vector<uint8_t> blocks(RoundUp(device_end, block_size_) - first);
    const absl::Status s = volume_->cache_zones().Read(zone, first, blocks);
    if (!s.ok()) {
      // A zone released under the read is no longer a cache zone to zfs.
      Count(ZoneAlive(id) ? &Counters::io_errors : &Counters::raced_evictions);
      return false;
    }
    std::memcpy(out->data(), blocks.data() + (offset - first), device_end - offset);
    Count(&Counters::device_reads);
  }
  // Ids are never reused and a zone leaves zones_ before it is reset: if it
  // is still here, the read finished before any reset.
  if (!ZoneAlive(id)) {
    Count(&Counters::raced_evictions);
    return false;
  }
  return true;
}

std::unique_ptr<rocksdb::SecondaryCacheResultHandle> SsdSecondaryCache::Lookup(
    const rocksdb::Slice& key, const rocksdb::Cache::CreateCallback& create_cb, bool /*wait*/,
    bool /*advise_erase*/, bool& is_in_sec_cache) {
  is_in_sec_cache = false;
  if (closed_.load()) return nullptr;
  if (CurrentBackgroundJob() != BackgroundJob::kNone) {
    Count(&Counters::background_lookups);
    return nullptr;
  }
  const std::optional<policy::BlockAddress> block = keys_.Invert(key);
  if (!block) return nullptr;
  // Never serve a deleted SST; an SST migrated to the SSD is read there.
  const std::optional<policy::SstInfo> sst = scheme_->view().Sst(block->sst);
  if (!sst) return nullptr;
  if (sst->on_ssd) {
    index_->DropSst(block->sst);
    return nullptr;
  }
  const std::optional<policy::CacheLocation> loc = index_->Lookup(*block);
  if (!loc) return nullptr;
  std::string record;
  if (!ReadRecord(loc->zone, loc->offset, loc->size, &record)) return nullptr;
  if (!VerifyRecord(record, key)) {
    // The index has no per-block removal; forgetting the SST's blocks is
    // the safe way to never read this one again.
    Count(&Counters::verify_failures);
    index_->DropSst(block->sst);
    return nullptr;
  }
  void* obj = nullptr;
  size_t charge = 0;
  const rocksdb::Status s = create_cb(record.data() + kHeaderBytes,
                                      record.size() - kHeaderBytes, &obj, &charge);
  if (!s.ok() || obj == nullptr) return nullptr;
  // Refresh: a hit outside the active zone is reported as not kept, so
  // the block cache hands the block back on eviction and Insert writes it
  // at the FIFO tail.
  is_in_sec_cache = !index_->ShouldRefresh(*loc);
  return std::make_unique<ReadyHandle>(obj, charge);
}

void SsdSecondaryCache::Erase(const rocksdb::Slice& /*key*/) {}

void SsdSecondaryCache::WaitAll(std::vector<rocksdb::SecondaryCacheResultHandle*> /*handles*/) {}

std::string SsdSecondaryCache::GetPrintableOptions() const {
  return absl::StrCat("    device: ", device_, " (", volume_->devices()[device_]->info().name,
                      ")\n    block_size: ", block_size_, "\n    zone_capacity: ", zone_capacity_,
                      "\n    write_buffer_bytes: ", flush_bytes_, "\n");
}

}  // namespace zonestack::rocks
