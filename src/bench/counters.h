// The insert counters a workload's client threads share (YCSB's
// CounterGenerator and AcknowledgedCounterGenerator). Both are thread-safe:
// every method may be called concurrently.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace zonestack::bench {

// YCSB's CounterGenerator: start, start+1, ... The load phase takes its
// key numbers from one (CoreWorkload's keysequence).
class CounterGenerator {
 public:
  explicit CounterGenerator(int64_t start) : next_(start) {}

  int64_t Next() { return next_.fetch_add(1, std::memory_order_relaxed); }
  // The last value handed out (start - 1 before the first Next).
  int64_t Last() const { return next_.load(std::memory_order_relaxed) - 1; }

 private:
  std::atomic<int64_t> next_;
};

// YCSB's AcknowledgedCounterGenerator, the run phase's insert key sequence
// (CoreWorkload's transactioninsertkeysequence). Next hands out key numbers
// like a counter, but Last only moves past a value once it and every value
// before it have been acknowledged, i.e. once their inserts have finished.
// Readers choose keys <= Last, so with several threads they never ask for a
// key whose insert is still in flight (with a plain counter they would,
// and count a miss). YCSB tracks pending values in a fixed window of 2^20
// and throws when it overflows; we keep them in a heap, without a limit.
class AcknowledgedCounterGenerator {
 public:
  // Last() starts at start - 1: the records 0..start-1 are loaded.
  explicit AcknowledgedCounterGenerator(int64_t start) : next_(start), limit_(start - 1) {}

  int64_t Next() { return next_.fetch_add(1, std::memory_order_relaxed); }

  // Marks `value` (from Next) as done; call it once per value, whether the
  // insert succeeded or not (YCSB acknowledges in a finally block).
  void Acknowledge(int64_t value);

  // The highest value v such that every value handed out up to v has been
  // acknowledged.
  int64_t Last() const { return limit_.load(std::memory_order_acquire); }

 private:
  std::atomic<int64_t> next_;
  std::atomic<int64_t> limit_;  // written only with mu_ held
  absl::Mutex mu_;
  // Acknowledged values above limit_ + 1, waiting for the gap to close.
  std::priority_queue<int64_t, std::vector<int64_t>, std::greater<int64_t>> pending_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace zonestack::bench
