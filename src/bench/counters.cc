#include "bench/counters.h"

namespace zonestack::bench {

void AcknowledgedCounterGenerator::Acknowledge(int64_t value) {
  absl::MutexLock lock(&mu_);
  pending_.push(value);
  int64_t limit = limit_.load(std::memory_order_relaxed);
  while (!pending_.empty() && pending_.top() == limit + 1) {
    pending_.pop();
    ++limit;
  }
  limit_.store(limit, std::memory_order_release);
}

}  // namespace zonestack::bench
