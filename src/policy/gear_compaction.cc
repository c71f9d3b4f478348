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
  uint64_t overlapping_bytes = 0;
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
    r.overlapping_bytes += b.size;
    r.busy = r.busy || b.being_compacted;
    if (!windows.InWindow(below, b)) {
      r.outside_window = true;
      r.outside_window_bytes += b.size;
    }
  }
  return r;
}

// The level below L0 holding the most bytes (the deeper among equals), or
// -1 when all are empty.
int LargestLevel(const GearLevels& levels) {
  int source = -1;
  uint64_t most = 0;
  for (int level = 1; static_cast<size_t>(level) < levels.size(); ++level) {
    const uint64_t bytes = LevelBytes(levels, level);
    if (bytes > 0 && bytes >= most) {
      most = bytes;
      source = level;
    }
  }
  return source;
}

}  // namespace

void GearWindows::Cut(const GearLevels& levels) {
  // The largest level (the deeper among equals) gives the cuts: it holds
  // most of the data and changes least from one round to the next.
  const int source = LargestLevel(levels);
  const uint64_t most = source > 0 ? LevelBytes(levels, source) : 0;
  std::vector<std::string> cuts;
  const uint64_t k = std::max<uint32_t>(1, options_.k);
  if (source > 0 && levels[source].size() >= k) {
    const std::vector<GearSst>& ssts = levels[source];
    uint64_t before = 0;  // bytes of the SSTs before the one looked at
    uint64_t j = 1;       // the cut looked for: at j/k of the bytes
    for (const GearSst& s : ssts) {
      while (j < k && before * k >= most * j) {
        const std::string& floor = cuts.empty() ? ssts.front().smallest : cuts.back();
        if (floor < s.smallest) cuts.push_back(s.smallest);
        ++j;
      }
      before += s.size;
    }
  }
  if (!cuts.empty()) ++cuts_taken_;
  cuts_ = std::move(cuts);
}

void GearWindows::SetRange() {
  if (window_ >= slices()) window_ = 0;
  lo_ = window_ == 0 ? std::string() : cuts_[window_ - 1];
  hi_ = window_ < cuts_.size() ? std::optional<std::string>(cuts_[window_]) : std::nullopt;
}

void GearWindows::Update(const GearLevels& levels, const std::vector<GearZone>& zones) {
  // Zones reset since the last snapshot: gone from it, or written from
  // their start again.
  std::map<ZoneKey, uint64_t> now;
  for (const GearZone& z : zones) {
    if (!z.ssts.empty()) now[{z.device, z.zone}] = z.written_bytes;
  }
  for (const auto& [key, written] : zones_) {
    auto it = now.find(key);
    if (it == now.end() || it->second < written) ++zones_released_;
  }
  zones_ = std::move(now);
  if (cuts_.empty() && options_.k > 1 && options_.windows == GearWindowing::kKeySlices) {
    // One window over all keys until the tree is large enough to cut.
    Cut(levels);
    if (!cuts_.empty()) {
      window_ = 0;
      ++windows_formed_;
    }
    SetRange();
  }
}

bool GearWindows::Balanced(const GearLevels& levels) const {
  // Against the largest level, as Cut: no slice holds over twice its share.
  const int source = LargestLevel(levels);
  if (source < 0) return true;
  const uint64_t most = LevelBytes(levels, source);
  if (cuts_.size() + 1 < std::max<uint32_t>(1, options_.k)) return false;
  std::vector<uint64_t> in(slices(), 0);
  for (const GearSst& s : levels[source]) {
    const size_t slice = static_cast<size_t>(
        std::upper_bound(cuts_.begin(), cuts_.end(), s.smallest) - cuts_.begin());
    in[slice] += s.size;
  }
  const uint64_t k = slices();
  return std::all_of(in.begin(), in.end(), [&](uint64_t b) { return b * k <= 2 * most; });
}

void GearWindows::Rotate(const GearLevels& levels) {
  ++windows_released_;
  ++window_;
  if (window_ >= slices()) {
    window_ = 0;
    // A new round. The cuts stay while the slices hold about equal bytes:
    // every new cut leaves SSTs straddling it, which out-of-window steps
    // and gap rewrites then have to cut again.
    if (!Balanced(levels)) Cut(levels);
  }
  SetRange();
  ++windows_formed_;
}

