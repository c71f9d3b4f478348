#include "policy/scheme_common.h"

#include <tuple>

namespace zonestack::policy {

uint32_t SstGroup(uint64_t number) {
  return kSstGroupBase + static_cast<uint32_t>(number & 0x0fffffff);
}

std::optional<uint32_t> FirstSsd(const std::vector<DeviceView>& devices) {
  for (uint32_t i = 0; i < devices.size(); ++i) {
    if (devices[i].is_ssd) return i;
  }
  return std::nullopt;
}

std::optional<uint32_t> FirstHdd(const std::vector<DeviceView>& devices) {
  for (uint32_t i = 0; i < devices.size(); ++i) {
    if (!devices[i].is_ssd) return i;
  }
  return std::nullopt;
}

std::vector<uint32_t> DeviceOrder(const std::vector<DeviceView>& devices, bool ssd_first) {
  std::vector<uint32_t> order;
  auto ssd = FirstSsd(devices);
  auto hdd = FirstHdd(devices);
  auto first = ssd_first ? ssd : hdd;
  auto second = ssd_first ? hdd : ssd;
  if (first) order.push_back(*first);
  if (second) order.push_back(*second);
  return order;
}

bool HigherPriority(const SstInfo& a, const SstInfo& b, uint64_t now_us, SstPriority order) {
  const double ra = a.ReadRate(now_us), rb = b.ReadRate(now_us);
  if (order == SstPriority::kReadRateFirst && ra != rb) return ra > rb;
  if (a.level != b.level) return a.level < b.level;
  if (ra != rb) return ra > rb;
  return std::tuple(!a.trivially_moved, a.number) > std::tuple(!b.trivially_moved, b.number);
}

bool Migratable(const SstInfo& sst) {
  return sst.placed && !sst.path.empty() && sst.level >= 0 && !sst.being_compacted &&
         !sst.being_written;
}

void HintedScheme::OnPlaced(const FileHint& file, uint32_t /*device*/, bool device_is_ssd,
                            uint64_t size) {
  const int64_t number = SstNumber(file.name);
  if (number < 0) return;
  if (SsdCacheIndex* c = cache(); c != nullptr && device_is_ssd) {
    // Only a move from the HDD can leave cached blocks behind; new SSTs
    // on the SSD were never cached.
    auto before = view_.Sst(static_cast<uint64_t>(number));
    if (before && before->placed && !before->on_ssd) c->DropSst(static_cast<uint64_t>(number));
  }
  view_.SetLocation(static_cast<uint64_t>(number), file.name, device_is_ssd, size);
  view_.NoteLevel(static_cast<uint64_t>(number), file.level);
}

void HintedScheme::OnRemoved(const FileHint& file) {
  const int64_t number = SstNumber(file.name);
  if (number < 0) return;
  view_.Forget(static_cast<uint64_t>(number));
  if (SsdCacheIndex* c = cache()) c->DropSst(static_cast<uint64_t>(number));
}

int HintedScheme::SstLevel(const FileHint& file) const {
  if (file.level >= 0) return file.level;
  const int64_t number = SstNumber(file.name);
  if (number >= 0) {
    if (auto level = view_.PendingLevel(static_cast<uint64_t>(number))) return *level;
  }
  return 0;
}

PlacementDecision HintedScheme::Decide(const FileHint& file,
                                       const std::vector<DeviceView>& devices, bool sst_ssd_first,
                                       bool wal_pool) const {
  PlacementDecision d;
  const int64_t number = SstNumber(file.name);
  if (file.kind == FileKind::kWal) {
    d.devices = DeviceOrder(devices, /*ssd_first=*/true);
    d.group = kWalGroup;
    d.pool = wal_pool;
  } else if (file.kind == FileKind::kSst || number >= 0) {
    d.devices = DeviceOrder(devices, sst_ssd_first);
    d.group = SstGroup(number >= 0 ? static_cast<uint64_t>(number) : 0);
  } else {
    d.devices = DeviceOrder(devices, /*ssd_first=*/false);
    d.group = kMetadataGroup;
  }
  return d;
}

bool HintedScheme::DecisionDue() {
  const uint64_t now = view_.NowMicros();
  absl::MutexLock lock(&decision_mu_);
  if (last_decision_us_ && now - *last_decision_us_ < options_.decision_interval_us) return false;
  last_decision_us_ = now;
  return true;
}

}  // namespace zonestack::policy

