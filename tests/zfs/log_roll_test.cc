// The metadata log's roll when a device command in the middle of it fails
// while the host keeps running (an I/O error, not a crash): nothing the log
// acknowledges afterwards may be lost at the next mount. A device decorator
// fails chosen writes, after making every earlier write durable (as
// another thread's flush could have).
#include <functional>

#include <gtest/gtest.h>

#include "hooked_writes.h"
#include "zfs_test_util.h"

namespace zonestack::zfs {
namespace {

using namespace testing_util;

class LogRollTest : public testing::TestWithParam<int> {};

// The log starts in metadata zone 1 and rolls to zone 2: header, then the
// snapshot a block later. Parameter: which of the two writes fails.
TEST_P(LogRollTest, OpsAcknowledgedAfterAFailedRollSurviveRemount) {
  auto raw = OpenDev("emu:zn540?zones=16&scale=1/2048&timing=none");
  ASSERT_OK(Volume::Format({raw}));
  const uint64_t target = raw->ZoneStart(2) + GetParam() * raw->info().block_size;
  int failures = 1;
  auto dev = std::make_shared<HookedWrites>(raw, [&](uint64_t offset) {
    if (offset != target || failures-- <= 0) return absl::OkStatus();
    (void)raw->Flush({});
    return absl::InternalError("injected write error");
  });
  {
    ASSERT_OK_AND_ASSIGN(auto vol, Volume::Mount({dev}));
    int i = 0;
    absl::Status failed;
    for (; i < 400 && failed.ok(); ++i) failed = vol->CreateDir("/d" + std::to_string(i));
    ASSERT_FALSE(failed.ok()) << "the roll never failed";
    // Whatever is acknowledged from now on must be durable.
    for (int j = 0; j < 20; ++j) {
      if (vol->CreateDir("/after" + std::to_string(j)).ok()) continue;
      ADD_FAILURE() << "the log did not recover from a failed roll";
    }
  }
  ASSERT_OK_AND_ASSIGN(auto vol, Volume::Mount({raw}));
  for (int j = 0; j < 20; ++j) EXPECT_OK(vol->Stat("/after" + std::to_string(j)));
  ExpectConsistent(*vol);
}

INSTANTIATE_TEST_SUITE_P(FailedWrite, LogRollTest, testing::Values(0, 1),
                         [](const testing::TestParamInfo<int>& p) {
                           return p.param == 0 ? "Header" : "Snapshot";
                         });

}  // namespace
}  // namespace zonestack::zfs
