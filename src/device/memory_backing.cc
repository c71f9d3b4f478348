#include <cstring>

#include "device/backing.h"

namespace zonestack::device {
namespace {

class MemoryBacking : public Backing {
 public:
  explicit MemoryBacking(const DeviceInfo& info)
      : zone_size_(info.zone_size), zones_(info.num_zones) {}

  absl::Status Read(uint64_t offset, std::span<uint8_t> dst) override {
    while (!dst.empty()) {
      const std::vector<uint8_t>& z = zones_[offset / zone_size_];
      const uint64_t in_zone = offset % zone_size_;
      const uint64_t n = std::min<uint64_t>(dst.size(), zone_size_ - in_zone);
      const uint64_t have = in_zone < z.size() ? std::min<uint64_t>(n, z.size() - in_zone) : 0;
      if (have > 0) std::memcpy(dst.data(), z.data() + in_zone, have);
      std::memset(dst.data() + have, 0, n - have);
      dst = dst.subspan(n);
      offset += n;
    }
    return absl::OkStatus();
  }

  absl::Status Write(uint64_t offset, std::span<const uint8_t> src) override {
    while (!src.empty()) {
      std::vector<uint8_t>& z = zones_[offset / zone_size_];
      const uint64_t in_zone = offset % zone_size_;
      const uint64_t n = std::min<uint64_t>(src.size(), zone_size_ - in_zone);
      if (z.size() < in_zone + n) {
        // Grow geometrically so sequential writes copy each byte O(1) times.
        z.reserve(std::min<uint64_t>(zone_size_, std::max<uint64_t>(in_zone + n, z.size() * 2)));
        z.resize(in_zone + n);
      }
      std::memcpy(z.data() + in_zone, src.data(), n);
      src = src.subspan(n);
      offset += n;
    }
    return absl::OkStatus();
  }

  absl::Status Discard(uint64_t offset, uint64_t length) override {
    // A range reaching the end of what a zone holds is released; a range
    // inside it is zeroed.
    while (length > 0) {
      std::vector<uint8_t>& z = zones_[offset / zone_size_];
      const uint64_t in_zone = offset % zone_size_;
      const uint64_t n = std::min<uint64_t>(length, zone_size_ - in_zone);
      if (in_zone == 0 && n >= z.size()) {
        std::vector<uint8_t>().swap(z);
      } else if (in_zone + n >= z.size()) {
        if (in_zone < z.size()) z.resize(in_zone);
      } else {
        std::memset(z.data() + in_zone, 0, std::min<uint64_t>(n, z.size() - in_zone));
      }
      offset += n;
      length -= n;
    }
    return absl::OkStatus();
  }

 private:
  uint64_t zone_size_;
  std::vector<std::vector<uint8_t>> zones_;
};

}  // namespace

std::unique_ptr<Backing> NewMemoryBacking(const DeviceInfo& info) {
  return std::make_unique<MemoryBacking>(info);
}

}  // namespace zonestack::device
