// Status assertions shared by every test layer: ASSERT_OK / EXPECT_OK take
// an absl::Status or StatusOr and print it when it is not OK;
// ASSERT_OK_AND_ASSIGN unwraps a StatusOr.
#pragma once

#include <gtest/gtest.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace zonestack::testing_common {

inline absl::Status StatusOf(const absl::Status& s) { return s; }
template <typename T>
absl::Status StatusOf(const absl::StatusOr<T>& s) {
  return s.status();
}

}  // namespace zonestack::testing_common

#define ASSERT_OK(expr)                                                            \
  do {                                                                             \
    const absl::Status zs_status_ = ::zonestack::testing_common::StatusOf(expr);   \
    ASSERT_TRUE(zs_status_.ok()) << #expr << ": " << zs_status_;                  \
  } while (0)

#define EXPECT_OK(expr)                                                            \
  do {                                                                             \
    const absl::Status zs_status_ = ::zonestack::testing_common::StatusOf(expr);   \
    EXPECT_TRUE(zs_status_.ok()) << #expr << ": " << zs_status_;                  \
  } while (0)

#define ZS_CONCAT_INNER(a, b) a##b
#define ZS_CONCAT(a, b) ZS_CONCAT_INNER(a, b)
#define ASSERT_OK_AND_ASSIGN(lhs, expr) \
  ASSERT_OK_AND_ASSIGN_IMPL(ZS_CONCAT(zs_statusor_, __LINE__), lhs, expr)
#define ASSERT_OK_AND_ASSIGN_IMPL(tmp, lhs, expr)             \
  auto tmp = (expr);                                          \
  ASSERT_TRUE(tmp.ok()) << #expr << ": " << tmp.status();     \
  lhs = std::move(*tmp)
