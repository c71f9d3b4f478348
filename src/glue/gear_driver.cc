#include "glue/gear_driver.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "glue/status_map.h"
#include "policy/lsm_view.h"
#include "rocksdb/comparator.h"
#include "rocksdb/metadata.h"
#include "rocksdb/options.h"
#include "rocksdb/sst_partitioner.h"

namespace zonestack::rocks {
namespace {

// The thread looks for work this often without a wake (a compaction that
// failed with Aborted, or levels grown by a flush it was not told of).
constexpr absl::Duration kPollPeriod = absl::Milliseconds(100);

// Wakes the driver when a flush completes: a step may be due. It is also
// LevelDB's write slowdown and write stop, which RocksDB drops with
// automatic compactions off. The writer that sealed a full MemTable waits
// here (RocksDB calls OnMemTableSealed on the writing thread, without its
// DB mutex): while L0 holds level0_stop_writes_trigger SSTs until the
// driver's active compaction empties L0, and from
// level0_slowdown_writes_trigger on for 1 ms per entry of the sealed
// MemTable (`hold` returns when it may go on); and, with the space hold,
// while the disk's empty zones are fewer than a driver step needs and
// the driver has work (GearOptions::space_hold). Not on a flush thread: a
// flush holds its output's file number among RocksDB's pending outputs
// until it returns, and RocksDB deletes no obsolete SST numbered above it
// meanwhile, so every SST the driver's steps made obsolete during the
// stop stayed on the disk.
class WakeListener : public rocksdb::EventListener {
 public:
  WakeListener(std::function<void()> wake, std::function<void(uint64_t entries)> hold)
      : wake_(std::move(wake)), hold_(std::move(hold)) {}
  const char* Name() const override { return "ZoneStackGearWake"; }
  // Empty, so the OPTIONS files RocksDB writes leave it out (as the hint
  // listener's): re-read, the name would make nothing.
  std::string GetId() const override { return ""; }
  void OnFlushCompleted(rocksdb::DB* /*db*/, const rocksdb::FlushJobInfo&) override { wake_(); }
  void OnMemTableSealed(const rocksdb::MemTableInfo& info) override {
    wake_();
    hold_(info.num_entries);
  }

 private:
  const std::function<void()> wake_;
  const std::function<void(uint64_t entries)> hold_;
};

// How often a held writer looks at L0 again.
constexpr absl::Duration kHoldPeriod = absl::Milliseconds(2);
// LevelDB's write slowdown (DBImpl::MakeRoomForWrite): from
// kL0_SlowdownWritesTrigger files in L0 on, each write sleeps 1 ms once
// (GearOptions::slowdown_ms). Held at the seal, a MemTable's writes pay it
// together: the same delay per write on average, a burst of them at once.

// Cuts a compaction's output where a window's key slice begins, so that an
// SST lies in one window only (docs/geardb.md, "2. Compaction windows").
class CutPartitioner : public rocksdb::SstPartitioner {
 public:
  explicit CutPartitioner(std::vector<std::string> cuts) : cuts_(std::move(cuts)) {}
  const char* Name() const override { return "ZoneStackGearCuts"; }
  rocksdb::PartitionerResult ShouldPartition(const rocksdb::PartitionerRequest& r) override {
    // A cut c with prev < c <= current: the new key starts another slice.
    const rocksdb::Slice prev = *r.prev_user_key;
    const rocksdb::Slice cur = *r.current_user_key;
    auto it = std::upper_bound(cuts_.begin(), cuts_.end(), prev,
                               [](const rocksdb::Slice& key, const std::string& cut) {
                                 return key.compare(rocksdb::Slice(cut)) < 0;
                               });
    return it != cuts_.end() && rocksdb::Slice(*it).compare(cur) <= 0
               ? rocksdb::PartitionerResult::kRequired
               : rocksdb::PartitionerResult::kNotRequired;
  }
  bool CanDoTrivialMove(const rocksdb::Slice& smallest, const rocksdb::Slice& largest) override {
    auto it = std::upper_bound(cuts_.begin(), cuts_.end(), smallest,
                               [](const rocksdb::Slice& key, const std::string& cut) {
                                 return key.compare(rocksdb::Slice(cut)) < 0;
                               });
    return it == cuts_.end() || largest.compare(rocksdb::Slice(*it)) < 0;
  }

