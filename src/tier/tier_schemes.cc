// The paper's comparison candidates (ZoneTier Table 3), each a name.
// The extent sizes are the paper's 64, 128 and 256 MB against its 256 MB
// zones, kept as fractions of a zone so they scale with the drive.
#include "absl/strings/str_cat.h"
#include "tier/block_tier.h"

namespace zonestack::tier {

std::string TierSchemeNames() { return "DM-64-LRU, DM-128-LRU, DM-256-LRU, HA-256-LRU, HA-256-CFC"; }

absl::StatusOr<TierOptions> TierScheme(const std::string& name, const TierOptions& base) {
  TierOptions o = base;
  o.name = name;
  // The baselines count every access alike; only ZoneTier's CAF knows a
  // sequential write costs the drive nothing to speak of.
  auto baseline = [&](uint32_t extents_per_zone, bool dm) {
    o.extents_per_zone = extents_per_zone;
    o.device_managed_drive = dm;
    o.host_aware = false;
    o.cache_policy = CachePolicy::kLru;
    o.placement.seq_write_weight = 1;
    return o;
  };
  if (name == "DM-64-LRU") return baseline(4, true);
  if (name == "DM-128-LRU") return baseline(2, true);
  if (name == "DM-256-LRU") return baseline(1, true);
  if (name == "HA-256-LRU") return baseline(1, false);
  if (name == "HA-256-CFC" || name == "zonetier") {
    o.extents_per_zone = 1;
    o.device_managed_drive = false;
    o.host_aware = true;
    o.cache_policy = CachePolicy::kCleaningFriendly;
    o.placement.seq_write_weight = 0;
    return o;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown tier scheme '", name, "'; schemes: ", TierSchemeNames()));
}

void SetDefaultSizes(const device::DeviceInfo& drive, TierOptions* o) {
  const uint64_t capacity = drive.capacity_bytes();
  if (o->ssd_tier_bytes == 0) o->ssd_tier_bytes = capacity / 10 / drive.zone_size * drive.zone_size;
  if (o->cache_bytes == 0) o->cache_bytes = capacity / 100 / 4096 * 4096;
}

}  // namespace zonestack::tier
