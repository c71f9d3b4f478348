#include "tools/zsbench/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <random>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "bench/operation_chooser.h"
#include "rocksdb/iterator.h"
#include "rocksdb/metadata.h"

namespace zonestack::zsbench {
namespace {

using Clock = std::chrono::steady_clock;

// Background error messages kept per phase.
constexpr size_t kKeptErrorMessages = 5;

double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

const std::map<std::string, DbBenchOp>& DbBenchOps() {
  static const std::map<std::string, DbBenchOp> ops = {
      {"fillseq", DbBenchOp::kFillSeq},       {"fillrandom", DbBenchOp::kFillRandom},
      {"overwrite", DbBenchOp::kOverwrite},   {"readrandom", DbBenchOp::kReadRandom},
      {"readseq", DbBenchOp::kReadSeq},       {"seekrandom", DbBenchOp::kSeekRandom}};
  return ops;
}

// RocksDB tickers worth reporting: compaction traffic, stalls, block cache.
const std::vector<std::pair<std::string, uint32_t>>& Tickers() {
  static const std::vector<std::pair<std::string, uint32_t>> t = {
      {"compact_read_bytes", rocksdb::COMPACT_READ_BYTES},
      {"compact_write_bytes", rocksdb::COMPACT_WRITE_BYTES},
      {"flush_write_bytes", rocksdb::FLUSH_WRITE_BYTES},
      {"stall_micros", rocksdb::STALL_MICROS},
      {"block_cache_hit", rocksdb::BLOCK_CACHE_HIT},
      {"block_cache_miss", rocksdb::BLOCK_CACHE_MISS},
      {"secondary_cache_hits", rocksdb::SECONDARY_CACHE_HITS}};
  return t;
}

// Paces one thread to `rate` ops/s.
class Pacer {
 public:
  explicit Pacer(double rate) : interval_(rate > 0 ? 1.0 / rate : 0), next_(Clock::now()) {}
  void Wait() {
    if (interval_ == 0) return;
    next_ += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval_));
    std::this_thread::sleep_until(next_);
  }

 private:
  double interval_;
  Clock::time_point next_;
};

struct ThreadResult {
  std::map<std::string, bench::Histogram> latency;
  uint64_t user_bytes = 0, found = 0, missed = 0, errors = 0;
  std::map<std::string, uint64_t> errors_by_kind;
  std::string first_error;
};

// Counts a failed operation; NotFound is an answer, not a failure.
void CheckStatus(const rocksdb::Status& st, ThreadResult* out) {
  if (st.ok() || st.IsNotFound()) return;
  if (out->errors++ == 0) out->first_error = st.ToString();
  ++out->errors_by_kind[ErrorKind(st)];
}

uint64_t BackgroundErrors(rocksdb::DB* db) {
  uint64_t n = 0;
  db->GetIntProperty("rocksdb.background-errors", &n);
  return n;
}

uint64_t DeviceWriteBytes(const zfs::Volume* volume) {
  uint64_t n = 0;
  if (volume) {
    for (const auto& d : volume->devices()) n += d->Stats().Total().write_bytes;
  }
  return n;
}

