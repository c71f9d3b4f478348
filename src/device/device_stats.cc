#include "device/device_stats.h"

namespace zonestack::device {

IoCounters DeviceStats::Total() const {
  IoCounters t;
  for (const IoCounters& c : by_class) {
    t.read_ops += c.read_ops;
    t.read_bytes += c.read_bytes;
    t.write_ops += c.write_ops;
    t.write_bytes += c.write_bytes;
  }
  return t;
}

double DeviceStats::BusyFraction(const std::string& prefix) const {
  if (elapsed_ns == 0) return 0;
  uint64_t sum = 0;
  int n = 0;
  for (const auto& [name, ns] : busy_ns) {
    if (name.starts_with(prefix)) {
      sum += ns;
      ++n;
    }
  }
  if (n == 0) return 0;
  return static_cast<double>(sum) / n / static_cast<double>(elapsed_ns);
}

}  // namespace zonestack::device
