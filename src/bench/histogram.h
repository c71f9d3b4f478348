// Latency histogram with bounded relative error: log-linear buckets, each
// power of two split into kSubBuckets equal parts (as HdrHistogram does), so
// any reported percentile is within 1/kSubBuckets (0.8%) of a recorded value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace zonestack::bench {

// Not thread-safe: one per thread, then Merge.
class Histogram {
 public:
  static constexpr int kSubBucketBits = 7;
  static constexpr uint64_t kSubBuckets = 1u << kSubBucketBits;  // 128

  void Record(uint64_t value);
  void Merge(const Histogram& other);

  uint64_t count() const { return count_; }
  uint64_t min() const { return count_ ? min_ : 0; }
  uint64_t max() const { return max_; }
  double mean() const { return count_ ? static_cast<double>(sum_) / count_ : 0; }
  // The value at percentile p (0..100): the upper bound of the bucket
  // holding it, so within the relative error of a real sample, capped at max.
  uint64_t Percentile(double p) const;

  // The bucket a value falls in, and the largest value in bucket `index`.
  static size_t BucketOf(uint64_t value);
  static uint64_t BucketUpperBound(size_t index);

 private:
  std::vector<uint64_t> buckets_;
  uint64_t count_ = 0;
  uint64_t sum_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
};

}  // namespace zonestack::bench
