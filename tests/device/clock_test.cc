#include "device/clock.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <thread>
#include <vector>

namespace zonestack::device {
namespace {

// Real-time tests assert lower bounds exactly and upper bounds loosely: a
// loaded machine may wake a thread late, never early.
constexpr uint64_t kMs = 1'000'000;
constexpr uint64_t kGenerous = 2'000 * kMs;

TEST(ManualClockTest, WaitUntilAdvancesToTheTarget) {
  ManualClock clock(100);
  EXPECT_EQ(clock.NowNs(), 100u);
  clock.WaitUntil(250);
  EXPECT_EQ(clock.NowNs(), 250u);
  EXPECT_EQ(clock.SubmitTimeNs(), 250u);
}

TEST(ManualClockTest, WaitUntilNeverGoesBack) {
  ManualClock clock(1'000);
  clock.WaitUntil(400);
  EXPECT_EQ(clock.NowNs(), 1'000u);
  clock.WaitUntil(1'000);
  EXPECT_EQ(clock.NowNs(), 1'000u);
}

TEST(ManualClockTest, AdvanceAndSetMoveTime) {
  ManualClock clock;
  EXPECT_EQ(clock.NowNs(), 0u);
  clock.Advance(30);
  EXPECT_EQ(clock.NowNs(), 30u);
  clock.Set(5);
  EXPECT_EQ(clock.NowNs(), 5u);
}

TEST(ManualClockTest, ConcurrentWaitsEndAtTheLatestTarget) {
  ManualClock clock;
  std::vector<std::thread> threads;
  for (uint64_t i = 1; i <= 8; ++i) {
    threads.emplace_back([&clock, i] {
      for (uint64_t k = 0; k < 1000; ++k) clock.WaitUntil(i * 1000 + k);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(clock.NowNs(), 8u * 1000 + 999);
}

// A volume's GC thread may read the default clock while the program
// exits. An atexit handler registered before the clock's first use runs
// after the destructor a function-local static clock would register, so
// it reads the clock as such a thread would after exit's destructors.
TEST(RealClockDeathTest, DefaultOutlivesStaticDestructors) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // a fresh process: no clock yet
  EXPECT_EXIT(
      {
        std::atexit([] { std::_Exit(RealClock::Default()->NowNs() > 0 ? 7 : 8); });
        (void)RealClock::Default()->NowNs();
        std::exit(0);
      },
      ::testing::ExitedWithCode(7), "");
}

TEST(RealClockTest, NowIsMonotonic) {
  RealClock clock;
  uint64_t prev = clock.NowNs();
  for (int i = 0; i < 1000; ++i) {
    const uint64_t now = clock.NowNs();
    EXPECT_GE(now, prev);
    prev = now;
  }
}

TEST(RealClockTest, SleepingWaitReturnsNoEarlierThanTheTarget) {
  RealClock clock;
  for (int i = 0; i < 5; ++i) {
    const uint64_t target = clock.NowNs() + 2 * kMs;
    clock.WaitUntil(target);
    const uint64_t now = clock.NowNs();
    EXPECT_GE(now, target);
    EXPECT_LT(now, target + kGenerous);
  }
}

TEST(RealClockTest, SpinningWaitReturnsNoEarlierThanTheTarget) {
  RealClock clock;
  for (int i = 0; i < 20; ++i) {
    const uint64_t target = clock.NowNs() + RealClock::kSpinNs / 4;
    clock.WaitUntil(target);
    const uint64_t now = clock.NowNs();
    EXPECT_GE(now, target);
    EXPECT_LT(now, target + kGenerous);
  }
}

TEST(RealClockTest, SubmitTimeIsNowWithoutAPriorWait) {
  std::thread([] {
    RealClock clock;
    const uint64_t before = clock.NowNs();
    const uint64_t submit = clock.SubmitTimeNs();
    EXPECT_GE(submit, before);
    EXPECT_LE(submit, clock.NowNs());
  }).join();
}

// A wait for a time already past returns at once, late by exactly how far
// past it was (bounded by the two NowNs calls around it), so the excuse
// SubmitTimeNs applies can be checked with hard bounds.
TEST(RealClockTest, SubmitTimeExcusesTheLastLatenessOnlyOnce) {
  RealClock clock;
  const uint64_t lateness = kMs;  // below kMaxExcusedNs
  const uint64_t t0 = clock.NowNs();
  clock.WaitUntil(t0 - lateness);
  const uint64_t t1 = clock.NowNs();
  // The wait returned late by L, with lateness <= L <= lateness + (t1 - t0).

  const uint64_t before = clock.NowNs();
  const uint64_t submit = clock.SubmitTimeNs();
  const uint64_t after = clock.NowNs();
  EXPECT_LE(submit, after - lateness);
  EXPECT_GE(submit + std::min(lateness + (t1 - t0), RealClock::kMaxExcusedNs), before);

  // The excuse was used up: the next submit time is plain now.
  const uint64_t before2 = clock.NowNs();
  const uint64_t submit2 = clock.SubmitTimeNs();
  EXPECT_GE(submit2, before2);
  EXPECT_LE(submit2, clock.NowNs());
}

TEST(RealClockTest, SubmitTimeExcusesNoMoreThanTheCap) {
  RealClock clock;
  clock.WaitUntil(clock.NowNs() - 10 * RealClock::kMaxExcusedNs);
  const uint64_t before = clock.NowNs();
  const uint64_t submit = clock.SubmitTimeNs();
  const uint64_t after = clock.NowNs();
  EXPECT_GE(submit + RealClock::kMaxExcusedNs, before);
  EXPECT_LE(submit + RealClock::kMaxExcusedNs, after);
}

TEST(RealClockTest, SubmitTimeAfterARealWaitIsNotBeforeTheTarget) {
  RealClock clock;
  const uint64_t target = clock.NowNs() + 2 * kMs;
  clock.WaitUntil(target);
  // Whatever the oversleep, excusing it lands no earlier than the target.
  const uint64_t submit = clock.SubmitTimeNs();
  EXPECT_GE(submit, target);
  EXPECT_LE(submit, clock.NowNs());
}

TEST(RealClockTest, LatenessIsPerThread) {
  RealClock clock;
  clock.WaitUntil(clock.NowNs() - kMs);
  std::thread([&clock] {
    const uint64_t before = clock.NowNs();
    EXPECT_GE(clock.SubmitTimeNs(), before);
  }).join();
  // This thread's excuse is still there.
  const uint64_t submit = clock.SubmitTimeNs();
  EXPECT_LE(submit + kMs, clock.NowNs());
}

}  // namespace
}  // namespace zonestack::device
