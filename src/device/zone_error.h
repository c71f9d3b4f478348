// Typed zone errors. Each is carried in an absl::Status whose code is the
// closest canonical one and whose payload names the zone error, so callers
// can branch on the exact condition the specs define.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "device/zone.h"

namespace zonestack::device {

// The conditions of NVMe ZNS status codes 0x1B8..0x1BF and their ZBC sense
// equivalents, plus the argument errors every zoned device reports.
enum class ZoneError {
  kNone = 0,
  kInvalidWrite,         // not at the write pointer (0x1BC; ZBC 21h/04h)
  kBoundary,             // crosses the zone capacity or a zone (0x1B8; 21h/05h)
  kZoneFull,             // write to a full zone (0x1B9)
  kReadOnly,             // write to a read-only zone (0x1BA)
  kOffline,              // any access to an offline zone (0x1BB)
  kTooManyActive,        // active limit reached (0x1BD, -EOVERFLOW)
  kTooManyOpen,          // open limit reached (0x1BE, -ETOOMANYREFS)
  kInvalidTransition,    // zone action not valid in this state (0x1BF)
  kReadBeyondWp,         // read of unwritten blocks (ZBC 21h/06h)
  kUnaligned,            // offset or length not a multiple of the block size
  kOutOfRange,           // beyond the end of the device
  kInvalidArgument,      // e.g. append not at a zone start, bad cell mode
  kUnsupported,          // the device lacks the feature
};

const char* ToString(ZoneError e);

// Builds the status for `e` with a message that says what was attempted.
absl::Status MakeZoneError(ZoneError e, const std::string& message);

// OK if zone `z` can take a write at its write pointer; else the zone error
// its state gives (full, read-only, offline), with `where` in the message.
// Append and Simple Copy name a zone, not an offset, so they check the named
// zone: a full zone's write pointer may lie at the next zone's start.
absl::Status CheckZoneTakesWrites(const ZoneInfo& z, const std::string& where);

// The zone error a status carries, kNone for OK or for other errors.
ZoneError GetZoneError(const absl::Status& status);

}  // namespace zonestack::device
