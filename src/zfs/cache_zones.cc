// SSD cache zones (cache_zones.h). They are never logged, so mount treats
// a leftover one as a dead data zone and resets it.
#include "zfs/cache_zones.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "zfs/volume_impl.h"

namespace zonestack::zfs {
namespace {

using device::IoClass;
using device::IoContext;

const IoContext kCacheIo{IoClass::kCache};

}  // namespace

absl::Status VolumeImpl::CheckCacheZone(const CacheZone& c) const {
  if (c.device >= members_.size() || c.zone >= members_[c.device].zones.size() ||
      members_[c.device].zones[c.zone].role != ZoneRole::kCache ||
      c.start != members_[c.device].dev->ZoneStart(c.zone)) {
    return absl::FailedPreconditionError(
        absl::StrCat("device ", c.device, " zone ", c.zone, " is not a cache zone"));
  }
  return absl::OkStatus();
}

absl::StatusOr<CacheZone> VolumeImpl::AcquireCacheZone(uint32_t device) {
  if (auto s = CheckWritable(); !s.ok()) return s;
  if (device >= members_.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("device ", device, " but the volume has ", members_.size()));
  }
  absl::MutexLock lock(&mu_);
  Member& m = members_[device];
  const uint32_t pool_size = options_.placement->PoolZones(device, DeviceViews());
  if (m.pool_zones >= pool_size) {
    return absl::ResourceExhaustedError(absl::StrCat(
        m.info.name, ": the WAL/cache pool is full (", m.pool_zones, " of ", pool_size, " zones)"));
  }
  if (m.empty.size() <= GcReserve(device)) {
    return absl::ResourceExhaustedError(absl::StrCat(m.info.name, ": no empty zone for the cache"));
  }
  if (!RoomForActiveZone(device)) {
    return absl::ResourceExhaustedError(
        absl::StrCat(m.info.name, ": every active zone is being written"));
  }
  const uint32_t zone = *m.empty.begin();
  ZoneUse& z = m.zones[zone];
  m.empty.erase(zone);
  z.role = ZoneRole::kCache;
  z.group = kNoGroup;
  ++m.pool_zones;
  ++m.cache_zones;
  ++m.cache_active;  // active from now on, like a leased data zone
  return CacheZone{device, zone, m.dev->ZoneStart(zone), z.capacity};
}

absl::Status VolumeImpl::CacheWrite(const CacheZone& c, uint64_t offset,
                                    std::span<const uint8_t> data) {
  const uint64_t bs = members_.size() > c.device ? members_[c.device].info.block_size : 1;
  {
    absl::MutexLock lock(&mu_);
    if (auto s = CheckCacheZone(c); !s.ok()) return s;
    ZoneUse& z = members_[c.device].zones[c.zone];
    if (z.leased) {
      return absl::FailedPreconditionError(
          absl::StrCat("device ", c.device, " zone ", c.zone, ": a cache write is in flight"));
    }
    if (offset != z.written) {
      return absl::InvalidArgumentError(absl::StrCat("cache write at ", offset, " in zone ",
                                                     c.zone, " but its write pointer is at ",
                                                     z.written));
    }
    if (data.size() % bs != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("cache write of ", data.size(), " bytes: not a multiple of the block size ",
                       bs));
    }
    if (offset + data.size() > z.capacity) {
      return absl::ResourceExhaustedError(absl::StrCat("cache write of ", data.size(),
                                                       " bytes at ", offset, " past zone ",
                                                       c.zone, "'s capacity ", z.capacity));
    }
    if (data.empty()) return absl::OkStatus();
    z.leased = true;  // one write at a time, and no release under it
  }
  const absl::Status s = members_[c.device].dev->Write(c.start + offset, data, kCacheIo);
  absl::MutexLock lock(&mu_);
  Member& m = members_[c.device];
  ZoneUse& z = m.zones[c.zone];
  z.leased = false;
  if (s.ok()) {
    z.written = offset + data.size();
    if (z.full()) --m.cache_active;
  }
  zone_released_.SignalAll();
  return s;
}

absl::Status VolumeImpl::CacheRead(const CacheZone& c, uint64_t offset,
                                   std::span<uint8_t> dst) const {
  {
    absl::MutexLock lock(&mu_);
    if (auto s = CheckCacheZone(c); !s.ok()) return s;
    const ZoneUse& z = members_[c.device].zones[c.zone];
    if (offset + dst.size() > z.written) {
      return absl::OutOfRangeError(absl::StrCat("cache read of ", dst.size(), " bytes at ",
                                                offset, " past zone ", c.zone,
                                                "'s write pointer ", z.written));
    }
  }
  // Device reads are block-aligned: read the covering blocks when the
  // request is not.
  device::ZonedDevice* dev = members_[c.device].dev.get();
  const uint64_t bs = members_[c.device].info.block_size;
  const uint64_t start = offset / bs * bs;
  const uint64_t end = (offset + dst.size() + bs - 1) / bs * bs;
  if (start == offset && end == offset + dst.size()) {
    return dev->Read(c.start + offset, dst, kCacheIo);
  }
  std::vector<uint8_t> tmp(end - start);
  if (auto s = dev->Read(c.start + start, tmp, kCacheIo); !s.ok()) return s;
  std::memcpy(dst.data(), tmp.data() + (offset - start), dst.size());
  return absl::OkStatus();
}

absl::Status VolumeImpl::ReleaseCacheZone(const CacheZone& c) {
  if (auto s = CheckWritable(); !s.ok()) return s;
  absl::MutexLock lock(&mu_);
  if (auto s = CheckCacheZone(c); !s.ok()) return s;
  while (members_[c.device].zones[c.zone].leased) zone_released_.Wait(&mu_);
  if (auto s = CheckCacheZone(c); !s.ok()) return s;  // released meanwhile
  if (auto s = members_[c.device].dev->ResetZone(c.zone, kCacheIo); !s.ok()) return s;
  ZoneEmptied(c.device, c.zone);
  zone_released_.SignalAll();
  return absl::OkStatus();
}

void VolumeImpl::SetCacheReclaimer(std::function<bool()> reclaim_one) {
  absl::MutexLock lock(&mu_);
  cache_reclaimer_ = std::move(reclaim_one);
}

absl::StatusOr<CacheZone> CacheZones::Acquire(uint32_t device) {
  return impl_->AcquireCacheZone(device);
}
absl::Status CacheZones::Write(const CacheZone& zone, uint64_t offset,
                               std::span<const uint8_t> data) {
  return impl_->CacheWrite(zone, offset, data);
}
absl::Status CacheZones::Read(const CacheZone& zone, uint64_t offset,
                              std::span<uint8_t> dst) const {
  return impl_->CacheRead(zone, offset, dst);
}
absl::Status CacheZones::Release(const CacheZone& zone) { return impl_->ReleaseCacheZone(zone); }
void CacheZones::SetReclaimer(std::function<bool()> reclaim_one) {
  impl_->SetCacheReclaimer(std::move(reclaim_one));
}

}  // namespace zonestack::zfs
