// The data CRC is part of the on-disk format (docs/format.md): both
// implementations DataCrc may pick (data_crc.cc) must give zlib's crc32,
// byte for byte, at any length and alignment and when continued piece by
// piece, and combine with zlib's crc32_combine as extents merge.
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "zfs/format.h"

namespace zonestack::zfs {
namespace {

uint32_t ZlibCrc(uint32_t crc, const uint8_t* p, size_t n) {
  return static_cast<uint32_t>(crc32_z(crc, p, n));
}

std::vector<uint8_t> RandomBytes(size_t n) {
  std::mt19937 rng(42);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

constexpr DataCrcImplementation kBoth[] = {DataCrcImplementation::kIsal,
                                           DataCrcImplementation::kZlib};

TEST(DataCrcTest, IsZlibsCrc32AtEveryLengthAndAlignment) {
  const auto bytes = RandomBytes(70000);
  constexpr size_t kLengths[] = {0, 1, 3, 15, 16, 17, 63, 64, 65, 255, 256, 4095, 4096, 4097, 65536};
  for (size_t offset = 0; offset < 9; ++offset) {
    for (size_t n : kLengths) {
      const uint32_t want = ZlibCrc(0, bytes.data() + offset, n);
      EXPECT_EQ(DataCrc(0, bytes.data() + offset, n), want) << "offset " << offset << " length " << n;
      for (auto impl : kBoth) {
        EXPECT_EQ(DataCrcWith(impl, 0, bytes.data() + offset, n), want)
            << "implementation " << static_cast<int>(impl) << " offset " << offset << " length "
            << n;
      }
    }
  }
}

// A CRC one process stored (a staging file's running CRC, an extent's) is
// continued by the next, whose timing may pick the other implementation.
TEST(DataCrcTest, OneImplementationContinuesTheOthers) {
  const auto bytes = RandomBytes(10000);
  const uint32_t want = ZlibCrc(0, bytes.data(), bytes.size());
  for (auto first : kBoth) {
    for (auto second : kBoth) {
      const uint32_t head = DataCrcWith(first, 0, bytes.data(), 3333);
      EXPECT_EQ(DataCrcWith(second, head, bytes.data() + 3333, bytes.size() - 3333), want);
    }
  }
}

TEST(DataCrcTest, TheStandardCheckValue) {
  const std::string check = "123456789";
  EXPECT_EQ(DataCrc(0, reinterpret_cast<const uint8_t*>(check.data()), check.size()), 0xcbf43926u);
}

TEST(DataCrcTest, ContinuedPieceByPieceAsAWriterAppends) {
  const auto bytes = RandomBytes(100000);
  uint32_t crc = 0;
  size_t done = 0;
  for (size_t piece = 1; done < bytes.size(); piece = piece * 3 + 1) {
    size_t n = std::min(piece, bytes.size() - done);
    crc = DataCrc(crc, bytes.data() + done, n);
    done += n;
  }
  EXPECT_EQ(crc, ZlibCrc(0, bytes.data(), bytes.size()));
}

TEST(DataCrcTest, CombinesAndSplitsWithTheOtherExtent) {
  const auto bytes = RandomBytes(12288);
  const uint32_t a = DataCrc(0, bytes.data(), 8192);
  const uint32_t b = DataCrc(0, bytes.data() + 8192, 4096);
  const uint32_t ab = DataCrc(0, bytes.data(), bytes.size());
  EXPECT_EQ(CombineCrc(a, b, 4096), ab);
  EXPECT_EQ(TailCrc(ab, a, 4096), b);
}

}  // namespace
}  // namespace zonestack::zfs
