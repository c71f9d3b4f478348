// A simulated clock for zfs tests (MountOptions::clock). Time moves only
// when the test moves it or when a rate-limited copy pauses, so periods,
// timeouts and rates are checked without waiting on the wall clock, and a
// copy can be held still between two chunks for as long as a test needs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>

#include "absl/synchronization/mutex.h"
#include "../common/test_threads.h"
#include "device/clock.h"

namespace zonestack::zfs::testing_util {

class TestClock : public device::Clock {
 public:
  explicit TestClock(uint64_t start_ns = 0) : now_(start_ns) {}

  uint64_t NowNs() override {
    absl::MutexLock l(&mu_);
    return now_;
  }
  uint64_t SubmitTimeNs() override { return NowNs(); }
  // A pause of the calling thread's own (in zfs: a rate-limited copy
  // between two chunks). It moves time to `t` at once, as
  // device::ManualClock's does; while the clock is held it blocks instead
  // until the test moves time to `t` (or lets go).
  void WaitUntil(uint64_t t) override {
    absl::MutexLock l(&mu_);
    if (held_ && now_ < t) {
      pauses_.insert(t);
      auto over = [this, t]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return now_ >= t || !held_; };
      mu_.Await(absl::Condition(&over));
      if (auto it = pauses_.find(t); it != pauses_.end()) pauses_.erase(it);
    }
    now_ = std::max(now_, t);
  }

  // Moves time to `t` (never back), ending the pauses due by then.
  void Set(uint64_t t) {
    absl::MutexLock l(&mu_);
    now_ = std::max(now_, t);
    pauses_.erase(pauses_.begin(), pauses_.upper_bound(now_));
  }
  void Advance(uint64_t ns) { Set(NowNs() + ns); }
  // From now on pauses block until the test ends them.
  void Hold() {
    absl::MutexLock l(&mu_);
    held_ = true;
  }
  // Pauses move time again; those blocked end, time moving to the latest.
  void Release() {
    absl::MutexLock l(&mu_);
    held_ = false;
    if (!pauses_.empty()) now_ = std::max(now_, *pauses_.rbegin());
    pauses_.clear();
  }
  // When the earliest blocked pause is due to end, if one is blocked.
  std::optional<uint64_t> Paused() {
    absl::MutexLock l(&mu_);
    if (pauses_.empty()) return std::nullopt;
    return *pauses_.begin();
  }

 private:
  absl::Mutex mu_;
  uint64_t now_ ABSL_GUARDED_BY(mu_);
  bool held_ ABSL_GUARDED_BY(mu_) = false;
  std::multiset<uint64_t> pauses_ ABSL_GUARDED_BY(mu_);  // ends of the blocked pauses
};

// Moves `clock` on by `step_ns` at a time until `done()` holds: for
// background threads that act once a period of the clock has passed.
// False after the hang guard.
template <typename Done>
bool AdvanceUntil(TestClock& clock, uint64_t step_ns, Done done) {
  return testing_common::WaitFor([&] {
    if (done()) return true;
    clock.Advance(step_ns);
    return false;
  });
}

}  // namespace zonestack::zfs::testing_util
