// The small SSD the timing tests share: 2 channels x 2 dies, one plane,
// 4 KiB units, 64 KiB blocks, uniform latencies in every cell mode; a unit
// takes kLink on the host link and kXfer on a channel.
#pragma once

#include <cstdint>

#include "device/nand_timing.h"

namespace zonestack::device::small_nand {

inline constexpr uint64_t kUnit = 4096;
inline constexpr uint64_t kCmd = 1'000;
inline constexpr uint64_t kLink = 5'000;   // 4096 B at 819.2 MB/s
inline constexpr uint64_t kXfer = 10'000;  // 4096 B at 409.6 MB/s
inline constexpr uint64_t kRead = 20'000;
inline constexpr uint64_t kProg = 100'000;
inline constexpr uint64_t kErase = 1'000'000;
inline constexpr uint64_t kBlockBytes = 64 * 1024;  // 16 units
inline constexpr uint32_t kDies = 4;
inline constexpr uint32_t kChannels = 2;

inline CellLatency Uniform(uint64_t read_ns, uint64_t program_ns, uint64_t erase_ns) {
  CellLatency l;
  l.read_ns = {read_ns, read_ns, read_ns, read_ns};
  l.program_ns = {program_ns, program_ns, program_ns, program_ns};
  l.erase_ns = erase_ns;
  return l;
}

// dies_per_zone: 0 stripes a zone over every die.
inline NandParams SmallNand(uint32_t dies_per_zone = 0) {
  NandParams p;
  p.geometry.channels = kChannels;
  p.geometry.dies_per_channel = kDies / kChannels;
  p.geometry.planes = 1;
  p.geometry.page_bytes = kUnit;
  p.geometry.block_bytes = kBlockBytes;
  p.geometry.dies_per_zone = dies_per_zone;
  p.channel_bytes_per_s = 409.6e6;
  p.host_read_bytes_per_s = 819.2e6;
  p.host_write_bytes_per_s = 819.2e6;
  p.command_ns = kCmd;
  p.tlc = p.slc = p.qlc = Uniform(kRead, kProg, kErase);
  return p;
}

}  // namespace zonestack::device::small_nand
