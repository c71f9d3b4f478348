// The emulated ST8000AS0022 (host-aware SMR, docs/emulator.md "Host-aware
// SMR") as the media cache tests open it: 40 zones of 128 KiB (scale
// 1/2048; zone 0 is the one conventional zone), simulated time.
#pragma once

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "device/clock.h"
#include "device/emulated_device.h"
#include "device/zoned_device.h"
#include "device_test_util.h"

namespace zonestack::device::ha_smr {

constexpr uint64_t kBlock = 4096;
constexpr uint64_t kZone = 128 * 1024;
inline const IoContext kCtx;

struct HaDevice {
  std::unique_ptr<ZonedDevice> dev;
  EmulatedDevice* emu = nullptr;
  ManualClock* clock = nullptr;

  uint64_t Start(uint32_t zone) const { return dev->ZoneStart(zone); }
  uint64_t Now() const { return clock->NowNs(); }
  ZoneInfo Zone(uint32_t zone) const {
    auto z = dev->ReportZone(zone);
    EXPECT_TRUE(z.ok()) << z.status();
    return z.ok() ? *z : ZoneInfo{};
  }
  // The latency of one call on the simulated clock.
  template <typename F>
  uint64_t Timed(F&& call) {
    const uint64_t t0 = Now();
    EXPECT_OK(testing_util::StatusOf(call()));
    return Now() - t0;
  }
  absl::Status WriteAt(uint64_t offset, uint64_t len, uint8_t seed) {
    return testing_util::WritePattern(*dev, offset, len, seed, kCtx);
  }
  std::vector<uint8_t> ReadBytes(uint64_t offset, uint64_t len) {
    return testing_util::ReadBack(*dev, offset, len, kCtx);
  }
};

// `params` are added to the URI (mc=, mc_high=, mc_idle_ms=, smr=, ...).
inline HaDevice OpenHa(const std::string& params, const std::string& timing = "sim") {
  HaDevice d;
  auto dev = OpenDevice("emu:st8000as0022?zones=40&scale=1/2048&timing=" + timing +
                        (params.empty() ? "" : "&" + params));
  EXPECT_TRUE(dev.ok()) << dev.status();
  if (!dev.ok()) return d;
  d.dev = std::move(*dev);
  d.emu = dynamic_cast<EmulatedDevice*>(d.dev.get());
  EXPECT_NE(d.emu, nullptr);
  if (d.emu != nullptr) d.clock = dynamic_cast<ManualClock*>(d.emu->clock());
  return d;
}

}  // namespace zonestack::device::ha_smr
