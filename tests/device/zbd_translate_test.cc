// The translation of the kernel's zone reports and errno values, and the
// zbd: URI's errors, checked without a zoned device (the conformance suite
// checks a real one: ZONESTACK_ZBD_DEVICE, scripts/vm_test.sh).
#include "device/zbd_translate.h"

#include <cerrno>

#include "device/zbd_device.h"
#include "device_test_util.h"

namespace zonestack::device {
namespace {

using testing_util::Contains;

constexpr uint64_t kZone = 64 * 1024;
constexpr uint64_t kCap = 48 * 1024;

zbd_zone Descriptor(uint64_t index, unsigned int cond, uint64_t wp_offset,
                    unsigned int type = ZBD_ZONE_TYPE_SWR) {
  zbd_zone z{};
  z.start = index * kZone;
  z.len = kZone;
  z.capacity = kCap;
  z.wp = z.start + wp_offset;
  z.type = type;
  z.cond = cond;
  return z;
}

ZoneInfo Zone(unsigned int cond, uint64_t wp_offset, unsigned int type = ZBD_ZONE_TYPE_SWR) {
  return ZoneFromReport(Descriptor(3, cond, wp_offset, type), kZone);
}

TEST(ZoneFromReportTest, CarriesPositionTypeAndState) {
  const ZoneInfo z = Zone(ZBD_ZONE_COND_IMP_OPEN, 8192);
  EXPECT_EQ(z.index, 3u);
  EXPECT_EQ(z.start, 3 * kZone);
  EXPECT_EQ(z.size, kZone);
  EXPECT_EQ(z.capacity, kCap);
  EXPECT_EQ(z.write_pointer, 3 * kZone + 8192);
  EXPECT_EQ(z.type, ZoneType::kSequentialWriteRequired);
  EXPECT_EQ(z.state, ZoneState::kImplicitlyOpened);
  EXPECT_EQ(Zone(ZBD_ZONE_COND_EXP_OPEN, 0).state, ZoneState::kExplicitlyOpened);
  EXPECT_EQ(Zone(ZBD_ZONE_COND_CLOSED, 4096).state, ZoneState::kClosed);
  EXPECT_EQ(Zone(ZBD_ZONE_COND_EMPTY, 0, ZBD_ZONE_TYPE_SWP).type,
            ZoneType::kSequentialWritePreferred);
}

TEST(ZoneFromReportTest, FullZoneWritePointerIsAtCapacityNotZoneEnd) {
  // Linux reports start + zone size for a full NVMe zone.
  const ZoneInfo z = Zone(ZBD_ZONE_COND_FULL, kZone);
  EXPECT_EQ(z.state, ZoneState::kFull);
  EXPECT_EQ(z.write_pointer, z.start + kCap);
}

TEST(ZoneFromReportTest, ConventionalZoneWritePointerIsItsStart) {
  const ZoneInfo z = Zone(ZBD_ZONE_COND_NOT_WP, 12345, ZBD_ZONE_TYPE_CNV);
  EXPECT_EQ(z.type, ZoneType::kConventional);
  EXPECT_EQ(z.state, ZoneState::kNotWritePointer);
  EXPECT_EQ(z.write_pointer, z.start);
}

TEST(ZoneFromReportTest, ReadOnlyZoneKeepsAValidWritePointerAndDropsAnInvalidOne) {
  EXPECT_EQ(Zone(ZBD_ZONE_COND_READONLY, 4096).write_pointer, 3 * kZone + 4096);
  zbd_zone invalid = Descriptor(3, ZBD_ZONE_COND_READONLY, 0);
  invalid.wp = ~0ull << 9;  // null_blk's "no write pointer"
  EXPECT_EQ(ZoneFromReport(invalid, kZone).write_pointer, 3 * kZone + kCap);
  EXPECT_EQ(Zone(ZBD_ZONE_COND_OFFLINE, kZone + 4096).write_pointer, 3 * kZone);
}

TEST(ZoneFromReportTest, UnknownConditionIsTreatedAsOffline) {
  EXPECT_EQ(Zone(0x9, 0).state, ZoneState::kOffline);
}

ZoneError WriteError(int err, unsigned int cond, uint64_t wp_offset, uint64_t at_offset,
                     uint64_t len = 4096) {
  const ZoneInfo z = Zone(cond, wp_offset);
  return GetZoneError(ZbdCommandError(ZbdCommand::kWrite, err, z, z.start + at_offset, len,
                                      true, "test"));
}

TEST(ZbdCommandErrorTest, ResourceErrnosAreTheirZoneErrorsInAnyState) {
  EXPECT_EQ(WriteError(ETOOMANYREFS, ZBD_ZONE_COND_EMPTY, 0, 0), ZoneError::kTooManyOpen);
  EXPECT_EQ(WriteError(EOVERFLOW, ZBD_ZONE_COND_EMPTY, 0, 0), ZoneError::kTooManyActive);
  const absl::Status open = ZbdCommandError(ZbdCommand::kOpen, ETOOMANYREFS, std::nullopt, 0,
                                            kZone, true, "dev: open zone");
  EXPECT_EQ(GetZoneError(open), ZoneError::kTooManyOpen);
  EXPECT_TRUE(Contains(open, "dev: open zone")) << open;
}

TEST(ZbdCommandErrorTest, FailedWriteIsExplainedByTheZoneState) {
  EXPECT_EQ(WriteError(EIO, ZBD_ZONE_COND_FULL, kZone, 0), ZoneError::kZoneFull);
  EXPECT_EQ(WriteError(EIO, ZBD_ZONE_COND_READONLY, 4096, 4096), ZoneError::kReadOnly);
  EXPECT_EQ(WriteError(EIO, ZBD_ZONE_COND_OFFLINE, 4096, 4096), ZoneError::kOffline);
  EXPECT_EQ(WriteError(EIO, ZBD_ZONE_COND_IMP_OPEN, 4096, 8192), ZoneError::kInvalidWrite);
  EXPECT_EQ(WriteError(EIO, ZBD_ZONE_COND_EMPTY, 0, 4096), ZoneError::kInvalidWrite);
  EXPECT_EQ(WriteError(EIO, ZBD_ZONE_COND_IMP_OPEN, kCap - 4096, kCap - 4096, 8192),
            ZoneError::kBoundary);
}

TEST(ZbdCommandErrorTest, UnexplainedFailureIsAPlainIoErrorWithoutZoneError) {
  // At the write pointer, within the capacity, zone open: a media error.
  const ZoneInfo z = Zone(ZBD_ZONE_COND_IMP_OPEN, 4096);
  const absl::Status s =
      ZbdCommandError(ZbdCommand::kWrite, EIO, z, z.start + 4096, 4096, true, "dev: write");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(GetZoneError(s), ZoneError::kNone) << s;
  EXPECT_TRUE(Contains(s, "dev: write")) << s;
  // Without a zone report nothing can be explained.
  EXPECT_EQ(GetZoneError(ZbdCommandError(ZbdCommand::kWrite, EIO, std::nullopt, 0, 4096, true,
                                         "dev")),
            ZoneError::kNone);
}

TEST(ZbdCommandErrorTest, WriteToConventionalZoneIsNeverAZoneStateError) {
  const ZoneInfo z = Zone(ZBD_ZONE_COND_NOT_WP, 0, ZBD_ZONE_TYPE_CNV);
  EXPECT_EQ(GetZoneError(ZbdCommandError(ZbdCommand::kWrite, EIO, z, z.start + 8192, 4096, true,
                                         "dev")),
            ZoneError::kNone);
}

ZoneError ManagementError(ZbdCommand cmd, unsigned int cond,
                          unsigned int type = ZBD_ZONE_TYPE_SWR) {
  const ZoneInfo z = Zone(cond, 0, type);
  return GetZoneError(ZbdCommandError(cmd, EIO, z, z.start, kZone, true, "dev"));
}

TEST(ZbdCommandErrorTest, FailedZoneActionIsInvalidTransitionOnlyWhereTheStateForbidsIt) {
  EXPECT_EQ(ManagementError(ZbdCommand::kClose, ZBD_ZONE_COND_EMPTY),
            ZoneError::kInvalidTransition);
  EXPECT_EQ(ManagementError(ZbdCommand::kClose, ZBD_ZONE_COND_FULL),
            ZoneError::kInvalidTransition);
  EXPECT_EQ(ManagementError(ZbdCommand::kOpen, ZBD_ZONE_COND_FULL),
            ZoneError::kInvalidTransition);
  for (ZbdCommand c : {ZbdCommand::kOpen, ZbdCommand::kClose, ZbdCommand::kFinish,
                       ZbdCommand::kReset}) {
    EXPECT_EQ(ManagementError(c, ZBD_ZONE_COND_READONLY), ZoneError::kInvalidTransition)
        << ToString(c);
    EXPECT_EQ(ManagementError(c, ZBD_ZONE_COND_OFFLINE), ZoneError::kInvalidTransition)
        << ToString(c);
    EXPECT_EQ(ManagementError(c, ZBD_ZONE_COND_NOT_WP, ZBD_ZONE_TYPE_CNV),
              ZoneError::kInvalidArgument)
        << ToString(c);
  }
  // These actions are valid in these states, so the failure is the device's.
  EXPECT_EQ(ManagementError(ZbdCommand::kClose, ZBD_ZONE_COND_IMP_OPEN), ZoneError::kNone);
  EXPECT_EQ(ManagementError(ZbdCommand::kFinish, ZBD_ZONE_COND_EMPTY), ZoneError::kNone);
  EXPECT_EQ(ManagementError(ZbdCommand::kReset, ZBD_ZONE_COND_FULL), ZoneError::kNone);
}

TEST(ZbdCommandErrorTest, FailedReadIsOfflineOrBeyondTheWritePointerWhereReadsMustStop) {
  const ZoneInfo offline = Zone(ZBD_ZONE_COND_OFFLINE, 0);
  EXPECT_EQ(GetZoneError(ZbdCommandError(ZbdCommand::kRead, EIO, offline, offline.start, 4096,
                                         true, "dev")),
            ZoneError::kOffline);
  const ZoneInfo open = Zone(ZBD_ZONE_COND_IMP_OPEN, 4096);
  EXPECT_EQ(GetZoneError(ZbdCommandError(ZbdCommand::kRead, EIO, open, open.start, 8192,
                                         /*reads_beyond_wp_allowed=*/false, "dev")),
            ZoneError::kReadBeyondWp);
  EXPECT_EQ(GetZoneError(ZbdCommandError(ZbdCommand::kRead, EIO, open, open.start, 8192,
                                         /*reads_beyond_wp_allowed=*/true, "dev")),
            ZoneError::kNone);
}

// --- zbd: URIs ----------------------------------------------------------------

TEST(ZbdOpenDeviceTest, MissingDeviceIsNotFoundNamingIt) {
  auto dev = OpenDevice("zbd:/dev/zonestack-no-such-device");
  ASSERT_FALSE(dev.ok());
  EXPECT_EQ(dev.status().code(), absl::StatusCode::kNotFound) << dev.status();
  EXPECT_TRUE(Contains(dev.status(), "/dev/zonestack-no-such-device")) << dev.status();
}

TEST(ZbdOpenDeviceTest, CharacterDeviceIsNotABlockDevice) {
  auto dev = OpenDevice("zbd:/dev/null");
  ASSERT_FALSE(dev.ok());
  EXPECT_EQ(dev.status().code(), absl::StatusCode::kInvalidArgument) << dev.status();
  EXPECT_TRUE(Contains(dev.status(), "not a block device")) << dev.status();
}

TEST(ZbdOpenDeviceTest, RelativePathIsABadUri) {
  auto dev = OpenDevice("zbd:nvme0n1");
  ASSERT_FALSE(dev.ok());
  EXPECT_EQ(dev.status().code(), absl::StatusCode::kInvalidArgument) << dev.status();
  EXPECT_TRUE(Contains(dev.status(), "zbd:/dev/NAME")) << dev.status();
}

}  // namespace
}  // namespace zonestack::device
