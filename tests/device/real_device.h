// The real zoned block device the conformance suite runs against instead of
// the emulator when ZONESTACK_ZBD_DEVICE names one (scripts/vm_test.sh sets
// it inside a VM), and the media faults the suite injects into a device.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "device/emulated_device.h"
#include "device/zoned_device.h"

namespace zonestack::device::conformance {

// Media failures only a device can declare: the emulator's fault switches,
// null_blk's configfs zone_readonly/zone_offline, or none at all.
class FaultInjector {
 public:
  virtual ~FaultInjector() = default;
  virtual bool available() const = 0;
  // Failures (e.g. a configfs write refused) are reported as test failures.
  virtual void SetZoneReadOnly(uint32_t zone) = 0;
  virtual void SetZoneOffline(uint32_t zone) = 0;
};

// Faults injected into `dev`, which must outlive the injector.
std::unique_ptr<FaultInjector> EmulatorFaults(EmulatedDevice* dev);

// The value of ZONESTACK_ZBD_DEVICE (e.g. /dev/nullb0), empty if unset.
std::string RealDevicePath();

// Opens the device at `path` in the state of a new device: when
// ZONESTACK_ZBD_NULLB_CONFIGFS names the null_blk's configfs directory the
// device is power-cycled first, which empties every zone, clears injected
// faults and restarts null_blk's choice of zones to auto-close; then every
// sequential zone is reset and every conventional zone zeroed.
absl::StatusOr<std::unique_ptr<ZonedDevice>> OpenFreshRealDevice(const std::string& path);

// The faults the real device `dev` takes: null_blk's through configfs when
// ZONESTACK_ZBD_NULLB_CONFIGFS is set, none otherwise (QEMU's ZNS
// namespaces cannot be told to fail).
std::unique_ptr<FaultInjector> RealDeviceFaults(const ZonedDevice& dev);

}  // namespace zonestack::device::conformance
