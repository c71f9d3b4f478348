#include "device/zone_error.h"

#include <gtest/gtest.h>

namespace zonestack::device {
namespace {

TEST(ZoneErrorTest, RoundTripsThroughStatus) {
  absl::Status s = MakeZoneError(ZoneError::kTooManyOpen, "zone 3");
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(GetZoneError(s), ZoneError::kTooManyOpen);
  EXPECT_NE(s.message().find("zone 3"), absl::string_view::npos);
}

TEST(ZoneErrorTest, OkAndForeignStatusesCarryNone) {
  EXPECT_EQ(GetZoneError(absl::OkStatus()), ZoneError::kNone);
  EXPECT_EQ(GetZoneError(absl::InternalError("x")), ZoneError::kNone);
}

}  // namespace
}  // namespace zonestack::device