 private:
  const std::vector<std::string> cuts_;  // ascending
};

class CutPartitionerFactory : public rocksdb::SstPartitionerFactory {
 public:
  explicit CutPartitionerFactory(std::shared_ptr<GearDriver::Cuts> cuts)
      : cuts_(std::move(cuts)) {}
  const char* Name() const override { return "ZoneStackGearCuts"; }
  // Empty, so the OPTIONS files RocksDB writes leave it out (as the
  // listeners'): re-read, the name would make nothing.
  std::string GetId() const override { return ""; }
  std::unique_ptr<rocksdb::SstPartitioner> CreatePartitioner(
      const rocksdb::SstPartitioner::Context& /*context*/) const override {
    absl::MutexLock l(&cuts_->mu);
    return std::make_unique<CutPartitioner>(cuts_->cuts);
  }

 private:
  const std::shared_ptr<GearDriver::Cuts> cuts_;
};

}  // namespace

GearDriver::GearDriver(std::shared_ptr<zfs::Volume> volume, policy::Scheme::GearSetup setup)
    : volume_(std::move(volume)),
      options_(setup.options),
      counters_(setup.counters),
      window_(setup.window),
      windows_(setup.options) {}

GearDriver::~GearDriver() { Stop(); }

std::shared_ptr<rocksdb::EventListener> GearDriver::listener() {
  std::weak_ptr<Signal> signal = signal_;
  auto wake = [signal] {
    if (auto s = signal.lock()) {
      absl::MutexLock l(&s->mu);
      s->wake = true;
    }
  };
  const absl::Duration per_write = absl::Milliseconds(options_.slowdown_ms);
  std::weak_ptr<zfs::Volume> weak_volume = volume_;
  auto hold = [signal, per_write, weak_volume](uint64_t entries) {
    bool counted = false;  // held at the stop trigger or for space
    bool slowed = false;   // slowed at the slowdown trigger
    absl::Duration delay = per_write * static_cast<int64_t>(entries);
    uint64_t failures = 0;
    {
      auto s = signal.lock();
      if (!s) return;
      absl::MutexLock l(&s->mu);
      failures = s->failures;
    }
    // The time this writer was held for space, added when it goes on.
    std::optional<absl::Time> space_since;
    absl::Cleanup add_space_time = [&] {
      if (!space_since) return;
      if (auto s = signal.lock()) {
        absl::MutexLock l(&s->mu);
        s->space_hold_us += absl::ToInt64Microseconds(absl::Now() - *space_since);
      }
    };
    while (true) {
      rocksdb::DB* db = nullptr;
      uint32_t reserve = 0;
      bool working = false;
      {
        auto s = signal.lock();
        if (!s) return;
        absl::MutexLock l(&s->mu);
        // Not before the driver runs, nor once it stops, nor once a step
        // failed (the disk full): nothing would empty L0, and the writer
        // must see the error.
        if (!s->started || s->stop || s->db == nullptr || s->failures != failures) return;
        db = s->db;
        reserve = s->reserve_zones;
        working = s->running || s->wake;
      }
      const rocksdb::Options o = db->GetOptions();
      const uint64_t stop = static_cast<uint64_t>(std::max(0, o.level0_stop_writes_trigger));
      const uint64_t trigger =
          static_cast<uint64_t>(std::max(1, o.level0_file_num_compaction_trigger));
      const uint64_t slowdown = static_cast<uint64_t>(std::max(0, o.level0_slowdown_writes_trigger));
      // String properties: GetIntProperty does not know them. The sealed
      // MemTables not yet flushed will land in L0 too, and the next one
      // the writer fills may be flushed by a flush already scheduled,
      // even while it is held: hold while L0 and the sealed MemTables
      // reach the stop trigger (LevelDB waits before its next switch
      // while L0 is at the trigger), so L0 never exceeds it; but only
      // while L0 holds enough for the driver's active compaction (else
      // nothing would empty it: the sealed MemTables flush only once the
      // writer goes on).
      std::string l0_text, imm_text;
      uint64_t l0 = 0, imm = 0;
      if (stop == 0 || !db->GetProperty("rocksdb.num-files-at-level0", &l0_text) ||
          !absl::SimpleAtoi(l0_text, &l0) ||
          !db->GetProperty("rocksdb.num-immutable-mem-table", &imm_text) ||
          !absl::SimpleAtoi(imm_text, &imm)) {
        return;
      }
      const bool stopped = l0 + imm >= stop && l0 >= trigger;
      // Short of space: fewer empty zones than a step may need, while the
      // driver has a step under way or due. Once it has none, waiting
      // would free nothing: the writer goes on (and fails if the data
      // does not fit).
      bool short_of_space = false;
      if (!stopped && reserve > 0 && working) {
        auto volume = weak_volume.lock();
        if (!volume) return;
        uint64_t empty = 0;
        for (const zfs::DeviceSpace& d : volume->Space()) empty += d.empty_zones;
        short_of_space = empty < reserve;
      }
      // Held while the stop holds or space is short; else (or no longer
      // held) slowed for this MemTable's writes while L0 stays at the
      // slowdown trigger, in steps of kHoldPeriod so that L0 falling below
      // it, or the driver stopping, ends the delay (a large MemTable's
      // delay comes in one piece otherwise).
      const bool held = stopped || short_of_space;
      if (!held && (counted || slowdown == 0 || l0 < slowdown || entries == 0)) return;
      auto s = signal.lock();
      if (!s) return;
      absl::MutexLock l(&s->mu);
      if (!s->started || s->stop) return;
      absl::Duration wait = kHoldPeriod;
      if (stopped) {
        if (!counted) ++s->write_stops;
        counted = true;
      } else if (short_of_space) {
        if (!space_since) {
          ++s->space_holds;
          space_since = absl::Now();
        }
        counted = true;
      } else {
        if (!slowed) ++s->write_slowdowns;
        slowed = true;
        if (delay <= absl::ZeroDuration()) return;
        wait = std::min(delay, kHoldPeriod);
        delay -= wait;
      }
      auto stopping = [&s]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return s->stop; };
      s->mu.AwaitWithTimeout(absl::Condition(&stopping), wait);
    }
  };
  return std::make_shared<WakeListener>(wake, hold);
}

