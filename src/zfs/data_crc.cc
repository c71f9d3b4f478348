// The data CRC (format.h): zlib's CRC-32, computed by whichever of two
// bit-identical implementations is faster on the CPU at hand, measured once
// per process, as the Linux kernel picks its RAID-6 syndrome routine at
// boot. ISA-L's crc32_gzip_refl folds with carry-less multiplies and is
// several times zlib's table walk where the CPU has them; where they are
// emulated (QEMU's TCG, which runs a PCLMULQDQ as a bit loop) the table
// walk is faster. Every byte a writer appends goes through here.
#include <isa-l/crc.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "zfs/format.h"

namespace zonestack::zfs {
namespace {

using CrcFunction = uint32_t (*)(uint32_t, const uint8_t*, size_t);

uint32_t IsalCrc(uint32_t crc, const uint8_t* bytes, size_t n) {
  return crc32_gzip_refl(crc, bytes, n);
}

uint32_t ZlibCrc(uint32_t crc, const uint8_t* bytes, size_t n) {
  return static_cast<uint32_t>(crc32_z(crc, bytes, n));
}

// The faster of the two: the best of several timed passes over 64 KiB
// each, alternating, so a preemption during one pass does not decide
// (tens of microseconds on a CPU with carry-less multiplies, a few
// milliseconds under emulation).
CrcFunction Fastest() {
  std::vector<uint8_t> bytes(64 << 10);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 131 + 7);
  constexpr CrcFunction kCandidates[] = {IsalCrc, ZlibCrc};
  std::chrono::nanoseconds best[2] = {std::chrono::nanoseconds::max(),
                                      std::chrono::nanoseconds::max()};
  uint32_t sink = 0;
  for (int pass = 0; pass < 5; ++pass) {
    for (int c = 0; c < 2; ++c) {
      const auto start = std::chrono::steady_clock::now();
      sink ^= kCandidates[c](sink, bytes.data(), bytes.size());
      best[c] = std::min(best[c], std::chrono::duration_cast<std::chrono::nanoseconds>(
                                      std::chrono::steady_clock::now() - start));
    }
  }
  // Each pass continues the last one's CRC and the last is stored, so the
  // compiler can drop none of them.
  volatile uint32_t keep = sink;
  (void)keep;
  return best[1] < best[0] ? kCandidates[1] : kCandidates[0];
}

}  // namespace

uint32_t DataCrcWith(DataCrcImplementation impl, uint32_t crc, const uint8_t* bytes, size_t n) {
  return (impl == DataCrcImplementation::kIsal ? IsalCrc : ZlibCrc)(crc, bytes, n);
}

uint32_t DataCrc(uint32_t crc, const uint8_t* bytes, size_t n) {
  static const CrcFunction f = Fastest();
  return f(crc, bytes, n);
}

}  // namespace zonestack::zfs
