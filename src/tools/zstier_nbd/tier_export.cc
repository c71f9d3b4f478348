#include "tools/zstier_nbd/tier_export.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "device/emulated_device.h"

namespace zonestack::tier {

absl::StatusOr<std::unique_ptr<TierExport>> TierExport::Open(const ExportConfig& config) {
  TierOptions base;
  base.period_requests = config.period_requests;
  auto options = TierScheme(config.scheme, base);
  if (!options.ok()) return options.status();
  std::string drive_uri = config.drive_uri;
  if (options->device_managed_drive && drive_uri.find("smr=") == std::string::npos) {
    drive_uri += drive_uri.find('?') == std::string::npos ? "?smr=dm" : "&smr=dm";
  }
  if (config.ssd_uri.find("file=") != std::string::npos &&
      drive_uri.find("file=") == std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("a file-backed SSD (", config.ssd_uri, ") needs a file-backed drive: ",
                     "after a restart its mapping would send reads to a blank drive (",
                     drive_uri, ")"));
  }
  // No shared clock: the tier's latency accounting serves zsreplay only.
  auto drive = device::OpenDevice(drive_uri);
  if (!drive.ok()) return drive.status();
  auto ssd = device::OpenDevice(config.ssd_uri);
  if (!ssd.ok()) return ssd.status();
  options->ssd_tier_bytes = config.ssd_tier_bytes;
  options->cache_bytes = config.cache_bytes;
  tier::SetDefaultSizes((*drive)->info(), &*options);
  auto e = std::unique_ptr<TierExport>(
      new TierExport(std::move(*ssd), std::move(*drive), *options));
  // Opened once now so a bad configuration fails at start, not at the
  // first client (and a blank SSD is formatted).
  if (auto s = e->Connect(); !s.ok()) return s;
  if (auto s = e->Disconnect(); !s.ok()) return s;
  return e;
}

TierExport::TierExport(std::unique_ptr<device::ZonedDevice> ssd,
                       std::unique_ptr<device::ZonedDevice> drive, const TierOptions& options)
    : ssd_(std::move(ssd)),
      drive_(std::move(drive)),
      options_(options),
      capacity_(drive_->info().capacity_bytes()),
      block_(drive_->info().block_size) {}

TierExport::~TierExport() {
  // Destroying the devices afterwards is their clean shutdown.
  if (tier_) (void)Disconnect();
}

absl::Status TierExport::Connect() {
  if (tier_) return absl::FailedPreconditionError("the tier export serves one client at a time");
  auto tier = BlockTier::Open(ssd_.get(), drive_.get(), options_, nullptr);
  if (!tier.ok()) return tier.status();
  if ((*tier)->capacity() != capacity_ || (*tier)->block_size() != block_) {
    return absl::InternalError(absl::StrCat("the tier's capacity ", (*tier)->capacity(),
                                            " is not the drive's ", capacity_));
  }
  tier_ = std::move(*tier);
  return absl::OkStatus();
}

absl::Status TierExport::Disconnect() {
  if (!tier_) return absl::OkStatus();
  absl::Status s = tier_->Flush();
  tier_.reset();
  return s;
}

absl::Status TierExport::PowerCut() {
  if (tier_) return absl::FailedPreconditionError("power cut while a client is connected");
  auto* ssd = dynamic_cast<device::EmulatedDevice*>(ssd_.get());
  auto* drive = dynamic_cast<device::EmulatedDevice*>(drive_.get());
  if (ssd == nullptr || drive == nullptr) {
    return absl::FailedPreconditionError("a power cut needs emulated devices (no fault=)");
  }
  ssd->PowerCut();
  drive->PowerCut();
  return absl::OkStatus();
}

absl::Status TierExport::CheckRange(const char* what, uint64_t offset, uint64_t size) const {
  if (!tier_) return absl::FailedPreconditionError(absl::StrCat(what, ": no client connected"));
  if (offset > capacity_ || size > capacity_ - offset) {
    return absl::OutOfRangeError(absl::StrCat(what, " of ", size, " bytes at ", offset,
                                              " is past the export's ", capacity_, " bytes"));
  }
  return absl::OkStatus();
}

absl::Status TierExport::Read(uint64_t offset, std::span<uint8_t> dst) {
  if (auto s = CheckRange("read", offset, dst.size()); !s.ok()) return s;
  if (dst.empty()) return absl::OkStatus();
  if (offset % block_ == 0 && dst.size() % block_ == 0) return tier_->Read(offset, dst);
  const uint64_t start = offset / block_ * block_;
  const uint64_t end = (offset + dst.size() + block_ - 1) / block_ * block_;
  std::vector<uint8_t> buf(end - start);
  if (auto s = tier_->Read(start, buf); !s.ok()) return s;
  std::memcpy(dst.data(), buf.data() + (offset - start), dst.size());
  return absl::OkStatus();
}

absl::Status TierExport::Write(uint64_t offset, std::span<const uint8_t> src, bool fua) {
  if (auto s = CheckRange("write", offset, src.size()); !s.ok()) return s;
  absl::Status s;
  if (src.empty()) {
  } else if (offset % block_ == 0 && src.size() % block_ == 0) {
    s = tier_->Write(offset, src);
  } else {
    // The blocks the write touches, whole: the partial first and last ones
    // read first so the bytes around the write keep their contents.
    const uint64_t start = offset / block_ * block_;
    const uint64_t end = (offset + src.size() + block_ - 1) / block_ * block_;
    std::vector<uint8_t> buf(end - start);
    const std::span<uint8_t> all(buf);
    if (offset != start) s = tier_->Read(start, all.first(block_));
    if (s.ok() && offset + src.size() != end && (end - start > block_ || offset == start)) {
      s = tier_->Read(end - block_, all.last(block_));
    }
    if (s.ok()) {
      std::memcpy(buf.data() + (offset - start), src.data(), src.size());
      s = tier_->Write(start, buf);
    }
  }
  if (s.ok() && fua) s = tier_->Flush();
  return s;
}

absl::Status TierExport::Flush() {
  if (!tier_) return absl::FailedPreconditionError("flush: no client connected");
  return tier_->Flush();
}

}  // namespace zonestack::tier
