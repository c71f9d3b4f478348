#include "device/subzone_ring.h"

#include <algorithm>
#include <cstring>

namespace zonestack::device {

SubzoneRing::SubzoneRing(uint64_t capacity_bytes, uint32_t chips, uint64_t unit_bytes)
    : capacity_(capacity_bytes), unit_(unit_bytes), fifo_(chips) {}

void SubzoneRing::Append(Key key, int32_t chip, uint64_t offset,
                         std::span<const uint8_t> data) {
  auto [it, fresh] = arrays_.try_emplace(key);
  Array& a = it->second;
  if (fresh) {
    // Everything the subzone holds below `offset` is on flash already.
    a.chip = chip;
    a.actual_wp = offset;
  }
  used_ += data.size();
  while (!data.empty()) {
    if (a.units.empty() || a.units.back().complete) a.units.emplace_back();
    Unit& u = a.units.back();
    const size_t n = std::min<uint64_t>(data.size(), unit_ - u.data.size());
    u.data.insert(u.data.end(), data.begin(), data.begin() + n);
    data = data.subspan(n);
    if (u.data.size() == unit_) {
      u.complete = true;
      fifo_[chip].push_back(key);
    }
  }
}

std::vector<SubzoneRing::Drained> SubzoneRing::DrainRound() {
  std::vector<Drained> out;
  for (uint32_t chip = 0; chip < fifo_.size(); ++chip) {
    if (fifo_[chip].empty()) continue;
    const Key key = fifo_[chip].front();
    fifo_[chip].pop_front();
    Array& a = arrays_.at(key);
    // A subzone's units complete in order, so its FIFO entry is its head.
    Unit& u = a.units.front();
    const uint64_t bytes = u.data.size();
    out.push_back({key, static_cast<int32_t>(chip), a.actual_wp, std::move(u.data)});
    a.units.pop_front();
    a.actual_wp += bytes;
    used_ -= bytes;
    if (a.units.empty()) arrays_.erase(key);
  }
  return out;
}

std::vector<SubzoneRing::Drained> SubzoneRing::DrainAll() {
  std::vector<Drained> out;
  for (auto& [key, a] : arrays_) {
    uint64_t offset = a.actual_wp;
    for (Unit& u : a.units) {
      const uint64_t bytes = u.data.size();
      out.push_back({key, a.chip, offset, std::move(u.data)});
      offset += bytes;
    }
  }
  arrays_.clear();
  for (auto& q : fifo_) q.clear();
  used_ = 0;
  return out;
}

uint64_t SubzoneRing::ActualWritePointer(Key key) const {
  auto it = arrays_.find(key);
  return it == arrays_.end() ? UINT64_MAX : it->second.actual_wp;
}

uint64_t SubzoneRing::Read(Key key, uint64_t offset, std::span<uint8_t> dst) const {
  auto it = arrays_.find(key);
  if (it == arrays_.end()) return 0;
  const Array& a = it->second;
  uint64_t copied = 0;
  const uint64_t end = offset + dst.size();
  for (uint64_t pos = std::max(offset, a.actual_wp); pos < end;) {
    // RingArray[head + (page - actual write pointer)]: every unit but the
    // last is whole.
    const uint64_t index = (pos - a.actual_wp) / unit_;
    if (index >= a.units.size()) break;
    const Unit& u = a.units[index];
    const uint64_t in_unit = (pos - a.actual_wp) % unit_;
    if (in_unit >= u.data.size()) break;
    const uint64_t n = std::min(end - pos, u.data.size() - in_unit);
    std::memcpy(dst.data() + (pos - offset), u.data.data() + in_unit, n);
    copied += n;
    pos += n;
  }
  return copied;
}

void SubzoneRing::Seal(Key key) {
  auto it = arrays_.find(key);
  if (it == arrays_.end()) return;
  Unit& u = it->second.units.back();
  if (u.complete) return;
  u.complete = true;
  fifo_[it->second.chip].push_back(key);
}

void SubzoneRing::Drop(Key key) {
  auto it = arrays_.find(key);
  if (it == arrays_.end()) return;
  for (const Unit& u : it->second.units) used_ -= u.data.size();
  std::erase(fifo_[it->second.chip], key);
  arrays_.erase(it);
}

}  // namespace zonestack::device
