#include "bench/generators.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace zonestack::bench {
namespace {

// Adds terms from+1 .. to of the zeta series to `sum`, in the order and
// with the arithmetic of YCSB's ZipfianGenerator.zetastatic(st, n, ...).
double AddZetaTerms(int64_t from, int64_t to, double theta, double sum) {
  for (int64_t i = from; i < to; ++i) sum += 1 / std::pow(static_cast<double>(i + 1), theta);
  return sum;
}

// sum_{i=k..n} i^-theta by Euler-Maclaurin with terms up to B6. With k in
// the tens of thousands the next term is below 1e-30, far under rounding.
double EulerMaclaurin(int64_t k, int64_t n, double theta) {
  const double a = static_cast<double>(k);
  const double b = static_cast<double>(n);
  // Integral of x^-theta over [a, b]; expm1 keeps it exact near theta = 1.
  const double e = 1 - theta;
  const double integral =
      e == 0 ? std::log(b / a) : std::pow(a, e) * std::expm1(e * std::log(b / a)) / e;
  auto f = [&](double x) { return std::pow(x, -theta); };
  auto d1 = [&](double x) { return -theta * std::pow(x, -theta - 1); };
  auto d3 = [&](double x) { return -theta * (theta + 1) * (theta + 2) * std::pow(x, -theta - 3); };
  auto d5 = [&](double x) {
    return -theta * (theta + 1) * (theta + 2) * (theta + 3) * (theta + 4) *
           std::pow(x, -theta - 5);
  };
  return integral + (f(a) + f(b)) / 2 + (d1(b) - d1(a)) / 12 - (d3(b) - d3(a)) / 720 +
         (d5(b) - d5(a)) / 30240;
}

constexpr int64_t kEulerMaclaurinStart = 100'000;

absl::Status CheckArguments(int64_t min, int64_t max, double theta) {
  if (absl::Status s = CheckZipfianConstant(theta); !s.ok()) return s;
  // max - min + 1 items must fit an int64_t.
  if (min > max || static_cast<uint64_t>(max) - static_cast<uint64_t>(min) >=
                       static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return absl::InvalidArgumentError(absl::StrCat("zipfian: bad range ", min, "..", max));
  }
  return absl::OkStatus();
}

}  // namespace

double NextUnitDouble(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

uint64_t Fnv1a64(uint64_t value) {
  uint64_t hash = 0xCBF29CE484222325ULL;
  for (int i = 0; i < 8; ++i) {
    hash ^= value & 0xff;
    value >>= 8;
    hash *= 1099511628211ULL;
  }
  return hash;
}

int64_t YcsbHash(int64_t value) {
  // YCSB shifts a signed long (sign-filling), but only the 8 low bytes are
  // ever consumed, so hashing the unsigned bits is the same.
  const auto hash = static_cast<int64_t>(Fnv1a64(static_cast<uint64_t>(value)));
  if (hash == std::numeric_limits<int64_t>::min()) return hash;  // Java's Math.abs
  return hash < 0 ? -hash : hash;
}

double Zeta(int64_t n, double theta) {
  if (n <= kZetaDirectTerms) return AddZetaTerms(0, n, theta, 0);
  return AddZetaTerms(0, kEulerMaclaurinStart - 1, theta, 0) +
         EulerMaclaurin(kEulerMaclaurinStart, n, theta);
}

absl::Status CheckZipfianConstant(double theta) {
  if (std::isfinite(theta) && theta > 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("zipfian constant must be finite and > 0, got ", theta));
}

// ---------------------------------------------------------------- Zipfian

absl::StatusOr<ZipfianGenerator> ZipfianGenerator::Create(int64_t min, int64_t max,
                                                          double theta) {
  if (absl::Status s = CheckArguments(min, max, theta); !s.ok()) return s;
  return ZipfianGenerator(min, max - min + 1, theta, Zeta(max - min + 1, theta));
}

absl::StatusOr<ZipfianGenerator> ZipfianGenerator::CreateWithZeta(int64_t min, int64_t max,
                                                                  double theta, double zetan) {
  if (absl::Status s = CheckArguments(min, max, theta); !s.ok()) return s;
  if (!(zetan >= 1)) {
    return absl::InvalidArgumentError(absl::StrCat("zipfian: zetan ", zetan, " < 1"));
  }
  return ZipfianGenerator(min, max - min + 1, theta, zetan);
}

ZipfianGenerator::ZipfianGenerator(int64_t min, int64_t items, double theta, double zetan)
    : base_(min),
      items_(items),
      theta_(theta),
      zeta2_(Zeta(2, theta)),
      alpha_(theta == 1 ? 0 : 1.0 / (1.0 - theta)),
      zetan_(zetan),
      eta_(0),
      count_for_zeta_(items) {
  ComputeEta();
}

void ZipfianGenerator::ComputeEta() {
  // With one or two items the denominator is 0 (YCSB gets NaN), but then
  // the two exact fast paths in NextForUniform cover every draw.
  const double denominator = 1 - zeta2_ / zetan_;
  if (denominator == 0) {
    eta_ = 0;
  } else if (theta_ == 1) {
    // The theta->1 limit: eta / (1 - theta) -> ln(items/2) / denominator.
    eta_ = std::log(static_cast<double>(items_) / 2.0) / denominator;
  } else {
    eta_ = (1 - std::pow(2.0 / static_cast<double>(items_), 1 - theta_)) / denominator;
  }
}

int64_t ZipfianGenerator::NextForUniform(double u, int64_t item_count) {
  if (item_count > count_for_zeta_) {
    zetan_ = item_count - count_for_zeta_ <= kZetaDirectTerms
                 ? AddZetaTerms(count_for_zeta_, item_count, theta_, zetan_)
                 : Zeta(item_count, theta_);
    count_for_zeta_ = item_count;
    ComputeEta();
  }
  const double uz = u * zetan_;
  if (uz < 1.0) return base_;
  if (uz < 1.0 + std::pow(0.5, theta_)) return base_ + 1;
  const double n = static_cast<double>(item_count);
  const double x = theta_ == 1 ? n * std::exp(-(1 - u) * eta_)
                               : n * std::pow(eta_ * u - eta_ + 1, alpha_);
  // Java's (long) cast: NaN becomes 0. The upper clamp only guards against
  // rounding as u nears 1 (YCSB would return one past the last item).
  if (!(x >= 0)) return base_;
  if (x >= n) return base_ + item_count - 1;
  return base_ + static_cast<int64_t>(x);
}

// ------------------------------------------------------ Scrambled zipfian

absl::StatusOr<ScrambledZipfianGenerator> ScrambledZipfianGenerator::Create(int64_t min,
                                                                            int64_t max,
                                                                            double theta,
                                                                            int64_t items) {
  if (min > max) {
    return absl::InvalidArgumentError(absl::StrCat("scrambled zipfian: min ", min, " > max ", max));
  }
  if (items < 1) {
    return absl::InvalidArgumentError(absl::StrCat("scrambled zipfian: ", items, " items"));
  }
  // YCSB compares the constant exactly: only 0.99 has a precomputed zeta.
  absl::StatusOr<ZipfianGenerator> gen =
      theta == kDefaultZipfianConstant && items == kItemCount
          ? ZipfianGenerator::CreateWithZeta(0, kItemCount, theta, kZetan)
          : ZipfianGenerator::Create(0, items, theta);
  if (!gen.ok()) return gen.status();
  return ScrambledZipfianGenerator(*std::move(gen), min, max - min + 1);
}

int64_t ScrambledZipfianGenerator::Next(std::mt19937_64& rng) {
  // Java's % truncates toward zero like C++'s, so the one negative hash
  // (Long.MIN_VALUE) maps below min in both; it needs a 2^-64 draw.
  return min_ + YcsbHash(gen_.Next(rng)) % item_count_;
}

// ----------------------------------------------------------------- Latest

absl::StatusOr<SkewedLatestGenerator> SkewedLatestGenerator::Create(int64_t last) {
  if (last < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("latest: needs at least 2 inserted records, last key number is ", last));
  }
  absl::StatusOr<ZipfianGenerator> zipfian = ZipfianGenerator::Create(0, last - 1);
  if (!zipfian.ok()) return zipfian.status();
  return SkewedLatestGenerator(*std::move(zipfian));
}

