// The conformance suite's devices and fixtures, shared by
// zone_conformance_test.cc, zone_limits_test.cc and zone_protocol_test.cc.
//
// The device under test is the emulator, configured as each fixture's
// model, or with ZONESTACK_ZBD_DEVICE=/dev/NAME a real zoned block device
// (real_device.h), which must be configured like the model it is checked
// against (limits, conventional zones, block size; scripts/vm_test.sh sets
// up an NVMe ZNS namespace for the ZNS cases and null_blk for the ZBC
// ones). Fixtures whose model the real device does not follow (the other
// protocol, cell modes, Simple Copy) are skipped, and so are cases whose
// premise it does not share (REQUIRE_DEVICE).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "device/emulated_device.h"
#include "device/zone.h"
#include "device/zone_error.h"
#include "device/zoned_device.h"
#include "device_test_util.h"
#include "real_device.h"

namespace zonestack::device::conformance {

using testing_util::Pattern;

constexpr uint64_t KiB = 1024;
constexpr uint64_t kBlock = 4096;
inline const IoContext kCtx;

// A ZNS SSD with zones smaller than their size (ZCAP < ZSZE).
inline DeviceInfo ZnsInfo() {
  DeviceInfo i;
  i.name = "conformance-zns";
  i.model = "test ZNS SSD";
  i.protocol = Protocol::kZns;
  i.block_size = kBlock;
  i.zone_size = 64 * KiB;
  i.zone_capacity = 48 * KiB;
  i.num_zones = 16;
  i.max_open_zones = 3;
  i.max_active_zones = 4;
  i.max_append_bytes = 16 * KiB;
  i.native_cell_mode = i.default_cell_mode = CellMode::kTlc;
  i.reads_beyond_wp_allowed = true;
  i.cross_zone_reads_allowed = false;
  return i;
}

// A host-managed SMR disk: conventional zones first, URSWRZ = 0.
inline DeviceInfo ZbcInfo() {
  DeviceInfo i;
  i.name = "conformance-zbc";
  i.model = "test HM-SMR disk";
  i.protocol = Protocol::kZbc;
  i.block_size = kBlock;
  i.zone_size = 64 * KiB;
  i.zone_capacity = 64 * KiB;
  i.num_zones = 16;
  i.num_conventional_zones = 2;
  i.max_open_zones = 3;
  i.max_active_zones = 4;
  i.max_append_bytes = 16 * KiB;
  i.reads_beyond_wp_allowed = false;
  i.cross_zone_reads_allowed = true;
  return i;
}

// An HZNS SSD like the znh2 preset: native QLC, SLC by default, Simple Copy.
inline DeviceInfo HznsInfo() {
  DeviceInfo i = ZnsInfo();
  i.name = "conformance-hzns";
  i.model = "test HZNS SSD";
  i.zone_capacity = 64 * KiB;  // QLC; an SLC zone holds 16 KiB
  i.native_cell_mode = CellMode::kQlc;
  i.default_cell_mode = CellMode::kSlc;
  i.supports_slc = true;
  i.max_open_qlc_zones = 1;
  i.max_active_qlc_zones = 1;
  i.supports_simple_copy = true;
  return i;
}

// A ZNS SSD whose zones split into 4 subzones (SplitZNS section 4.2): 16
// KiB subzones holding 12 KiB each (the zone's ZCAP < ZSZE, split evenly).
inline DeviceInfo SplitZnsInfo() {
  DeviceInfo i = ZnsInfo();
  i.name = "conformance-splitzns";
  i.model = "test ZNS SSD with subzones";
  i.supports_subzones = true;
  i.subzones_per_zone = 4;
  return i;
}

// A host-aware SMR disk (ZoneTier Table 1's kind, docs/emulator.md
// "Host-aware SMR"): conventional zones first, then sequential-write-
// preferred zones, and a media cache of 16 blocks that cleaning starts on
// above 12 (HostAwareMediaCache).
inline DeviceInfo HostAwareInfo() {
  DeviceInfo i = ZbcInfo();
  i.name = "conformance-hasmr";
  i.model = "test HA-SMR disk";
  i.sequential_zone_type = ZoneType::kSequentialWritePreferred;
  i.max_open_zones = 0;
  i.max_active_zones = 0;
  i.reads_beyond_wp_allowed = true;
  return i;
}
inline MediaCacheOptions HostAwareMediaCache() {
  return {.bytes = 16 * kBlock, .high_water_percent = 75, .low_water_percent = 0};
}

// Skips a case whose premise the device under test does not share. The
// emulator, configured as the fixture's model, always shares it.
#define REQUIRE_DEVICE(premise) \
  if (!(premise)) GTEST_SKIP() << "the device under test lacks the premise " #premise

// Builds the device under test and wraps the zone arithmetic the tests
// share. Everything goes through ZonedDevice except fault injection.
class DeviceHarness {
 protected:
  // A new device like `model`: the emulator, or the real device.
  void Open(const DeviceInfo& model, const MediaCacheOptions& media_cache = {}) {
    if (const std::string real = RealDevicePath(); !real.empty()) {
      OpenReal(real, model);
      return;
    }
    EmulatorOptions opts;
    opts.info = model;  // timing stays null: instant
    opts.media_cache = media_cache;
    auto dev = EmulatedDevice::Create(std::move(opts));
    ASSERT_TRUE(dev.ok()) << dev.status();
    faults_ = EmulatorFaults(dev->get());
    device_ = std::move(*dev);
  }

