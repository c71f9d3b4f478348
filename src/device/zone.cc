#include "device/zone.h"

namespace zonestack::device {

const char* ToString(ZoneState s) {
  switch (s) {
    case ZoneState::kNotWritePointer: return "not-wp";
    case ZoneState::kEmpty: return "empty";
    case ZoneState::kImplicitlyOpened: return "imp-open";
    case ZoneState::kExplicitlyOpened: return "exp-open";
    case ZoneState::kClosed: return "closed";
    case ZoneState::kReadOnly: return "read-only";
    case ZoneState::kFull: return "full";
    case ZoneState::kOffline: return "offline";
  }
  return "?";
}

const char* ToString(ZoneType t) {
  switch (t) {
    case ZoneType::kConventional: return "conventional";
    case ZoneType::kSequentialWriteRequired: return "seq-write-required";
    case ZoneType::kSequentialWritePreferred: return "seq-write-preferred";
  }
  return "?";
}

const char* ToString(CellMode m) {
  switch (m) {
    case CellMode::kNone: return "-";
    case CellMode::kSlc: return "slc";
    case CellMode::kTlc: return "tlc";
    case CellMode::kQlc: return "qlc";
  }
  return "?";
}

const char* ToString(IoClass c) {
  switch (c) {
    case IoClass::kWal: return "wal";
    case IoClass::kFlush: return "flush";
    case IoClass::kCompaction: return "compaction";
    case IoClass::kUserRead: return "user_read";
    case IoClass::kMigration: return "migration";
    case IoClass::kGc: return "gc";
    case IoClass::kCache: return "cache";
    case IoClass::kMetadata: return "metadata";
    case IoClass::kOther: return "other";
  }
  return "?";
}

uint64_t DeviceInfo::ZoneCapacityFor(CellMode mode) const {
  if (mode == CellMode::kNone || native_cell_mode == CellMode::kNone ||
      mode == native_cell_mode) {
    return zone_capacity;
  }
  // Cell modes are numbered by bits per cell; keep block alignment.
  uint64_t cap = zone_capacity * static_cast<uint64_t>(mode) /
                 static_cast<uint64_t>(native_cell_mode);
  return cap / block_size * block_size;
}

}  // namespace zonestack::device