// ---------------------------------------------------------------- Uniform

absl::StatusOr<UniformGenerator> UniformGenerator::Create(int64_t lb, int64_t ub) {
  if (lb > ub) return absl::InvalidArgumentError(absl::StrCat("uniform: lb ", lb, " > ub ", ub));
  // 0 stands for the whole 2^64 range.
  return UniformGenerator(lb, static_cast<uint64_t>(ub) - static_cast<uint64_t>(lb) + 1);
}

int64_t UniformGenerator::Next(std::mt19937_64& rng) const {
  const uint64_t r = interval_ == 0 ? rng() : rng() % interval_;
  return static_cast<int64_t>(static_cast<uint64_t>(lb_) + r);
}

// ---------------------------------------------------------------- Hotspot

absl::StatusOr<HotspotGenerator> HotspotGenerator::Create(int64_t lb, int64_t ub,
                                                          double hot_data_fraction,
                                                          double hot_opn_fraction) {
  if (!(hot_data_fraction >= 0 && hot_data_fraction <= 1) ||
      !(hot_opn_fraction >= 0 && hot_opn_fraction <= 1)) {
    return absl::InvalidArgumentError(absl::StrCat("hotspot: fractions must be in [0, 1], got ",
                                                   hot_data_fraction, " and ", hot_opn_fraction));
  }
  if (lb > ub) return absl::InvalidArgumentError(absl::StrCat("hotspot: lb ", lb, " > ub ", ub));
  HotspotGenerator g;
  g.lb_ = lb;
  const int64_t interval = ub - lb + 1;
  g.hot_interval_ = static_cast<int64_t>(static_cast<double>(interval) * hot_data_fraction);
  g.cold_interval_ = interval - g.hot_interval_;
  g.hot_opn_fraction_ = hot_opn_fraction;
  if ((hot_opn_fraction > 0 && g.hot_interval_ == 0) ||
      (hot_opn_fraction < 1 && g.cold_interval_ == 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "hotspot: data fraction ", hot_data_fraction, " of ", interval,
        " items leaves an empty hot or cold set that operation fraction ", hot_opn_fraction,
        " draws from"));
  }
  return g;
}

int64_t HotspotGenerator::Next(std::mt19937_64& rng) const {
  if (NextUnitDouble(rng) < hot_opn_fraction_) {
    return lb_ + static_cast<int64_t>(rng() % static_cast<uint64_t>(hot_interval_));
  }
  return lb_ + hot_interval_ + static_cast<int64_t>(rng() % static_cast<uint64_t>(cold_interval_));
}

}  // namespace zonestack::bench