// Everything client threads share in a phase.
struct PhaseState {
  const PhaseSpec* spec;
  rocksdb::DB* db;
  const zfs::Volume* volume = nullptr;
  uint64_t write_bytes_before = 0;
  // One slot per checkpoint; each is written once, by the thread that
  // finished the operation reaching it, and read after the threads joined.
  std::vector<Checkpoint> checkpoints;
  std::vector<char> reached;
  std::atomic<uint64_t> issued{0};    // operations handed out
  std::atomic<uint64_t> finished{0};  // operations done, measured or not
  std::atomic<uint64_t> measured{0};  // operations done after the warm-up
  std::atomic<bool> stop{false};
  Clock::time_point start;
  // Hands out the next operation's sequence number, if any are left.
  bool Take(uint64_t* seq) {
    if (stop) return false;
    *seq = issued.fetch_add(1);
    return *seq < spec->ops;
  }
  // Records the checkpoints that operation number `n` (1-based, in the
  // order operations finished) reaches: checkpoint i (1-based) at
  // ceil(i * ops / count) operations.
  void Finished(uint64_t n) {
    const uint64_t count = checkpoints.size();
    if (count == 0 || spec->ops == 0 || n > spec->ops) return;
    const uint64_t first = (n - 1) * count / spec->ops + 1, last = n * count / spec->ops;
    for (uint64_t i = first; i <= last; ++i) {
      Checkpoint& c = checkpoints[i - 1];
      c.ops = n;
      c.t = Since(start);
      c.device_write_bytes = DeviceWriteBytes(volume) - write_bytes_before;
      if (volume) {
        const zfs::GcTotals gc = volume->gc_totals();
        c.gc_bytes = gc.bytes_relocated;
        c.gc_seconds = static_cast<double>(gc.busy_ns) / 1e9;
        const uint64_t zones = static_cast<uint64_t>(std::max(0, spec->zone_checkpoints));
        if (zones > 0 && (i * zones) % count == 0) c.zones = WrittenZones(*volume);
      }
      reached[i - 1] = 1;
    }
  }
};

class Client {
 public:
  Client(PhaseState* state, int index)
      : s_(state), rng_(state->spec->seed * 7919 + index),
        value_(state->spec->workload.value_size(), 'v'),
        key_format_{.zero_padding = 1,
                    .ordered = !state->spec->ycsb_keys,
                    .key_size = state->spec->workload.key_size} {}

  void Run(bench::OperationChooser* chooser, ThreadResult* out) {
    Pacer pacer(s_->spec->rate / s_->spec->threads);
    uint64_t seq;
    while (s_->Take(&seq)) {
      pacer.Wait();
      const Clock::time_point t0 = Clock::now();
      const std::string type = chooser ? Ycsb(*chooser, out) : DbBench(seq, out);
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0);
      // Warm-up operations count for neither latency nor throughput.
      if (std::chrono::duration<double>(t0 - s_->start).count() >= s_->spec->warmup_seconds) {
        out->latency[type].Record(static_cast<uint64_t>(ns.count()));
        s_->measured.fetch_add(1);
      }
      s_->Finished(s_->finished.fetch_add(1) + 1);
    }
  }

 private:
  std::string& Value() {
    // Change a few bytes so values are not all alike.
    for (int i = 0; i < 4 && !value_.empty(); ++i) value_[rng_() % value_.size()] = 'a' + rng_() % 26;
    return value_;
  }

  void Put(const std::string& key, ThreadResult* out) {
    const std::string& v = Value();
    CheckStatus(s_->db->Put(rocksdb::WriteOptions(), key, v), out);
    out->user_bytes += key.size() + v.size();
  }

  void Get(const std::string& key, ThreadResult* out) {
    std::string v;
    rocksdb::Status st = s_->db->Get(rocksdb::ReadOptions(), key, &v);
    CheckStatus(st, out);
    (st.ok() ? out->found : out->missed)++;
  }

  void Scan(const std::string& key, int64_t length, ThreadResult* out) {
    std::unique_ptr<rocksdb::Iterator> it(s_->db->NewIterator(rocksdb::ReadOptions()));
    int64_t n = 0;
    for (it->Seek(key); it->Valid() && n < length; it->Next()) ++n;
    CheckStatus(it->status(), out);
  }

  std::string Ycsb(bench::OperationChooser& c, ThreadResult* out) {
    const bench::Operation op = c.Next();
    const std::string key = c.KeyName(op.keynum);
    switch (op.type) {
      case bench::OpType::kRead: Get(key, out); break;
      case bench::OpType::kUpdate:
      case bench::OpType::kInsert: Put(key, out); break;
      case bench::OpType::kScan: Scan(key, op.scan_length, out); break;
      case bench::OpType::kReadModifyWrite:
        Get(key, out);
        Put(key, out);
        break;
    }
    c.Acknowledge(op);
    return std::string(bench::OpTypeName(op.type));
  }

  std::string DbBench(uint64_t seq, ThreadResult* out) {
    const uint64_t n = s_->spec->workload.record_count;
    const uint64_t k = rng_() % n;
    switch (s_->spec->dbbench) {
      case DbBenchOp::kFillSeq:
        Put(bench::BuildKeyName(static_cast<int64_t>(seq), key_format_), out);
        return "INSERT";
      case DbBenchOp::kFillRandom:
      case DbBenchOp::kOverwrite:
        Put(bench::BuildKeyName(static_cast<int64_t>(k), key_format_), out);
        return "UPDATE";
      case DbBenchOp::kReadRandom:
        Get(bench::BuildKeyName(static_cast<int64_t>(k), key_format_), out);
        return "READ";
      case DbBenchOp::kSeekRandom:
        Scan(bench::BuildKeyName(static_cast<int64_t>(k), key_format_), 10, out);
        return "SCAN";
      case DbBenchOp::kReadSeq:
      case DbBenchOp::kNone:
        break;
    }
    return "?";
  }

  PhaseState* s_;
  std::mt19937_64 rng_;
  std::string value_;
  bench::KeyFormat key_format_;
};

