// Replays a block trace on a block tier (docs/zonetier.md, "Trace replay")
// and measures what the ZoneTier paper reports.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "tier/block_tier.h"
#include "tools/zsreplay/trace.h"

namespace zonestack::zsreplay {

struct ReplayConfig {
  std::string scheme = "HA-256-CFC";
  // Device URIs; a DM scheme gets smr=dm added to the drive's. With
  // timing=sim both devices share one simulated clock.
  std::string drive_uri = "emu:st8000as0022?zones=2000&scale=1/2048&timing=sim";
  std::string ssd_uri = "emu:zn540?zones=64&conv=64&scale=1/2048&timing=sim";
  // Sizes in bytes; 0: ssd_tier 10% and cache 1% of the drive's capacity.
  uint64_t ssd_tier_bytes = 0;
  uint64_t cache_bytes = 0;
  uint64_t period_requests = 1000;
  // Each request waits for its trace time (on the simulated clock, or the
  // real one); otherwise requests go as fast as possible, one at a time.
  bool honor_timestamps = true;
  // A request counts toward a performance recovery until one completes
  // within this factor of the median response time.
  double recovered_factor = 2;
};

// The trace's offsets are folded into the tier's capacity and widened to
// whole blocks. Returns the results as JSON (fields in docs/zonetier.md).
absl::StatusOr<nlohmann::json> Replay(const std::vector<TraceRequest>& trace,
                                      const ReplayConfig& config);

// The same trace replayed on each scheme in turn, each on fresh devices
// (config.scheme is ignored): {"schemes": [Replay's result, ...]}. A scheme
// that fails is kept as {"scheme": NAME, "error": MESSAGE} and the others
// still run; `failed` counts them.
nlohmann::json ReplaySchemes(const std::vector<TraceRequest>& trace, const ReplayConfig& config,
                             const std::vector<std::string>& schemes, int* failed);

}  // namespace zonestack::zsreplay
