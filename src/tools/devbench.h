// devbench: fio-like microbenchmarks of a ZonedDevice at queue depth 1 and
// with a few threads, set beside the preset's published figures.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "device/zoned_device.h"

namespace zonestack::tools {

struct DevbenchOptions {
  double seconds_per_test = 2.0;  // wall (or simulated) time per test
  int threads = 4;                // for the parallel tests
  uint32_t spread_zones = 256;    // zones the random reads are spread over
};

struct DevbenchResult {
  std::string test;
  std::string unit;     // "MiB/s", "IO/s", "ms"
  double value = 0;
  double target = 0;    // published figure, 0 when there is none
  // What the test cost the host: CPU seconds of the whole process (every
  // thread, the emulator's included) per GB the device moved in model
  // terms, which is also CPU cores per GB/s; 0 when nothing was moved.
  double cpu_s_per_gb = 0;
  // Commands the test issued, and those the emulator finished after their
  // modeled completion (DeviceStats::late_commands).
  uint64_t commands = 0;
  uint64_t late_commands = 0;
};

// Runs every test on `dev`, which it overwrites: all data on it is lost.
absl::StatusOr<std::vector<DevbenchResult>> RunDevbench(device::ZonedDevice& dev,
                                                        const DevbenchOptions& opts,
                                                        const std::string& preset);

// A table with one row per result and its ratio to the target.
std::string FormatDevbench(const std::vector<DevbenchResult>& results);

}  // namespace zonestack::tools
