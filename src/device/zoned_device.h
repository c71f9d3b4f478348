// ZonedDevice: the one interface every layer above uses to reach storage,
// whether an emulated device or a real zoned block device.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "device/device_stats.h"
#include "device/zone.h"

namespace zonestack::device {

class Clock;

// One source range of a Simple Copy.
struct CopyRange {
  uint64_t offset = 0;
  uint64_t length = 0;
};

// A zoned block device. Positions and lengths are in bytes and must be
// multiples of info().block_size. Errors are typed: GetZoneError(status)
// names the ZNS/ZBC condition (zone_error.h).
//
// Thread-safety: every method may be called concurrently from any thread.
// Writes to one sequential zone must still be issued one at a time in
// write-pointer order, as on real devices; Append has no such restriction.
//
// Timing: an emulated device with a real-time timing model returns from a
// call only once its modeled completion time has passed, so callers feel
// the device's latency and contention.
class ZonedDevice {
 public:
  virtual ~ZonedDevice() = default;

  virtual const DeviceInfo& info() const = 0;

  // Zones [first, first + count) clipped to the device, as a zone report.
  virtual absl::StatusOr<std::vector<ZoneInfo>> ReportZones(
      uint32_t first, uint32_t count) const = 0;
  absl::StatusOr<ZoneInfo> ReportZone(uint32_t zone) const;

  // Reads dst.size() bytes at `offset`. Blocks beyond a zone's write pointer
  // read as zeroes where info().reads_beyond_wp_allowed, else fail.
  virtual absl::Status Read(uint64_t offset, std::span<uint8_t> dst,
                            const IoContext& ctx) = 0;

  // Writes `src` at `offset`, which for a sequential-write-required zone
  // must be the write pointer. Opens the zone implicitly if needed. The data
  // is volatile until Flush returns (see EmulatedDevice::PowerCut).
  virtual absl::Status Write(uint64_t offset, std::span<const uint8_t> src,
                             const IoContext& ctx) = 0;

  // Zone append: writes `src` at the write pointer of `zone` and returns
  // the offset where it landed. Limited to info().max_append_bytes.
  virtual absl::StatusOr<uint64_t> Append(uint32_t zone,
                                          std::span<const uint8_t> src,
                                          const IoContext& ctx) = 0;

  // Zone management. Open with a cell mode other than the default is how a
  // host opens an HZNS zone in QLC (ZnH2 section 3.2.2); it requires an
  // empty zone. kNone means the device's default mode.
  virtual absl::Status OpenZone(uint32_t zone, CellMode mode,
                                const IoContext& ctx) = 0;
  absl::Status OpenZone(uint32_t zone, const IoContext& ctx) {
    return OpenZone(zone, CellMode::kNone, ctx);
  }
  virtual absl::Status CloseZone(uint32_t zone, const IoContext& ctx) = 0;
  virtual absl::Status FinishZone(uint32_t zone, const IoContext& ctx) = 0;
  virtual absl::Status ResetZone(uint32_t zone, const IoContext& ctx) = 0;

  // Durability barrier: every write that returned before Flush was called
  // survives a power cut once Flush returns.
  virtual absl::Status Flush(const IoContext& ctx) = 0;

  // NVMe Simple Copy: the device copies `sources` (in order) to the write
  // pointer of `dst_zone` without moving data over the host link, and
  // returns the offset where the copy landed (ZnH2 section 3.1).
  virtual absl::StatusOr<uint64_t> SimpleCopy(std::span<const CopyRange> sources,
                                              uint32_t dst_zone,
                                              const IoContext& ctx);

  // SplitZNS (section 4.2, docs/emulator.md "Split zones"). Devices
  // without subzones (info().supports_subzones false) return kUnsupported
  // from all of these.
  //
  // SplitZone turns an empty wide zone into an open split zone of
  // info().subzones_per_zone empty subzones; it takes an active and an open
  // resource as an explicit open does. MergeZone (the paper's RESET of a
  // split zone) turns a split zone whose subzones are all empty back into
  // an empty wide zone; ResetZone of such a zone does the same. Any other
  // state is kInvalidTransition. FinishZone of a split zone needs every
  // subzone empty or full and releases its resources.
  virtual absl::Status SplitZone(uint32_t zone, const IoContext& ctx);
  virtual absl::Status MergeZone(uint32_t zone, const IoContext& ctx);
  // The subzones of split zone `zone`; kInvalidArgument for a wide zone.
  virtual absl::StatusOr<std::vector<SubzoneInfo>> ReportSubzones(uint32_t zone) const;
  // Zone append to one subzone; returns where the data landed. Read and
  // Write reach subzones by their byte addresses (SubzoneInfo::start).
  virtual absl::StatusOr<uint64_t> AppendSubzone(uint32_t zone, uint32_t subzone,
                                                 std::span<const uint8_t> src,
                                                 const IoContext& ctx);
  // The host finished writing the subzone: it becomes full.
  virtual absl::Status FinishSubzone(uint32_t zone, uint32_t subzone, const IoContext& ctx);
  // Erases one subzone on its chip and empties it (the paper's MERGE of a
  // subzone), in any state of an active or full split zone.
  virtual absl::Status ResetSubzone(uint32_t zone, uint32_t subzone, const IoContext& ctx);

  // A consistent snapshot of the device's counters.
  virtual DeviceStats Stats() const = 0;

  // Helpers for the common zone arithmetic.
  uint32_t ZoneOf(uint64_t offset) const {
    return static_cast<uint32_t>(offset / info().zone_size);
  }
  uint64_t ZoneStart(uint32_t zone) const {
    return static_cast<uint64_t>(zone) * info().zone_size;
  }
};

// Opens a device from a URI, e.g. "emu:zn540?zones=20&scale=1/64" or
// "emu:st14000nm0007?file=/tmp/hdd.img&timing=real". device_uri.cc lists
// the schemes, presets and parameters; a bad URI is an InvalidArgument
// naming what is valid.
absl::StatusOr<std::unique_ptr<ZonedDevice>> OpenDevice(const std::string& uri);
// As above, but a timed emulated device (timing=sim or real) keeps time by
// `clock`, so several devices share one time line (the block tier's SSD and
// drive on one simulated clock, src/tier). Other devices ignore it.
absl::StatusOr<std::unique_ptr<ZonedDevice>> OpenDevice(const std::string& uri,
                                                        std::shared_ptr<Clock> clock);

}  // namespace zonestack::device
