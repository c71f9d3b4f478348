// Block traces for zsreplay (docs/zonetier.md, "Trace replay"): the MSR
// Cambridge CSV format, blkparse's default text output, and a generator of
// synthetic traces with MSR-like characteristics.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace zonestack::zsreplay {

struct TraceRequest {
  uint64_t time_ns = 0;  // from the trace's first request
  bool write = false;
  uint64_t offset = 0;   // bytes
  uint64_t length = 0;   // bytes
};

enum class TraceFormat { kMsr, kBlkparse };

// MSR CSV: Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime with
// the timestamp in Windows ticks (100 ns) and Type Read or Write. blkparse:
// the default output's queue events ("Q"), sectors of 512 bytes; other
// events and lines that are not events (blkparse's summary) are skipped.
// A malformed line is InvalidArgument naming its number.
absl::StatusOr<std::vector<TraceRequest>> ParseTrace(std::istream& in, TraceFormat format);
absl::StatusOr<TraceFormat> ParseTraceFormat(const std::string& name);

// A synthetic trace (trace_gen.cc). The profiles are named after MSR
// Cambridge volumes whose published characteristics they imitate.
struct TraceProfile {
  std::string name;
  double write_ratio = 0.5;
  // Request sizes: 4 KiB x 2^k, k drawn from these weights (k = 0..4).
  std::vector<double> size_weights{0.5, 0.2, 0.15, 0.1, 0.05};
  double zipf_theta = 0.9;      // skew over the zones the trace touches
  double nsw_share = 0.5;       // writes that are not appends at a zone's end
  double footprint = 0.5;       // share of the capacity's zones touched
  uint64_t mean_interarrival_us = 2000;
};
const std::vector<TraceProfile>& TraceProfiles();
absl::StatusOr<TraceProfile> FindTraceProfile(const std::string& name);
std::string TraceProfileNames();

// `requests` requests over a device of `capacity` bytes with `zone_bytes`
// zones, deterministic for a seed.
std::vector<TraceRequest> GenerateTrace(const TraceProfile& p, uint64_t requests,
                                        uint64_t capacity, uint64_t zone_bytes, uint64_t seed);
// Writes `trace` as MSR CSV.
void WriteMsrCsv(const std::vector<TraceRequest>& trace, std::ostream& out);

}  // namespace zonestack::zsreplay