// db_bench's readseq: one thread iterates the whole DB. An iterator stops
// (Valid() false) at the end and at an error alike; only its status tells
// a corrupt block from the end of a shorter DB.
void ReadSeq(PhaseState* s, ThreadResult* out) {
  std::unique_ptr<rocksdb::Iterator> it(s->db->NewIterator(rocksdb::ReadOptions()));
  Clock::time_point t0 = Clock::now();
  for (it->SeekToFirst(); it->Valid() && !s->stop && s->issued++ < s->spec->ops; it->Next()) {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0);
    out->latency["NEXT"].Record(static_cast<uint64_t>(ns.count()));
    ++out->found;
    s->finished.fetch_add(1);
    s->measured.fetch_add(1);
    t0 = Clock::now();
  }
  CheckStatus(it->status(), out);
}

}  // namespace

std::string ErrorKind(const rocksdb::Status& status) {
  if (status.IsNoSpace()) return "no_space";
  switch (status.code()) {
    case rocksdb::Status::kCorruption: return "corruption";
    case rocksdb::Status::kIOError: return "io_error";
    case rocksdb::Status::kBusy: return "busy";
    case rocksdb::Status::kTimedOut: return "timed_out";
    case rocksdb::Status::kIncomplete: return "incomplete";
    case rocksdb::Status::kInvalidArgument: return "invalid_argument";
    case rocksdb::Status::kNotSupported: return "not_supported";
    case rocksdb::Status::kAborted: return "aborted";
    case rocksdb::Status::kTryAgain: return "try_again";
    case rocksdb::Status::kShutdownInProgress: return "shutdown";
    default: return "other";
  }
}

double PhaseResult::write_amplification() const {
  if (devices.empty() || user_bytes_written == 0) return 0;
  uint64_t written = 0;
  for (const DeviceDelta& d : devices) written += d.total.write_bytes;
  return static_cast<double>(written) / static_cast<double>(user_bytes_written);
}

