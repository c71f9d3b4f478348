// GearDB (Yao et al., FAST 2019) on HM-SMR: the per-level zone layout of
// section 3.1 (a zone holds SSTs of one level only; with window_zones, of
// one level and one key slice, the driver's current window), no GC ever, and the
// options of its compaction windows and gear compaction (3.2-3.3), which
// the glue's driver carries out (policy/gear_compaction.h,
// glue/gear_driver.h). docs/geardb.md has the mapping onto RocksDB.
// The option "gc" turns zfs's GC on: the SplitZNS paper's Gear baseline
// (SplitZNS 5.1.3) is GearDB's layout and compaction on a ZNS SSD "with
// GC enabled just as we do for LDP" (docs/splitzns.md, "Baselines").
#include <string_view>

#include "policy/scheme_registry.h"

namespace zonestack::policy {
namespace {

struct GearDbOptions : GearOptions {
  // GearDB runs no GC (3.2). SplitZNS's reimplementation, "Gear", runs
  // greedy GC at 20% free as its LDP (SplitZNS 5.1.3): Gear holds more
  // space in SSTs its longer compactions keep alive.
  bool gc = false;
};

// GC's free-zone threshold when "gc" is on and the config names no "gc"
// (SplitZNS 5.1.3: GC "when the free space falls under the threshold
// (20%)", for LDP and so for Gear).
constexpr double kGearGcThreshold = 0.20;

// The group of a file that is not an SST: the WAL's, the small
// long-lived files' (kGearSmallFilesGroup), or the MANIFEST's and info
// LOG's.
uint32_t NonSstGroup(const FileHint& f) {
  if (f.kind == FileKind::kWal) return kGearWalGroup;
  if (f.kind == FileKind::kManifest) return kGearOtherGroup;
  const std::string_view name = std::string_view(f.name).substr(f.name.rfind('/') + 1);
  return name.starts_with("LOG") ? kGearOtherGroup : kGearSmallFilesGroup;
}

const OptionTable<GearDbOptions>& GearTable() {
  static const auto* t =
      &(new OptionTable<GearDbOptions>)
           ->Choice<GearWindowing>(
               "windows", &GearDbOptions::windows,
               {{"age", GearWindowing::kAge}, {"key_slices", GearWindowing::kKeySlices}},
               "\"age\" (the paper's rotation): a level's window is its oldest SSTs, just "
               "ahead of the level above's sweep; \"key_slices\" (ours): 1/k key slices "
               "shared by all levels, in rotation (GearDB 3.2)")
           .Integer<uint32_t>("k", &GearDbOptions::k, 1, 64,
                              "a level's compaction window is 1/k of it (GearDB 3.2)")
           .Integer<uint32_t>("whole_window_levels", &GearDbOptions::whole_window_levels, 0, 16,
                              "levels 0 to this one less 1 have the whole level as their window")
           .Bool("sweep_gaps", &GearDbOptions::sweep_gaps,
                 "true: a window step also rewrites the next level's SSTs of the window that "
                 "no victim overlaps, so its zones die whole; false: RocksDB's overlap only")
           .Bool("window_zones", &GearDbOptions::window_zones,
                 "false (the paper): one zone group per level; true (ours): a windowed "
                 "level's zones hold one window's (key slice's) SSTs each")
           .Bool("cascade", &GearDbOptions::cascade,
                 "true: passive compactions carry new outputs on into the next level's window "
                 "(GearDB 3.3); false: window compactions only")
           .Number("slowdown_ms", &GearDbOptions::slowdown_ms, /*zero_ok=*/true,
                   "ms each write waits while L0 is at level0_slowdown_writes_trigger "
                   "(LevelDB's write slowdown: 1)")
           .Bool("space_hold", &GearDbOptions::space_hold,
                 "true: a writer waits while the disk's empty zones are fewer than a driver "
                 "step needs and the driver has work, instead of failing for space the next "
                 "steps free; false: LevelDB's L0 slowdown and stop only")
           .Bool("gc", &GearDbOptions::gc,
                 "false: no GC ever (GearDB 3.2); true: zfs's greedy GC at 20% free zones, or "
                 "the config's \"gc\" (SplitZNS 5.1.3's Gear baseline)")
           .Require([](const GearDbOptions& o) {
             return o.window_zones && o.windows != GearWindowing::kKeySlices
                        ? absl::InvalidArgumentError(
                              "option \"window_zones\" needs \"windows\": \"key_slices\" "
                              "(a zone group per key slice)")
                        : absl::OkStatus();
           });
  return *t;
}

class GearDbScheme : public Scheme {
 public:
  GearDbScheme(std::string name, GearDbOptions o, const SchemeEnv& env)
      : Scheme(env), name_(std::move(name)), options_(o) {}
  std::string name() const override { return name_; }
  std::string without_hints() const override {
    return "every SST goes to L0's zones and no gear compaction runs";
  }
  // Zones are freed whole, by compactions (3.2); GC would hide a layout
  // that stopped freeing them. Unless "gc" asks for it (SplitZNS's Gear).
  bool allows_gc() const override { return options_.gc; }
  std::optional<double> gc_threshold() const override {
    return options_.gc ? std::optional<double>(kGearGcThreshold) : std::nullopt;
  }

