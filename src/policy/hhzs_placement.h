// HHZS's write-guided placement arithmetic (section 3.3, steps 1-4) as pure
// functions, in units of SSD zones: one SST fills one SSD zone (3.2).
#pragma once

#include <cstdint>
#include <vector>

#include "policy/lsm_view.h"
#include "policy/scheme.h"

namespace zonestack::policy {

// zfs keeps one empty zone per device for its GC; placement never counts
// on it.
inline constexpr uint32_t kGcReserveZones = 1;

// Step 2: t = argmin_i sum_{j<=i} (A_j + D_j) >= C_ssd. Vectors may differ
// in length (missing entries are 0). When no level reaches C_ssd (every
// level fits), t = the number of levels. C_ssd <= 0 gives t = 0.
int TieringLevel(const std::vector<uint32_t>& allocated, const std::vector<uint32_t>& demand,
                 int64_t ssd_capacity);

// Step 3: SSD zones L_t's SSTs may use, C_ssd - sum_{j<t} (A_j + D_j),
// never negative.
int64_t TieringSlots(const std::vector<uint32_t>& allocated, const std::vector<uint32_t>& demand,
                     int64_t ssd_capacity, int t);

// Step 4: whether an SST of `level`, `zones` long, should be written to
// (or moved to) the SSD, given that SSTs of L_t already take
// `ssd_zones_at_t` SSD zones.
bool SstToSsd(int level, int t, uint32_t ssd_zones_at_t, int64_t slots, uint32_t zones = 1);

// Steps 1-3 for one SSD as zfs sees it.
struct Tiering {
  int64_t ssd_capacity = 0;         // C_ssd
  std::vector<uint32_t> allocated;  // A_i, in SSD zones
  std::vector<uint32_t> demand;     // D_i, the WAL zones in use added to D_0
  std::vector<uint32_t> on_ssd;     // of A_i, the zones on the SSD
  int level = 0;                    // t
  int64_t slots = 0;                // SSD zones for L_t's SSTs
  uint64_t zone_bytes = 0;          // the SSD's zone capacity, the unit of A_i
  // No level reaches C_ssd: t is the number of levels, and an SST of a
  // level the view has not seen yet fits as well (its A and D are 0).
  bool fits_all = false;
  uint32_t OnSsdAt(int level) const;
  // SSD zones an SST of `size` bytes takes (SstZones).
  uint32_t Zones(uint64_t size) const { return SstZones(size, zone_bytes); }
  // sum_{i<t} D_i: the zones lower levels are about to write.
  uint64_t DemandBelowT() const;
  // SSD zones the writes in flight at or below L_t are about to take: the
  // demand below L_t, and L_t's demand up to its unused reserved zones.
  uint64_t PendingZones() const;
  // An SST of `level`, `zones` long, written or moved to the SSD fits the
  // plan.
  bool ToSsd(int sst_level, uint32_t zones = 1) const {
    return fits_all || SstToSsd(sst_level, level, OnSsdAt(level), slots, zones);
  }
};

// C_ssd = the SSD's data zones - its WAL/cache pool zones - the GC reserve;
// D_0 += the WAL zones in use (pool zones that are not cache zones), since
// the MemTables they log are flushed to L0 (step 1); t is at least
// `min_level` (the authors' code raises a t of 0 to 1).
// `counts` in zones of the SSD's zone capacity (LsmView::Counts).
Tiering ComputeTiering(const LevelCounts& counts, const DeviceView& ssd, uint32_t pool_zones,
                       int min_level = 0);

}  // namespace zonestack::policy