  ZonedDevice& dev() { return *device_; }
  // Media failures only a device can declare.
  FaultInjector& emulator() { return *faults_; }
  bool CanInjectFaults() const { return faults_->available(); }

  // The i-th zone with a write pointer.
  uint32_t Seq(uint32_t i) { return dev().info().num_conventional_zones + i; }
  uint64_t Start(uint32_t zone) { return dev().ZoneStart(zone); }

  ZoneInfo Report(uint32_t zone) {
    auto z = dev().ReportZone(zone);
    EXPECT_TRUE(z.ok()) << z.status();
    return z.ok() ? *z : ZoneInfo{};
  }
  ZoneState State(uint32_t zone) { return Report(zone).state; }
  // Bytes written, as the write pointer says.
  uint64_t Written(uint32_t zone) { return Report(zone).write_pointer - Start(zone); }
  uint64_t Capacity(uint32_t zone) { return Report(zone).capacity; }

  absl::Status WriteAt(uint64_t offset, uint64_t len, uint8_t seed = 1) {
    const std::vector<uint8_t> data = Pattern(len, seed);
    return dev().Write(offset, data, kCtx);
  }
  absl::Status TryRead(uint64_t offset, uint64_t len) {
    std::vector<uint8_t> buf(len);
    return dev().Read(offset, buf, kCtx);
  }
  std::vector<uint8_t> ReadBytes(uint64_t offset, uint64_t len) {
    std::vector<uint8_t> buf(len);
    const absl::Status s = dev().Read(offset, buf, kCtx);
    EXPECT_TRUE(s.ok()) << s;
    return buf;
  }

  int CountZones(bool (ZoneInfo::*pred)() const) {
    auto zones = dev().ReportZones(0, dev().info().num_zones);
    EXPECT_TRUE(zones.ok()) << zones.status();
    int n = 0;
    if (zones.ok()) {
      for (const ZoneInfo& z : *zones) n += (z.*pred)() ? 1 : 0;
    }
    return n;
  }
  int OpenCount() { return CountZones(&ZoneInfo::IsOpen); }
  int ActiveCount() { return CountZones(&ZoneInfo::IsActive); }

  // Takes every active resource with a closed zone: a block written to each
  // of the first max_active_zones sequential zones, which are then closed.
  // Call through ASSERT_NO_FATAL_FAILURE.
  void CloseZonesUpToActiveLimit() {
    for (uint32_t i = 0; i < dev().info().max_active_zones; ++i) {
      ASSERT_OK(WriteAt(Start(Seq(i)), kBlock));
      ASSERT_OK(dev().CloseZone(Seq(i), kCtx));
    }
  }

