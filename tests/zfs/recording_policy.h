// A placement policy for the zfs tests of what HHZS needs from zfs: it
// places by simple rules the test sets, sizes the WAL/cache pool, hands out
// queued migrations, and records everything zfs tells it.
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "zfs/placement.h"

namespace zonestack::zfs::testing_util {

class RecordingPolicy : public PlacementPolicy {
 public:
  struct Placed {
    std::string name;
    uint32_t device = 0;
    bool is_ssd = false;
    uint64_t size = 0;
  };

  std::string name() const override { return "recording"; }

  // WALs: `wal_devices`, group 0, from the pool. Other files: `devices`,
  // group 1.
  PlacementDecision Place(const FileHint& f,
                                  const std::vector<DeviceView>& views) override {
    absl::MutexLock l(&mu_);
    last_views_ = views;
    ++place_calls_[f.name];
    PlacementDecision d;
    if (f.kind == FileKind::kWal) {
      d.devices = wal_devices_;
      d.group = 0;
      d.pool = true;
    } else {
      d.devices = devices_;
      d.group = 1;
    }
    return d;
  }
  void OnPlaced(const FileHint& f, uint32_t device, bool is_ssd,
                uint64_t size) override {
    absl::MutexLock l(&mu_);
    placed_.push_back({f.name, device, is_ssd, size});
  }
  void OnRemoved(const FileHint& f) override {
    absl::MutexLock l(&mu_);
    removed_.push_back(f.name);
  }
  uint32_t PoolZones(uint32_t device, const std::vector<DeviceView>&) const override {
    absl::MutexLock l(&mu_);
    return device < pool_zones_.size() ? pool_zones_[device] : 0;
  }
  std::optional<Migration> NextMigration(
      const std::vector<DeviceView>& views) override {
    absl::MutexLock l(&mu_);
    ++next_migration_calls_;
    last_views_ = views;
    if (migrations_.empty()) return std::nullopt;
    Migration m = migrations_.front();
    migrations_.pop_front();
    return m;
  }
  double MigrationRate() const override {
    absl::MutexLock l(&mu_);
    return migration_rate_;
  }

  // Test controls.
  void SetDevices(std::vector<uint32_t> devices, std::vector<uint32_t> wal_devices) {
    absl::MutexLock l(&mu_);
    devices_ = std::move(devices);
    wal_devices_ = std::move(wal_devices);
  }
  void SetPoolZones(std::vector<uint32_t> per_device) {
    absl::MutexLock l(&mu_);
    pool_zones_ = std::move(per_device);
  }
  void SetMigrationRate(double bytes_per_sec) {
    absl::MutexLock l(&mu_);
    migration_rate_ = bytes_per_sec;
  }
  void QueueMigration(const std::string& path, uint32_t to_device) {
    absl::MutexLock l(&mu_);
    migrations_.push_back({path, to_device});
  }
  std::vector<Placed> placed() const {
    absl::MutexLock l(&mu_);
    return placed_;
  }
  std::vector<Placed> PlacedOf(const std::string& name) const {
    std::vector<Placed> out;
    for (const Placed& p : placed()) {
      if (p.name == name) out.push_back(p);
    }
    return out;
  }
  std::vector<std::string> removed() const {
    absl::MutexLock l(&mu_);
    return removed_;
  }
  void ClearEvents() {
    absl::MutexLock l(&mu_);
    placed_.clear();
    removed_.clear();
  }
  std::vector<DeviceView> last_views() const {
    absl::MutexLock l(&mu_);
    return last_views_;
  }
  // How often zfs asked where the file named `name` goes (once per attempt
  // to find it a zone).
  int place_calls(const std::string& name) const {
    absl::MutexLock l(&mu_);
    auto it = place_calls_.find(name);
    return it == place_calls_.end() ? 0 : it->second;
  }
  int next_migration_calls() const {
    absl::MutexLock l(&mu_);
    return next_migration_calls_;
  }
  size_t queued_migrations() const {
    absl::MutexLock l(&mu_);
    return migrations_.size();
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<uint32_t> devices_ ABSL_GUARDED_BY(mu_) = {0, 1};
  std::vector<uint32_t> wal_devices_ ABSL_GUARDED_BY(mu_) = {0, 1};
  std::vector<uint32_t> pool_zones_ ABSL_GUARDED_BY(mu_);
  double migration_rate_ ABSL_GUARDED_BY(mu_) = 0;
  std::deque<Migration> migrations_ ABSL_GUARDED_BY(mu_);
  std::vector<Placed> placed_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> removed_ ABSL_GUARDED_BY(mu_);
  std::vector<DeviceView> last_views_ ABSL_GUARDED_BY(mu_);
  int next_migration_calls_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, int> place_calls_ ABSL_GUARDED_BY(mu_);
};

}  // namespace zonestack::zfs::testing_util
