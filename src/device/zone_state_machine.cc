#include "device/zone_state_machine.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "device/zone_error.h"

namespace zonestack::device {
namespace {

bool AtLimit(uint32_t count, uint32_t limit) {
  return limit != 0 && count >= limit;
}

}  // namespace

ZoneStateMachine::ZoneStateMachine(const DeviceInfo& info)
    : info_(info), auto_close_cursor_(info.num_conventional_zones) {
  zones_.resize(info_.num_zones);
  for (uint32_t i = 0; i < info_.num_zones; ++i) {
    ZoneInfo& z = zones_[i].info;
    z.index = i;
    z.start = static_cast<uint64_t>(i) * info_.zone_size;
    z.size = info_.zone_size;
    if (i < info_.num_conventional_zones) {
      z.type = ZoneType::kConventional;
      z.state = ZoneState::kNotWritePointer;
      z.capacity = info_.zone_size;
      z.cell_mode = info_.default_cell_mode;
    } else {
      z.type = info_.sequential_zone_type;
      ResetToEmpty(zones_[i]);
    }
    z.write_pointer = z.start;
    zones_[i].durable_wp = z.start;
  }
}

absl::StatusOr<ZoneStateMachine::Zone*> ZoneStateMachine::ManagedZone(uint32_t index,
                                                                      const char* action,
                                                                      std::string* where) {
  if (auto s = CheckZoneIndex(index); !s.ok()) return s;
  Zone& z = zones_[index];
  *where = absl::StrCat(action, " zone ", index, " (", ToString(z.info.state), ")");
  if (z.info.type == ZoneType::kConventional) {
    return MakeZoneError(ZoneError::kInvalidArgument, absl::StrCat(*where, ": conventional zone"));
  }
  return &z;
}

absl::Status ZoneStateMachine::CheckZoneIndex(uint32_t zone) const {
  if (zone >= zones_.size()) {
    return MakeZoneError(ZoneError::kOutOfRange,
                         absl::StrCat("zone ", zone, " but the device has ",
                                      zones_.size(), " zones"));
  }
  return absl::OkStatus();
}

uint64_t ZoneStateMachine::WrittenBytes(uint32_t zone) const {
  const ZoneInfo& z = zones_[zone].info;
  if (z.type == ZoneType::kConventional) return z.size;
  return z.write_pointer - z.start;
}

absl::Status ZoneStateMachine::CheckOpenResources(const Zone& z,
                                                  CellMode mode) const {
  if (!CountsResources(z)) return absl::OkStatus();
  const bool needs_active = z.info.state == ZoneState::kEmpty;
  const bool qlc = mode == CellMode::kQlc &&
                   info_.default_cell_mode != CellMode::kQlc;
  if (needs_active && AtLimit(active_, info_.max_active_zones)) {
    return MakeZoneError(ZoneError::kTooManyActive,
                         absl::StrCat("zone ", z.info.index, ": ", active_,
                                      " zones active, limit ",
                                      info_.max_active_zones));
  }
  if (qlc && needs_active && AtLimit(active_qlc_, info_.max_active_qlc_zones)) {
    return MakeZoneError(ZoneError::kTooManyActive,
                         absl::StrCat("zone ", z.info.index, ": ", active_qlc_,
                                      " QLC zones active, limit ",
                                      info_.max_active_qlc_zones));
  }
  if (qlc && AtLimit(open_qlc_, info_.max_open_qlc_zones)) {
    return MakeZoneError(ZoneError::kTooManyOpen,
                         absl::StrCat("zone ", z.info.index, ": ", open_qlc_,
                                      " QLC zones open, limit ",
                                      info_.max_open_qlc_zones));
  }
  // At the open limit the device closes an implicitly opened zone to make
  // room (QEMU auto_transition, null_blk); explicitly opened zones stay.
  // A ZBC device (null_blk) does so only while the active limit has room,
  // even for a closed zone that is already active.
  const bool can_auto_close =
      !implicitly_open_.empty() &&
      (info_.protocol != Protocol::kZbc || !AtLimit(active_, info_.max_active_zones));
  if (AtLimit(open_, info_.max_open_zones) && !can_auto_close) {
    return MakeZoneError(ZoneError::kTooManyOpen,
                         absl::StrCat("zone ", z.info.index, ": ", open_,
                                      " zones open, limit ",
                                      info_.max_open_zones));
  }
  return absl::OkStatus();
}

absl::Status ZoneStateMachine::CheckWrite(uint64_t offset, uint64_t len) const {
  const uint64_t bs = info_.block_size;
  if (offset % bs != 0 || len % bs != 0) {
    return MakeZoneError(ZoneError::kUnaligned,
                         absl::StrCat("write of ", len, " bytes at ", offset,
                                      ", block size ", bs));
  }
  if (len == 0) {
    return MakeZoneError(ZoneError::kInvalidArgument, "empty write");
  }
  if (offset >= info_.capacity_bytes() ||
      len > info_.capacity_bytes() - offset) {
    return MakeZoneError(ZoneError::kOutOfRange,
                         absl::StrCat("write of ", len, " bytes at ", offset,
                                      " beyond device end ",
                                      info_.capacity_bytes()));
  }
  const Zone& z = zones_[offset / info_.zone_size];
  const ZoneInfo& zi = z.info;
  const std::string where = absl::StrCat("zone ", zi.index, " at ", offset);
  if (zi.IsSplit()) {
    return MakeZoneError(ZoneError::kInvalidArgument,
                         absl::StrCat(where, ": a split zone is written through its subzones"));
  }
  // A host-aware zone takes writes anywhere, a full one too: they are
  // non-sequential writes, redirected to the media cache.
  const bool preferred = zi.type == ZoneType::kSequentialWritePreferred;
  switch (zi.state) {
    case ZoneState::kFull:
      if (preferred) break;
      return MakeZoneError(ZoneError::kZoneFull, where);
    case ZoneState::kReadOnly:
      return MakeZoneError(ZoneError::kReadOnly, where);
    case ZoneState::kOffline:
      return MakeZoneError(ZoneError::kOffline, where);
    default:
      break;
  }
  if (zi.type == ZoneType::kSequentialWriteRequired &&
      offset != zi.write_pointer) {
    return MakeZoneError(ZoneError::kInvalidWrite,
                         absl::StrCat(where, ", write pointer at ",
                                      zi.write_pointer));
  }
  if (offset + len > zi.start + zi.capacity) {
    return MakeZoneError(ZoneError::kBoundary,
                         absl::StrCat(where, ": ", len,
                                      " bytes cross the zone capacity ",
                                      zi.capacity));
  }
  if (zi.state == ZoneState::kEmpty || zi.state == ZoneState::kClosed) {
    return CheckOpenResources(z, zi.cell_mode);
  }
  return absl::OkStatus();
}

void ZoneStateMachine::CommitWrite(uint64_t offset, uint64_t len) {
  const uint32_t index = static_cast<uint32_t>(offset / info_.zone_size);
  Zone& z = zones_[index];
  if (z.info.type == ZoneType::kConventional) return;
  if (IsNonSequentialWrite(offset)) z.info.non_sequential = true;
  if (z.info.state == ZoneState::kEmpty || z.info.state == ZoneState::kClosed) {
    AcquireOpen(index, ZoneState::kImplicitlyOpened, z.info.cell_mode);
  }
  z.info.write_pointer = std::max(z.info.write_pointer, offset + len);
  if (z.info.write_pointer >= z.info.start + z.info.capacity) {
    ReleaseResources(z);
    SetState(z, ZoneState::kFull);
  }
}

bool ZoneStateMachine::IsNonSequentialWrite(uint64_t offset) const {
  const ZoneInfo& zi = zones_[offset / info_.zone_size].info;
  if (zi.type != ZoneType::kSequentialWritePreferred) return false;
  return zi.non_sequential || zi.state == ZoneState::kFull || offset != zi.write_pointer;
}

void ZoneStateMachine::MarkSequential(uint32_t zone) { zones_[zone].info.non_sequential = false; }

absl::Status ZoneStateMachine::CheckRead(uint64_t offset, uint64_t len) const {
  const uint64_t bs = info_.block_size;
  if (offset % bs != 0 || len % bs != 0) {
    return MakeZoneError(ZoneError::kUnaligned,
                         absl::StrCat("read of ", len, " bytes at ", offset,
                                      ", block size ", bs));
  }
  if (len == 0) return MakeZoneError(ZoneError::kInvalidArgument, "empty read");
  if (offset >= info_.capacity_bytes() ||
      len > info_.capacity_bytes() - offset) {
    return MakeZoneError(ZoneError::kOutOfRange,
                         absl::StrCat("read of ", len, " bytes at ", offset,
                                      " beyond device end ",
                                      info_.capacity_bytes()));
  }
  const uint32_t first = static_cast<uint32_t>(offset / info_.zone_size);
  const uint32_t last = static_cast<uint32_t>((offset + len - 1) / info_.zone_size);
  if (first != last && !info_.cross_zone_reads_allowed) {
    return MakeZoneError(ZoneError::kBoundary,
                         absl::StrCat("read of ", len, " bytes at ", offset,
                                      " crosses from zone ", first, " to ",
                                      last));
  }
  for (uint32_t i = first; i <= last; ++i) {
    const ZoneInfo& zi = zones_[i].info;
    if (zi.state == ZoneState::kOffline) {
      return MakeZoneError(ZoneError::kOffline, absl::StrCat("zone ", i));
    }
    if (info_.reads_beyond_wp_allowed ||
        zi.type != ZoneType::kSequentialWriteRequired ||
        zi.state == ZoneState::kFull) {
      continue;
    }
    const uint64_t end = std::min(offset + len, zi.start + zi.size);
    if (end > zi.write_pointer) {
      return MakeZoneError(ZoneError::kReadBeyondWp,
                           absl::StrCat("read up to ", end, " in zone ", i,
                                        ", write pointer at ",
                                        zi.write_pointer));
    }
  }
  return absl::OkStatus();
}

absl::Status ZoneStateMachine::Open(uint32_t index, CellMode mode) {
  std::string where;
  auto managed = ManagedZone(index, "open", &where);
  if (!managed.ok()) return managed.status();
  Zone& z = **managed;
  if (mode != CellMode::kNone && !info_.SupportsCellMode(mode)) {
    return MakeZoneError(ZoneError::kUnsupported,
                         absl::StrCat(where, ": ", info_.name,
                                      " cannot open zones in ", ToString(mode)));
  }
  if (mode != CellMode::kNone && mode != z.info.cell_mode &&
      z.info.state != ZoneState::kEmpty) {
    return MakeZoneError(ZoneError::kInvalidArgument,
                         absl::StrCat(where, ": the cell mode of a zone (",
                                      ToString(z.info.cell_mode),
                                      ") can only change while it is empty"));
  }
  switch (z.info.state) {
    case ZoneState::kEmpty:
    case ZoneState::kClosed: {
      const CellMode m = (z.info.state == ZoneState::kEmpty && mode != CellMode::kNone)
                             ? mode : z.info.cell_mode;
      if (auto s = CheckOpenResources(z, m); !s.ok()) {
        return s;
      }
      AcquireOpen(index, ZoneState::kExplicitlyOpened, m);
      return absl::OkStatus();
    }
    case ZoneState::kImplicitlyOpened:
      implicitly_open_.erase({z.open_seq, index});
      SetState(z, ZoneState::kExplicitlyOpened);
      return absl::OkStatus();
    case ZoneState::kExplicitlyOpened:
      return absl::OkStatus();
    case ZoneState::kFull:
      // SplitZNS 4.2: FINISH deactivates a split zone; OPEN activates it
      // again so that its reset subzones take SSTs (the device checked
      // that one is empty). A full wide zone only resets.
      if (!z.info.IsSplit()) return MakeZoneError(ZoneError::kInvalidTransition, where);
      if (CountsResources(z)) {
        // Active again, as an empty zone would become.
        if (AtLimit(active_, info_.max_active_zones)) {
          return MakeZoneError(ZoneError::kTooManyActive,
                               absl::StrCat(where, ": ", active_, " zones active, limit ",
                                            info_.max_active_zones));
        }
        if (auto s = CheckOpenResources(z, z.info.cell_mode); !s.ok()) return s;
        ++active_;
        if (IsQlc(z)) ++active_qlc_;
      }
      AcquireOpen(index, ZoneState::kExplicitlyOpened, z.info.cell_mode);
      return absl::OkStatus();
    default:
      return MakeZoneError(ZoneError::kInvalidTransition, where);
  }
}

absl::Status ZoneStateMachine::Close(uint32_t index) {
  std::string where;
  auto managed = ManagedZone(index, "close", &where);
  if (!managed.ok()) return managed.status();
  Zone& z = **managed;
  switch (z.info.state) {
    case ZoneState::kImplicitlyOpened:
    case ZoneState::kExplicitlyOpened:
      // ZBC returns a zone with nothing written to empty; ZNS keeps it
      // closed (and active).
      if (info_.protocol == Protocol::kZbc &&
          z.info.write_pointer == z.info.start) {
        ReleaseResources(z);
        ResetToEmpty(z);
        return absl::OkStatus();
      }
      if (z.info.state == ZoneState::kImplicitlyOpened) {
        implicitly_open_.erase({z.open_seq, index});
      }
      if (CountsResources(z)) {
        --open_;
        if (IsQlc(z)) --open_qlc_;
      }
      SetState(z, ZoneState::kClosed);
      return absl::OkStatus();
    case ZoneState::kClosed:
      return absl::OkStatus();
    default:
      return MakeZoneError(ZoneError::kInvalidTransition, where);
  }
}

absl::Status ZoneStateMachine::Finish(uint32_t index) {
  std::string where;
  auto managed = ManagedZone(index, "finish", &where);
  if (!managed.ok()) return managed.status();
  Zone& z = **managed;
  switch (z.info.state) {
    case ZoneState::kEmpty:
    case ZoneState::kClosed:
      // A ZBC device takes an empty or closed zone through open on its way
      // to full: it needs the resources an open would, and may auto-close
      // another zone for them (null_blk). A ZNS device takes it straight to
      // full (QEMU 7.2 finishes an empty zone at the active limit). Both
      // seen in scripts/vm_test.sh.
      if (info_.protocol == Protocol::kZbc) {
        if (auto s = CheckOpenResources(z, z.info.cell_mode); !s.ok()) {
          return MakeZoneError(GetZoneError(s), absl::StrCat(where, ": ", s.message()));
        }
        AutoCloseIfAtLimit();
      }
      [[fallthrough]];
    case ZoneState::kImplicitlyOpened:
    case ZoneState::kExplicitlyOpened:
      ReleaseResources(z);
      // A split zone has no write pointer of its own (its subzones do).
      if (!z.info.IsSplit()) z.info.write_pointer = z.info.start + z.info.capacity;
      SetState(z, ZoneState::kFull);
      return absl::OkStatus();
    case ZoneState::kFull:
      return absl::OkStatus();
    default:
      return MakeZoneError(ZoneError::kInvalidTransition, where);
  }
}

absl::Status ZoneStateMachine::Reset(uint32_t index) {
  std::string where;
  auto managed = ManagedZone(index, "reset", &where);
  if (!managed.ok()) return managed.status();
  Zone& z = **managed;
  if (z.info.IsSplit()) return Merge(index);
  switch (z.info.state) {
    case ZoneState::kEmpty:
    case ZoneState::kImplicitlyOpened:
    case ZoneState::kExplicitlyOpened:
    case ZoneState::kClosed:
    case ZoneState::kFull:
      ReleaseResources(z);
      ResetToEmpty(z);
      return absl::OkStatus();
    default:
      return MakeZoneError(ZoneError::kInvalidTransition, where);
  }
}

absl::Status ZoneStateMachine::Split(uint32_t index, uint32_t subzones) {
  std::string where;
  auto managed = ManagedZone(index, "split", &where);
  if (!managed.ok()) return managed.status();
  Zone& z = **managed;
  if (z.info.state != ZoneState::kEmpty || z.info.IsSplit()) {
    return MakeZoneError(ZoneError::kInvalidTransition,
                         absl::StrCat(where, ": only an empty wide zone splits"));
  }
  if (auto s = CheckOpenResources(z, info_.default_cell_mode); !s.ok()) return s;
  AcquireOpen(index, ZoneState::kExplicitlyOpened, info_.default_cell_mode);
  z.info.subzones = subzones;
  return absl::OkStatus();
}

absl::Status ZoneStateMachine::Merge(uint32_t index) {
  std::string where;
  auto managed = ManagedZone(index, "merge", &where);
  if (!managed.ok()) return managed.status();
  Zone& z = **managed;
  if (!z.info.IsSplit()) {
    return MakeZoneError(ZoneError::kInvalidTransition, absl::StrCat(where, ": not split"));
  }
  if (!z.info.IsActive() && z.info.state != ZoneState::kFull) {
    return MakeZoneError(ZoneError::kInvalidTransition, where);
  }
  ReleaseResources(z);
  z.info.subzones = 0;
  ResetToEmpty(z);
  return absl::OkStatus();
}

absl::Status ZoneStateMachine::CheckSubzoneWrite(uint32_t index) const {
  const ZoneInfo& zi = zones_[index].info;
  const std::string where = absl::StrCat("split zone ", index);
  switch (zi.state) {
    case ZoneState::kFull:
      return MakeZoneError(ZoneError::kZoneFull, absl::StrCat(where, " is finished"));
    case ZoneState::kReadOnly:
      return MakeZoneError(ZoneError::kReadOnly, where);
    case ZoneState::kOffline:
      return MakeZoneError(ZoneError::kOffline, where);
    case ZoneState::kClosed:
      return CheckOpenResources(zones_[index], zi.cell_mode);
    default:
      return absl::OkStatus();
  }
}

void ZoneStateMachine::CommitSubzoneWrite(uint32_t index) {
  Zone& z = zones_[index];
  if (z.info.state == ZoneState::kClosed) {
    AcquireOpen(index, ZoneState::kImplicitlyOpened, z.info.cell_mode);
  }
}

void ZoneStateMachine::SetReadOnly(uint32_t index) {
  Zone& z = zones_[index];
  ReleaseResources(z);
  SetState(z, ZoneState::kReadOnly);
  z.durable_wp = z.info.write_pointer;
}

void ZoneStateMachine::SetOffline(uint32_t index) {
  Zone& z = zones_[index];
  ReleaseResources(z);
  SetState(z, ZoneState::kOffline);
}

void ZoneStateMachine::AcquireOpen(uint32_t index, ZoneState target,
                                   CellMode mode) {
  Zone& z = zones_[index];
  if (CountsResources(z)) {
    AutoCloseIfAtLimit();
    if (z.info.state == ZoneState::kEmpty) {
      z.info.cell_mode = mode;
      z.info.capacity = info_.ZoneCapacityFor(mode);
      ++active_;
      if (IsQlc(z)) ++active_qlc_;
    }
    ++open_;
    if (IsQlc(z)) ++open_qlc_;
  }
  SetState(z, target);
  if (target == ZoneState::kImplicitlyOpened) {
    z.open_seq = next_open_seq_++;
    implicitly_open_.insert({z.open_seq, index});
  }
}

uint32_t ZoneStateMachine::AutoCloseVictim() const {
  // ZNS: the oldest implicitly opened zone (QEMU).
  if (info_.protocol != Protocol::kZbc) return implicitly_open_.begin()->second;
  // ZBC: the first one by zone number after the last zone closed this
  // way, wrapping around (null_blk; seen in scripts/vm_test.sh).
  std::optional<uint32_t> after, lowest;
  for (const auto& [seq, zone] : implicitly_open_) {
    if (zone >= auto_close_cursor_ && (!after || zone < *after)) after = zone;
    if (!lowest || zone < *lowest) lowest = zone;
  }
  return after ? *after : *lowest;
}

void ZoneStateMachine::AutoCloseIfAtLimit() {
  if (!AtLimit(open_, info_.max_open_zones) || implicitly_open_.empty()) return;
  const uint32_t victim = AutoCloseVictim();
  Zone& v = zones_[victim];
  implicitly_open_.erase({v.open_seq, victim});
  auto_close_cursor_ = victim + 1;
  --open_;
  if (IsQlc(v)) --open_qlc_;
  SetState(v, ZoneState::kClosed);
}

void ZoneStateMachine::ReleaseResources(Zone& z) {
  const uint32_t index = z.info.index;
  if (z.info.state == ZoneState::kImplicitlyOpened) {
    implicitly_open_.erase({z.open_seq, index});
  }
  if (!CountsResources(z)) return;
  if (z.info.IsOpen()) {
    --open_;
    if (IsQlc(z)) --open_qlc_;
  }
  if (z.info.IsActive()) {
    --active_;
    if (IsQlc(z)) --active_qlc_;
  }
}

void ZoneStateMachine::SetState(Zone& z, ZoneState s) { z.info.state = s; }

void ZoneStateMachine::ResetToEmpty(Zone& z) {
  z.info.state = ZoneState::kEmpty;
  z.info.non_sequential = false;
  z.info.write_pointer = z.info.start;
  z.info.cell_mode = info_.default_cell_mode;
  z.info.capacity = info_.ZoneCapacityFor(info_.default_cell_mode);
  z.durable_wp = z.info.start;
  z.durable_full = false;
}

void ZoneStateMachine::MarkDurable(uint32_t index) {
  Zone& z = zones_[index];
  z.durable_wp = z.info.write_pointer;
  z.durable_full = z.info.state == ZoneState::kFull;
}

void ZoneStateMachine::MarkAllDurable() {
  for (uint32_t i = 0; i < zones_.size(); ++i) MarkDurable(i);
}

void ZoneStateMachine::PowerCut() {
  implicitly_open_.clear();
  auto_close_cursor_ = info_.num_conventional_zones;
  open_ = active_ = open_qlc_ = active_qlc_ = 0;
  for (Zone& z : zones_) {
    ZoneInfo& zi = z.info;
    if (zi.type == ZoneType::kConventional) continue;
    if (zi.state == ZoneState::kReadOnly || zi.state == ZoneState::kOffline) {
      continue;
    }
    zi.write_pointer = z.durable_wp;
    if (z.durable_full) {
      zi.state = ZoneState::kFull;
    } else if (zi.write_pointer == zi.start && !zi.IsSplit()) {
      ResetToEmpty(z);
    } else {
      zi.state = ZoneState::kClosed;
      if (CountsResources(z)) {
        ++active_;
        if (IsQlc(z)) ++active_qlc_;
      }
    }
  }
}

ZoneInfo ZoneStateMachine::DurableZone(uint32_t index) const {
  const Zone& z = zones_[index];
  ZoneInfo zi = z.info;
  if (zi.type != ZoneType::kConventional && zi.state != ZoneState::kReadOnly &&
      zi.state != ZoneState::kOffline) {
    zi.write_pointer = z.durable_wp;
    zi.state = z.durable_full                             ? ZoneState::kFull
               : z.durable_wp == zi.start && !zi.IsSplit() ? ZoneState::kEmpty
                                                           : ZoneState::kClosed;
  }
  return zi;
}

std::vector<ZoneInfo> ZoneStateMachine::DurableZones() const {
  std::vector<ZoneInfo> out;
  out.reserve(zones_.size());
  for (uint32_t i = 0; i < zones_.size(); ++i) out.push_back(DurableZone(i));
  return out;
}

void ZoneStateMachine::RestoreDurable(const std::vector<ZoneInfo>& zones) {
  for (size_t i = 0; i < zones.size() && i < zones_.size(); ++i) {
    Zone& z = zones_[i];
    z.info.state = zones[i].state;
    z.info.write_pointer = zones[i].write_pointer;
    z.info.cell_mode = zones[i].cell_mode;
    z.info.capacity = zones[i].capacity;
    z.info.non_sequential = zones[i].non_sequential;
    z.durable_wp = z.info.write_pointer;
    z.durable_full = z.info.state == ZoneState::kFull;
  }
  // Recount resources from the restored states: closed zones stay active.
  PowerCut();
}

void ZoneStateMachine::Restore(const std::vector<ZoneInfo>& durable,
                               const std::vector<uint64_t>& cached_wps) {
  RestoreDurable(durable);
  for (size_t i = 0; i < durable.size() && i < zones_.size() && i < cached_wps.size(); ++i) {
    Zone& z = zones_[i];
    if (!IsSequential(z)) continue;
    if (z.info.state != ZoneState::kEmpty && z.info.state != ZoneState::kClosed) continue;
    const uint64_t end = z.info.start + durable[i].capacity;
    const uint64_t wp = std::min(cached_wps[i], end);
    if (wp <= z.info.write_pointer) continue;
    if (z.info.state == ZoneState::kEmpty) {
      // RestoreDurable gave the empty zone the default cell mode; the
      // cached writes were made in the mode it was opened with.
      z.info.cell_mode = durable[i].cell_mode;
      z.info.capacity = durable[i].capacity;
      SetState(z, ZoneState::kClosed);
      if (CountsResources(z)) {
        ++active_;
        if (IsQlc(z)) ++active_qlc_;
      }
    }
    z.info.write_pointer = wp;
    if (wp == end) {
      ReleaseResources(z);
      SetState(z, ZoneState::kFull);
    }
  }
}

}  // namespace zonestack::device