absl::StatusOr<PhaseSpec> PhaseByName(const std::string& name) {
  PhaseSpec p;
  p.name = name;
  if (auto it = DbBenchOps().find(name); it != DbBenchOps().end()) {
    p.dbbench = it->second;
    return p;
  }
  if (name.starts_with("mix:")) {
    std::vector<std::string> parts = absl::StrSplit(name.substr(4), ':');
    double reads, skew = 0.9;
    // "uniform" in place of the skew: every key equally likely (SplitZNS
    // Fig. 16(c)'s uniform YCSB-A).
    const bool uniform = parts.size() == 2 && parts[1] == "uniform";
    if (parts.size() != 2 || !absl::SimpleAtod(parts[0], &reads) ||
        (!uniform && !absl::SimpleAtod(parts[1], &skew)) || reads < 0 || reads > 1) {
      return absl::InvalidArgumentError(fmt::format(
          "'{}': a mix is mix:READ_RATIO:ZIPF_SKEW or mix:READ_RATIO:uniform, e.g. mix:0.5:0.9",
          name));
    }
    p.workload = bench::HhzsMix(reads, skew);
    if (uniform) {
      p.workload.request_distribution = bench::RequestDistribution::kUniform;
      p.workload.name = absl::StrCat("hhzs-read", std::lround(reads * 100), "-uniform");
    }
    return p;
  }
  auto w = bench::WorkloadByName(name);
  if (!w.ok()) {
    return absl::InvalidArgumentError(fmt::format(
        "unknown workload '{}'; use fillseq, fillrandom, overwrite, readrandom, readseq, "
        "seekrandom, ycsb-a..ycsb-f, hhzs-a..hhzs-f, hhzs-w1..hhzs-w4 (each with -load for its "
        "load phase) or mix:READ_RATIO:ZIPF_SKEW|uniform",
        name));
  }
  p.workload = *w;
  return p;
}

