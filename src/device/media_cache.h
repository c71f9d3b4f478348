// The media cache of a host-aware (or device-managed) SMR drive: a
// persistent log in a CMR region of the platter where the drive journals
// the non-sequential writes (NSWs) its shingled zones cannot take in place
// (ZoneTier, "Sequential Write and NSW"; docs/emulator.md, "Host-aware
// SMR"). It holds the newest copy of every block an NSW wrote since its
// zone was last cleaned; cleaning (media_cache_cleaning.cc) takes a zone's
// blocks out and rewrites the zone with them.
//
// This class is the drive's bookkeeping and the cached bytes; it does no
// timing. Log space is counted per zone: an NSW takes its length of log
// even when it overwrites a cached block (the stale copy stays in the log),
// and cleaning a zone gives back everything its NSWs took. A real log frees
// space only at its tail; charging a zone's stale copies to the zone keeps
// the same total without modeling the log's wrap-around.
//
// Not thread-safe: the device calls it under its lock.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

namespace zonestack::device {

// How an emulated SMR drive keeps and cleans its media cache
// (docs/emulator.md, "Host-aware SMR", has where each default comes from).
struct MediaCacheOptions {
  uint64_t bytes = 0;  // the log's size; 0: no media cache
  // Cleaning starts when an NSW leaves the log fuller than this percentage,
  // and runs until it is at most `low_water_percent` full.
  uint32_t high_water_percent = 90;
  uint32_t low_water_percent = 0;
  // A timed device idle this long starts cleaning the whole log; 0: never.
  uint64_t idle_ns = 0;
  // Device-managed SMR: the host sees conventional zones only, and the
  // drive takes every write wherever it lands (docs/emulator.md).
  bool device_managed = false;
};

class MediaCache {
 public:
  // A run of cached bytes contiguous in the log, for the timing model:
  // where the head reads them (`log_pos`, a byte position in the CMR
  // region) and how many.
  struct LogRun {
    uint64_t log_pos = 0;
    uint64_t length = 0;
  };
  // A block's newest copy and where it lies in the log.
  struct CachedBlock {
    std::vector<uint8_t> data;
    uint64_t log_pos = 0;
  };
  // One zone's cached blocks as cleaning takes them out of the cache: the
  // newest copy of each block by device offset, the log runs the drive
  // reads them from, and the log bytes the zone held.
  struct ZoneBlocks {
    uint32_t zone = 0;
    std::map<uint64_t, CachedBlock> blocks;
    std::vector<LogRun> runs;
    uint64_t log_bytes = 0;
    uint64_t first_seq = 0;
  };

  // `capacity_bytes` of log; blocks of `block_size`; zones of `zone_size`
  // bytes (a block's zone is its offset / zone_size).
  MediaCache(uint64_t capacity_bytes, uint32_t block_size, uint64_t zone_size);

  uint64_t capacity_bytes() const { return capacity_; }
  // Log bytes in use, stale copies included.
  uint64_t used_bytes() const { return used_; }
  bool empty() const { return zones_.empty(); }
  // Zones with blocks in the cache.
  size_t zones_held() const { return zones_.size(); }
  bool HoldsZone(uint32_t zone) const { return zones_.contains(zone); }

  // Journals the NSW `data` (whole blocks) at device offset `offset`: it
  // becomes the newest copy of its blocks. Returns the log position where
  // it lands. The caller made room (used_bytes() + size <= capacity)
  // unless the write is larger than the whole cache.
  uint64_t Append(uint64_t offset, std::span<const uint8_t> data);

  // Lays the newest cached copies over `dst`, which holds the bytes at
  // `offset` as the zones have them.
  void Overlay(uint64_t offset, std::span<uint8_t> dst) const;
  // The log runs holding cached blocks of [offset, offset + length), in
  // log order; adds the cached bytes found to `*hit_bytes`.
  std::vector<LogRun> RunsIn(uint64_t offset, uint64_t length, uint64_t* hit_bytes) const;
  // Lays `blocks` (a zone TakeZone removed) over `dst` as Overlay does.
  static void OverlayBlocks(const std::map<uint64_t, CachedBlock>& blocks, uint64_t offset,
                            std::span<uint8_t> dst);

  // The zone cleaning takes next: the one holding the oldest journaled
  // write, so the log drains from its tail. Empty when nothing is cached.
  std::optional<uint32_t> OldestZone() const;
  // Removes `zone`'s blocks from the cache (cleaning, or a reset that
  // drops them) and frees its log bytes.
  ZoneBlocks TakeZone(uint32_t zone);
  // Puts back blocks TakeZone removed (a cleaning a power cut tore: the
  // drive had not yet dropped them from its journal). Newer copies cached
  // since then stay newer.
  void Restore(ZoneBlocks taken);

 private:
  struct ZoneLog {
    uint64_t log_bytes = 0;
    uint64_t first_seq = 0;  // order of the zone's oldest journaled write
  };

  const uint64_t capacity_;
  const uint32_t block_size_;
  const uint64_t zone_size_;
  std::map<uint64_t, CachedBlock> blocks_;  // by device offset of the block
  std::map<uint32_t, ZoneLog> zones_;
  uint64_t used_ = 0;
  uint64_t log_head_ = 0;  // where the next NSW lands in the log
  uint64_t next_seq_ = 0;
};

}  // namespace zonestack::device
