#include "device/clock.h"

#include <sched.h>
#include <time.h>

#include <algorithm>

namespace zonestack::device {
namespace {

// How late the calling thread returned from its last WaitUntil.
thread_local uint64_t tl_lateness = 0;

}  // namespace

uint64_t RealClock::NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + ts.tv_nsec;
}

uint64_t RealClock::SubmitTimeNs() {
  const uint64_t now = NowNs();
  // Only the wake-up lateness is excused, never the time the thread spent
  // working since it woke, and only once.
  const uint64_t excuse = std::min({tl_lateness, kMaxExcusedNs, now});
  tl_lateness = 0;
  return now - excuse;
}

void RealClock::WaitUntil(uint64_t t) {
  uint64_t now = NowNs();
  if (now + kSpinNs < t) {
    const uint64_t wake = t - kSpinNs;
    timespec ts{static_cast<time_t>(wake / 1'000'000'000ull),
                static_cast<long>(wake % 1'000'000'000ull)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) != 0) {
    }
    now = NowNs();
  }
  while (now < t) {
    sched_yield();
    now = NowNs();
  }
  tl_lateness = now - t;
}

RealClock* RealClock::Default() {
  // Never destroyed: threads may outlive main's statics (a mounted volume's
  // GC thread while a program exits without closing it), and a destroyed
  // clock's NowNs is a pure virtual call that aborts the exit.
  static RealClock* clock = new RealClock;
  return clock;
}

void ManualClock::WaitUntil(uint64_t t) {
  uint64_t cur = now_.load();
  while (cur < t && !now_.compare_exchange_weak(cur, t)) {
  }
}

}  // namespace zonestack::device
