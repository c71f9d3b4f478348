// Critical Access Frequency (ZoneTier, "Zone Placement"). The paper names
// the measure but gives no formula; ours (docs/zonetier.md): an extent's
// frequency is a decayed count of the accesses that would cost the drive
// (reads and NSWs; sequential writes only as the options weigh them), and
// the CAF is the frequency of the num_slots-th most critical extent. An
// extent above the CAF belongs in the SSD tier.
#include "tier/zone_placement.h"

#include <algorithm>

namespace zonestack::tier {

ZonePlacement::ZonePlacement(uint64_t num_extents, PlacementOptions options)
    : o_(options), freq_(num_extents, 0), count_(num_extents, 0), listed_(num_extents, false) {}

void ZonePlacement::Record(uint64_t extent, AccessKind kind) {
  const double w = kind == AccessKind::kRead              ? o_.read_weight
                   : kind == AccessKind::kSequentialWrite ? o_.seq_write_weight
                                                          : o_.nsw_weight;
  count_[extent] += w;
  if (!listed_[extent]) {
    listed_[extent] = true;
    touched_.push_back(extent);
  }
}

std::vector<PlannedMove> ZonePlacement::EndPeriod(const std::vector<bool>& on_ssd,
                                                  uint64_t num_slots, uint64_t free_slots) {
  // Only extents ever accessed have a frequency; the rest stay at 0.
  std::vector<uint64_t> live;
  for (uint64_t e : touched_) {
    freq_[e] = o_.decay * freq_[e] + count_[e];
    count_[e] = 0;
    if (freq_[e] > 1e-9 || on_ssd[e]) {
      live.push_back(e);
    } else {
      freq_[e] = 0;
      listed_[e] = false;
    }
  }
  touched_ = live;
  std::vector<uint64_t> ranked = live;
  std::sort(ranked.begin(), ranked.end(), [&](uint64_t a, uint64_t b) {
    return freq_[a] != freq_[b] ? freq_[a] > freq_[b] : a < b;
  });
  caf_ = ranked.size() >= num_slots && num_slots > 0 ? freq_[ranked[num_slots - 1]] : 0;

  std::vector<uint64_t> coldest_ssd;  // SSD extents, coldest first
  for (auto it = ranked.rbegin(); it != ranked.rend(); ++it) {
    if (on_ssd[*it]) coldest_ssd.push_back(*it);
  }
  std::vector<PlannedMove> moves;
  size_t next_victim = 0;
  for (uint64_t e : ranked) {
    if (moves.size() >= o_.max_moves) break;
    if (on_ssd[e] || freq_[e] <= 0 || freq_[e] < caf_) continue;
    if (free_slots > 0) {
      --free_slots;
      moves.push_back({e, UINT64_MAX});
      continue;
    }
    if (next_victim >= coldest_ssd.size()) break;
    const uint64_t victim = coldest_ssd[next_victim];
    if (freq_[e] <= (1 + o_.hysteresis) * freq_[victim]) break;  // ranked: none hotter follow
    ++next_victim;
    moves.push_back({e, victim});
  }
  return moves;
}

}  // namespace zonestack::tier
