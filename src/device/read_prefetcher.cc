#include "device/read_prefetcher.h"

#include <algorithm>

namespace zonestack::device {

ReadPrefetcher::Hit ReadPrefetcher::Read(Key key, int32_t chip, uint64_t offset,
                                         uint64_t length) {
  Subzone& s = subzones_[key];
  s.chip = chip;
  Hit hit;
  if (offset >= s.buffer_from && offset < s.buffer_to) {
    hit.bytes = std::min(length, s.buffer_to - offset);
    hit.ready_ns = s.ready_ns;
  }
  s.read_pointer = std::max(s.read_pointer, offset + length);
  // What the read pointer passed is of no more use: the buffer is empty
  // again once the compaction read past it.
  s.buffer_from = std::min(std::max(s.buffer_from, s.read_pointer), s.buffer_to);
  return hit;
}

std::vector<ReadPrefetcher::Preread> ReadPrefetcher::Choose(
    int32_t chip, absl::FunctionRef<uint64_t(Key)> on_flash) const {
  std::vector<Preread> out;
  std::vector<bool> served;
  for (const auto& [key, s] : subzones_) {
    if (s.chip == chip || s.chip < 0 || s.read_pointer == 0) continue;
    if (s.buffer_from < s.buffer_to) continue;  // its buffer still holds data
    if (served.size() <= static_cast<size_t>(s.chip)) served.resize(s.chip + 1, false);
    if (served[s.chip]) continue;  // one preread per chip
    const uint64_t end = on_flash(key);
    if (s.read_pointer >= end) continue;
    served[s.chip] = true;
    out.push_back({key, s.chip, s.read_pointer, std::min(buffer_, end - s.read_pointer)});
  }
  return out;
}

void ReadPrefetcher::Issued(const Preread& p, uint64_t ready_ns) {
  Subzone& s = subzones_[p.key];
  s.buffer_from = p.offset;
  s.buffer_to = p.offset + p.length;
  s.ready_ns = ready_ns;
}

}  // namespace zonestack::device
