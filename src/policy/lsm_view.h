// The LSM view (HHZS 3.1-3.4): what the hints from RocksDB say about the
// tree. Live SSTs with their level, size, reads, age and device; the
// storage demand of each level from running flushes and compactions.
// Fed by the RocksDB glue's listener (levels, demand, reads) and by zfs
// through the placement policy (where each file lies). Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace zonestack::policy {

// The SST number in a RocksDB file name ("/db/000123.sst" -> 123), or -1:
// the view knows SSTs by number, and zfs passes file names.
int64_t SstNumber(const std::string& name);

struct SstInfo {
  uint64_t number = 0;
  std::string path;          // zfs path, once zfs has placed it
  int level = -1;
  uint64_t size = 0;
  uint64_t reads = 0;        // user (non-compaction) reads since creation
  uint64_t created_us = 0;
  bool on_ssd = false;
  bool placed = false;       // zfs told where it lies
  bool being_compacted = false;  // an input of a running compaction
  bool trivially_moved = false;
  // Announced by a flush/compaction hint and not yet completed
  // (TableFileCreated or SetLevel): zfs may still be appending to it.
  bool being_written = false;
  // Read rate in reads per second (reads / age), HHZS 3.4. The age is at
  // least one second, so a young SST's first read does not rank it above
  // every established one.
  double ReadRate(uint64_t now_us) const;
};

// Per-level counts taken under one lock, so that A_i, the SSD share and
// D_i agree with each other (HHZS 3.3 steps 1-3). All three vectors have
// the same length: one past the highest level seen, at least 1 (L0).
// A_i and D_i are in SSD zones: the paper's SST fills one zone, but an
// intra-L0 compaction writes one L0 SST of all its inputs, many zones
// long, and counting it as one would plan SSD space it does not have.
// With `exclude_hdd_inputs` (HhzsOptions, ours; the paper counts every
// allocated zone), A_i leaves out HDD-resident inputs of running
// compactions: they never take SSD space, and what they become is already
// in D_(output level). Counted, an L0 of many HDD zones in one long
// L0->L1 compaction holds t at 0 and leaves the SSD idle while the HDD is
// busy.
struct LevelCounts {
  std::vector<uint32_t> zones;         // A_i
  std::vector<uint32_t> zones_on_ssd;  // of A_i, in SSTs zfs placed on an SSD
  std::vector<uint32_t> demand;        // D_i from flushes/compactions only
};

// SSD zones an SST of `size` bytes takes: at least one (an SST still being
// written has no size yet and will fill about one), else its size in
// zones of `zone_bytes` rounded up. zone_bytes 0 counts every SST as one.
uint32_t SstZones(uint64_t size, uint64_t zone_bytes);

class LsmView {
 public:
  using Clock = std::function<uint64_t()>;  // microseconds
  explicit LsmView(Clock now_us = nullptr);  // null = the system clock

  // --- hints from RocksDB (section 3.1)
  // Flushing hint: the SST `number` is being written by a flush (L0).
  // From here on the SST counts in A_0.
  void FlushFileStarted(uint64_t number);
  // Compaction hint (i): job `job` merges `inputs` (file number, absolute
  // level) into `output_level`; demand(output_level) += the inputs' zones
  // (as the authors' code counts it; one per input whose size is unknown).
  // The inputs are being_compacted until the job finishes. A job id still
  // running is finished first.
  void CompactionStarted(int job, int output_level,
                         const std::vector<std::pair<uint64_t, int>>& inputs);
  // Compaction hint (ii): the job writes SST `number` to its output level;
  // demand(output_level) -= 1 zone (never below what the job added). The SST
  // counts in A_output_level from here on. Unknown jobs are ignored.
  void CompactionFileStarted(int job, uint64_t number);
  // Compaction hint (iii): the job finished; what is left of its demand is
  // dropped. A trivial move (`outputs` == inputs' numbers) relabels inputs.
  void CompactionFinished(int job, const std::vector<uint64_t>& outputs);
  // A table file was completed with `size` bytes (flush or compaction).
  void TableFileCreated(uint64_t number, uint64_t size);
  void TableFileDeleted(uint64_t number);
  // Re-sync from RocksDB's live-file metadata (at open, or periodically).
  void SetLevel(uint64_t number, int level, uint64_t size);
  // A user read of a known SST; it counts toward HddReadRate if zfs placed
  // the SST on an HDD.
  void RecordRead(uint64_t number);

