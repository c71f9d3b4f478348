#include "device/subzone_table.h"

#include "absl/strings/str_cat.h"
#include "device/zone_error.h"

namespace zonestack::device {

SubzoneTable::SubzoneTable(const DeviceInfo& info)
    : info_(info),
      n_(info.subzones_per_zone),
      size_(info.subzone_size()),
      capacity_(info.subzone_capacity()) {}

void SubzoneTable::Split(uint32_t zone) { zones_[zone] = std::vector<Subzone>(n_); }

void SubzoneTable::Merge(uint32_t zone) { zones_.erase(zone); }

uint32_t SubzoneTable::SubzoneOf(uint32_t zone, uint64_t offset) const {
  return static_cast<uint32_t>((offset - uint64_t{zone} * info_.zone_size) / size_);
}

uint64_t SubzoneTable::SubzoneStart(uint32_t zone, uint32_t subzone) const {
  return uint64_t{zone} * info_.zone_size + uint64_t{subzone} * size_;
}

uint64_t SubzoneTable::Written(uint32_t zone, uint32_t subzone) const {
  return zones_.at(zone)[subzone].written;
}

uint64_t SubzoneTable::DurableWritten(uint32_t zone, uint32_t subzone) const {
  return zones_.at(zone)[subzone].durable;
}

int32_t SubzoneTable::ChipOf(uint32_t zone, uint32_t subzone) const {
  return zones_.at(zone)[subzone].chip;
}

bool SubzoneTable::AllEmpty(uint32_t zone) const {
  for (const Subzone& s : zones_.at(zone)) {
    if (s.written != 0 || s.full) return false;
  }
  return true;
}

bool SubzoneTable::AllInactive(uint32_t zone) const {
  for (const Subzone& s : zones_.at(zone)) {
    if (s.written != 0 && !s.full) return false;
  }
  return true;
}

bool SubzoneTable::AnyEmpty(uint32_t zone) const {
  for (const Subzone& s : zones_.at(zone)) {
    if (s.written == 0 && !s.full) return true;
  }
  return false;
}

absl::Status SubzoneTable::CheckWrite(uint32_t zone, uint64_t offset, uint64_t len) const {
  const uint32_t index = SubzoneOf(zone, offset);
  const Subzone& s = zones_.at(zone)[index];
  const uint64_t start = SubzoneStart(zone, index);
  const std::string where = absl::StrCat("subzone ", index, " of zone ", zone, " at ", offset);
  if (s.full) return MakeZoneError(ZoneError::kZoneFull, where);
  if (offset != start + s.written) {
    return MakeZoneError(ZoneError::kInvalidWrite,
                         absl::StrCat(where, ", write pointer at ", start + s.written));
  }
  if (s.written + len > capacity_) {
    return MakeZoneError(ZoneError::kBoundary, absl::StrCat(where, ": ", len,
                                                            " bytes cross the subzone capacity ",
                                                            capacity_));
  }
  return absl::OkStatus();
}

int32_t SubzoneTable::AllocateChip(const std::vector<Subzone>& siblings) {
  // A split zone has one subzone per chip, so a free chip always exists.
  for (uint32_t tries = 0; tries < n_; ++tries) {
    const int32_t chip = static_cast<int32_t>(next_chip_);
    next_chip_ = (next_chip_ + 1) % n_;
    bool taken = false;
    for (const Subzone& s : siblings) taken = taken || s.chip == chip;
    if (!taken) return chip;
  }
  return -1;  // unreachable: fewer subzones than chips hold one
}

void SubzoneTable::CommitWrite(uint32_t zone, uint64_t offset, uint64_t len) {
  std::vector<Subzone>& subs = zones_.at(zone);
  Subzone& s = subs[SubzoneOf(zone, offset)];
  if (s.chip < 0) s.chip = AllocateChip(subs);
  s.written += len;
  if (s.written >= capacity_) s.full = true;
}

void SubzoneTable::Finish(uint32_t zone, uint32_t subzone) {
  Subzone& s = zones_.at(zone)[subzone];
  s.full = true;
  s.durable = s.written;
  s.durable_full = true;
}

uint64_t SubzoneTable::Reset(uint32_t zone, uint32_t subzone) {
  Subzone& s = zones_.at(zone)[subzone];
  const uint64_t written = s.written;
  s = Subzone{};
  return written;
}

void SubzoneTable::MarkDurable(uint32_t zone) {
  auto it = zones_.find(zone);
  if (it == zones_.end()) return;
  for (Subzone& s : it->second) {
    s.durable = s.written;
    s.durable_full = s.full;
  }
}

std::vector<std::pair<uint64_t, uint64_t>> SubzoneTable::PowerCut() {
  std::vector<std::pair<uint64_t, uint64_t>> dropped;
  for (auto& [zone, subs] : zones_) {
    for (uint32_t i = 0; i < subs.size(); ++i) {
      Subzone& s = subs[i];
      if (s.written > s.durable) {
        dropped.push_back({SubzoneStart(zone, i) + s.durable, s.written - s.durable});
      }
      s.written = s.durable;
      s.full = s.durable_full;
      if (s.written == 0 && !s.full) s.chip = -1;
    }
  }
  return dropped;
}

std::vector<SubzoneInfo> SubzoneTable::Report(uint32_t zone, bool zone_open) const {
  std::vector<SubzoneInfo> out;
  const std::vector<Subzone>& subs = zones_.at(zone);
  for (uint32_t i = 0; i < subs.size(); ++i) {
    const Subzone& s = subs[i];
    SubzoneInfo r;
    r.zone = zone;
    r.index = i;
    r.start = SubzoneStart(zone, i);
    r.size = size_;
    r.capacity = capacity_;
    r.write_pointer = r.start + (s.full ? capacity_ : s.written);
    r.state = s.full           ? ZoneState::kFull
              : s.written == 0 ? ZoneState::kEmpty
              : zone_open      ? ZoneState::kImplicitlyOpened
                               : ZoneState::kClosed;
    r.chip = s.chip;
    out.push_back(r);
  }
  return out;
}

}  // namespace zonestack::device