std::shared_ptr<rocksdb::SstPartitionerFactory> GearDriver::partitioner_factory() {
  return std::make_shared<CutPartitionerFactory>(cuts_);
}

void GearDriver::Start(rocksdb::DB* db) {
  db_ = db;
  const rocksdb::Options o = db->GetOptions();
  limits_ = policy::GearLimits{
      .l0_trigger = static_cast<uint32_t>(std::max(1, o.level0_file_num_compaction_trigger)),
      .base_bytes = o.max_bytes_for_level_base,
      .multiplier = o.max_bytes_for_level_multiplier,
      .num_levels = o.num_levels,
      // RocksDB's bound on one compaction's input (25 target SSTs unless
      // set; 0 only when the options were not sanitized).
      .step_bytes = o.max_compaction_bytes > 0 ? o.max_compaction_bytes
                                               : 25 * o.target_file_size_base};
  // The space hold's reserve: one step's bytes (its inputs with their
  // overlap stay within step_bytes, and its outputs are no larger) in
  // the smallest zones of the volume, one zone more for the partly
  // written zone the output level's group may leave, and one for each
  // other group that may need a new zone while the writer is held or
  // before the driver wakes: L0's (the flushes of MemTables sealed
  // already), the WAL's and the MANIFEST's and info LOG's. zfs shares no
  // zone across groups without GC, so a step that finds its level's zone
  // full and none empty fails, and RocksDB's background error ends the
  // load.
  constexpr uint32_t kOtherGroupZones = 3;
  uint32_t reserve = 0;
  if (options_.space_hold) {
    uint64_t zone = 0;
    for (const auto& d : volume_->devices()) {
      const uint64_t cap = d->info().zone_capacity;
      zone = zone == 0 ? cap : std::min(zone, cap);
    }
    if (zone > 0) {
      reserve = static_cast<uint32_t>((limits_.step_bytes + zone - 1) / zone) + 1 +
                kOtherGroupZones;
    }
  }
  {
    absl::MutexLock l(&signal_->mu);
    signal_->started = true;
    signal_->db = db;
    signal_->reserve_zones = reserve;
  }
  thread_ = std::thread([this] { Loop(); });
}

