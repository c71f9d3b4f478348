#include "device/zbd_translate.h"

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "device/zone_error.h"

namespace zonestack::device {
namespace {

ZoneType TypeOf(unsigned int type) {
  switch (type) {
    case ZBD_ZONE_TYPE_CNV: return ZoneType::kConventional;
    case ZBD_ZONE_TYPE_SWP: return ZoneType::kSequentialWritePreferred;
    default: return ZoneType::kSequentialWriteRequired;
  }
}

ZoneState StateOf(unsigned int cond) {
  switch (cond) {
    case ZBD_ZONE_COND_NOT_WP: return ZoneState::kNotWritePointer;
    case ZBD_ZONE_COND_EMPTY: return ZoneState::kEmpty;
    case ZBD_ZONE_COND_IMP_OPEN: return ZoneState::kImplicitlyOpened;
    case ZBD_ZONE_COND_EXP_OPEN: return ZoneState::kExplicitlyOpened;
    case ZBD_ZONE_COND_CLOSED: return ZoneState::kClosed;
    case ZBD_ZONE_COND_FULL: return ZoneState::kFull;
    case ZBD_ZONE_COND_READONLY: return ZoneState::kReadOnly;
    // A condition this code does not know: safest to treat as unusable.
    default: return ZoneState::kOffline;
  }
}

bool IsZoneManagement(ZbdCommand c) {
  return c == ZbdCommand::kOpen || c == ZbdCommand::kClose || c == ZbdCommand::kFinish ||
         c == ZbdCommand::kReset;
}

// The zone condition that explains an -EIO, or kNone.
ZoneError ExplainEio(ZbdCommand cmd, const ZoneInfo& z, uint64_t offset, uint64_t len,
                     bool reads_beyond_wp_allowed) {
  if (IsZoneManagement(cmd)) {
    if (z.type == ZoneType::kConventional) return ZoneError::kInvalidArgument;
    if (z.state == ZoneState::kReadOnly || z.state == ZoneState::kOffline) {
      return ZoneError::kInvalidTransition;
    }
    const bool empty_or_full = z.state == ZoneState::kEmpty || z.state == ZoneState::kFull;
    if (cmd == ZbdCommand::kOpen && z.state == ZoneState::kFull) {
      return ZoneError::kInvalidTransition;
    }
    if (cmd == ZbdCommand::kClose && empty_or_full) return ZoneError::kInvalidTransition;
    return ZoneError::kNone;
  }
  if (z.state == ZoneState::kOffline) return ZoneError::kOffline;
  if (cmd == ZbdCommand::kRead) {
    if (!reads_beyond_wp_allowed && z.type == ZoneType::kSequentialWriteRequired &&
        z.state != ZoneState::kFull && offset + len > z.write_pointer) {
      return ZoneError::kReadBeyondWp;
    }
    return ZoneError::kNone;
  }
  if (cmd != ZbdCommand::kWrite || z.type == ZoneType::kConventional) return ZoneError::kNone;
  if (z.state == ZoneState::kFull) return ZoneError::kZoneFull;
  if (z.state == ZoneState::kReadOnly) return ZoneError::kReadOnly;
  if (z.type == ZoneType::kSequentialWriteRequired && offset != z.write_pointer) {
    return ZoneError::kInvalidWrite;
  }
  if (offset + len > z.start + z.capacity) return ZoneError::kBoundary;
  return ZoneError::kNone;
}

}  // namespace

ZoneInfo ZoneFromReport(const zbd_zone& z, uint64_t zone_size) {
  ZoneInfo out;
  out.index = static_cast<uint32_t>(z.start / zone_size);
  out.start = z.start;
  out.size = z.len;
  out.capacity = z.capacity;
  out.type = TypeOf(z.type);
  out.state = StateOf(z.cond);
  out.cell_mode = CellMode::kNone;
  const uint64_t end = z.start + z.capacity;
  if (out.type == ZoneType::kConventional) {
    out.write_pointer = z.start;
  } else if (out.state == ZoneState::kFull) {
    out.write_pointer = end;
  } else if (out.state == ZoneState::kReadOnly || out.state == ZoneState::kOffline) {
    const bool valid = z.wp >= z.start && z.wp <= end;
    out.write_pointer = valid ? z.wp : out.state == ZoneState::kReadOnly ? end : z.start;
  } else {
    out.write_pointer = z.wp;
  }
  return out;
}

const char* ToString(ZbdCommand c) {
  switch (c) {
    case ZbdCommand::kRead: return "read";
    case ZbdCommand::kWrite: return "write";
    case ZbdCommand::kOpen: return "open zone";
    case ZbdCommand::kClose: return "close zone";
    case ZbdCommand::kFinish: return "finish zone";
    case ZbdCommand::kReset: return "reset zone";
    case ZbdCommand::kFlush: return "flush";
  }
  return "?";
}

absl::Status ZbdCommandError(ZbdCommand cmd, int err, const std::optional<ZoneInfo>& zone,
                             uint64_t offset, uint64_t len, bool reads_beyond_wp_allowed,
                             const std::string& where) {
  std::string what = absl::StrCat(where, ": ", std::strerror(err));
  if (err == ETOOMANYREFS) return MakeZoneError(ZoneError::kTooManyOpen, what);
  if (err == EOVERFLOW) return MakeZoneError(ZoneError::kTooManyActive, what);
  if (err == EIO && zone.has_value()) {
    const ZoneError e = ExplainEio(cmd, *zone, offset, len, reads_beyond_wp_allowed);
    if (e != ZoneError::kNone) {
      return MakeZoneError(e, absl::StrCat(what, " (zone ", zone->index, " ",
                                           ToString(zone->state), ")"));
    }
  }
  return absl::ErrnoToStatus(err, what);
}

}  // namespace zonestack::device
