// Trace parsing: MSR Cambridge CSV and blkparse text.
#include "tools/zsreplay/trace.h"

#include "absl/strings/string_view.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace zonestack::zsreplay {
namespace {

absl::Status BadLine(uint64_t n, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat("trace line ", n, ": ", why));
}

}  // namespace

absl::StatusOr<TraceFormat> ParseTraceFormat(const std::string& name) {
  if (name == "msr") return TraceFormat::kMsr;
  if (name == "blkparse") return TraceFormat::kBlkparse;
  return absl::InvalidArgumentError(
      absl::StrCat("trace format '", name, "' must be msr or blkparse"));
}

absl::StatusOr<std::vector<TraceRequest>> ParseTrace(std::istream& in, TraceFormat format) {
  std::vector<TraceRequest> out;
  std::string line;
  uint64_t n = 0;
  bool have_first = false;
  uint64_t first = 0;  // the first request's time in the trace's unit
  while (std::getline(in, line)) {
    ++n;
    absl::string_view l = absl::StripAsciiWhitespace(line);
    if (l.empty()) continue;
    TraceRequest r;
    uint64_t t = 0;  // ns for blkparse, ticks for MSR
    if (format == TraceFormat::kMsr) {
      std::vector<absl::string_view> f = absl::StrSplit(l, ',');
      if (f.size() < 6) return BadLine(n, "an MSR record has 7 fields");
      const absl::string_view type = absl::StripAsciiWhitespace(f[3]);
      if (type != "Read" && type != "Write") return BadLine(n, "type must be Read or Write");
      if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(f[0]), &t) ||
          !absl::SimpleAtoi(absl::StripAsciiWhitespace(f[4]), &r.offset) ||
          !absl::SimpleAtoi(absl::StripAsciiWhitespace(f[5]), &r.length)) {
        return BadLine(n, "timestamp, offset and size must be whole numbers");
      }
      r.write = type == "Write";
    } else {
      // "8,0  3  1  0.000000000  697  Q  W 223490 + 8 [proc]"
      std::vector<absl::string_view> f = absl::StrSplit(l, ' ', absl::SkipEmpty());
      if (f.size() < 10 || f[5] != "Q" || f[8] != "+") continue;  // other events, summaries
      double secs = 0;
      uint64_t sector = 0, sectors = 0;
      if (!absl::SimpleAtod(f[3], &secs) || !absl::SimpleAtoi(f[7], &sector) ||
          !absl::SimpleAtoi(f[9], &sectors)) {
        return BadLine(n, "a queue event needs a time, a sector and a count");
      }
      const bool w = f[6].find('W') != absl::string_view::npos;
      const bool rd = f[6].find('R') != absl::string_view::npos;
      if (!w && !rd) continue;  // flushes, discards
      t = static_cast<uint64_t>(secs * 1e9);
      r.write = w;
      r.offset = sector * 512;
      r.length = sectors * 512;
    }
    if (r.length == 0) continue;
    if (!have_first) {
      first = t;
      have_first = true;
    }
    const uint64_t rel = t >= first ? t - first : 0;
    r.time_ns = format == TraceFormat::kMsr ? rel * 100 : rel;
    out.push_back(r);
  }
  return out;
}

}  // namespace zonestack::zsreplay