void GearDriver::Wake() {
  absl::MutexLock l(&signal_->mu);
  signal_->wake = true;
}

absl::Status GearDriver::last_error() const {
  absl::MutexLock l(&signal_->mu);
  return signal_->last_error;
}

void GearDriver::Stop() {
  {
    absl::MutexLock l(&signal_->mu);
    signal_->stop = true;
  }
  if (thread_.joinable()) thread_.join();
}

void GearDriver::SetStepObserver(StepObserver observer) {
  absl::MutexLock l(&observer_mu_);
  observer_ = std::move(observer);
}

void GearDriver::Loop() {
  Signal& sig = *signal_;
  while (true) {
    {
      absl::MutexLock l(&sig.mu);
      auto woken = [&sig]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return sig.wake || sig.stop; };
      sig.mu.AwaitWithTimeout(absl::Condition(&woken), kPollPeriod);
      if (sig.stop) return;
      sig.wake = false;
      sig.running = true;
    }
    absl::Status s = RunUntilIdle();
    absl::MutexLock l(&sig.mu);
    sig.running = false;
    if (!s.ok()) {
      sig.last_error = s;
      ++sig.failures;
    }
    // A background error makes the DB read-only: no step can succeed.
    if (!s.ok() && !absl::IsAborted(s)) {
      std::string why;
      if (db_->GetProperty("rocksdb.background-errors", &why) && why != "0") return;
    }
  }
}

