// Number generators for zsbench's workloads, following YCSB core
// (site.ycsb.generator.*) so that our runs draw keys, operations and scan
// lengths from the distributions YCSB users know.
//
// Randomness: every draw takes an explicit std::mt19937_64, so a run is
// reproducible from its seeds. Thread-safety: these generators are NOT
// thread-safe; each client thread owns its generators and its RNG. (YCSB
// shares one generator per workload, with thread-local Randoms; per-thread
// copies draw from the same distributions.) The state YCSB really shares,
// the insert counters, is in counters.h and is thread-safe.
#pragma once

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace zonestack::bench {

// YCSB's ZipfianGenerator.ZIPFIAN_CONSTANT.
inline constexpr double kDefaultZipfianConstant = 0.99;

// A double uniform in [0, 1) with 53 random bits, like Java's
// Random.nextDouble. Used instead of std::uniform_real_distribution, whose
// algorithm differs between standard libraries, so a seed means one run.
double NextUnitDouble(std::mt19937_64& rng);

// FNV-1a 64 over the 8 bytes of `value`, low byte first (offset basis
// 0xCBF29CE484222325, prime 1099511628211): the raw loop of YCSB's
// Utils.fnvhash64.
uint64_t Fnv1a64(uint64_t value);

// YCSB's Utils.fnvhash64 (= Utils.hash): Fnv1a64 read as a Java long, then
// Math.abs. So the result is in [0, 2^63 - 1], except that Java's
// Math.abs(Long.MIN_VALUE) is Long.MIN_VALUE; we keep that too.
// YcsbHash(0) = 6284781860667377211, YcsbHash(1) = 8517097267634966620.
int64_t YcsbHash(int64_t value);

// zeta(n, theta) = sum_{i=1..n} 1 / i^theta, for n >= 0 and theta > 0.
// Up to kZetaDirectTerms terms it is YCSB's zetastatic summation, term by
// term in the same order; beyond, the first terms are summed and the tail
// comes from Euler-Maclaurin (error < 1e-12 relative), so zeta over
// YCSB's 10^10-item scrambled space costs microseconds, not minutes.
inline constexpr int64_t kZetaDirectTerms = 10'000'000;
double Zeta(int64_t n, double theta);

// OK if theta is a usable zipfian constant: finite and > 0. theta > 1 (the
// HHZS skew sweep goes to 1.2) works with YCSB's formula as is; theta == 1,
// where YCSB's alpha = 1/(1-theta) is infinite, uses the formula's limit.
absl::Status CheckZipfianConstant(double theta);

// YCSB's ZipfianGenerator: Gray et al., "Quickly Generating Billion-Record
// Synthetic Databases" (SIGMOD 1994). Item min is the most popular, min+1
// the next, and so on. Items min and min+1 are drawn with their exact
// zipfian probabilities; from the third item on, Gray's closed-form inverse
// over-weights the head (rank 3 by about 15-21% for n = 10^3..10^7 and
// theta 0.8-1.2, falling with rank). We keep that: it is what YCSB runs.
//
// With theta == 1, YCSB's own code degenerates (Java's pow(1, inf) is NaN,
// so every draw past the first two items returns min); we use the theta->1
// limit of Gray's inverse instead, x = n * exp(-(1-u) ln(items/2) / (1 -
// zeta(2)/zetan)), which is continuous with the neighbouring constants.
class ZipfianGenerator {
 public:
  // Items min..max inclusive; REQUIRES for success: min <= max and a valid
  // theta. Computes zeta(max - min + 1, theta).
  static absl::StatusOr<ZipfianGenerator> Create(int64_t min, int64_t max,
                                                 double theta = kDefaultZipfianConstant);
  // As Create, with zeta(max - min + 1, theta) already known (YCSB's
  // constructor taking zetan; ScrambledZipfianGenerator uses it).
  static absl::StatusOr<ZipfianGenerator> CreateWithZeta(int64_t min, int64_t max,
                                                         double theta, double zetan);

  // A draw over the items given at creation.
  int64_t Next(std::mt19937_64& rng) { return Next(rng, items_); }

  // YCSB's nextLong(itemcount): a draw over min..min+item_count-1. When
  // item_count grows, zetan grows incrementally (YCSB's countforzeta); when
  // it shrinks, zetan is kept, as YCSB does unless allowitemcountdecrease.
  // Also as in YCSB, eta keeps using the item count given at creation.
  // REQUIRES: item_count >= 1.
  int64_t Next(std::mt19937_64& rng, int64_t item_count) {
    return NextForUniform(NextUnitDouble(rng), item_count);
  }

  // The item Next returns when its uniform draw is u in [0, 1); exposed so
  // tests can compare with YCSB's Java arithmetic for fixed u.
  int64_t NextForUniform(double u, int64_t item_count);

  int64_t items() const { return items_; }
  double theta() const { return theta_; }
  double zetan() const { return zetan_; }

 private:
  ZipfianGenerator(int64_t min, int64_t items, double theta, double zetan);
  void ComputeEta();

  int64_t base_;
  int64_t items_;  // item count given at creation; eta uses it (YCSB)
  double theta_;
  double zeta2_;   // zeta(2, theta)
  double alpha_;   // 1 / (1 - theta); unused when theta == 1
  double zetan_;
  double eta_;
  int64_t count_for_zeta_;  // the item count zetan_ was computed for
};

// YCSB's ScrambledZipfianGenerator: a zipfian draw over a fixed space of
// kItemCount + 1 items (YCSB's ZipfianGenerator(0, ITEM_COUNT)), hashed
// with YcsbHash and taken mod the range, so the popular keys are scattered
// over min..max. The head's popularity is that of the 10^10-item space (the
// hottest key gets 1/26.47 = 3.8% of draws at theta 0.99, whatever the
// range), plus a near-uniform floor from the tail's many items that hash
// onto each key.
class ScrambledZipfianGenerator {
 public:
  static constexpr int64_t kItemCount = 10'000'000'000;  // YCSB ITEM_COUNT
  // YCSB's ZETAN, zeta(10^10, 0.99), used (as in YCSB) when theta == 0.99.
  static constexpr double kZetan = 26.46902820178302;

  // min..max inclusive; other constants compute zeta(10^10 + 1, theta).
  // `items` replaces YCSB's 10^10-item space (experiments scaled down by K
  // shrink it by K too, so the hottest 1% of keys keep about the share of
  // draws they have at full size); REQUIRES for success: items >= 1.
  static absl::StatusOr<ScrambledZipfianGenerator> Create(
      int64_t min, int64_t max, double theta = kDefaultZipfianConstant,
      int64_t items = kItemCount);

  int64_t Next(std::mt19937_64& rng);

 private:
  ScrambledZipfianGenerator(ZipfianGenerator gen, int64_t min, int64_t item_count)
      : gen_(std::move(gen)), min_(min), item_count_(item_count) {}

  ZipfianGenerator gen_;
  int64_t min_;
  int64_t item_count_;
};

// YCSB's SkewedLatestGenerator ("latest"): last - zipfian(last), so the
// most recently inserted keys are the most popular. `last` is the insert
// counter's last value (AcknowledgedCounterGenerator::Last()). As in YCSB,
// the zipfian has 0.99 as its constant and `last` (at creation) items, and
// a draw is in [1, last]: key 0 is never chosen.
class SkewedLatestGenerator {
 public:
  // REQUIRES for success: last >= 1.
  static absl::StatusOr<SkewedLatestGenerator> Create(int64_t last);

  // REQUIRES: last >= the value given to Create.
  int64_t Next(std::mt19937_64& rng, int64_t last) { return last - zipfian_.Next(rng, last); }

 private:
  explicit SkewedLatestGenerator(ZipfianGenerator zipfian) : zipfian_(std::move(zipfian)) {}
  ZipfianGenerator zipfian_;
};

// YCSB's UniformLongGenerator: lb..ub inclusive. YCSB takes
// |nextLong()| % interval; we take the unsigned draw % interval (the same
// negligible modulo bias, without Math.abs(Long.MIN_VALUE)'s negative).
class UniformGenerator {
 public:
  static absl::StatusOr<UniformGenerator> Create(int64_t lb, int64_t ub);
  int64_t Next(std::mt19937_64& rng) const;

 private:
  UniformGenerator(int64_t lb, uint64_t interval) : lb_(lb), interval_(interval) {}
  int64_t lb_;
  uint64_t interval_;
};

// YCSB's HotspotIntegerGenerator: a fraction hot_opn_fraction of draws
// fall uniformly in the first hot_data_fraction of lb..ub, the rest
// uniformly in the remainder. YCSB silently replaces out-of-range
// fractions with 0; we reject them, and reject an empty set that draws
// would go to (YCSB would divide by zero).
class HotspotGenerator {
 public:
  static absl::StatusOr<HotspotGenerator> Create(int64_t lb, int64_t ub,
                                                 double hot_data_fraction,
                                                 double hot_opn_fraction);
  int64_t Next(std::mt19937_64& rng) const;

 private:
  HotspotGenerator() = default;
  int64_t lb_ = 0;
  int64_t hot_interval_ = 0;
  int64_t cold_interval_ = 0;
  double hot_opn_fraction_ = 0;
};

// YCSB's DiscreteGenerator: picks a value with probability proportional to
// its weight, walking the values in insertion order exactly as YCSB does
// (so a seed gives the same choices for the same weights).
template <typename T>
class DiscreteGenerator {
 public:
  // REQUIRES: weight > 0 and finite.
  void Add(double weight, T value) { values_.emplace_back(weight, std::move(value)); }
  bool empty() const { return values_.empty(); }

  // REQUIRES: !empty().
  T Next(std::mt19937_64& rng) const {
    double sum = 0;
    for (const auto& [weight, value] : values_) sum += weight;
    double val = NextUnitDouble(rng);
    for (const auto& [weight, value] : values_) {
      const double pw = weight / sum;
      if (val < pw) return value;
      val -= pw;
    }
    // Only reachable through rounding (YCSB throws here): the last value
    // owns the sliver of [0, 1) the subtractions left over.
    return values_.back().second;
  }

 private:
  std::vector<std::pair<double, T>> values_;
};

}  // namespace zonestack::bench
