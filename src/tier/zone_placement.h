// Zone placement by Critical Access Frequency (ZoneTier, "Zone Placement";
// docs/zonetier.md, "Critical Access Frequency"): which extents the SSD
// tier should hold in the next period.
#pragma once

#include <cstdint>
#include <vector>

namespace zonestack::tier {

struct PlacementOptions {
  // Weight of an access in an extent's frequency. A sequential write to a
  // drive zone costs the drive nothing it cannot stream, so ZoneTier does
  // not count it (seq_write_weight 0); the baselines count every access.
  double read_weight = 1;
  double seq_write_weight = 0;
  double nsw_weight = 1;
  // Each period's counts join the frequency as f = decay * f + count.
  double decay = 0.5;
  // A drive extent replaces the coldest SSD extent only when its frequency
  // is this fraction above it (keeps an extent from bouncing).
  double hysteresis = 0.25;
  uint32_t max_moves = 4;  // promotions per period
};

enum class AccessKind { kRead, kSequentialWrite, kNsw };

// One planned move: promote `promote` into a free slot, demoting `demote`
// first when it is not kNone.
struct PlannedMove {
  uint64_t promote = 0;
  uint64_t demote = UINT64_MAX;
};

// Not thread-safe (the tier serializes calls).
class ZonePlacement {
 public:
  ZonePlacement(uint64_t num_extents, PlacementOptions options);

  void Record(uint64_t extent, AccessKind kind);
  // Ends a period: folds its counts into the frequencies, computes the
  // Critical Access Frequency (the frequency an extent needs to be among
  // the `num_slots` most critical ones) and returns the moves that bring
  // the hottest drive extents above it into the SSD tier. `on_ssd[e]` says
  // whether extent e is in the SSD tier now; `free_slots` how many slots
  // are free.
  std::vector<PlannedMove> EndPeriod(const std::vector<bool>& on_ssd, uint64_t num_slots,
                                     uint64_t free_slots);

  double frequency(uint64_t extent) const { return freq_[extent]; }
  // The Critical Access Frequency the last period computed.
  double critical_access_frequency() const { return caf_; }

 private:
  const PlacementOptions o_;
  std::vector<double> freq_;
  std::vector<double> count_;
  std::vector<uint64_t> touched_;  // extents with a count this period or a frequency
  std::vector<bool> listed_;
  double caf_ = 0;
};

}  // namespace zonestack::tier
