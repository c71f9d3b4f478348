// The SLC cache cap of a hybrid SLC/QLC SSD: how much of the flash may be
// programmed in SLC mode, as a function of how full the device is. The
// table is the Intel 660p's (ZnH2 Table 1), which ZnH2 gives both its
// device-managed hybrid and its host-managed HZNS software (section 4.1).
// Header-only: the emulator's hidden SLC cache (slc_cache.h) and the host's
// ZnH2 scheme (src/policy/schemes/znh2.cc) read the same table.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

namespace zonestack::device {

// SLC cache cap in percent of the device's flash, indexed by used capacity
// in tenths (0-9 %, 10-19 %, ..., 100 %): 56 % below 20 % used, then 50,
// 40, 30, 25, 20, and 10 % from 70 % used on.
inline constexpr std::array<uint32_t, 11> kSlcCapPercent = {56, 56, 50, 40, 30, 25,
                                                            20, 10, 10, 10, 10};

// The cap for `used_bytes` of `total_bytes` of flash (both in the native
// mode's bytes; SLC data counts as many times its size as the native mode
// has bits per cell, since it occupies that much flash).
inline uint32_t SlcCapPercent(uint64_t used_bytes, uint64_t total_bytes) {
  if (total_bytes == 0) return 0;
  const uint64_t tenth = std::min<uint64_t>(10, used_bytes * 10 / total_bytes);
  return kSlcCapPercent[tenth];
}

// Whether SLC data of `slc_flash_bytes` (already multiplied out to the
// flash it occupies) fits under the cap.
inline bool SlcWithinCap(uint64_t slc_flash_bytes, uint64_t used_bytes, uint64_t total_bytes) {
  return slc_flash_bytes * 100 <= uint64_t{SlcCapPercent(used_bytes, total_bytes)} * total_bytes;
}

}  // namespace zonestack::device
