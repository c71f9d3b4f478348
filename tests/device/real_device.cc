#include "real_device.h"

#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

namespace zonestack::device::conformance {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

std::string NullBlkConfigfs() { return Env("ZONESTACK_ZBD_NULLB_CONFIGFS"); }

absl::Status WriteAttribute(const std::string& dir, const std::string& attr,
                            const std::string& value) {
  const std::string path = absl::StrCat(dir, "/", attr);
  std::ofstream out(path);
  out << value;
  out.close();  // configfs reports a refused value when the write reaches it
  if (out.fail()) {
    return absl::InternalError(absl::StrCat("writing '", value, "' to ", path, " failed"));
  }
  return absl::OkStatus();
}

class EmulatorFaultInjector : public FaultInjector {
 public:
  explicit EmulatorFaultInjector(EmulatedDevice* dev) : dev_(dev) {}
  bool available() const override { return true; }
  void SetZoneReadOnly(uint32_t zone) override { dev_->SetZoneReadOnly(zone); }
  void SetZoneOffline(uint32_t zone) override { dev_->SetZoneOffline(zone); }

 private:
  EmulatedDevice* dev_;
};

// null_blk (Linux >= 5.19) turns the zone holding a sector written to
// zone_readonly or zone_offline into that condition.
class NullBlkFaultInjector : public FaultInjector {
 public:
  NullBlkFaultInjector(std::string dir, uint64_t zone_size)
      : dir_(std::move(dir)), zone_size_(zone_size) {}
  bool available() const override { return true; }
  void SetZoneReadOnly(uint32_t zone) override { Set("zone_readonly", zone); }
  void SetZoneOffline(uint32_t zone) override { Set("zone_offline", zone); }

 private:
  void Set(const char* attr, uint32_t zone) {
    const absl::Status s = WriteAttribute(dir_, attr, std::to_string(zone * zone_size_ / 512));
    EXPECT_TRUE(s.ok()) << s;
  }
  std::string dir_;
  uint64_t zone_size_;
};

class NoFaultInjector : public FaultInjector {
 public:
  bool available() const override { return false; }
  void SetZoneReadOnly(uint32_t) override { Missing(); }
  void SetZoneOffline(uint32_t) override { Missing(); }

 private:
  static void Missing() {
    ADD_FAILURE() << "the device under test cannot inject faults; a case injecting them "
                     "must start with REQUIRE_DEVICE(CanInjectFaults())";
  }
};

bool IsBlockDevice(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISBLK(st.st_mode);
}

// Powers the null_blk device off and on: its zones start over empty.
absl::Status PowerCycle(const std::string& dir, const std::string& path) {
  if (auto s = WriteAttribute(dir, "power", "0"); !s.ok()) return s;
  if (auto s = WriteAttribute(dir, "power", "1"); !s.ok()) return s;
  for (int i = 0; i < 500 && !IsBlockDevice(path); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!IsBlockDevice(path)) {
    return absl::NotFoundError(
        absl::StrCat(path, " did not come back after power-cycling ", dir));
  }
  return absl::OkStatus();
}

}  // namespace

std::unique_ptr<FaultInjector> EmulatorFaults(EmulatedDevice* dev) {
  return std::make_unique<EmulatorFaultInjector>(dev);
}

std::string RealDevicePath() { return Env("ZONESTACK_ZBD_DEVICE"); }

// Resets every zone that takes a reset, ignoring those that do not
// (read-only, offline).
void ResetWhatResets(const std::string& path) {
  auto dev = OpenDevice("zbd:" + path);
  if (!dev.ok()) return;
  for (uint32_t z = (*dev)->info().num_conventional_zones; z < (*dev)->info().num_zones; ++z) {
    (void)(*dev)->ResetZone(z, IoContext{});
  }
}

absl::StatusOr<std::unique_ptr<ZonedDevice>> OpenFreshRealDevice(const std::string& path) {
  if (const std::string dir = NullBlkConfigfs(); !dir.empty()) {
    // Linux 6.1's null_blk keeps its open/active zone counts across a
    // power cycle while its zones start over empty, so zones left open
    // would use up the limits: reset them first.
    ResetWhatResets(path);
    if (auto s = PowerCycle(dir, path); !s.ok()) return s;
  }
  auto dev = OpenDevice("zbd:" + path);
  if (!dev.ok()) return dev.status();
  ZonedDevice& d = **dev;
  auto zones = d.ReportZones(0, d.info().num_zones);
  if (!zones.ok()) return zones.status();
  const IoContext ctx;
  std::vector<uint8_t> zeroes;
  for (const ZoneInfo& z : *zones) {
    if (z.type == ZoneType::kConventional) {
      zeroes.assign(z.size, 0);
      if (auto s = d.Write(z.start, zeroes, ctx); !s.ok()) return s;
    } else if (z.state != ZoneState::kEmpty) {
      if (auto s = d.ResetZone(z.index, ctx); !s.ok()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "cannot bring ", path, " back to new: ", s.message(),
            " (for null_blk, set ZONESTACK_ZBD_NULLB_CONFIGFS to power-cycle it)"));
      }
    }
  }
  return dev;
}

std::unique_ptr<FaultInjector> RealDeviceFaults(const ZonedDevice& dev) {
  if (const std::string dir = NullBlkConfigfs(); !dir.empty()) {
    return std::make_unique<NullBlkFaultInjector>(dir, dev.info().zone_size);
  }
  return std::make_unique<NoFaultInjector>();
}

}  // namespace zonestack::device::conformance
