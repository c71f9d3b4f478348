#include "policy/hhzs_placement.h"

#include <algorithm>

namespace zonestack::policy {
namespace {

uint32_t At(const std::vector<uint32_t>& v, size_t i) { return i < v.size() ? v[i] : 0; }

}  // namespace

int TieringLevel(const std::vector<uint32_t>& allocated, const std::vector<uint32_t>& demand,
                 int64_t ssd_capacity) {
  const size_t levels = std::max(allocated.size(), demand.size());
  int64_t sum = 0;
  for (size_t i = 0; i < levels; ++i) {
    sum += At(allocated, i) + At(demand, i);
    if (sum >= ssd_capacity) return static_cast<int>(i);
  }
  // Every level fits; with C_ssd <= 0 even an empty tree "reaches" it.
  return ssd_capacity <= 0 ? 0 : static_cast<int>(levels);
}

int64_t TieringSlots(const std::vector<uint32_t>& allocated, const std::vector<uint32_t>& demand,
                     int64_t ssd_capacity, int t) {
  int64_t below = 0;
  for (int j = 0; j < t; ++j) below += At(allocated, j) + At(demand, j);
  return std::max<int64_t>(0, ssd_capacity - below);
}

bool SstToSsd(int level, int t, uint32_t ssd_zones_at_t, int64_t slots, uint32_t zones) {
  if (level < t) return true;
  return level == t && int64_t{ssd_zones_at_t} + zones <= slots;
}

uint32_t Tiering::OnSsdAt(int l) const { return l >= 0 ? At(on_ssd, static_cast<size_t>(l)) : 0; }

uint64_t Tiering::DemandBelowT() const {
  uint64_t sum = 0;
  for (int i = 0; i < level; ++i) sum += At(demand, static_cast<size_t>(i));
  return sum;
}

uint64_t Tiering::PendingZones() const {
  const int64_t unused_slots = std::max<int64_t>(0, slots - int64_t{OnSsdAt(level)});
  const int64_t at_t = std::min<int64_t>(unused_slots, At(demand, static_cast<size_t>(level)));
  return DemandBelowT() + static_cast<uint64_t>(at_t);
}

Tiering ComputeTiering(const LevelCounts& counts, const DeviceView& ssd, uint32_t pool_zones,
                       int min_level) {
  Tiering t;
  t.ssd_capacity = static_cast<int64_t>(ssd.data_zones) - pool_zones - kGcReserveZones;
  t.zone_bytes = ssd.zone_capacity;
  t.allocated = counts.zones;
  t.demand = counts.demand;
  t.on_ssd = counts.zones_on_ssd;
  if (t.demand.empty()) t.demand.push_back(0);
  t.demand[0] += ssd.pool_zones > ssd.cache_zones ? ssd.pool_zones - ssd.cache_zones : 0;
  const int reached = TieringLevel(t.allocated, t.demand, t.ssd_capacity);
  t.fits_all = t.ssd_capacity > 0 &&
               static_cast<size_t>(reached) >= std::max(t.allocated.size(), t.demand.size());
  // A raised t only lifts the levels below it onto the SSD; whether every
  // level fits is still decided by the sums.
  t.level = std::max(reached, min_level);
  t.slots = TieringSlots(t.allocated, t.demand, t.ssd_capacity, t.level);
  return t;
}

}  // namespace zonestack::policy