bool GearWindows::InWindow(int level, const GearSst& sst) const {
  if (level < static_cast<int>(options_.whole_window_levels)) return true;
  return !(sst.largest < lo_) && (!hi_ || sst.smallest < *hi_);
}

bool GearWindows::Inside(const GearSst& sst) const {
  return !(sst.smallest < lo_) && (!hi_ || sst.largest < *hi_);
}

std::optional<std::string> GearWindows::Cursor(int level) const {
  auto it = cursors_.find({level, window_});
  if (it == cursors_.end()) return std::nullopt;
  return it->second;
}

void GearWindows::Advance(int level, const std::string& key) { cursors_[{level, window_}] = key; }

void GearWindows::Advance(const GearStep& step) {
  if (step.cursor) Advance(step.input_level, *step.cursor);
  if (options_.windows != GearWindowing::kAge) return;
  const int below = step.output_level;
  if (step.kind == GearStep::Kind::kActive) {
    // All of L1 is new; the cascade may take what lies ahead of its cursor.
    pulled_[below] = Pull{Cursor(below), Cursor(below)};
    return;
  }
  if (!step.cursor) return;
  // After a passive step of this level, the rest of the outputs ahead of
  // it may still go down; after its own window step, none.
  if (step.kind == GearStep::Kind::kPassive) {
    pulled_[step.input_level].at = step.cursor;
  } else {
    pulled_.erase(step.input_level);
  }
  // Did the step sweep over the next level's cursor? A cursor at the
  // start (none) is reached by a sweep from the start or to the end. The
  // cursor stays: only the cascade's steps, which sweep on from it, move
  // it. Set where the step left it, it skipped the part of the next
  // level's sweep over the level below it, whose zones then held SSTs
  // behind the cursor for a whole round (docs/geardb.md, 2.).
  const std::optional<std::string> c = Cursor(below);
  const bool passed = c ? (!step.from || *step.from <= *c) && (step.to_end || *c <= *step.cursor)
                        : !step.from || step.to_end;
  if (passed) {
    pulled_[below] = Pull{c, c};
  } else {
    pulled_.erase(below);
  }
}

