// GearDB 3.2 (compaction windows) and 3.3 (gear compaction), at SST
// granularity; docs/geardb.md says what differs from the paper and why.
#include "policy/gear_compaction.h"

#include <algorithm>
#include <cmath>

namespace zonestack::policy {
namespace {

bool Overlaps(const GearSst& a, const GearSst& b) {
  return !(a.largest < b.smallest || b.largest < a.smallest);
}

uint64_t LevelBytes(const GearLevels& levels, int level) {
  if (level < 0 || static_cast<size_t>(level) >= levels.size()) return 0;
  uint64_t n = 0;
  for (const GearSst& s : levels[level]) n += s.size;
  return n;
}

// How `sst` relates to the level below it: what it overlaps there, and
// how much of that lies outside the lower level's window.
struct Below {
  uint64_t overlapping = 0;
  uint64_t outside_window_bytes = 0;
  bool outside_window = false;
  bool busy = false;  // an overlapping SST is being compacted
};

Below Relation(const GearSst& sst, const GearLevels& levels, int below,
               const GearWindows& windows) {
  Below r;
  if (static_cast<size_t>(below) >= levels.size()) return r;
  for (const GearSst& b : levels[below]) {
    if (!Overlaps(sst, b)) continue;
    ++r.overlapping;
    r.busy = r.busy || b.being_compacted;
    if (!windows.InWindow(b.number)) {
      r.outside_window = true;
      r.outside_window_bytes += b.size;
    }
  }
  return r;
}

}  // namespace

void GearWindows::Update(const std::vector<GearZone>& zones) {
  std::map<int, std::map<ZoneKey, const GearZone*>> by_level;
  for (const GearZone& z : zones) {
    if (!z.ssts.empty()) by_level[z.level][{z.device, z.zone}] = &z;
  }
  // Window zones that were released: gone, another level's, or rewritten.
  for (auto& [level, window] : windows_) {
    const bool had_zones = !window.empty();
    const auto& now = by_level[level];
    for (auto it = window.begin(); it != window.end();) {
      auto z = now.find(it->first);
      const bool released = z == now.end() || z->second->written_bytes < it->second.written_bytes;
      if (released) {
        ++zones_released_;
        it = window.erase(it);
      } else {
        it->second.written_bytes = z->second->written_bytes;
        ++it;
      }
    }
    if (had_zones && window.empty()) ++windows_released_;
  }
  // New windows where a level has none (3.2: zones rotate into the
  // window, oldest first); whole levels at the top.
  for (const auto& [level, now] : by_level) {
    if (now.empty()) continue;
    auto& window = windows_[level];
    auto age = [](const GearZone& z) { return *std::min_element(z.ssts.begin(), z.ssts.end()); };
    if (level < static_cast<int>(options_.whole_window_levels)) {
      window.clear();
      for (const auto& [key, z] : now) window[key] = {age(*z), z->written_bytes};
      continue;
    }
    if (!window.empty()) continue;
    std::vector<const GearZone*> order;
    for (const auto& [key, z] : now) order.push_back(z);
    std::sort(order.begin(), order.end(),
              [&](const GearZone* a, const GearZone* b) { return age(*a) < age(*b); });
    const size_t k = std::max<uint32_t>(1, options_.k);
    const size_t take = (order.size() + k - 1) / k;
    for (size_t i = 0; i < take; ++i) {
      window[{order[i]->device, order[i]->zone}] = {age(*order[i]), order[i]->written_bytes};
    }
    ++windows_formed_;
  }
  window_ssts_.clear();
  for (const auto& [level, window] : windows_) {
    const auto& now = by_level[level];
    for (const auto& [key, member] : window) {
      auto z = now.find(key);
      if (z != now.end()) window_ssts_.insert(z->second->ssts.begin(), z->second->ssts.end());
    }
  }
}

std::vector<std::pair<uint32_t, uint32_t>> GearWindows::WindowZones(int level) const {
  std::vector<std::pair<uint64_t, ZoneKey>> aged;
  auto it = windows_.find(level);
  if (it != windows_.end()) {
    for (const auto& [key, member] : it->second) aged.push_back({member.age, key});
  }
  std::sort(aged.begin(), aged.end());
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (const auto& [age, key] : aged) out.push_back(key);
  return out;
}

uint64_t GearLimits::Limit(int level) const {
  if (level <= 0) return 0;
  return static_cast<uint64_t>(static_cast<double>(base_bytes) * std::pow(multiplier, level - 1));
}

const char* GearStepName(GearStep::Kind kind) {
  switch (kind) {
    case GearStep::Kind::kActive: return "active";
    case GearStep::Kind::kWindow: return "window";
    case GearStep::Kind::kDump: return "dump";
    case GearStep::Kind::kOutOfWindow: return "out_of_window";
    case GearStep::Kind::kPassive: return "passive";
  }
  return "?";
}

namespace {

std::optional<GearStep> ActiveStep(const GearLevels& levels, const GearLimits& limits) {
  if (levels.empty() || levels[0].size() < limits.l0_trigger || limits.num_levels < 2) {
    return std::nullopt;
  }
  GearStep step{.kind = GearStep::Kind::kActive, .input_level = 0, .output_level = 1};
  for (const GearSst& s : levels[0]) {
    if (s.being_compacted) return std::nullopt;  // the driver runs one step at a time
    step.inputs.push_back(s.number);
  }
  return step;
}

std::optional<GearStep> WindowStep(const GearLevels& levels, const GearWindows& windows,
                                   const GearLimits& limits) {
  const int last = limits.num_levels - 1;
  for (int level = 1; level < last && static_cast<size_t>(level) < levels.size(); ++level) {
    if (LevelBytes(levels, level) <= limits.Limit(level)) continue;
    // Window SSTs first; a level whose window holds none of them (not
    // formed yet) offers all of its SSTs.
    const bool has_window = std::any_of(levels[level].begin(), levels[level].end(),
                                        [&](const GearSst& s) { return windows.InWindow(s.number); });
    std::vector<const GearSst*> candidates;
    for (const GearSst& s : levels[level]) {
      if ((windows.InWindow(s.number) || !has_window) && !s.being_compacted) {
        candidates.push_back(&s);
      }
    }
    std::optional<GearStep> dump, fallback;
    for (const GearSst* s : candidates) {  // in key order
      const Below below = Relation(*s, levels, level + 1, windows);
      if (below.busy) continue;
      GearStep step{.input_level = level, .output_level = level + 1, .inputs = {s->number}};
      if (below.overlapping > 0 && !below.outside_window) {
        step.kind = GearStep::Kind::kWindow;
        return step;
      }
      if (below.overlapping == 0) {
        step.kind = GearStep::Kind::kDump;
        if (!dump) dump = step;
        continue;
      }
      step.kind = GearStep::Kind::kOutOfWindow;
      step.out_of_window_bytes = below.outside_window_bytes;
      if (!fallback || step.out_of_window_bytes < fallback->out_of_window_bytes) fallback = step;
    }
    if (dump) return dump;
    if (fallback) return fallback;
  }
  return std::nullopt;
}

}  // namespace

std::optional<GearStep> PlanStep(const GearLevels& levels, const GearWindows& windows,
                                 const GearLimits& limits, const GearOptions& /*options*/) {
  // LevelDB's choice between L0 and the levels below (VersionSet::Finalize):
  // the higher score, L0's SSTs over its trigger against the highest of a
  // level's bytes over its limit, L0 first among equals. Taking L0 whenever
  // it is at its trigger starves the levels below while writers keep it
  // there: L1 grows without bound and every active step rewrites it.
  const double l0_score =
      levels.empty() ? 0.0 : static_cast<double>(levels[0].size()) / std::max(1u, limits.l0_trigger);
  double level_score = 0;
  for (int level = 1; level < limits.num_levels - 1 && static_cast<size_t>(level) < levels.size();
       ++level) {
    level_score = std::max(level_score, static_cast<double>(LevelBytes(levels, level)) /
                                            static_cast<double>(std::max<uint64_t>(1, limits.Limit(level))));
  }
  if (level_score > l0_score) {
    if (auto step = WindowStep(levels, windows, limits)) return step;
  }
  if (auto step = ActiveStep(levels, limits)) return step;
  return WindowStep(levels, windows, limits);
}

std::vector<GearStep> PlanCascade(const GearLevels& levels, int level,
                                  const std::vector<uint64_t>& outputs,
                                  const GearWindows& windows, const GearLimits& limits,
                                  const GearOptions& options) {
  const int below = level + 1;
  if (level < 1 || below >= limits.num_levels || static_cast<size_t>(level) >= levels.size()) {
    return {};
  }
  // L_(i+2) joins only once L_(i+1) is over its limit and L_(i+2) holds
  // a window's worth of data (3.3).
  if (LevelBytes(levels, level) <= limits.Limit(level)) return {};
  const uint64_t window_bytes = limits.Limit(below) / std::max<uint32_t>(1, options.k);
  if (LevelBytes(levels, below) < window_bytes || LevelBytes(levels, below) == 0) return {};
  const std::set<uint64_t> fresh(outputs.begin(), outputs.end());
  std::vector<GearStep> steps;
  GearStep run{.kind = GearStep::Kind::kPassive, .input_level = level, .output_level = below};
  for (const GearSst& s : levels[level]) {  // in key order
    bool goes = false;
    if (fresh.contains(s.number) && !s.being_compacted) {
      const Below r = Relation(s, levels, below, windows);
      goes = !r.busy && !r.outside_window;
    }
    if (goes) {
      run.inputs.push_back(s.number);
    } else if (!run.inputs.empty()) {
      steps.push_back(run);
      run.inputs.clear();
    }
  }
  if (!run.inputs.empty()) steps.push_back(run);
  return steps;
}

void GearCounters::Add(const std::string& name, int64_t n) {
  absl::MutexLock l(&mu_);
  counts_[name] += n;
}

void GearCounters::Set(const std::string& name, int64_t n) {
  absl::MutexLock l(&mu_);
  counts_[name] = n;
}

std::map<std::string, int64_t> GearCounters::Snapshot() const {
  absl::MutexLock l(&mu_);
  return counts_;
}

}  // namespace zonestack::policy
