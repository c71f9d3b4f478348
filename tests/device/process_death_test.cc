// A process death is not a power cut: a file-backed emulated device keeps
// its volatile write cache across the death of the process using it, as a
// real device keeps its cache when only the host software crashes; only a
// simulated power cut (PowerCut, PowerOff) loses the unflushed writes
// (docs/emulator.md, "Durability").
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "file_device_test_util.h"

namespace zonestack::device {
namespace {

using testing_util::FileDeviceTest;
using testing_util::Pattern;

const IoContext kCtx;

std::vector<uint8_t> Zeroes(uint64_t len) { return std::vector<uint8_t>(len, 0); }

class ProcessDeathTest : public FileDeviceTest {
 protected:
  void ExpectUnflushedWritesKept();
};

// Zone 2: 2 blocks flushed, 1 more not; zone 3: 1 block, never flushed.
int WriteWithoutFlush(ZonedDevice& d) {
  if (!d.Write(d.ZoneStart(2), Pattern(2 * 4096, 1), kCtx).ok()) return 3;
  if (!d.Flush(kCtx).ok()) return 4;
  if (!d.Write(d.ZoneStart(2) + 2 * 4096, Pattern(4096, 2), kCtx).ok()) return 5;
  if (!d.Write(d.ZoneStart(3), Pattern(4096, 3), kCtx).ok()) return 6;
  return 0;
}

void ProcessDeathTest::ExpectUnflushedWritesKept() {
  EXPECT_EQ(Report(2).state, ZoneState::kClosed);
  EXPECT_EQ(Written(2), 3 * kBlock);
  std::vector<uint8_t> want = Pattern(2 * kBlock, 1);
  const std::vector<uint8_t> b = Pattern(kBlock, 2);
  want.insert(want.end(), b.begin(), b.end());
  EXPECT_EQ(ReadBytes(dev_->ZoneStart(2), 3 * kBlock), want);
  EXPECT_EQ(Report(3).state, ZoneState::kClosed);
  EXPECT_EQ(Written(3), kBlock);
  EXPECT_EQ(ReadBytes(dev_->ZoneStart(3), kBlock), Pattern(kBlock, 3));
}

TEST_F(ProcessDeathTest, ExitWithoutFlushKeepsCachedWritesAndWritePointers) {
  const int status = RunInChild([](ZonedDevice& d, EmulatedDevice&) {
    return WriteWithoutFlush(d);
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  Open();
  ExpectUnflushedWritesKept();
}

TEST_F(ProcessDeathTest, SigkillWithoutFlushKeepsCachedWrites) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(ready[0]);
    auto dev = OpenDevice(FileUri());
    if (!dev.ok() || WriteWithoutFlush(**dev) != 0) _exit(1);
    const char c = 'w';
    if (write(ready[1], &c, 1) != 1) _exit(2);
    pause();  // until the parent kills it
    _exit(3);
  }
  close(ready[1]);
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1) << "the child failed before writing";
  close(ready[0]);
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  Open();
  ExpectUnflushedWritesKept();
}

TEST_F(ProcessDeathTest, ZoneFilledByUnflushedWritesComesBackFull) {
  const int status = RunInChild([](ZonedDevice& d, EmulatedDevice&) {
    const uint64_t cap = d.ReportZone(4)->capacity;
    return d.Write(d.ZoneStart(4), Pattern(cap, 4), kCtx).ok() ? 0 : 3;
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  Open();
  EXPECT_EQ(Report(4).state, ZoneState::kFull);
  EXPECT_EQ(ReadBytes(dev_->ZoneStart(4), kBlock), Pattern(kBlock, 4));
}

TEST_F(ProcessDeathTest, ReopenedZoneContinuesAtItsCachedWritePointer) {
  const int status = RunInChild([](ZonedDevice& d, EmulatedDevice&) {
    return WriteWithoutFlush(d);
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  Open();
  EXPECT_ZONE_ERROR(dev_->Write(dev_->ZoneStart(2) + 2 * kBlock, Pattern(kBlock, 9), kCtx),
                    ZoneError::kInvalidWrite);
  ASSERT_OK(dev_->Write(dev_->ZoneStart(2) + 3 * kBlock, Pattern(kBlock, 9), kCtx));
  EXPECT_EQ(Written(2), 4 * kBlock);
}

// The writes a dead process left unflushed are still only cached: a power
// cut in the next process drops them.
TEST_F(ProcessDeathTest, PowerCutAfterReopenDropsWhatTheDeadProcessLeftUnflushed) {
  const int status = RunInChild([](ZonedDevice& d, EmulatedDevice&) {
    return WriteWithoutFlush(d);
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  Open();
  emu_->PowerCut();
  EXPECT_EQ(Report(2).state, ZoneState::kClosed);
  EXPECT_EQ(Written(2), 2 * kBlock);
  EXPECT_EQ(ReadBytes(dev_->ZoneStart(2) + 2 * kBlock, kBlock), Zeroes(kBlock));
  EXPECT_EQ(Report(3).state, ZoneState::kEmpty);
}

TEST_F(ProcessDeathTest, PowerCutStillDropsUnflushedWritesInProcess) {
  Open();
  ASSERT_EQ(WriteWithoutFlush(*dev_), 0);
  emu_->PowerCut();
  EXPECT_EQ(Written(2), 2 * kBlock);
  EXPECT_EQ(Report(3).state, ZoneState::kEmpty);
  EXPECT_EQ(ReadBytes(dev_->ZoneStart(3), kBlock), Zeroes(kBlock));
}

// A power cut, then the process dies: the rolled-back write pointers were
// recorded, so the lost writes do not come back.
TEST_F(ProcessDeathTest, PowerCutThenProcessDeathKeepsTheRollback) {
  const int status = RunInChild([](ZonedDevice& d, EmulatedDevice& emu) {
    if (int rc = WriteWithoutFlush(d); rc != 0) return rc;
    emu.PowerCut();
    return 0;
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  Open();
  EXPECT_EQ(Written(2), 2 * kBlock);
  EXPECT_EQ(ReadBytes(dev_->ZoneStart(2), 3 * kBlock), [] {
    std::vector<uint8_t> v = Pattern(2 * 4096, 1);
    v.resize(3 * 4096, 0);
    return v;
  }());
  EXPECT_EQ(Report(3).state, ZoneState::kEmpty);
  EXPECT_EQ(ReadBytes(dev_->ZoneStart(3), kBlock), Zeroes(kBlock));
}

// Conventional zones keep unflushed blocks in process memory: they are
// lost with the process (zfs writes only its label there, and flushes it
// at once).
TEST_F(ProcessDeathTest, UnflushedConventionalBlocksDieWithTheProcess) {
  const int status = RunInChild([](ZonedDevice& d, EmulatedDevice&) {
    if (!d.Write(d.ZoneStart(0), Pattern(4096, 5), kCtx).ok()) return 3;
    if (!d.Flush(kCtx).ok()) return 4;
    return d.Write(d.ZoneStart(0) + 4096, Pattern(4096, 6), kCtx).ok() ? 0 : 5;
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  Open();
  EXPECT_EQ(ReadBytes(dev_->ZoneStart(0), kBlock), Pattern(kBlock, 5));
  EXPECT_EQ(ReadBytes(dev_->ZoneStart(0) + kBlock, kBlock), Zeroes(kBlock));
}

}  // namespace
}  // namespace zonestack::device
