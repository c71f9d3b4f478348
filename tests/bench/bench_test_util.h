// Statistics helpers for the bench tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <utility>

#include "absl/status/statusor.h"

namespace zonestack::bench::testing_util {

template <typename T>
T ValueOrDie(absl::StatusOr<T> v) {
  if (!v.ok()) {
    std::cerr << v.status() << "\n";
    std::abort();
  }
  return *std::move(v);
}

// Five standard deviations of a binomial count: `draws` trials, probability p.
inline double FiveSigma(int64_t draws, double p) {
  return 5 * std::sqrt(static_cast<double>(draws) * p * (1 - p));
}

// Mean plus six standard deviations of a chi-square with df degrees of
// freedom (normal approximation).
inline double ChiSquareBound(int64_t df) {
  return static_cast<double>(df) + 6 * std::sqrt(2.0 * static_cast<double>(df));
}

// The probability that YCSB's ZipfianGenerator over n items (created with
// n, zeta(n) = zetan) returns item k, derived independently of the
// implementation: items 0 and 1 come from the exact fast paths; item k >= 2
// takes the draws u for which Gray's inverse x(u) = n (1 - eta (1 - u))^alpha
// lies in [k, k + 1), i.e. u in [u(k), u(k + 1)) with
// u(x) = 1 - (1 - (x/n)^(1-theta)) / eta, clipped to the draws the fast
// paths leave. At theta == 1, x(u) = n exp(-(1-u) ln(n/2) / (1 - zeta2/zetan)).
inline double GrayProbability(int64_t n, double theta, double zetan, int64_t k) {
  const double zeta2 = 1 + std::pow(0.5, theta);
  if (k == 0) return 1 / zetan;
  if (k == 1) return std::pow(0.5, theta) / zetan;
  const double nd = static_cast<double>(n);
  const double denominator = 1 - zeta2 / zetan;
  auto u_of = [&](double x) {
    if (theta == 1) return 1 - std::log(nd / x) * denominator / std::log(nd / 2);
    const double eta = (1 - std::pow(2.0 / nd, 1 - theta)) / denominator;
    return 1 - (1 - std::pow(x / nd, 1 - theta)) / eta;
  };
  const double low = zeta2 / zetan;
  const double a = std::max(u_of(static_cast<double>(k)), low);
  const double b = std::min(u_of(static_cast<double>(k + 1)), 1.0);
  return std::max(0.0, b - a);
}

}  // namespace zonestack::bench::testing_util
