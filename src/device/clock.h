// Time for the timing models: a real monotonic clock whose waits stay
// accurate despite sleep overshoot, and a manual clock for deterministic
// tests.
#pragma once

#include <atomic>
#include <cstdint>

namespace zonestack::device {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual uint64_t NowNs() = 0;
  // The time at which a request the calling thread issues now is submitted
  // to the model. The real clock subtracts the lateness of the thread's
  // last wake-up, so oversleeping never slows the modeled device down.
  virtual uint64_t SubmitTimeNs() = 0;
  // Returns once NowNs() >= t.
  virtual void WaitUntil(uint64_t t) = 0;
};

// CLOCK_MONOTONIC. A wait sleeps (clock_nanosleep) for all but the last
// kSpinNs and spins the rest, yielding the core while it does; a wait
// shorter than kSpinNs only spins. The residual lateness is remembered per
// thread and excused from the thread's next submit time, so a thread that
// issues requests back to back runs at the model's pace, not the sleep's.
class RealClock : public Clock {
 public:
  static constexpr uint64_t kSpinNs = 20'000;
  // Lateness beyond this is the thread's own business (it was preempted or
  // did other work), not the sleep's.
  static constexpr uint64_t kMaxExcusedNs = 2'000'000;

  uint64_t NowNs() override;
  uint64_t SubmitTimeNs() override;
  void WaitUntil(uint64_t t) override;

  // The process's clock; usable until the process ends, static
  // destructors included.
  static RealClock* Default();
};

// Time moves only when told. WaitUntil advances it (simulated time), so a
// single thread sees the model's latencies exactly and instantly.
class ManualClock : public Clock {
 public:
  explicit ManualClock(uint64_t start_ns = 0) : now_(start_ns) {}
  uint64_t NowNs() override { return now_.load(); }
  uint64_t SubmitTimeNs() override { return now_.load(); }
  void WaitUntil(uint64_t t) override;
  void Advance(uint64_t ns) { now_.fetch_add(ns); }
  void Set(uint64_t ns) { now_.store(ns); }

 private:
  std::atomic<uint64_t> now_;
};

}  // namespace zonestack::device
