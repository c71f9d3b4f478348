// A small block tier for tests: an emulated ST8000AS0022 of 40 zones of
// 128 KiB (scale 1/2048; zone 0 conventional) behind a 4 MiB conventional
// SSD, both instant (timing=none) unless a test asks for simulated time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../common/status_macros.h"
#include "device/clock.h"
#include "device/emulated_device.h"
#include "tier/block_tier.h"

namespace zonestack::tier::testing {

constexpr uint64_t kBlock = 4096;
constexpr uint64_t kZone = 128 * 1024;
constexpr uint64_t kZoneBlocks = kZone / kBlock;

inline std::vector<uint8_t> Fill(uint64_t len, uint32_t seed) {
  std::vector<uint8_t> v(len);
  for (uint64_t i = 0; i < len; ++i) v[i] = static_cast<uint8_t>(seed * 131 + i / kBlock * 7 + 1);
  return v;
}

struct Rig {
  std::shared_ptr<device::ManualClock> clock;
  std::unique_ptr<device::ZonedDevice> ssd, drive;
  std::unique_ptr<BlockTier> tier;
  TierOptions options;

  device::EmulatedDevice* ssd_emu() const {
    return dynamic_cast<device::EmulatedDevice*>(ssd.get());
  }
  device::EmulatedDevice* drive_emu() const {
    return dynamic_cast<device::EmulatedDevice*>(drive.get());
  }
  absl::Status Reopen() {
    tier.reset();
    auto t = BlockTier::Open(ssd.get(), drive.get(), options, clock.get());
    if (!t.ok()) return t.status();
    tier = std::move(*t);
    return absl::OkStatus();
  }
  device::ZoneInfo Zone(uint32_t z) const { return *drive->ReportZone(z); }
  uint64_t DriveNsws() const { return drive->Stats().nsw_writes; }
  absl::Status Write(uint64_t off, uint64_t len, uint32_t seed) {
    return tier->Write(off, Fill(len, seed));
  }
  std::vector<uint8_t> Read(uint64_t off, uint64_t len) {
    std::vector<uint8_t> v(len);
    EXPECT_OK(tier->Read(off, v));
    return v;
  }
};

// `scheme` from TierScheme; `drive_params` are added to the drive's URI.
inline Rig MakeRig(const std::string& scheme, TierOptions base = {},
                   const std::string& timing = "none", const std::string& drive_params = "") {
  Rig r;
  r.clock = std::make_shared<device::ManualClock>();
  if (base.ssd_tier_bytes == 0) base.ssd_tier_bytes = 4 * kZone;
  if (base.cache_bytes == 0) base.cache_bytes = 32 * kBlock;
  auto o = TierScheme(scheme, base);
  EXPECT_TRUE(o.ok()) << o.status();
  r.options = *o;
  const std::string dm = r.options.device_managed_drive ? "&smr=dm" : "";
  auto drive = device::OpenDevice("emu:st8000as0022?zones=40&scale=1/2048&mc=262144&timing=" +
                                      timing + dm + drive_params,
                                  r.clock);
  auto ssd = device::OpenDevice("emu:zn540?zones=4&conv=4&scale=1/2048&timing=" + timing,
                                r.clock);
  EXPECT_TRUE(drive.ok()) << drive.status();
  EXPECT_TRUE(ssd.ok()) << ssd.status();
  if (!drive.ok() || !ssd.ok()) return r;
  r.drive = std::move(*drive);
  r.ssd = std::move(*ssd);
  EXPECT_OK(r.Reopen());
  return r;
}

}  // namespace zonestack::tier::testing
