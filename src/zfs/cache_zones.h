// SSD cache zones (HHZS 3.5): zones of a device's WAL/cache pool that a
// block cache above zfs fills and resets itself. zfs only hands them out,
// checks writes against the write pointer and keeps them out of GC. They
// are not in the metadata log: the cache is volatile, and mount resets any
// zone left behind. A narrow handle of the Volume (Volume::cache_zones()),
// so only the schemes that cache (HHZS) see it.
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace zonestack::zfs {

class VolumeImpl;

struct CacheZone {
  uint32_t device = 0;
  uint32_t zone = 0;
  uint64_t start = 0;     // device offset of the zone
  uint64_t capacity = 0;  // bytes
};

// Thread-safe. Lives as long as its Volume.
class CacheZones {
 public:
  explicit CacheZones(VolumeImpl* impl) : impl_(impl) {}

  // A zone taken from the policy's WAL/cache pool on `device`.
  // ResourceExhausted when the pool has no empty zone.
  absl::StatusOr<CacheZone> Acquire(uint32_t device);
  // Writes block-aligned `data` at `offset` bytes into the zone (its write
  // pointer). Not durable, and need not be: the cache is volatile.
  // InvalidArgument for another offset or an unaligned size,
  // ResourceExhausted past the zone's capacity, FailedPrecondition for a
  // zone that is not (or no longer) a cache zone or under another write:
  // writes to one zone are issued one at a time.
  absl::Status Write(const CacheZone& zone, uint64_t offset, std::span<const uint8_t> data);
  // Reads written bytes (any offset and length; OutOfRange past the write
  // pointer). A read racing Release of its zone may fail or return another
  // zone owner's bytes: the cache must discard what it read from a zone it
  // released meanwhile.
  absl::Status Read(const CacheZone& zone, uint64_t offset, std::span<uint8_t> dst) const;
  // Resets the zone and gives it back to the pool (waits for a write in
  // flight).
  absl::Status Release(const CacheZone& zone);
  // Called (without zfs's locks) when a pool allocation finds the pool
  // full of cache zones: the cache evicts its oldest zone with Release and
  // returns true, or returns false if it has none.
  void SetReclaimer(std::function<bool()> reclaim_one);

 private:
  VolumeImpl* const impl_;
};

}  // namespace zonestack::zfs