GearDriver::Snapshot GearDriver::Take() {
  Snapshot snap;
  rocksdb::ColumnFamilyMetaData meta;
  db_->GetColumnFamilyMetaData(&meta);
  std::set<uint64_t> live;
  for (const rocksdb::LevelMetaData& level : meta.levels) {
    std::vector<policy::GearSst> ssts;
    for (const rocksdb::SstFileMetaData& f : level.files) {
      ssts.push_back({.number = f.file_number,
                      .size = f.size,
                      .smallest = f.smallestkey,
                      .largest = f.largestkey,
                      .being_compacted = f.being_compacted});
      snap.paths[f.file_number] = absl::StrCat(f.directory, "/", f.relative_filename);
      live.insert(f.file_number);
    }
    // L0 comes newest first; the plan wants every level in key order.
    if (level.level > 0) {
      std::sort(ssts.begin(), ssts.end(),
                [](const policy::GearSst& a, const policy::GearSst& b) {
                  return a.smallest < b.smallest;
                });
    }
    snap.levels.push_back(std::move(ssts));
  }
  // Which zone of which level holds which live SST.
  std::map<std::pair<uint32_t, uint32_t>, std::set<uint64_t>> in_zone;
  // Diagnostics: SST files zfs still holds that RocksDB no longer lists,
  // and live SSTs in a zone of another level than RocksDB's.
  int64_t unlisted_bytes = 0, misplaced_bytes = 0;
  std::map<uint64_t, int> level_of;
  for (size_t l = 0; l < snap.levels.size(); ++l) {
    for (const policy::GearSst& sst : snap.levels[l]) level_of[sst.number] = static_cast<int>(l);
  }
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> group_of;
  for (const zfs::ZoneReport& z : volume_->Zones()) group_of[{z.device, z.zone.index}] = z.group;
  for (const zfs::FileInfo& f : volume_->Files()) {
    if (f.hint.kind != zfs::FileKind::kSst) continue;
    for (const std::string& name : f.names) {
      const int64_t number = policy::SstNumber(name);
      if (number < 0) continue;
      if (!live.contains(static_cast<uint64_t>(number))) {
        for (const zfs::ExtentInfo& x : f.extents) unlisted_bytes += static_cast<int64_t>(x.length);
        continue;
      }
      for (const zfs::ExtentInfo& x : f.extents) {
        in_zone[{x.device, x.zone}].insert(static_cast<uint64_t>(number));
        auto g = group_of.find({x.device, x.zone});
        if (g != group_of.end() &&
            policy::GearLevelOfGroup(g->second) != level_of[static_cast<uint64_t>(number)]) {
          misplaced_bytes += static_cast<int64_t>(x.length);
        }
      }
    }
  }
  counters_->Set("unlisted_sst_bytes", unlisted_bytes);
  counters_->Set("misplaced_sst_bytes", misplaced_bytes);
  std::vector<policy::GearZone> zones;
  for (const zfs::ZoneReport& z : volume_->Zones()) {
    if (z.role != zfs::ZoneRole::kData) continue;
    const int level = policy::GearLevelOfGroup(z.group);
    auto it = in_zone.find({z.device, z.zone.index});
    if (level < 0 || it == in_zone.end()) continue;
    zones.push_back({.device = z.device,
                     .zone = z.zone.index,
                     .level = level,
                     .written_bytes = z.written_bytes,
                     .ssts = {it->second.begin(), it->second.end()}});
  }
  windows_.Update(snap.levels, zones);
  PublishWindows();
  {
    absl::MutexLock l(&signal_->mu);
    counters_->Set("write_stops", static_cast<int64_t>(signal_->write_stops));
    counters_->Set("write_slowdowns", static_cast<int64_t>(signal_->write_slowdowns));
    counters_->Set("space_holds", static_cast<int64_t>(signal_->space_holds));
    counters_->Set("space_hold_us", signal_->space_hold_us);
  }
  return snap;
}

void GearDriver::PublishWindows() {
  counters_->Set("zones_released", static_cast<int64_t>(windows_.zones_released()));
  counters_->Set("windows_released", static_cast<int64_t>(windows_.windows_released()));
  counters_->Set("windows_formed", static_cast<int64_t>(windows_.windows_formed()));
  counters_->Set("cuts_taken", static_cast<int64_t>(windows_.cuts_taken()));
  counters_->Set("slices", static_cast<int64_t>(windows_.slices()));
  counters_->Set("window", static_cast<int64_t>(windows_.window()));
  if (window_ != nullptr) window_->store(windows_.window(), std::memory_order_relaxed);
  absl::MutexLock l(&cuts_->mu);
  cuts_->cuts = windows_.cuts();
}

