#include "bench/histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace zonestack::bench {

size_t Histogram::BucketOf(uint64_t value) {
  // Values below kSubBuckets get a bucket each; above, bucket = (exponent,
  // top kSubBucketBits bits of the mantissa).
  if (value < kSubBuckets) return static_cast<size_t>(value);
  const int exponent = std::bit_width(value) - 1 - kSubBucketBits;  // >= 0
  const uint64_t mantissa = value >> exponent;                      // in [128, 256)
  return static_cast<size_t>((exponent + 1) * kSubBuckets + (mantissa - kSubBuckets));
}

uint64_t Histogram::BucketUpperBound(size_t index) {
  if (index < kSubBuckets) return index;
  const int exponent = static_cast<int>(index / kSubBuckets) - 1;
  const uint64_t mantissa = kSubBuckets + index % kSubBuckets;
  return ((mantissa + 1) << exponent) - 1;
}

void Histogram::Record(uint64_t value) {
  const size_t b = BucketOf(value);
  if (b >= buckets_.size()) buckets_.resize(b + 1, 0);
  ++buckets_[b];
  ++count_;
  sum_ += value;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
}

void Histogram::Merge(const Histogram& other) {
  if (other.buckets_.size() > buckets_.size()) buckets_.resize(other.buckets_.size(), 0);
  for (size_t i = 0; i < other.buckets_.size(); ++i) buckets_[i] += other.buckets_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

uint64_t Histogram::Percentile(double p) const {
  if (count_ == 0) return 0;
  // The rank of the sample at p, nearest-rank (1-based).
  const uint64_t rank = std::max<uint64_t>(
      1, static_cast<uint64_t>(std::ceil(p / 100.0 * static_cast<double>(count_))));
  uint64_t seen = 0;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (seen >= rank) return std::min(BucketUpperBound(i), max_);
  }
  return max_;
}

}  // namespace zonestack::bench