std::optional<GearWindows::Pull> GearWindows::Pulled(int level) const {
  auto it = pulled_.find(level);
  if (it == pulled_.end()) return std::nullopt;
  return it->second;
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

enum class Pick { kStep, kBusy, kEmpty };

// The victim of `level` in the current window: its first SST inside the
// window after the level's cursor, or from the window's start once the
// cursor has passed the last (round robin). kEmpty: the level has nothing
// in the window.
Pick WindowVictim(const GearLevels& levels, int level, const GearWindows& windows,
                  const GearLimits& limits, const GearOptions& options, GearStep* step) {
  const int below = level + 1;
  // Victims lie in the next level's window, so their overlap there does
  // too: for a level with the whole level as window (L1), that is the
  // current slice as well.
  std::vector<const GearSst*> candidates;
  for (const GearSst& s : levels[level]) {
    if (windows.InWindow(below, s)) candidates.push_back(&s);  // in key order
  }
  if (candidates.empty()) return Pick::kEmpty;
  std::optional<std::string> cursor = windows.Cursor(level);
  size_t at = 0;
  if (cursor) {
    while (at < candidates.size() && !(*cursor < candidates[at]->smallest)) ++at;
    if (at == candidates.size()) {  // the sweep went round: start again
      at = 0;
      cursor.reset();
    }
  }
  const GearSst& victim = *candidates[at];
  if (victim.being_compacted) return Pick::kBusy;
  Below r = Relation(victim, levels, below, windows);
  if (r.busy) return Pick::kBusy;
  *step = GearStep{.input_level = level, .output_level = below, .inputs = {victim.number}};
  // More victims after it, in key order, within step_bytes (GearLimits).
  size_t last = at;
  uint64_t bytes = victim.size + r.overlapping_bytes;
  while (last + 1 < candidates.size()) {
    const GearSst& next = *candidates[last + 1];
    const Below n = Relation(next, levels, below, windows);
    if (next.being_compacted || n.busy || bytes + next.size + n.overlapping_bytes > limits.step_bytes) {
      break;
    }
    bytes += next.size + n.overlapping_bytes;
    step->inputs.push_back(next.number);
    r.overlapping += n.overlapping;
    r.outside_window = r.outside_window || n.outside_window;
    r.outside_window_bytes += n.outside_window_bytes;
    ++last;
  }
  const GearSst& end = *candidates[last];
  step->cursor = end.largest;
  step->from = cursor;
  const std::string from = cursor.value_or(std::string());  // "": the window's start
  const bool window_end = last + 1 == candidates.size();
  if (options.sweep_gaps && static_cast<size_t>(below) < levels.size()) {
    // The next level's SSTs inside the window that no victim of this
    // sweep overlaps: between the cursor and the last victim, and after
    // the last victim of the window.
    step->to_end = window_end;
    for (const GearSst& b : levels[below]) {
      // Over the window, straddlers of older cuts too: rewritten, they are
      // cut at the current ones.
      if (!windows.InWindow(below, b) || b.being_compacted) continue;
      bool overlapped = false;
      for (size_t i = at; i <= last && !overlapped; ++i) overlapped = Overlaps(*candidates[i], b);
      if (overlapped) continue;  // RocksDB takes it anyway
      const bool before = b.largest < end.largest && (from.empty() || from < b.smallest);
      const bool after = window_end && end.largest < b.smallest;
      if (before || after) {
        step->inputs.push_back(b.number);
        step->gap_bytes += b.size;
      }
    }
  }
  if (r.overlapping > 0) {
    step->kind = r.outside_window ? GearStep::Kind::kOutOfWindow : GearStep::Kind::kWindow;
    step->out_of_window_bytes = r.outside_window_bytes;
  } else {
    step->kind = step->gap_bytes > 0 ? GearStep::Kind::kWindow : GearStep::Kind::kDump;
  }
  return Pick::kStep;
}

std::optional<GearStep> WindowStep(const GearLevels& levels, GearWindows& windows,
                                   const GearLimits& limits, const GearOptions& options) {
  // LevelDB's order (VersionSet::Finalize): the level furthest over its
  // limit first. Taking the lowest level over its limit starved the
  // levels below while writers kept L1 over its own: a smoke run's L3 grew
  // to 3.6 times its limit and never reached L4.
  const int last = limits.num_levels - 1;
  std::vector<std::pair<double, int>> order;  // (-score, level)
  for (int level = 1; level < last && static_cast<size_t>(level) < levels.size(); ++level) {
    const uint64_t bytes = LevelBytes(levels, level);
    const uint64_t limit = std::max<uint64_t>(1, limits.Limit(level));
    if (bytes > limit) {
      order.push_back({-static_cast<double>(bytes) / static_cast<double>(limit), level});
    }
  }
  std::sort(order.begin(), order.end());
  for (const auto& [unused, level] : order) {
    // A level with nothing left in the window releases it: the next slice
    // forms the window (3.2's rotation), at most once round.
    for (uint32_t tries = 0; tries < windows.slices(); ++tries) {
      GearStep step;
      const Pick pick = WindowVictim(levels, level, windows, limits, options, &step);
      if (pick == Pick::kStep) return step;
      // By age, one window holds the whole level: nothing to rotate to.
      if (pick == Pick::kBusy || options.windows == GearWindowing::kAge) break;
      windows.Rotate(levels);
    }
  }
  return std::nullopt;
}

// The cascade with age windows: the outputs of the step that swept over
// `level`'s cursor, lying ahead of it, go down while they lie in the next
// level's window (its first 1/k of bytes ahead of the cursor); each run
// of them is `level`'s next window step taken early, with the next
// level's SSTs of its gaps, so that the next level is still rewritten in
// the order its zones were written.
std::vector<GearStep> AgeCascade(const GearLevels& levels, int level,
                                 const std::vector<uint64_t>& outputs, const GearWindows& windows,
                                 const GearLimits& limits, const GearOptions& options) {
  const int below = level + 1;
  const std::optional<GearWindows::Pull> pulled = windows.Pulled(level);
  if (!pulled) return {};
  const std::optional<std::string>& origin = pulled->origin;
  const std::optional<std::string>& from = pulled->at;
  auto ahead = [&](const GearSst& s) { return !from || *from < s.smallest; };
  // The next level's window: its first 1/k of bytes ahead of `origin`;
  // its last key, none when it reaches the level's end.
  std::optional<std::string> window_last;
  const uint64_t k = std::max<uint32_t>(1, options.k);
  const uint64_t want = (LevelBytes(levels, below) + k - 1) / k;
  // A whole-window level (whole_window_levels) has all of it.
  const bool whole = below < static_cast<int>(options.whole_window_levels);
  uint64_t in_window = 0;
  for (size_t n = 0; !whole && n < levels[below].size(); ++n) {
    const GearSst& b = levels[below][n];
    if (origin && !(*origin < b.largest)) continue;
    in_window += b.size;
    if (in_window >= want) {
      window_last = b.largest;
      break;
    }
  }
  const std::set<uint64_t> fresh(outputs.begin(), outputs.end());
  std::vector<GearStep> steps;
  GearStep run{.kind = GearStep::Kind::kPassive, .input_level = level, .output_level = below};
  run.from = from;
  auto close = [&] {
    if (run.inputs.empty()) return;
    const std::set<uint64_t> victims(run.inputs.begin(), run.inputs.end());
    std::vector<const GearSst*> taken;
    for (const GearSst& s : levels[level]) {
      if (victims.contains(s.number)) taken.push_back(&s);
    }
    run.cursor = taken.back()->largest;
    if (options.sweep_gaps) {
      for (const GearSst& b : levels[below]) {
        if (b.being_compacted || !(b.largest < *run.cursor) || (run.from && !(*run.from < b.smallest))) {
          continue;
        }
        const bool overlapped = std::any_of(taken.begin(), taken.end(),
                                            [&](const GearSst* s) { return Overlaps(*s, b); });
        if (!overlapped) {
          run.inputs.push_back(b.number);
          run.gap_bytes += b.size;
        }
      }
    }
    steps.push_back(run);
    run = GearStep{.kind = GearStep::Kind::kPassive, .input_level = level, .output_level = below};
    run.from = steps.back().cursor;
  };
  // A run's SSTs and their overlap below stay within step_bytes, as a
  // window step's: the step needs that much free space before its inputs
  // die.
  uint64_t run_bytes = 0;
  for (const GearSst& s : levels[level]) {  // in key order
    bool goes = false;
    uint64_t bytes = 0;
    if (fresh.contains(s.number) && !s.being_compacted && ahead(s) &&
        (!window_last || !(*window_last < s.largest))) {
      const Below r = Relation(s, levels, below, windows);
      goes = !r.busy;
      bytes = s.size + r.overlapping_bytes;
    }
    if (goes && !run.inputs.empty() && run_bytes + bytes > limits.step_bytes) {
      close();
      run_bytes = 0;
    }
    if (goes) {
      run.inputs.push_back(s.number);
      run_bytes += bytes;
    } else if (ahead(s)) {
      close();
      run_bytes = 0;
    }
  }
  close();
  return steps;
}

}  // namespace

