// One user at a time: a file-backed emulated device is locked while it is
// open, and a second open, in this process or another, fails naming the
// holder (docs/emulator.md, "One user at a time").
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "absl/strings/str_cat.h"
#include "file_device_test_util.h"

namespace zonestack::device {
namespace {

using testing_util::Contains;
using testing_util::FileDeviceTest;

using ExclusiveOpenTest = FileDeviceTest;

TEST_F(ExclusiveOpenTest, SecondOpenInTheSameProcessFailsNamingThisProcess) {
  Open();
  auto second = OpenDevice(FileUri());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition) << second.status();
  EXPECT_TRUE(Contains(second.status(), Path())) << second.status();
  EXPECT_TRUE(Contains(second.status(), absl::StrCat("held by pid ", getpid(), " ("))) << second.status();
  EXPECT_TRUE(Contains(second.status(), "this process")) << second.status();
}

TEST_F(ExclusiveOpenTest, FailedSecondOpenLeavesTheFirstWorking) {
  Open();
  ASSERT_FALSE(OpenDevice(FileUri()).ok());
  ASSERT_OK(dev_->Write(dev_->ZoneStart(2), testing_util::Pattern(kBlock, 1), IoContext{}));
  EXPECT_EQ(Written(2), kBlock);
}

TEST_F(ExclusiveOpenTest, DestroyingTheDeviceReleasesTheLock) {
  Open();
  dev_.reset();
  auto again = OpenDevice(FileUri());
  EXPECT_TRUE(again.ok()) << again.status();
}

TEST_F(ExclusiveOpenTest, OpenHeldByAnotherProcessFailsNamingItsPidAndCommandLine) {
  int ready[2], done[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(done), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(ready[0]);
    close(done[1]);
    auto dev = OpenDevice(FileUri());
    const char c = dev.ok() ? 'y' : 'n';
    if (write(ready[1], &c, 1) != 1) _exit(2);
    char x;
    (void)read(done[0], &x, 1);  // until the parent closes its end
    _exit(0);
  }
  close(ready[1]);
  close(done[0]);
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, 'y') << "the child could not open the device";

  auto mine = OpenDevice(FileUri());
  close(done[1]);  // lets the child exit
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_FALSE(mine.ok());
  EXPECT_EQ(mine.status().code(), absl::StatusCode::kFailedPrecondition) << mine.status();
  EXPECT_TRUE(Contains(mine.status(), absl::StrCat("held by pid ", pid, " ("))) << mine.status();
  // The child is a fork of this test binary: same command line.
  std::ifstream in("/proc/self/cmdline");
  std::string argv0;
  std::getline(in, argv0, '\0');
  EXPECT_TRUE(Contains(mine.status(), argv0)) << mine.status();
  EXPECT_FALSE(Contains(mine.status(), "this process")) << mine.status();

  // The child has exited: its lock went with it.
  Open();
}

}  // namespace
}  // namespace zonestack::device
