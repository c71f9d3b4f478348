// NAND flash timing: channels, dies, planes and pages, with per-cell-mode
// latencies. A wide zone stripes its program units over all dies,
// channel-first; a narrow zone (subzone) lives on fewer dies.
#pragma once

#include <array>
#include <deque>
#include <utility>
#include <vector>

#include "device/timing_model.h"

namespace zonestack::device {

// Latencies of one cell mode. Multi-level cells have page types (QLC: L, CL,
// CU, U) with their own latencies (ZnH2 Table 2); a page's type is its
// index within the die's block modulo `page_types`.
struct CellLatency {
  uint32_t page_types = 1;
  std::array<uint64_t, 4> read_ns{};
  std::array<uint64_t, 4> program_ns{};
  uint64_t erase_ns = 0;
};

struct NandGeometry {
  uint32_t channels = 8;
  uint32_t dies_per_channel = 4;
  uint32_t planes = 2;         // a die reads/programs one page per plane at once
  uint32_t page_bytes = 16384;
  uint64_t block_bytes = 16ull << 20;  // per plane
  uint32_t dies_per_zone = 0;  // 0 = every die (wide zones)
  uint32_t num_dies() const { return channels * dies_per_channel; }
  uint64_t unit_bytes() const { return uint64_t{planes} * page_bytes; }
};

struct NandParams {
  NandGeometry geometry;
  double channel_bytes_per_s = 800e6;
  double host_read_bytes_per_s = 3.2e9;   // device-to-host link
  double host_write_bytes_per_s = 3.2e9;  // host-to-device link
  uint64_t command_ns = 5000;             // controller cost per command
  CellLatency slc, tlc, qlc;
  // The mode `block_bytes` is given in; a block holds proportionally less in
  // a mode with fewer bits per cell (an SLC block a quarter of a QLC one).
  CellMode native_cell_mode = CellMode::kTlc;
  // SplitZNS's Read Scheduler (section 4.4.2): a query's read of a subzone
  // (IoClass::kUserRead on one chip) goes ahead of every queued request
  // on its die, channel and link; it waits only for the operation in
  // progress when it arrives and for earlier query reads.
  bool read_scheduler = false;
};

// Writes are buffered one program unit deep per die: a write returns once
// its data crossed the channel and the die could take it, and the program
// itself keeps the die busy afterwards (early completion, as in enterprise
// SSDs with power-loss protection, so Flush costs only a command).
class NandTiming : public TimingModel {
 public:
  NandTiming(const NandParams& params, uint64_t zone_size);
  uint64_t Schedule(const TimedRequest& r, uint64_t submit_ns) override;
  void ExportStats(DeviceStats* stats) const override;

  const NandParams& params() const { return params_; }
  // The die holding the program unit at `offset_in_zone` of `zone`.
  uint32_t DieOf(uint32_t zone, uint64_t offset_in_zone) const;

 private:
  const CellLatency& Latency(CellMode mode) const;
  uint32_t DiesPerZone() const;
  uint32_t PageType(const CellLatency& lat, uint64_t offset_in_zone) const;
  // The die and page type of `r`'s unit at `in_zone`: a subzone request's
  // chip, or the zone's striping.
  uint32_t DieFor(const TimedRequest& r, uint32_t zone, uint64_t in_zone) const;
  uint32_t PageTypeFor(const TimedRequest& r, const CellLatency& lat, uint64_t in_zone) const;
  // A request controller memory serves: the host link only.
  uint64_t ScheduleBuffered(const TimedRequest& r, uint64_t start);
  uint64_t ScheduleRead(const TimedRequest& r, uint64_t start);
  uint64_t ScheduleWrite(const TimedRequest& r, uint64_t start);
  uint64_t ScheduleErase(const TimedRequest& r, uint64_t start);
  // The reserved intervals of a resource and the end of its last query
  // read, kept only with the Read Scheduler.
  struct Queue {
    std::deque<std::pair<uint64_t, uint64_t>> ops;
    uint64_t query_avail_ns = 0;
  };
  // Reserves `duration` on `t` from `earliest` on for a request that
  // arrived at the device at `now`; with the Read Scheduler, an `urgent`
  // request passes the queued ones, which slip by its duration (their
  // completions, already given, stay: the model's error, in their
  // favour). Returns the start.
  uint64_t Reserve(Timeline& t, Queue* q, uint64_t now, uint64_t earliest, uint64_t duration,
                   bool urgent);
  bool Urgent(const TimedRequest& r) const;

  NandParams params_;
  uint64_t zone_size_;
  std::vector<Timeline> dies_;
  std::vector<Timeline> channels_;
  Timeline host_read_, host_write_;
  // Read Scheduler queues: one per die, per channel, and the read link.
  std::vector<Queue> die_queues_, channel_queues_;
  Queue link_queue_;
  uint64_t erases_ = 0;
  std::array<uint64_t, 4> qlc_page_reads_{};  // DeviceStats::qlc_page_reads
};

}  // namespace zonestack::device
