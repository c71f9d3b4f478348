// Distribution tests for the YCSB generators.
//
// Tolerances: a count of D draws of an outcome with probability p is
// binomial, sd = sqrt(D p (1-p)); we allow 5 sd (a correct generator fails
// a given check for about 6 seeds in 10^7). Chi-square statistics with df
// degrees of freedom must stay under df + 6 sqrt(2 df) (mean plus six sd,
// the normal approximation; p < 1e-6 for these df). Seeds are fixed, so
// the tests are deterministic; the bounds say a correct generator passes
// for almost any seed, and a wrong one (e.g. off by 1% at 200k draws) fails.
#include "bench/generators.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "bench_test_util.h"

namespace zonestack::bench {
namespace {

using testing_util::ChiSquareBound;
using testing_util::FiveSigma;
using testing_util::GrayProbability;
using testing_util::ValueOrDie;

double DirectZeta(int64_t n, double theta) {
  double z = 0;
  for (int64_t i = 1; i <= n; ++i) z += std::pow(static_cast<double>(i), -theta);
  return z;
}

// ---------------------------------------------------------------- Zipfian

class ZipfianHeadTest : public ::testing::TestWithParam<double> {};

// Ranks 1 and 2 follow p(i) = i^-theta / zeta(n, theta) exactly; later
// ranks follow Gray's inverse, which is YCSB's (GrayProbability computes it
// in closed form), and which sits within 20% of pure zipf for n = 1000.
TEST_P(ZipfianHeadTest, HotItemsFollowZipfAsYcsbDrawsIt) {
  const double theta = GetParam();
  constexpr int64_t kItems = 1000;
  constexpr int64_t kDraws = 200'000;
  ZipfianGenerator gen = ValueOrDie(ZipfianGenerator::Create(0, kItems - 1, theta));
  std::mt19937_64 rng(42);
  std::vector<int64_t> counts(kItems);
  for (int64_t i = 0; i < kDraws; ++i) ++counts[gen.Next(rng)];

  const double zetan = DirectZeta(kItems, theta);
  EXPECT_EQ(std::max_element(counts.begin(), counts.end()) - counts.begin(), 0);
  for (int k = 0; k < 10; ++k) {
    const double analytic = std::pow(k + 1.0, -theta) / zetan;
    const double gray = GrayProbability(kItems, theta, zetan, k);
    const double p = k < 2 ? analytic : gray;
    EXPECT_NEAR(counts[k], kDraws * p, FiveSigma(kDraws, p)) << "rank " << k + 1;
    EXPECT_LT(std::abs(gray / analytic - 1), k < 2 ? 1e-12 : 0.20) << "rank " << k + 1;
    if (k > 0) {
      EXPECT_GT(counts[k - 1], counts[k]) << "rank " << k + 1;
    }
  }
  // The whole distribution: items with >= 50 expected draws get a bin,
  // the rest share one.
  double chi2 = 0, rest_expected = 0;
  int64_t rest_count = 0, bins = 0;
  for (int64_t k = 0; k < kItems; ++k) {
    const double expected = kDraws * GrayProbability(kItems, theta, zetan, k);
    if (expected >= 50) {
      chi2 += (counts[k] - expected) * (counts[k] - expected) / expected;
      ++bins;
    } else {
      rest_expected += expected;
      rest_count += counts[k];
    }
  }
  if (rest_expected > 0) {
    chi2 += (rest_count - rest_expected) * (rest_count - rest_expected) / rest_expected;
    ++bins;
  }
  EXPECT_LT(chi2, ChiSquareBound(bins - 1)) << bins << " bins";
}

INSTANTIATE_TEST_SUITE_P(Skews, ZipfianHeadTest, ::testing::Values(0.8, 0.99, 1.0, 1.2));

// Values from YCSB's arithmetic run in Java (Math.pow, (long) casts) for
// ZipfianGenerator(0, 999, theta).nextLong(1000) with these uniform draws.
TEST(ZipfianTest, MatchesYcsbJavaForFixedDraws) {
  const double draws[] = {0.01, 0.2, 0.35, 0.5, 0.7, 0.9, 0.99, 0.999999};
  const std::map<double, std::vector<int64_t>> expected = {
      {0.8, {0, 6, 26, 80, 257, 661, 961, 999}},
      {0.99, {0, 2, 6, 22, 103, 471, 927, 999}},
      {1.2, {0, 0, 2, 5, 24, 208, 834, 999}}};
  for (const auto& [theta, items] : expected) {
    ZipfianGenerator gen = ValueOrDie(ZipfianGenerator::Create(0, 999, theta));
    for (size_t i = 0; i < items.size(); ++i) {
      EXPECT_EQ(gen.NextForUniform(draws[i], 1000), items[i]) << theta << " u " << draws[i];
    }
  }
}

TEST(ZipfianTest, ZetaMatchesYcsbJava) {
  // Java's zetastatic(1000, theta) and its incremental step to 1100.
  EXPECT_NEAR(Zeta(1000, 0.8), 15.469810382227340, 1e-12);
  EXPECT_NEAR(Zeta(1000, 0.99), 7.7289532172847290, 1e-12);
  EXPECT_NEAR(Zeta(1000, 1.2), 4.3357647946256765, 1e-12);
  ZipfianGenerator gen = ValueOrDie(ZipfianGenerator::Create(0, 999, 0.99));
  std::mt19937_64 rng(1);
  gen.Next(rng, 1100);  // grows zetan incrementally, as YCSB's nextLong does
  EXPECT_NEAR(gen.zetan(), 7.8310803732491525, 1e-12);
  gen.Next(rng, 900);  // shrinking keeps zetan (allowitemcountdecrease=false)
  EXPECT_NEAR(gen.zetan(), 7.8310803732491525, 1e-12);
}

TEST(ZipfianTest, LargeZetaMatchesDirectSumAndYcsbConstant) {
  for (double theta : {0.8, 1.0, 1.2}) {
    double direct = Zeta(kZetaDirectTerms, theta);  // summed term by term
    for (int64_t i = kZetaDirectTerms + 1; i <= kZetaDirectTerms + 1000; ++i) {
      direct += std::pow(static_cast<double>(i), -theta);
    }
    EXPECT_NEAR(Zeta(kZetaDirectTerms + 1000, theta) / direct, 1, 1e-12) << theta;
  }
  // YCSB's ZETAN was summed over 10^10 terms in double; the two agree to
  // the rounding that summation accumulates.
  EXPECT_NEAR(Zeta(ScrambledZipfianGenerator::kItemCount, 0.99) / ScrambledZipfianGenerator::kZetan,
              1, 1e-9);
}

// YCSB's own code at theta == 1 returns item 0 for every draw past the two
// fast paths; ours is the limit of the neighbouring constants.
TEST(ZipfianTest, ThetaOneIsTheLimitOfItsNeighbours) {
  ZipfianGenerator one = ValueOrDie(ZipfianGenerator::Create(0, 999, 1.0));
  ZipfianGenerator below = ValueOrDie(ZipfianGenerator::Create(0, 999, 1.0 - 1e-7));
  ZipfianGenerator above = ValueOrDie(ZipfianGenerator::Create(0, 999, 1.0 + 1e-7));
  for (double u = 0.005; u < 1; u += 0.01) {
    const int64_t item = one.NextForUniform(u, 1000);
    EXPECT_NEAR(item, below.NextForUniform(u, 1000), 1) << u;
    EXPECT_NEAR(item, above.NextForUniform(u, 1000), 1) << u;
  }
  EXPECT_GT(one.NextForUniform(0.9, 1000), 100);
}

TEST(ZipfianTest, RejectsBadArguments) {
  for (double theta : {0.0, -0.5, std::nan(""), std::numeric_limits<double>::infinity()}) {
    EXPECT_FALSE(ZipfianGenerator::Create(0, 9, theta).ok()) << theta;
  }
  EXPECT_FALSE(ZipfianGenerator::Create(10, 9).ok());
  EXPECT_TRUE(ZipfianGenerator::Create(5, 5).ok());
}

TEST(ZipfianTest, OffsetRangeAndTinyCounts) {
  ZipfianGenerator gen = ValueOrDie(ZipfianGenerator::Create(100, 109, 1.2));
  ZipfianGenerator one = ValueOrDie(ZipfianGenerator::Create(7, 7));
  std::mt19937_64 rng(3);
  for (int i = 0; i < 10'000; ++i) {
    const int64_t v = gen.Next(rng);
    ASSERT_GE(v, 100);
    ASSERT_LE(v, 109);
    ASSERT_EQ(one.Next(rng), 7);
  }
}

// ------------------------------------------------------ Scrambled zipfian

// The hot keys are YcsbHash(rank) mod N: scattered, not at the start.
TEST(ScrambledZipfianTest, SpreadsHotKeysOverTheKeySpace) {
  constexpr int64_t kKeys = 100'000;
  constexpr int64_t kDraws = 500'000;
  ScrambledZipfianGenerator gen = ValueOrDie(ScrambledZipfianGenerator::Create(0, kKeys - 1));
  std::mt19937_64 rng(7);
  std::vector<int64_t> counts(kKeys);
  for (int64_t i = 0; i < kDraws; ++i) ++counts[gen.Next(rng)];
  std::vector<int64_t> keys(kKeys);
  for (int64_t k = 0; k < kKeys; ++k) keys[k] = k;
  std::partial_sort(keys.begin(), keys.begin() + 100, keys.end(),
                    [&](int64_t a, int64_t b) { return counts[a] > counts[b]; });
  for (int r = 0; r < 3; ++r) EXPECT_EQ(keys[r], YcsbHash(r) % kKeys) << "rank " << r + 1;

  // Positions of the 100 hottest keys look uniform: mean within 4 sd of
  // the middle (sd = N / sqrt(12 * 100)), and no tenth of the space holds
  // more than 25 of them (binomial(100, 0.1): mean 10, sd 3).
  double mean = 0;
  std::vector<int> tenths(10);
  for (int r = 0; r < 100; ++r) {
    mean += keys[r] / 100.0;
    ++tenths[keys[r] * 10 / kKeys];
  }
  EXPECT_NEAR(mean, kKeys / 2.0, 4 * kKeys / std::sqrt(1200.0));
  for (int t = 0; t < 10; ++t) EXPECT_LE(tenths[t], 25) << "tenth " << t;

  // Sorted frequencies follow zipf over YCSB's 10^10 items (Gray's inverse
  // from rank 3), plus the tail's near-uniform floor on every key.
  const double zetan = ScrambledZipfianGenerator::kZetan;
  const int64_t space = ScrambledZipfianGenerator::kItemCount + 1;
  double head = 0;
  for (int k = 0; k < 10; ++k) head += GrayProbability(space, 0.99, zetan, k);
  const double floor = (1 - head) / kKeys;
  for (int r = 0; r < 10; ++r) {
    const double p = GrayProbability(space, 0.99, zetan, r) + floor;
    EXPECT_NEAR(counts[keys[r]], kDraws * p, FiveSigma(kDraws, p)) << "rank " << r + 1;
  }
}

// Constants other than 0.99 compute zeta(10^10 + 1) (YCSB sums 10^10 terms
// for minutes; Euler-Maclaurin takes microseconds).
TEST(ScrambledZipfianTest, OtherConstantsUseTheirOwnZeta) {
  constexpr int64_t kKeys = 10'000;
  constexpr int64_t kDraws = 200'000;
  ScrambledZipfianGenerator gen = ValueOrDie(ScrambledZipfianGenerator::Create(0, kKeys - 1, 0.9));
  std::mt19937_64 rng(11);
  std::vector<int64_t> counts(kKeys);
  for (int64_t i = 0; i < kDraws; ++i) ++counts[gen.Next(rng)];
  const double p = 1 / Zeta(ScrambledZipfianGenerator::kItemCount + 1, 0.9) + 1.0 / kKeys;
  EXPECT_NEAR(counts[YcsbHash(0) % kKeys], kDraws * p, FiveSigma(kDraws, p));
}

// A smaller item space (scaled-down experiments) gives the hottest key its
// zipfian share of that space, and leaves less of a uniform floor.
TEST(ScrambledZipfianTest, ItemSpaceSetsTheHeadsShare) {
  constexpr int64_t kKeys = 10'000;
  constexpr int64_t kItems = 1'000'000;
  constexpr int64_t kDraws = 200'000;
  ScrambledZipfianGenerator gen =
      ValueOrDie(ScrambledZipfianGenerator::Create(0, kKeys - 1, 0.9, kItems));
  std::mt19937_64 rng(13);
  std::vector<int64_t> counts(kKeys);
  for (int64_t i = 0; i < kDraws; ++i) ++counts[gen.Next(rng)];
  const double zeta = Zeta(kItems + 1, 0.9);
  const double head = 1 / zeta;
  const double floor = (1 - Zeta(kKeys, 0.9) / zeta) / kKeys;  // the tail hashed onto a key
  const int64_t hottest = YcsbHash(0) % kKeys;
  EXPECT_NEAR(counts[hottest], kDraws * (head + floor), FiveSigma(kDraws, head + floor));
  // The default 10^10 space gives the same key less than half of that.
  EXPECT_LT(1 / Zeta(ScrambledZipfianGenerator::kItemCount + 1, 0.9), head / 2);
  EXPECT_FALSE(ScrambledZipfianGenerator::Create(0, kKeys - 1, 0.9, 0).ok());
}

// ----------------------------------------------------------------- Latest

TEST(SkewedLatestTest, FavorsTheNewestKeys) {
  SkewedLatestGenerator gen = ValueOrDie(SkewedLatestGenerator::Create(999));
  std::mt19937_64 rng(5);
  for (int64_t last : {999, 1099}) {
    std::map<int64_t, int64_t> counts;
    int64_t newest_hundred = 0;
    for (int i = 0; i < 200'000; ++i) {
      const int64_t key = gen.Next(rng, last);
      ASSERT_GE(key, 1);  // YCSB: last - zipfian(last) never reaches key 0
      ASSERT_LE(key, last);
      ++counts[key];
      if (key > last - 100) ++newest_hundred;
    }
    std::vector<std::pair<int64_t, int64_t>> by_count(counts.begin(), counts.end());
    std::sort(by_count.begin(), by_count.end(),
              [](const auto& a, const auto& b) { return a.second > b.second; });
    for (int r = 0; r < 10; ++r) EXPECT_EQ(by_count[r].first, last - r) << "rank " << r + 1;
    EXPECT_GT(newest_hundred, 200'000 / 2);  // zeta(100)/zeta(1000) is about 0.6
  }
  EXPECT_FALSE(SkewedLatestGenerator::Create(0).ok());
}

// --------------------------------------------------------- Uniform et al.

TEST(UniformTest, IsUniformOverTheInclusiveRange) {
  constexpr int64_t kBins = 1000;
  constexpr int64_t kDraws = 200'000;
  UniformGenerator gen = ValueOrDie(UniformGenerator::Create(-500, 499));
  std::mt19937_64 rng(9);
  std::vector<int64_t> counts(kBins);
  for (int64_t i = 0; i < kDraws; ++i) {
    const int64_t v = gen.Next(rng);
    ASSERT_GE(v, -500);
    ASSERT_LE(v, 499);
    ++counts[v + 500];
  }
  const double expected = static_cast<double>(kDraws) / kBins;
  double chi2 = 0;
  for (int64_t c : counts) chi2 += (c - expected) * (c - expected) / expected;
  EXPECT_LT(chi2, ChiSquareBound(kBins - 1));
  EXPECT_FALSE(UniformGenerator::Create(1, 0).ok());
}

TEST(HotspotTest, SendsTheHotFractionToTheHotSet) {
  HotspotGenerator gen = ValueOrDie(HotspotGenerator::Create(0, 999, 0.2, 0.8));
  std::mt19937_64 rng(13);
  constexpr int64_t kDraws = 100'000;
  int64_t hot = 0;
  for (int64_t i = 0; i < kDraws; ++i) {
    const int64_t v = gen.Next(rng);
    ASSERT_GE(v, 0);
    ASSERT_LE(v, 999);
    hot += v < 200;
  }
  EXPECT_NEAR(hot, kDraws * 0.8, FiveSigma(kDraws, 0.8));
  EXPECT_FALSE(HotspotGenerator::Create(0, 999, 1.5, 0.8).ok());
  EXPECT_FALSE(HotspotGenerator::Create(0, 2, 0.2, 0.8).ok());  // empty hot set
}

TEST(DiscreteTest, DrawsInProportionToUnnormalizedWeights) {
  DiscreteGenerator<char> gen;
  gen.Add(3, 'a');
  gen.Add(1, 'b');
  std::mt19937_64 rng(17);
  constexpr int64_t kDraws = 100'000;
  int64_t a = 0;
  for (int64_t i = 0; i < kDraws; ++i) a += gen.Next(rng) == 'a';
  EXPECT_NEAR(a, kDraws * 0.75, FiveSigma(kDraws, 0.75));
}

// ------------------------------------------------------------------- FNV

// Textbook FNV-1a 64 over bytes, to show Fnv1a64 is FNV-1a over the 8
// little-endian bytes of its argument.
uint64_t Fnv1a64Bytes(const std::string& bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

TEST(FnvTest, IsFnv1aOverTheLittleEndianBytes) {
  // Published FNV-1a 64 vectors (Fowler/Noll/Vo test suite).
  EXPECT_EQ(Fnv1a64Bytes(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(Fnv1a64Bytes("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(Fnv1a64Bytes("foobar"), 0x85944171f73967e8ULL);
  for (uint64_t v : {0ULL, 1ULL, 0x0102030405060708ULL, ~0ULL}) {
    std::string bytes;
    for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
    EXPECT_EQ(Fnv1a64(v), Fnv1a64Bytes(bytes)) << v;
  }
}

// From YCSB's Utils.fnvhash64 run in Java. 0, 1 and 2 are also the hashes
// in the first keys of every YCSB load trace: user6284781860667377211,
// user8517097267634966620, user1820151046732198393.
TEST(FnvTest, YcsbHashMatchesJava) {
  EXPECT_EQ(static_cast<int64_t>(Fnv1a64(0)), -6284781860667377211LL);  // Java long before abs
  EXPECT_EQ(YcsbHash(0), 6284781860667377211LL);
  EXPECT_EQ(YcsbHash(1), 8517097267634966620LL);
  EXPECT_EQ(YcsbHash(2), 1820151046732198393LL);
  EXPECT_EQ(YcsbHash(4), 3232700585171816769LL);  // positive before abs
  EXPECT_EQ(static_cast<int64_t>(Fnv1a64(4)), 3232700585171816769LL);
  EXPECT_EQ(YcsbHash(5), 1000385178204227360LL);
  EXPECT_EQ(YcsbHash(1000), 5952875239596136740LL);
  EXPECT_EQ(YcsbHash(-1), 8289690350564177859LL);
  EXPECT_EQ(YcsbHash(INT64_MAX), 8289549613075766851LL);
}

// ----------------------------------------------------------- Determinism

TEST(DeterminismTest, SameSeedSameSequence) {
  auto draw = [](uint64_t seed) {
    ZipfianGenerator z = ValueOrDie(ZipfianGenerator::Create(0, 999, 1.2));
    ScrambledZipfianGenerator s = ValueOrDie(ScrambledZipfianGenerator::Create(0, 999));
    UniformGenerator u = ValueOrDie(UniformGenerator::Create(0, 999));
    std::mt19937_64 rng(seed);
    std::vector<int64_t> out;
    for (int i = 0; i < 1000; ++i) {
      out.push_back(z.Next(rng));
      out.push_back(s.Next(rng));
      out.push_back(u.Next(rng));
    }
    return out;
  };
  EXPECT_EQ(draw(99), draw(99));
  EXPECT_NE(draw(99), draw(100));
}

}  // namespace
}  // namespace zonestack::bench
