// The block tier as an NBD export (docs/zonetier.md, "Block device
// export"): the byte-addressed requests an NBD client sends, on a
// BlockTier that takes whole 4 KiB blocks. Unaligned requests become
// read-modify-writes of the blocks they touch, so a client that ignores
// the advertised block size still reads back exactly what it wrote.
//
// The devices live as long as the export; the tier is opened per client
// connection (Connect) and closed, flushed, when the client leaves
// (Disconnect), so every connection after the first starts from the
// mapping the tier recovers from the SSD.
//
// Not thread-safe: the nbdkit plugin serializes connections and requests
// (an unaligned write's read-modify-write must not interleave with another
// write to the same block).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "device/zoned_device.h"
#include "tier/block_tier.h"

namespace zonestack::tier {

struct ExportConfig {
  std::string scheme = "HA-256-CFC";
  // 250 MiB of drive (2000 zones of 128 KiB) and a 64 MiB SSD, instant:
  // zsreplay's sizes, small enough for ext4 in a VM under TCG.
  std::string drive_uri = "emu:st8000as0022?zones=2000&scale=1/2048&timing=none";
  std::string ssd_uri = "emu:zn540?zones=64&conv=64&scale=1/2048&timing=none";
  uint64_t ssd_tier_bytes = 0;  // 0: 10% of the drive, whole zones
  uint64_t cache_bytes = 0;     // 0: 1% of the drive, whole blocks
  uint64_t period_requests = 1000;
};

class TierExport {
 public:
  // Opens the devices. A DM scheme gets smr=dm on its drive URI, as in
  // zsreplay. A file-backed SSD is refused unless the drive is file-backed
  // too: the SSD's mapping would outlive the drive's data and send reads
  // to a blank drive after a restart.
  static absl::StatusOr<std::unique_ptr<TierExport>> Open(const ExportConfig& config);
  // Closes the tier if a client is still connected (flushing it).
  ~TierExport();

  // Opens the tier over the devices: formats a blank SSD, else recovers
  // its mapping. FailedPrecondition if a client is connected already.
  absl::Status Connect();
  // Flushes and closes the tier. The flush's error is returned; the tier is
  // closed either way (the next Connect recovers what was durable).
  absl::Status Disconnect();
  bool connected() const { return tier_ != nullptr; }
  // Cuts power to both devices (emulated only; FailedPrecondition
  // otherwise, or while a client is connected): everything not yet durable
  // is dropped, so the next Connect sees what a restart would. The devices
  // stay in memory; the emulator cannot keep the drive's media cache in a
  // file, so this stands in for a restart of the server.
  absl::Status PowerCut();

  uint64_t size() const { return capacity_; }
  uint32_t block_size() const { return block_; }

  // Any byte range inside size(); whole blocks go straight to the tier,
  // partial blocks at either end are read, patched and written whole.
  // REQUIRES: connected().
  absl::Status Read(uint64_t offset, std::span<uint8_t> dst);
  // `fua`: durable when this returns (the write, then a Flush).
  absl::Status Write(uint64_t offset, std::span<const uint8_t> src, bool fua);
  absl::Status Flush();

  BlockTier* tier() const { return tier_.get(); }

 private:
  TierExport(std::unique_ptr<device::ZonedDevice> ssd, std::unique_ptr<device::ZonedDevice> drive,
             const TierOptions& options);
  absl::Status CheckRange(const char* what, uint64_t offset, uint64_t size) const;

  const std::unique_ptr<device::ZonedDevice> ssd_;
  const std::unique_ptr<device::ZonedDevice> drive_;
  const TierOptions options_;
  const uint64_t capacity_;
  const uint32_t block_;
  std::unique_ptr<BlockTier> tier_;
};

}  // namespace zonestack::tier