absl::Status GearDriver::Run(const policy::GearStep& step, const Snapshot& snap,
                             std::vector<uint64_t>* outputs) {
  std::vector<std::string> inputs;
  for (uint64_t n : step.inputs) inputs.push_back(snap.paths.at(n));
  const rocksdb::Options o = db_->GetOptions();
  rocksdb::CompactionOptions copt;
  copt.compression = rocksdb::kDisableCompressionOption;  // the column family's
  copt.output_file_size_limit = o.target_file_size_base;
  copt.max_subcompactions = 1;
  std::vector<std::string> names;
  rocksdb::CompactionJobInfo info;
  const auto start = std::chrono::steady_clock::now();
  const rocksdb::Status s = db_->CompactFiles(copt, inputs, step.output_level,
                                              /*output_path_id=*/-1, &names, &info);
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  if (!s.ok()) {
    // By the error's code too: a step retried at the next wake leaves no
    // trace but these counts (last_error keeps only the last).
    const absl::StatusCode code = ToAbslStatus(s).code();
    counters_->Add("failed_steps", 1);
    counters_->Add(
        absl::StrCat("failed_steps.", absl::AsciiStrToLower(absl::StatusCodeToString(code))), 1);
    return absl::Status(code,
                        absl::StrCat("gear compaction (", policy::GearStepName(step.kind), " L",
                                     step.input_level, " -> L", step.output_level, "): ",
                                     s.ToString()));
  }
  const std::string kind = policy::GearStepName(step.kind);
  counters_->Add(absl::StrCat("steps.", kind), 1);
  counters_->Add("compaction_us", us);
  counters_->Add("compaction_input_bytes", static_cast<int64_t>(info.stats.total_input_bytes));
  counters_->Add("compaction_output_bytes",
                 static_cast<int64_t>(info.stats.total_output_bytes));
  if (step.kind == policy::GearStep::Kind::kOutOfWindow) {
    counters_->Add("out_of_window_bytes", static_cast<int64_t>(step.out_of_window_bytes));
  }
  if (step.gap_bytes > 0) {
    counters_->Add("gap_steps", 1);
    counters_->Add("gap_bytes", static_cast<int64_t>(step.gap_bytes));
  }
  windows_.Advance(step);
  if (step.kind == policy::GearStep::Kind::kPassive) {
    // Bytes written a second time because RocksDB cannot split one
    // compaction's output over two levels (docs/geardb.md).
    uint64_t again = 0;
    for (uint64_t n : step.inputs) {
      for (const auto& level : snap.levels) {
        for (const auto& sst : level) again += sst.number == n ? sst.size : 0;
      }
    }
    counters_->Add("cascaded_bytes", static_cast<int64_t>(again));
  }
  StepObserver observer;
  {
    absl::MutexLock l(&observer_mu_);
    observer = observer_;
  }
  if (observer) observer(step, static_cast<uint64_t>(us), info);
  outputs->clear();
  for (const std::string& name : names) {
    const int64_t n = policy::SstNumber(name);
    if (n >= 0) outputs->push_back(static_cast<uint64_t>(n));
  }
  return absl::OkStatus();
}

absl::Status GearDriver::RunUntilIdle() {
  absl::MutexLock l(&step_mu_);
  if (db_ == nullptr) return absl::FailedPreconditionError("the gear driver has not started");
  while (true) {
    {
      absl::MutexLock w(&signal_->mu);
      if (signal_->stop) return absl::OkStatus();
    }
    Snapshot snap = Take();
    std::optional<policy::GearStep> step = policy::PlanStep(snap.levels, windows_, limits_,
                                                            options_);
    PublishWindows();  // the plan may have rotated the window
    if (!step) return absl::OkStatus();
    std::vector<uint64_t> outputs;
    if (auto s = Run(*step, snap, &outputs); !s.ok()) return s;
    // Gear compaction (3.3): the new data goes on down while it overlaps
    // the next level's window, one level at a time; one passive step at a
    // time, each planned on a fresh snapshot.
    int level = step->output_level;
    std::vector<uint64_t> next;
    while (true) {
      if (outputs.empty()) {
        if (next.empty()) break;
        outputs = std::move(next);
        next.clear();
        ++level;
        continue;
      }
      snap = Take();
      const std::vector<policy::GearStep> passive =
          policy::PlanCascade(snap.levels, level, outputs, windows_, limits_, options_);
      if (passive.empty()) {  // the rest stays at this level
        outputs.clear();
        continue;
      }
      std::vector<uint64_t> out;
      if (auto s = Run(passive[0], snap, &out); !s.ok()) return s;
      next.insert(next.end(), out.begin(), out.end());
      const std::set<uint64_t> done(passive[0].inputs.begin(), passive[0].inputs.end());
      std::erase_if(outputs, [&](uint64_t n) { return done.contains(n); });
    }
  }
}

}  // namespace zonestack::rocks