std::optional<GearStep> PlanStep(const GearLevels& levels, GearWindows& windows,
                                 const GearLimits& limits, const GearOptions& options) {
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
    if (auto step = WindowStep(levels, windows, limits, options)) return step;
  }
  if (auto step = ActiveStep(levels, limits)) return step;
  return WindowStep(levels, windows, limits, options);
}

std::vector<GearStep> PlanCascade(const GearLevels& levels, int level,
                                  const std::vector<uint64_t>& outputs,
                                  const GearWindows& windows, const GearLimits& limits,
                                  const GearOptions& options) {
  const int below = level + 1;
  if (!options.cascade) return {};
  if (level < 1 || below >= limits.num_levels || static_cast<size_t>(level) >= levels.size()) {
    return {};
  }
  // L_(i+2) joins only once L_(i+1) is over its limit and L_(i+2) holds
  // a window's worth of data (3.3).
  if (LevelBytes(levels, level) <= limits.Limit(level)) return {};
  const uint64_t window_bytes = limits.Limit(below) / std::max<uint32_t>(1, options.k);
  if (LevelBytes(levels, below) < window_bytes || LevelBytes(levels, below) == 0) return {};
  if (options.windows == GearWindowing::kAge) {
    return AgeCascade(levels, level, outputs, windows, limits, options);
  }
  const std::set<uint64_t> fresh(outputs.begin(), outputs.end());
  std::vector<GearStep> steps;
  GearStep run{.kind = GearStep::Kind::kPassive, .input_level = level, .output_level = below};
  for (const GearSst& s : levels[level]) {  // in key order
    bool goes = false;
    if (fresh.contains(s.number) && !s.being_compacted && windows.InWindow(below, s)) {
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