  PlacementDecision Place(const FileHint& f, const std::vector<DeviceView>& devices) override {
    PlacementDecision d;
    for (uint32_t i = 0; i < devices.size(); ++i) d.devices.push_back(i);
    if (f.kind != FileKind::kSst) {
      d.group = NonSstGroup(f);
    } else {
      // Outputs into a windowed level are written inside the driver's
      // current window (docs/geardb.md, "2. Compaction windows").
      const bool windowed = options_.window_zones &&
                            f.level >= static_cast<int>(options_.whole_window_levels);
      d.group = GearGroup(f.level, windowed ? window_.load(std::memory_order_relaxed) : 0);
    }
    return d;
  }

  std::optional<GearSetup> gear() override { return GearSetup{options_, &counters_, &window_}; }
  std::map<std::string, int64_t> counters() const override { return counters_.Snapshot(); }

 private:
  const std::string name_;
  const GearDbOptions options_;
  GearCounters counters_;
  std::atomic<uint32_t> window_{0};
};

// GearDB's baselines' layout (2.3, Figure 2): the conventional log, where
// SSTs of every level are appended to the same zones; the WAL and the
// MANIFEST apart, as GearDB keeps them off the SMR drive. With zfs's GC
// (the config's "gc") it is Ldb-Greedy or Ldb-CB, and with RocksDB's
// round-robin compaction LLC (docs/geardb.md, "Baselines").
class LogScheme : public Scheme {
 public:
  LogScheme(std::string name, const SchemeEnv& env) : Scheme(env), name_(std::move(name)) {}
  std::string name() const override { return name_; }
  bool hinted() const override { return false; }
  PlacementDecision Place(const FileHint& f, const std::vector<DeviceView>& devices) override {
    PlacementDecision d;
    for (uint32_t i = 0; i < devices.size(); ++i) d.devices.push_back(i);
    d.group = f.kind == FileKind::kSst ? kGearFirstLevelGroup : NonSstGroup(f);
    return d;
  }

 private:
  const std::string name_;
};

struct NoOptions {};
const OptionTable<NoOptions>& NoOptionTable() {
  static const auto* table = new OptionTable<NoOptions>;
  return *table;
}

}  // namespace

ZONESTACK_SCHEMES(geardb) {
  registry.Add(SchemeSpecFor<GearDbOptions>(
      "geardb",
      "GearDB on HM-SMR: zones of one LSM level each, compaction windows of a level's oldest "
      "1/k, gear compaction by the glue's driver, no GC unless \"gc\" (GearDB 3.1-3.3; "
      "gc: SplitZNS 5.1.3's Gear)",
      GearTable(), GearDbOptions{},
      [](const std::string& name, GearDbOptions o, const SchemeEnv& env) {
        return std::make_shared<GearDbScheme>(name, o, env);
      }));
  registry.Add(SchemeSpecFor<NoOptions>(
      "log",
      "the conventional log layout of GearDB's baselines: SSTs of all levels share zones "
      "(GearDB 2.3); with zfs's GC, Ldb-Greedy or Ldb-CB",
      NoOptionTable(), NoOptions{}, [](const std::string& name, NoOptions, const SchemeEnv& env) {
        return std::make_shared<LogScheme>(name, env);
      }));
}

}  // namespace zonestack::policy