absl::StatusOr<PhaseResult> RunPhase(rocksdb::DB* db, const zfs::Volume* volume,
                                     rocksdb::Statistics* stats, const PhaseSpec& spec,
                                     const CompactionLog* compactions) {
  std::unique_ptr<bench::SharedWorkloadState> shared;
  std::vector<std::unique_ptr<bench::OperationChooser>> choosers(spec.threads);
  if (spec.dbbench == DbBenchOp::kNone) {
    if (auto s = bench::ValidateWorkloadSpec(spec.workload); !s.ok()) return s;
    shared = std::make_unique<bench::SharedWorkloadState>(spec.workload);
    for (int t = 0; t < spec.threads; ++t) {
      auto c = bench::OperationChooser::Create(spec.workload, shared.get(), spec.seed * 31 + t);
      if (!c.ok()) return c.status();
      choosers[t] = std::make_unique<bench::OperationChooser>(std::move(*c));
    }
  }
  PhaseResult result;
  result.name = spec.name;
  result.sample_interval = spec.sample_interval;
  const std::vector<device::DeviceStats> before = DeviceSnapshot(volume);
  std::map<std::string, uint64_t> tickers_before;
  if (stats) {
    for (const auto& [n, t] : Tickers()) tickers_before[n] = stats->getTickerCount(t);
  }

  const uint64_t background_errors_before = BackgroundErrors(db);
  const size_t compactions_before = compactions ? compactions->size() : 0;
  const size_t errors_before = compactions ? compactions->error_count() : 0;
  PhaseState state;
  state.spec = &spec;
  state.db = db;
  state.volume = volume;
  state.write_bytes_before = DeviceWriteBytes(volume);
  // readseq stops at the DB's end, not at a known count.
  if (spec.dbbench != DbBenchOp::kReadSeq) {
    state.checkpoints.resize(static_cast<size_t>(std::max(0, spec.checkpoints)));
    state.reached.assign(state.checkpoints.size(), 0);
  }
  state.start = Clock::now();
  std::vector<ThreadResult> per_thread(spec.threads);
  std::vector<std::thread> threads;
  if (spec.dbbench == DbBenchOp::kReadSeq) {
    threads.emplace_back([&] { ReadSeq(&state, &per_thread[0]); });
  } else {
    for (int t = 0; t < spec.threads; ++t) {
      threads.emplace_back([&, t] {
        Client c(&state, t);
        c.Run(choosers[t].get(), &per_thread[t]);
      });
    }
  }
  // Sample until the clients finish; the last sample covers the tail.
  absl::Mutex done_mu;
  bool done = false;
  std::thread sampler([&] {
    uint64_t last = 0;
    const bool tty = spec.progress;
    while (true) {
      bool finished;
      {
        absl::MutexLock l(&done_mu);
        finished = done_mu.AwaitWithTimeout(absl::Condition(&done), absl::Seconds(spec.sample_interval));
      }
      const double t = Since(state.start);
      if (spec.seconds > 0 && t >= spec.seconds) state.stop = true;
      const uint64_t now = state.finished.load();
      result.timeline.push_back(now - last);
      last = now;
      VolumeSample sample;
      if (volume) {
        // zfs learns SST levels from hints (HHZS); until then ask RocksDB.
        std::vector<rocksdb::LiveFileMetaData> live;
        db->GetLiveFilesMetaData(&live);
        std::map<std::string, int> levels;
        for (const auto& f : live) levels[f.db_path + f.name] = f.level;
        sample = SampleVolume(*volume, t, levels);
      }
      sample.t = t;
      if (stats) {
        for (const auto& [n, tk] : Tickers()) {
          sample.rocksdb[n] = stats->getTickerCount(tk) - tickers_before[n];
        }
      }
      if (volume || stats) result.samples.push_back(std::move(sample));
      if (tty) {
        const double frac = spec.ops ? static_cast<double>(now) / spec.ops : 0;
        const double eta = frac > 0 ? t / frac - t : 0;
        fmt::print(stderr, "\r{:<14} {:>6.1f}% {:>10} ops {:>9.0f} ops/s  ETA {:>5.0f}s ", spec.name,
                   100 * frac, now, now / std::max(t, 1e-9), eta);
      }
      if (finished) break;
    }
    if (tty) fmt::print(stderr, "\n");
  });
  for (auto& th : threads) th.join();
  result.seconds = Since(state.start);
  {
    absl::MutexLock l(&done_mu);
    done = true;
  }
  sampler.join();

  result.ops = state.measured.load();
  result.seconds = std::max(1e-9, result.seconds - spec.warmup_seconds);
  for (ThreadResult& r : per_thread) {
    for (auto& [type, h] : r.latency) result.latency_ns[type].Merge(h);
    result.user_bytes_written += r.user_bytes;
    result.reads_found += r.found;
    result.reads_missed += r.missed;
    if (result.errors == 0 && r.errors > 0) result.first_error = r.first_error;
    result.errors += r.errors;
    for (const auto& [kind, n] : r.errors_by_kind) result.errors_by_kind[kind] += n;
  }
  result.background_errors = BackgroundErrors(db) - background_errors_before;
  if (compactions) {
    result.background_error_messages = compactions->ErrorsSince(errors_before);
    // A DB that keeps failing says the same thing each time.
    if (result.background_error_messages.size() > kKeptErrorMessages) {
      result.background_error_messages.resize(kKeptErrorMessages);
    }
  }
  for (size_t i = 0; i < state.checkpoints.size(); ++i) {
    if (!state.reached[i]) continue;
    Checkpoint& c = state.checkpoints[i];
    // Two client threads may record neighbouring checkpoints in the
    // other order (the one finishing operation n reads the counters after
    // the one finishing n + 1): a checkpoint shows at least what the one
    // before it showed, so the series never goes back.
    if (!result.checkpoints.empty()) {
      const Checkpoint& prev = result.checkpoints.back();
      c.t = std::max(c.t, prev.t);
      c.device_write_bytes = std::max(c.device_write_bytes, prev.device_write_bytes);
      c.gc_bytes = std::max(c.gc_bytes, prev.gc_bytes);
      c.gc_seconds = std::max(c.gc_seconds, prev.gc_seconds);
    }
    result.checkpoints.push_back(std::move(c));
  }
  if (compactions) {
    result.has_compaction_log = true;
    result.compactions = compactions->Since(compactions_before);
  }
  result.devices = DeltasSince(volume, before);
  if (volume) result.zone_utilization = ZoneUtilization(*volume);
  if (stats) {
    for (const auto& [n, t] : Tickers()) {
      result.rocksdb_tickers[n] = stats->getTickerCount(t) - tickers_before[n];
    }
  }
  return result;
}

}  // namespace zonestack::zsbench
