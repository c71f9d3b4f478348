#include "bench/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace zonestack::bench {
namespace {

TEST(HistogramTest, SmallValuesAreExact) {
  Histogram h;
  for (uint64_t v = 1; v <= 100; ++v) h.Record(v);
  EXPECT_EQ(h.count(), 100u);
  EXPECT_EQ(h.min(), 1u);
  EXPECT_EQ(h.max(), 100u);
  EXPECT_EQ(h.Percentile(50), 50u);
  EXPECT_EQ(h.Percentile(99), 99u);
  EXPECT_EQ(h.Percentile(100), 100u);
  EXPECT_DOUBLE_EQ(h.mean(), 50.5);
}

TEST(HistogramTest, BucketsCoverEveryValueOnceInOrder) {
  uint64_t prev_upper = 0;
  // Up to values near 2^62 (beyond, bucket bounds would overflow 64 bits).
  for (size_t i = 1; i < 56 * Histogram::kSubBuckets; ++i) {
    const uint64_t upper = Histogram::BucketUpperBound(i);
    ASSERT_EQ(Histogram::BucketOf(upper), i);
    ASSERT_EQ(Histogram::BucketOf(prev_upper + 1), i);
    prev_upper = upper;
  }
}

// Every percentile is within 1/128 of the exact order statistic, over
// latencies spanning microseconds to seconds.
TEST(HistogramTest, PercentilesHaveBoundedRelativeError) {
  std::mt19937_64 rng(3);
  std::lognormal_distribution<double> latency(11.0, 2.0);  // ns, median ~60 us
  std::vector<uint64_t> values;
  Histogram h;
  for (int i = 0; i < 200000; ++i) {
    const auto v = static_cast<uint64_t>(latency(rng)) + 1;
    values.push_back(v);
    h.Record(v);
  }
  std::sort(values.begin(), values.end());
  for (double p : {1.0, 50.0, 90.0, 99.0, 99.9, 99.99}) {
    const auto rank = static_cast<size_t>(std::ceil(p / 100 * values.size()));
    const double exact = static_cast<double>(values[rank - 1]);
    const double got = static_cast<double>(h.Percentile(p));
    EXPECT_GE(got, exact) << "p" << p;
    EXPECT_LE(got, exact * (1.0 + 1.0 / Histogram::kSubBuckets)) << "p" << p;
  }
}

TEST(HistogramTest, MergeEqualsRecordingEverythingInOne) {
  Histogram a, b, all;
  for (uint64_t v = 0; v < 5000; v += 7) {
    (v % 2 ? a : b).Record(v * 1000);
    all.Record(v * 1000);
  }
  a.Merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.max(), all.max());
  for (double p : {10.0, 50.0, 99.0}) EXPECT_EQ(a.Percentile(p), all.Percentile(p));
}

TEST(HistogramTest, EmptyHistogramReportsZeroes) {
  Histogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.Percentile(99), 0u);
  EXPECT_EQ(h.min(), 0u);
}

}  // namespace
}  // namespace zonestack::bench
