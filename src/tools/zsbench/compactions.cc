#include "tools/zsbench/compactions.h"

#include <map>
#include <string>

#include "bench/histogram.h"

namespace zonestack::zsbench {
namespace {

class CompactionListener : public rocksdb::EventListener {
 public:
  explicit CompactionListener(std::shared_ptr<CompactionLog> log) : log_(std::move(log)) {}
  const char* Name() const override { return "ZsbenchCompactionLog"; }
  // Empty, so the OPTIONS files RocksDB writes leave it out.
  std::string GetId() const override { return ""; }
  void OnCompactionCompleted(rocksdb::DB*, const rocksdb::CompactionJobInfo& info) override {
    if (info.status.ok()) log_->Add(FromJobInfo(info));
  }
  void OnBackgroundError(rocksdb::BackgroundErrorReason reason, rocksdb::Status* error) override {
    log_->AddError(ErrorReasonName(reason) + ": " + error->ToString());
  }

 private:
  static std::string ErrorReasonName(rocksdb::BackgroundErrorReason reason) {
    using R = rocksdb::BackgroundErrorReason;
    switch (reason) {
      case R::kFlush: return "flush";
      case R::kCompaction: return "compaction";
      case R::kWriteCallback: return "write";
      case R::kMemTable: return "memtable";
      case R::kManifestWrite: return "manifest write";
      case R::kFlushNoWAL: return "flush without WAL";
      case R::kManifestWriteNoWAL: return "manifest write without WAL";
    }
    return "reason " + std::to_string(static_cast<int>(reason));
  }

  const std::shared_ptr<CompactionLog> log_;
};

// RocksDB has no public name for a reason; these are the ones leveled
// compaction gives.
std::string ReasonName(rocksdb::CompactionReason reason) {
  using R = rocksdb::CompactionReason;
  switch (reason) {
    case R::kLevelL0FilesNum: return "l0_files";
    case R::kLevelMaxLevelSize: return "level_size";
    case R::kManualCompaction: return "manual";
    case R::kFilesMarkedForCompaction: return "marked_files";
    case R::kBottommostFiles: return "bottommost_files";
    case R::kTtl: return "ttl";
    case R::kPeriodicCompaction: return "periodic";
    case R::kRoundRobinTtl: return "round_robin_ttl";
    default: return "reason_" + std::to_string(static_cast<int>(reason));
  }
}

nlohmann::json LatencyJson(const bench::Histogram& h) {
  return {{"count", h.count()},
          {"mean_us", h.mean()},
          {"p50_us", h.Percentile(50)},
          {"p90_us", h.Percentile(90)},
          {"p99_us", h.Percentile(99)},
          {"max_us", h.max()}};
}

}  // namespace

void CompactionLog::Add(CompactionRecord r) {
  r.t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  absl::MutexLock l(&mu_);
  records_.push_back(std::move(r));
}

void CompactionLog::AddError(std::string what) {
  absl::MutexLock l(&mu_);
  errors_.push_back(std::move(what));
}

size_t CompactionLog::error_count() const {
  absl::MutexLock l(&mu_);
  return errors_.size();
}

std::vector<std::string> CompactionLog::ErrorsSince(size_t first) const {
  absl::MutexLock l(&mu_);
  if (first >= errors_.size()) return {};
  return {errors_.begin() + static_cast<std::ptrdiff_t>(first), errors_.end()};
}

size_t CompactionLog::size() const {
  absl::MutexLock l(&mu_);
  return records_.size();
}

std::vector<CompactionRecord> CompactionLog::Since(size_t first) const {
  absl::MutexLock l(&mu_);
  if (first >= records_.size()) return {};
  return {records_.begin() + static_cast<std::ptrdiff_t>(first), records_.end()};
}

std::shared_ptr<rocksdb::EventListener> CompactionLog::Listener(std::shared_ptr<CompactionLog> log) {
  return std::make_shared<CompactionListener>(std::move(log));
}

CompactionRecord FromJobInfo(const rocksdb::CompactionJobInfo& info) {
  CompactionRecord r;
  r.micros = info.stats.elapsed_micros;
  r.input_bytes = info.stats.total_input_bytes;
  r.output_bytes = info.stats.total_output_bytes;
  r.kind = ReasonName(info.compaction_reason);
  r.trivial = !info.input_files.empty() && info.input_files == info.output_files;
  r.output_level = info.output_level;
  return r;
}

nlohmann::json CompactionsJson(const std::vector<CompactionRecord>& records) {
  bench::Histogram latency, chains;
  uint64_t count = 0, trivial = 0, micros = 0, in = 0, out = 0, chain_us = 0, chain_count = 0;
  bool open_chain = false;
  nlohmann::json by_kind = nlohmann::json::object();
  nlohmann::json list = nlohmann::json::array();
  struct LevelCounts {
    uint64_t count = 0, output_bytes = 0, trivial_moves = 0;
  };
  std::map<int, LevelCounts> levels;
  for (const CompactionRecord& r : records) {
    if (r.output_level >= 0) {
      LevelCounts& level = levels[r.output_level];
      if (r.trivial) {
        ++level.trivial_moves;
      } else {
        ++level.count;
        level.output_bytes += r.output_bytes;
      }
    }
    if (r.trivial) {
      ++trivial;
      continue;
    }
    ++count;
    micros += r.micros;
    in += r.input_bytes;
    out += r.output_bytes;
    latency.Record(r.micros);
    by_kind[r.kind] = by_kind.value(r.kind, uint64_t{0}) + 1;
    list.push_back({r.t, r.micros, r.input_bytes, r.output_bytes, r.kind});
    // A passive step continues the gear compaction before it.
    if (r.gear && r.kind == "passive" && open_chain) {
      chain_us += r.micros;
      continue;
    }
    if (open_chain) chains.Record(chain_us);
    open_chain = true;
    chain_us = r.micros;
    ++chain_count;
  }
  if (open_chain) chains.Record(chain_us);
  nlohmann::json by_level = nlohmann::json::object();
  for (const auto& [level, c] : levels) {
    by_level["L" + std::to_string(level)] = {
        {"count", c.count}, {"output_bytes", c.output_bytes}, {"trivial_moves", c.trivial_moves}};
  }
  return {{"count", count},
          {"seconds", static_cast<double>(micros) / 1e6},
          {"input_bytes", in},
          {"output_bytes", out},
          {"trivial_moves", trivial},
          {"by_kind", by_kind},
          {"by_output_level", by_level},
          {"latency", LatencyJson(latency)},
          {"chains", {{"count", chain_count}, {"latency", LatencyJson(chains)}}},
          {"log", list}};
}

}  // namespace zonestack::zsbench
