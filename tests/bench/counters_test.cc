// The shared insert counters, including YCSB's acknowledged-counter
// guarantee under concurrent inserts.
#include "bench/counters.h"

#include <atomic>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace zonestack::bench {
namespace {

TEST(CounterTest, CountsFromStart) {
  CounterGenerator counter(5);
  EXPECT_EQ(counter.Last(), 4);
  EXPECT_EQ(counter.Next(), 5);
  EXPECT_EQ(counter.Next(), 6);
  EXPECT_EQ(counter.Last(), 6);
}

TEST(AcknowledgedCounterTest, LastWaitsForTheGapToClose) {
  AcknowledgedCounterGenerator counter(100);
  EXPECT_EQ(counter.Last(), 99);
  const int64_t a = counter.Next(), b = counter.Next(), c = counter.Next();
  counter.Acknowledge(c);
  counter.Acknowledge(b);
  EXPECT_EQ(counter.Last(), 99);  // 100 is still in flight
  counter.Acknowledge(a);
  EXPECT_EQ(counter.Last(), 102);
}

// Readers never see Last() cover a value whose insert is unfinished.
TEST(AcknowledgedCounterTest, LastNeverPassesAnUnacknowledgedValue) {
  constexpr int kWriters = 4;
  constexpr int kPerWriter = 5000;
  constexpr int64_t kStart = 1000;
  AcknowledgedCounterGenerator counter(kStart);
  auto done = std::make_unique<std::atomic<bool>[]>(kWriters * kPerWriter);
  std::atomic<bool> stop{false};
  std::atomic<int64_t> violations{0};
  std::thread reader([&] {
    int64_t previous = kStart - 1;
    while (!stop.load()) {
      const int64_t last = counter.Last();
      if (last < previous || (last >= kStart && !done[last - kStart].load())) ++violations;
      previous = last;
    }
  });
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      std::mt19937_64 rng(w);
      for (int i = 0; i < kPerWriter; ++i) {
        const int64_t value = counter.Next();
        if (rng() % 8 == 0) std::this_thread::yield();  // let others overtake
        done[value - kStart].store(true);
        counter.Acknowledge(value);
      }
    });
  }
  for (std::thread& t : writers) t.join();
  stop.store(true);
  reader.join();
  EXPECT_EQ(violations.load(), 0);
  EXPECT_EQ(counter.Last(), kStart + kWriters * kPerWriter - 1);
}

}  // namespace
}  // namespace zonestack::bench
