// The hidden SLC cache of a device-managed hybrid ZNS SSD ("DM Hybrid",
// ZnH2 section 2.3): the host sees plain zones in the native (QLC) mode;
// the firmware writes a zone's data in SLC while the SLC cache is under its
// cap (slc_cap.h, indexed by used capacity) and migrates whole zones to QLC
// when it is not, in the background when the device is idle and at once
// when a write finds the cache full. The firmware keeps only a zone-level
// map and knows nothing of which data is valid, so a migration moves
// everything written in the zone.
//
// This class is the firmware's bookkeeping only; EmulatedDevice asks it
// where each write lands and charges the migrations it asks for to the
// timing model. Not thread-safe: the device calls it under its lock.
#pragma once

#include <cstdint>
#include <vector>

#include "device/zone.h"

namespace zonestack::device {

class SlcCache {
 public:
  // `info` is the host's view: native-mode zones (zone_capacity is a
  // zone's capacity in the native mode).
  explicit SlcCache(const DeviceInfo& info);

  // Where a write of `length` bytes at the write pointer of `zone` lands,
  // SLC or the native mode. Zones listed in `*migrate` must first be moved
  // to the native mode (the caller charges the copy of each one's
  // `written(zone)` bytes, then calls Migrated). A zone keeps one mode
  // until it is reset: once migrated, the rest of it is written natively.
  CellMode PlaceWrite(uint32_t zone, uint64_t length, std::vector<uint32_t>* migrate);
  // The write of PlaceWrite landed.
  void Wrote(uint32_t zone, uint64_t length);
  // `zone`'s data now lies in the native mode.
  void Migrated(uint32_t zone);
  // A read touched `zone` (the victim choice is least recently used).
  void Touched(uint32_t zone);
  // The zone was reset, or a power cut took it back to `written` bytes.
  void Reset(uint32_t zone);
  void RolledBack(uint32_t zone, uint64_t written);

  // The zone the firmware migrates next when the device is idle: the least
  // recently used SLC zone while the SLC data exceeds `target_percent` of
  // the cap; -1 when it does not.
  int64_t IdleVictim(uint32_t target_percent) const;

  CellMode ModeOf(uint32_t zone) const { return zones_[zone].slc ? CellMode::kSlc : native_; }
  uint64_t written(uint32_t zone) const { return zones_[zone].written; }
  // Data bytes in SLC and in the native mode.
  uint64_t slc_bytes() const { return slc_bytes_; }
  uint64_t native_bytes() const { return native_bytes_; }

 private:
  struct ZoneState {
    bool slc = false;
    uint64_t written = 0;
    uint64_t last_access = 0;  // a sequence number, for LRU
  };
  // The least recently used SLC zone other than `except`; -1 if none.
  int64_t LruSlcZone(int64_t except) const;

  const CellMode native_;
  const uint64_t bits_;   // bits per cell of the native mode
  const uint64_t total_;  // flash bytes in the native mode
  std::vector<ZoneState> zones_;
  uint64_t slc_bytes_ = 0, native_bytes_ = 0;
  uint64_t clock_ = 0;
};

}  // namespace zonestack::device
