#include <sys/mman.h>

#include <cstring>

#include "device/backing.h"

namespace zonestack::device {
namespace {

// Each zone that holds data owns one zone-sized mapping, taken at its first
// write and handed back to a free pool when the zone is emptied. Mappings
// are never resized (a growing vector would copy and fault the data in
// again at every doubling) and are reused, so a reset-and-rewrite workload
// pays the kernel's page faults only once.
class MemoryBacking : public Backing {
 public:
  explicit MemoryBacking(const DeviceInfo& info)
      : zone_size_(info.zone_size), zones_(info.num_zones) {}

  ~MemoryBacking() override {
    for (Zone& z : zones_) {
      if (z.data) munmap(z.data, zone_size_);
    }
    for (uint8_t* p : pool_) munmap(p, zone_size_);
  }

  absl::Status Read(uint64_t offset, std::span<uint8_t> dst) override {
    while (!dst.empty()) {
      const Zone& z = zones_[offset / zone_size_];
      const uint64_t in_zone = offset % zone_size_;
      const uint64_t n = std::min<uint64_t>(dst.size(), zone_size_ - in_zone);
      const uint64_t have =
          in_zone < z.filled ? std::min<uint64_t>(n, z.filled - in_zone) : 0;
      if (have > 0) std::memcpy(dst.data(), z.data + in_zone, have);
      std::memset(dst.data() + have, 0, n - have);
      dst = dst.subspan(n);
      offset += n;
    }
    return absl::OkStatus();
  }

  absl::Status Write(uint64_t offset, std::span<const uint8_t> src) override {
    while (!src.empty()) {
      Zone& z = zones_[offset / zone_size_];
      const uint64_t in_zone = offset % zone_size_;
      const uint64_t n = std::min<uint64_t>(src.size(), zone_size_ - in_zone);
      if (!z.data) {
        z.data = Take();
        if (!z.data) return absl::ResourceExhaustedError("emulator out of memory");
      }
      // A recycled mapping holds stale bytes: what was never written reads
      // as zeroes.
      if (in_zone > z.filled) std::memset(z.data + z.filled, 0, in_zone - z.filled);
      std::memcpy(z.data + in_zone, src.data(), n);
      z.filled = std::max(z.filled, in_zone + n);
      src = src.subspan(n);
      offset += n;
    }
    return absl::OkStatus();
  }

  absl::Status Discard(uint64_t offset, uint64_t length) override {
    while (length > 0) {
      Zone& z = zones_[offset / zone_size_];
      const uint64_t in_zone = offset % zone_size_;
      const uint64_t n = std::min<uint64_t>(length, zone_size_ - in_zone);
      if (in_zone == 0 && n >= z.filled) {
        if (z.data) pool_.push_back(z.data);
        z = Zone{};
      } else if (in_zone + n >= z.filled) {
        z.filled = std::min(z.filled, in_zone);
      } else if (in_zone < z.filled) {
        std::memset(z.data + in_zone, 0, n);
      }
      offset += n;
      length -= n;
    }
    return absl::OkStatus();
  }

 private:
  struct Zone {
    uint8_t* data = nullptr;
    uint64_t filled = 0;  // bytes [0, filled) are valid
  };

  uint8_t* Take() {
    if (!pool_.empty()) {
      uint8_t* p = pool_.back();
      pool_.pop_back();
      return p;
    }
    void* p = mmap(nullptr, zone_size_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    madvise(p, zone_size_, MADV_HUGEPAGE);  // fewer faults where THP allows
    return static_cast<uint8_t*>(p);
  }

  uint64_t zone_size_;
  std::vector<Zone> zones_;
  std::vector<uint8_t*> pool_;
};

}  // namespace

std::unique_ptr<Backing> NewMemoryBacking(const DeviceInfo& info) {
  return std::make_unique<MemoryBacking>(info);
}

}  // namespace zonestack::device