 private:
  void OpenReal(const std::string& path, const DeviceInfo& model) {
    if (model.supports_slc || model.supports_simple_copy || model.supports_subzones) {
      GTEST_SKIP() << "model " << model.name << " has cell modes, Simple Copy or subzones; "
                   << "Linux zoned block devices have none of them";
    }
    if (model.host_aware()) {
      GTEST_SKIP() << "model " << model.name << " is host-aware SMR; the test harness's "
                   << "devices (QEMU ZNS, null_blk) have no host-aware zones";
    }
    auto dev = OpenFreshRealDevice(path);
    ASSERT_TRUE(dev.ok()) << dev.status();
    const DeviceInfo& got = (*dev)->info();
    if (got.protocol != model.protocol) {
      GTEST_SKIP() << path << " follows " << (got.protocol == Protocol::kZns ? "ZNS" : "ZBC")
                   << "; model " << model.name << " does not";
    }
    // The cases count on the model's limits and layout.
    const std::string hint = " (configure " + path + " like model " + model.name + ")";
    ASSERT_EQ(got.block_size, model.block_size) << "block size" << hint;
    ASSERT_EQ(got.max_open_zones, model.max_open_zones) << "max open zones" << hint;
    ASSERT_EQ(got.max_active_zones, model.max_active_zones) << "max active zones" << hint;
    ASSERT_EQ(got.num_conventional_zones, model.num_conventional_zones)
        << "conventional zones" << hint;
    ASSERT_GE(got.num_zones, model.num_conventional_zones + 8) << "zones" << hint;
    ASSERT_GT(got.max_append_bytes, 0u) << "zone append limit" << hint;
    faults_ = RealDeviceFaults(**dev);
    device_ = std::move(*dev);
  }

  std::unique_ptr<ZonedDevice> device_;
  std::unique_ptr<FaultInjector> faults_;
};

// Behaviors ZNS and ZBC share, run on both.
class ZoneConformanceTest : public testing::TestWithParam<Protocol>,
                            protected DeviceHarness {
 protected:
  void SetUp() override {
    Open(GetParam() == Protocol::kZns ? ZnsInfo() : ZbcInfo());
  }
};

class ZnsZoneTest : public testing::Test, protected DeviceHarness {
 protected:
  void SetUp() override { Open(ZnsInfo()); }
};

class ZbcZoneTest : public testing::Test, protected DeviceHarness {
 protected:
  void SetUp() override { Open(ZbcInfo()); }
};

class HznsZoneTest : public testing::Test, protected DeviceHarness {
 protected:
  void SetUp() override { Open(HznsInfo()); }
};

// Split zones; every case needs a device with subzones, which no Linux
// zoned block device has, so a real device skips them all.
class SplitZoneTest : public testing::Test, protected DeviceHarness {
 protected:
  void SetUp() override {
    Open(SplitZnsInfo());
    if (IsSkipped() || HasFatalFailure()) return;
    REQUIRE_DEVICE(dev().info().supports_subzones);
  }
  uint64_t SubSize() { return dev().info().subzone_size(); }
  uint64_t SubCap() { return dev().info().subzone_capacity(); }
  uint64_t SubStart(uint32_t zone, uint32_t sub) { return Start(zone) + sub * SubSize(); }
  SubzoneInfo Sub(uint32_t zone, uint32_t sub) {
    auto subs = dev().ReportSubzones(zone);
    EXPECT_TRUE(subs.ok()) << subs.status();
    return subs.ok() && sub < subs->size() ? (*subs)[sub] : SubzoneInfo{};
  }
};

// Host-aware SMR zones and the media cache; a device without host-aware
// zones (every real device the harness sets up) skips them all.
class HostAwareZoneTest : public testing::Test, protected DeviceHarness {
 protected:
  void SetUp() override {
    Open(HostAwareInfo(), HostAwareMediaCache());
    if (IsSkipped() || HasFatalFailure()) return;
    REQUIRE_DEVICE(dev().info().host_aware());
  }
  bool NonSequential(uint32_t zone) { return Report(zone).non_sequential; }
  uint64_t Nsws() { return dev().Stats().nsw_writes; }
  uint64_t CachedBytes() { return dev().Stats().media_cache_bytes; }
};

}  // namespace zonestack::device::conformance
