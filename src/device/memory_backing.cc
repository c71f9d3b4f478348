#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "device/backing.h"
#include "device/fill_ahead.h"

namespace zonestack::device {
namespace {

// Each zone that holds data owns one zone-sized mapping, taken at its first
// write and handed back to a free pool when the zone is emptied. Mappings
// are never resized (a growing vector would copy and fault the data in
// again at every doubling) and are reused, so a reset-and-rewrite workload
// pays the kernel's page faults only once. With fill-ahead, those faults
// are taken by a thread of their own ahead of each zone's write position,
// and a few fresh mappings (spares) wait with their first bytes resident
// for the next zones written for the first time. A reserved backing
// (Reserve) maps and populates every zone before the device opens, and
// an emptied zone keeps its mapping, so no write ever faults.
class MemoryBacking : public Backing {
 public:
  MemoryBacking(const DeviceInfo& info, const MemoryBackingOptions& options)
      : zone_size_(info.zone_size),
        zone_capacity_(info.zone_capacity),
        spare_zones_(options.spare_zones),
        populate_step_(options.fill_ahead == 0 ? options.populate_step : 0),
        zones_(info.num_zones) {
    if (options.fill_ahead == 0) return;
    fill_ = std::make_unique<FillAhead>(options.fill_ahead);
    while (spares_.size() < std::min<uint64_t>(spare_zones_, info.num_zones)) {
      if (!AddSpare()) break;
    }
  }

  // Maps every zone and makes its capacity resident. On a kernel without
  // MADV_POPULATE_WRITE (older than 5.14) the pages are touched one by one.
  absl::Status Reserve() {
    reserved_ = true;
    static const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    for (Zone& z : zones_) {
      z.data = Map();
      if (!z.data) return absl::ResourceExhaustedError("memory=reserve: mmap failed");
      if (!FillAhead::PopulateWrite(z.data, zone_capacity_)) {
        for (uint64_t i = 0; i < zone_capacity_; i += page) z.data[i] = 0;
      }
    }
    return absl::OkStatus();
  }

  ~MemoryBacking() override {
    fill_.reset();  // its thread may be faulting pages of these mappings
    for (Zone& z : zones_) {
      if (z.data) munmap(z.data, zone_size_);
    }
    for (uint8_t* p : pool_) munmap(p, zone_size_);
    for (uint8_t* p : spares_) munmap(p, zone_size_);
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
        const bool recycled = !pool_.empty();
        z.data = Take();
        if (!z.data) return absl::ResourceExhaustedError("emulator out of memory");
        z.stale = recycled ? zone_size_ : 0;
      }
      if (in_zone + n > z.resident && populate_step_ > 0) Populate(z, in_zone + n);
      // A recycled mapping, or bytes discarded from this one, hold stale
      // bytes: what was never written reads as zeroes. Fresh memory is
      // zero already, so a write far into a fresh zone (a split zone's
      // last subzone) does not touch the memory before it.
      const uint64_t gap_end = std::min(in_zone, z.stale);
      if (gap_end > z.filled) std::memset(z.data + z.filled, 0, gap_end - z.filled);
      std::memcpy(z.data + in_zone, src.data(), n);
      z.filled = std::max(z.filled, in_zone + n);
      z.stale = std::max(z.stale, z.filled);
      if (fill_) fill_->Advance(z.data, zone_capacity_, z.filled);
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
      if (in_zone == 0 && n >= z.filled && reserved_) {
        // The mapping stays with its zone; what it held reads as zeroes
        // (`stale` already covers it, so later writes zero any gap).
        z.filled = 0;
      } else if (in_zone == 0 && n >= z.filled) {
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
    uint64_t stale = 0;   // bytes past `filled` and below this may be nonzero
    uint64_t resident = 0;  // bytes [0, resident) were populated (populate_step_)
  };

  // Makes z's bytes up to `end`, and a step beyond, resident. A kernel
  // that refuses (older than 5.14, or out of memory) leaves the pages to
  // fault one by one, as they would without this.
  void Populate(Zone& z, uint64_t end) {
    const uint64_t to = std::max(end, std::min(zone_capacity_, end + populate_step_));
    if (!FillAhead::PopulateWrite(z.data + z.resident, to - z.resident)) {
      populate_step_ = 0;
      return;
    }
    z.resident = to;
  }

  // A mapping for a zone's first write: a recycled one (already resident),
  // else a spare (its first bytes made resident), else a new one.
  uint8_t* Take() {
    if (!pool_.empty()) {
      uint8_t* p = pool_.back();
      pool_.pop_back();
      return p;
    }
    if (!spares_.empty()) {
      uint8_t* p = spares_.front();
      spares_.erase(spares_.begin());
      AddSpare();
      return p;
    }
    return Map();
  }

  bool AddSpare() {
    uint8_t* p = Map();
    if (!p) return false;
    spares_.push_back(p);
    fill_->Advance(p, zone_capacity_, 0);
    return true;
  }

  uint8_t* Map() {
    void* p = mmap(nullptr, zone_size_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    // No transparent huge pages: a write that first touches a 2 MiB
    // extent would zero (and, with defrag, compact for) all of it inside
    // the write, 1-2 ms at once, longer than a ZN540 takes for a 1 MiB
    // write. Small pages cost the same zeroing in total but predictably
    // (0.4 ms/MiB measured here), and fill-ahead takes it off the writes.
    madvise(p, zone_size_, MADV_NOHUGEPAGE);
    return static_cast<uint8_t*>(p);
  }

  const uint64_t zone_size_;
  const uint64_t zone_capacity_;
  const uint32_t spare_zones_;
  uint64_t populate_step_;  // 0 once the kernel refused
  bool reserved_ = false;   // every zone mapped and resident (Reserve)
  std::vector<Zone> zones_;
  std::vector<uint8_t*> pool_;    // emptied zones' mappings, resident
  std::vector<uint8_t*> spares_;  // fresh mappings, oldest first
  // Null without fill-ahead. The destructor stops it before unmapping.
  std::unique_ptr<FillAhead> fill_;
};

// The host's MemAvailable in bytes; nullopt where /proc/meminfo does not
// say (then the reservation is tried without the check).
std::optional<uint64_t> AvailableMemory() {
  std::ifstream meminfo("/proc/meminfo");
  constexpr std::string_view kKey = "MemAvailable:";
  for (std::string line; std::getline(meminfo, line);) {
    if (!line.starts_with(kKey)) continue;
    // "MemAvailable:   N kB"; SimpleAtoi takes the spaces around N.
    const absl::string_view n =
        absl::StripSuffix(absl::string_view(line).substr(kKey.size()), "kB");
    uint64_t kib = 0;
    if (absl::SimpleAtoi(n, &kib)) return kib * 1024;
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Backing>> NewReservedMemoryBacking(const DeviceInfo& info) {
  const uint64_t needed = info.num_zones * info.zone_capacity;
  if (auto available = AvailableMemory(); available.has_value() && needed > *available) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "device ", info.name, ": memory=reserve needs ", needed >> 20,
        " MiB (zones x zone capacity); the host has ", *available >> 20,
        " MiB available (leave memory=reserve out, or use fewer zones or a smaller scale)"));
  }
  auto backing = std::make_unique<MemoryBacking>(info, MemoryBackingOptions{});
  if (auto s = backing->Reserve(); !s.ok()) return s;
  return backing;
}

std::unique_ptr<Backing> NewMemoryBacking(const DeviceInfo& info,
                                          const MemoryBackingOptions& options) {
  return std::make_unique<MemoryBacking>(info, options);
}

}  // namespace zonestack::device
