// Helpers shared by the device tests: data patterns, readable gtest output
// for zone enums, and a check for typed zone errors.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../common/status_macros.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "device/zone.h"
#include "device/zone_error.h"
#include "device/zoned_device.h"

namespace zonestack::device {

// gtest finds these by argument-dependent lookup, so they live in the
// enums' namespace.
inline void PrintTo(ZoneState s, std::ostream* os) { *os << ToString(s); }
inline void PrintTo(ZoneError e, std::ostream* os) { *os << ToString(e); }
inline void PrintTo(CellMode m, std::ostream* os) { *os << ToString(m); }

namespace testing_util {

// `len` bytes that differ with `seed` and with the position, so data
// landing at the wrong offset or from the wrong write is caught.
inline std::vector<uint8_t> Pattern(uint64_t len, uint8_t seed) {
  std::vector<uint8_t> v(len);
  for (uint64_t i = 0; i < len; ++i) {
    v[i] = static_cast<uint8_t>(seed * 37 + i * 7 + (i >> 12) * 13 + 1);
  }
  return v;
}

// Writes Pattern(len, seed) at `offset`.
inline absl::Status WritePattern(ZonedDevice& dev, uint64_t offset, uint64_t len, uint8_t seed,
                                 const IoContext& ctx = {}) {
  return dev.Write(offset, Pattern(len, seed), ctx);
}

// The `len` bytes at `offset`; a failed read fails the test.
inline std::vector<uint8_t> ReadBack(ZonedDevice& dev, uint64_t offset, uint64_t len,
                                     const IoContext& ctx = {}) {
  std::vector<uint8_t> buf(len);
  EXPECT_OK(dev.Read(offset, buf, ctx));
  return buf;
}

inline absl::Status StatusOf(const absl::Status& s) { return s; }
template <typename T>
absl::Status StatusOf(const absl::StatusOr<T>& s) {
  return s.status();
}

inline bool Contains(const absl::Status& s, const std::string& needle) {
  return std::string(s.message()).find(needle) != std::string::npos;
}

}  // namespace testing_util
}  // namespace zonestack::device

// Expects `expr` (a Status or StatusOr) to fail with zone error `err`.
#define EXPECT_ZONE_ERROR(expr, err)                                       \
  do {                                                                     \
    const absl::Status zs_status_ =                                        \
        ::zonestack::device::testing_util::StatusOf(expr);                 \
    EXPECT_EQ(::zonestack::device::GetZoneError(zs_status_), (err))        \
        << "status: " << zs_status_;                                       \
  } while (0)

// ASSERT_OK, EXPECT_OK: tests/common/status_macros.h.
