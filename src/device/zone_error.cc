#include "device/zone_error.h"

#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace zonestack::device {
namespace {

constexpr absl::string_view kPayloadUrl = "zonestack.dev/zone-error";

absl::StatusCode CodeFor(ZoneError e) {
  switch (e) {
    case ZoneError::kNone: return absl::StatusCode::kOk;
    case ZoneError::kInvalidWrite:
    case ZoneError::kZoneFull:
    case ZoneError::kInvalidTransition: return absl::StatusCode::kFailedPrecondition;
    case ZoneError::kBoundary:
    case ZoneError::kOutOfRange:
    case ZoneError::kReadBeyondWp: return absl::StatusCode::kOutOfRange;
    case ZoneError::kReadOnly: return absl::StatusCode::kPermissionDenied;
    case ZoneError::kOffline: return absl::StatusCode::kUnavailable;
    case ZoneError::kTooManyActive:
    case ZoneError::kTooManyOpen: return absl::StatusCode::kResourceExhausted;
    case ZoneError::kUnaligned:
    case ZoneError::kInvalidArgument: return absl::StatusCode::kInvalidArgument;
    case ZoneError::kUnsupported: return absl::StatusCode::kUnimplemented;
  }
  return absl::StatusCode::kUnknown;
}

}  // namespace

const char* ToString(ZoneError e) {
  switch (e) {
    case ZoneError::kNone: return "none";
    case ZoneError::kInvalidWrite: return "zone invalid write";
    case ZoneError::kBoundary: return "zone boundary error";
    case ZoneError::kZoneFull: return "zone is full";
    case ZoneError::kReadOnly: return "zone is read only";
    case ZoneError::kOffline: return "zone is offline";
    case ZoneError::kTooManyActive: return "too many active zones";
    case ZoneError::kTooManyOpen: return "too many open zones";
    case ZoneError::kInvalidTransition: return "invalid zone state transition";
    case ZoneError::kReadBeyondWp: return "read beyond write pointer";
    case ZoneError::kUnaligned: return "unaligned request";
    case ZoneError::kOutOfRange: return "out of device range";
    case ZoneError::kInvalidArgument: return "invalid argument";
    case ZoneError::kUnsupported: return "unsupported";
  }
  return "unknown";
}

absl::Status MakeZoneError(ZoneError e, const std::string& message) {
  if (e == ZoneError::kNone) return absl::OkStatus();
  absl::Status s(CodeFor(e), absl::StrCat(ToString(e), ": ", message));
  s.SetPayload(kPayloadUrl, absl::Cord(std::to_string(static_cast<int>(e))));
  return s;
}

absl::Status CheckZoneTakesWrites(const ZoneInfo& z, const std::string& where) {
  switch (z.state) {
    case ZoneState::kFull: return MakeZoneError(ZoneError::kZoneFull, where);
    case ZoneState::kReadOnly: return MakeZoneError(ZoneError::kReadOnly, where);
    case ZoneState::kOffline: return MakeZoneError(ZoneError::kOffline, where);
    default: return absl::OkStatus();
  }
}

ZoneError GetZoneError(const absl::Status& status) {
  if (status.ok()) return ZoneError::kNone;
  auto payload = status.GetPayload(kPayloadUrl);
  if (!payload.has_value()) return ZoneError::kNone;
  return static_cast<ZoneError>(std::stoi(std::string(*payload)));
}

}  // namespace zonestack::device