  // --- from zfs (through the placement policy)
  void SetLocation(uint64_t number, const std::string& path, bool on_ssd, uint64_t size);
  void Forget(uint64_t number);
  // A level known from a file hint (FileHint::level); kept only if no
  // RocksDB hint has named the SST's level.
  void NoteLevel(uint64_t number, int level);

  // --- queries
  // Level a file being created will have, from the hints so far (flush:
  // 0; compaction output: the job's output level); still answered once the
  // file is complete. nullopt when no hint named the file.
  std::optional<int> PendingLevel(uint64_t number) const;
  // A_i and D_i in zones of `zone_bytes` (see SstZones; 0: one per SST);
  // `exclude_hdd_inputs`: see LevelCounts.
  LevelCounts Counts(uint64_t zone_bytes = 0, bool exclude_hdd_inputs = false) const;
  std::vector<SstInfo> Ssts() const;
  std::optional<SstInfo> Sst(uint64_t number) const;
  // D_i, one zone per SST: Counts().demand.
  std::vector<uint32_t> Demand() const;
  // A_i, one zone per SST: Counts().zones.
  std::vector<uint32_t> SstsPerLevel() const;
  // User reads per second served from HDD-resident SSTs over the last
  // `window_us` (popularity migration trigger). Counts whole seconds only:
  // the window is rounded up to whole seconds and ends with the last
  // completed second, so a partly elapsed second never dilutes the rate.
  // Windows longer than kMaxReadWindowSeconds are cut to it.
  double HddReadRate(uint64_t window_us) const;
  static constexpr uint64_t kMaxReadWindowSeconds = 64;
  uint64_t NowMicros() const { return now_(); }
  // Bytes of memory the view's entries use (HHZS 3.6): map nodes of SSTs
  // and jobs with their heap parts, and the read buckets.
  size_t MemoryBytes() const;
  // Bytes a std::map node adds to its value (three pointers and the color,
  // padded), as libstdc++ lays it out on 64-bit targets.
  static constexpr size_t kMapNodeOverhead = 32;

 private:
  struct Input {
    uint64_t number = 0;
    uint64_t size = 0;  // at the job's start
  };
  struct Job {
    int output_level = 0;
    uint32_t outputs_started = 0;
    std::vector<Input> inputs;
    // Zones the job may still write: its inputs' zones less one per
    // output started, never below 0.
    uint32_t DemandLeft(uint64_t zone_bytes) const;
  };
  SstInfo& Entry(uint64_t number, uint64_t now_us) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FinishJob(std::map<int, Job>::iterator job, const std::vector<uint64_t>& outputs)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  size_t NumLevels() const ABSL_SHARED_LOCKS_REQUIRED(mu_);

  Clock now_;
  mutable absl::Mutex mu_;
  // Every SST a hint or zfs named, from its flush/compaction start (so it
  // counts in A_i while it is written) until it is deleted. Its level is
  // the pending level of a file being created.
  std::map<uint64_t, SstInfo> ssts_ ABSL_GUARDED_BY(mu_);
  std::map<int, Job> jobs_ ABSL_GUARDED_BY(mu_);
  // HDD reads in one-second buckets: (second, count).
  std::vector<std::pair<uint64_t, uint64_t>> hdd_reads_ ABSL_GUARDED_BY(mu_);
};

}  // namespace zonestack::policy
