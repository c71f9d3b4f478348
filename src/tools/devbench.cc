#include "tools/devbench.h"

#include <time.h>

#include <chrono>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "device/emulated_device.h"
#include "device/presets.h"

namespace zonestack::tools {
namespace {

using device::IoClass;
using device::IoContext;
using device::ZonedDevice;
using device::ZoneType;

constexpr uint64_t kMiB = 1 << 20;
constexpr uint64_t kChunk = 64 * 1024;  // written per zone for random reads

// Time as the device sees it: the simulated clock of an emulator in sim
// mode, else the wall clock.
class Stopwatch {
 public:
  explicit Stopwatch(ZonedDevice& dev) {
    if (auto* emu = dynamic_cast<device::EmulatedDevice*>(&dev)) clock_ = emu->clock();
    start_ = Now();
  }
  double Seconds() const { return static_cast<double>(Now() - start_) / 1e9; }

 private:
  uint64_t Now() const {
    if (clock_) return clock_->NowNs();
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::steady_clock::now().time_since_epoch()).count());
  }
  device::Clock* clock_ = nullptr;
  uint64_t start_;
};

// What a test cost: the process's CPU time and the device's commands,
// bytes and late commands from construction to Finish.
class Meter {
 public:
  explicit Meter(const ZonedDevice& dev)
      : dev_(dev), cpu_start_(CpuSeconds()), start_(dev.Stats()) {}

  void Finish(DevbenchResult& r) const {
    const double cpu = CpuSeconds() - cpu_start_;
    const device::DeviceStats end = dev_.Stats();
    const device::IoCounters a = end.Total(), b = start_.Total();
    const uint64_t bytes = a.read_bytes + a.write_bytes - b.read_bytes - b.write_bytes;
    if (bytes > 0) r.cpu_s_per_gb = cpu / (static_cast<double>(bytes) / 1e9);
    r.commands = a.read_ops + a.write_ops - b.read_ops - b.write_ops +
                 end.zone_resets - start_.zone_resets + end.zone_finishes -
                 start_.zone_finishes + end.flushes - start_.flushes;
    r.late_commands = end.late_commands - start_.late_commands;
  }

 private:
  static double CpuSeconds() {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
  }

  const ZonedDevice& dev_;
  const double cpu_start_;
  const device::DeviceStats start_;
};

std::vector<uint32_t> SequentialZones(const ZonedDevice& dev) {
  std::vector<uint32_t> zones;
  for (uint32_t z = dev.info().num_conventional_zones; z < dev.info().num_zones; ++z) {
    zones.push_back(z);
  }
  return zones;
}

absl::Status ResetAll(ZonedDevice& dev, const std::vector<uint32_t>& zones) {
  const IoContext ctx{IoClass::kOther};
  for (uint32_t z : zones) {
    auto info = dev.ReportZone(z);
    if (!info.ok()) return info.status();
    if (info->state == device::ZoneState::kEmpty) continue;
    if (auto s = dev.ResetZone(z, ctx); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// Writes 1 MiB requests from the start of `zones[first..]` (stepping by
// `stride`) until `seconds` pass; returns bytes written and zones used.
struct StreamResult {
  uint64_t bytes = 0;
  std::vector<uint32_t> zones;
};

absl::StatusOr<StreamResult> WriteStream(ZonedDevice& dev, const std::vector<uint32_t>& zones,
                                         size_t first, size_t stride, double seconds,
                                         const Stopwatch& sw) {
  const IoContext ctx{IoClass::kOther};
  std::vector<uint8_t> buf(kMiB, 0x5a);
  StreamResult r;
  for (size_t i = first; i < zones.size() && sw.Seconds() < seconds; i += stride) {
    auto zi = dev.ReportZone(zones[i]);
    if (!zi.ok()) return zi.status();
    r.zones.push_back(zones[i]);
    for (uint64_t off = 0; off < zi->capacity && sw.Seconds() < seconds;) {
      const uint64_t n = std::min<uint64_t>(kMiB, zi->capacity - off);
      if (auto s = dev.Write(zi->start + off, std::span(buf).first(n), ctx); !s.ok()) return s;
      off += n;
      r.bytes += n;
    }
  }
  return r;
}

absl::StatusOr<uint64_t> ReadStream(ZonedDevice& dev, const std::vector<uint32_t>& zones,
                                    double seconds, const Stopwatch& sw) {
  const IoContext ctx{IoClass::kOther};
  std::vector<uint8_t> buf(kMiB);
  uint64_t bytes = 0;
  for (uint32_t z : zones) {
    auto zi = dev.ReportZone(z);
    if (!zi.ok()) return zi.status();
    for (uint64_t off = 0; off < zi->write_pointer - zi->start && sw.Seconds() < seconds;) {
      const uint64_t n = std::min<uint64_t>(kMiB, zi->write_pointer - zi->start - off);
      if (auto s = dev.Read(zi->start + off, std::span(buf).first(n), ctx); !s.ok()) return s;
      off += n;
      bytes += n;
    }
    if (sw.Seconds() >= seconds) break;
  }
  return bytes;
}

absl::StatusOr<uint64_t> RandomReads(ZonedDevice& dev, const std::vector<uint32_t>& zones,
                                     double seconds, uint64_t seed, const Stopwatch& sw) {
  const IoContext ctx{IoClass::kUserRead};
  const uint64_t bs = dev.info().block_size;
  std::vector<uint8_t> buf(bs);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick_zone(0, zones.size() - 1);
  std::uniform_int_distribution<uint64_t> pick_block(0, kChunk / bs - 1);
  uint64_t ops = 0;
  while (sw.Seconds() < seconds) {
    const uint64_t off = dev.ZoneStart(zones[pick_zone(rng)]) + pick_block(rng) * bs;
    if (auto s = dev.Read(off, buf, ctx); !s.ok()) return s;
    ++ops;
  }
  return ops;
}

// Runs `fn(thread_index)` on `threads` threads; the first error wins.
template <typename Fn>
absl::Status Parallel(int threads, Fn fn) {
  std::vector<absl::Status> status(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { status[t] = fn(t); });
  for (auto& th : pool) th.join();
  for (auto& s : status) {
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<DevbenchResult>> RunDevbench(ZonedDevice& dev,
                                                        const DevbenchOptions& opts,
                                                        const std::string& preset) {
  device::PublishedFigures pub;
  if (auto p = device::FindPreset(preset)) pub = p->published;
  const std::vector<uint32_t> zones = SequentialZones(dev);
  if (zones.size() < 2) return absl::InvalidArgumentError("devbench needs 2+ sequential zones");
  std::vector<DevbenchResult> out;
  const double secs = opts.seconds_per_test;
  if (auto s = ResetAll(dev, zones); !s.ok()) return s;

  // Sequential write, then read back, 1 MiB at queue depth 1.
  StreamResult written;
  {
    Meter meter(dev);
    Stopwatch sw(dev);
    auto r = WriteStream(dev, zones, 0, 1, secs, sw);
    if (!r.ok()) return r.status();
    written = *r;
    out.push_back({"seq write 1MiB QD1", "MiB/s", r->bytes / kMiB / sw.Seconds(),
                   pub.seq_write_mib_s});
    meter.Finish(out.back());
  }
  {
    Meter meter(dev);
    Stopwatch sw(dev);
    auto r = ReadStream(dev, written.zones, secs, sw);
    if (!r.ok()) return r.status();
    out.push_back({"seq read 1MiB QD1", "MiB/s", *r / static_cast<double>(kMiB) / sw.Seconds(),
                   pub.seq_read_mib_s});
    meter.Finish(out.back());
  }
  // Zone reset of the zones just written (full or partly written).
  {
    Meter meter(dev);
    Stopwatch sw(dev);
    if (auto s = ResetAll(dev, written.zones); !s.ok()) return s;
    out.push_back({"zone reset", "ms", sw.Seconds() * 1e3 / written.zones.size(), 0});
    meter.Finish(out.back());
  }
  // Random 4 KiB reads over chunks written at zones spread over the whole
  // device, so seeks span the full stroke as on a full disk.
  std::vector<uint32_t> spread;
  {
    const size_t n = std::min<size_t>(opts.spread_zones, zones.size());
    std::vector<uint8_t> chunk(kChunk, 0xa5);
    for (size_t i = 0; i < n; ++i) {
      const uint32_t z = zones[i * zones.size() / n];
      if (auto s = dev.Write(dev.ZoneStart(z), chunk, IoContext{}); !s.ok()) return s;
      // Finishing keeps the open and active counts within the limits.
      if (auto s = dev.FinishZone(z, IoContext{}); !s.ok()) return s;
      spread.push_back(z);
    }
    Meter meter(dev);
    Stopwatch sw(dev);
    auto ops = RandomReads(dev, spread, secs, 42, sw);
    if (!ops.ok()) return ops.status();
    out.push_back({"rand read 4KiB QD1", "IO/s", *ops / sw.Seconds(), pub.rand_read_iops});
    meter.Finish(out.back());
  }
  // The same with several threads: contention comes out of the model. A
  // simulated clock is advanced by each waiter in turn, so threads would
  // only serialize on it: these tests need real time.
  auto* emu = dynamic_cast<device::EmulatedDevice*>(&dev);
  if (emu && dynamic_cast<device::ManualClock*>(emu->clock())) {
    if (auto s = ResetAll(dev, zones); !s.ok()) return s;
    return out;
  }
  {
    std::vector<uint64_t> ops(opts.threads);
    Meter meter(dev);
    Stopwatch sw(dev);
    auto s = Parallel(opts.threads, [&](int t) -> absl::Status {
      auto r = RandomReads(dev, spread, secs, 100 + t, sw);
      if (!r.ok()) return r.status();
      ops[t] = *r;
      return absl::OkStatus();
    });
    if (!s.ok()) return s;
    uint64_t total = 0;
    for (uint64_t o : ops) total += o;
    out.push_back({fmt::format("rand read 4KiB x{} threads", opts.threads), "IO/s",
                   total / sw.Seconds(), 0});
    meter.Finish(out.back());
  }
  if (auto s = ResetAll(dev, zones); !s.ok()) return s;
  {
    std::vector<uint64_t> bytes(opts.threads);
    Meter meter(dev);
    Stopwatch sw(dev);
    auto s = Parallel(opts.threads, [&](int t) -> absl::Status {
      auto r = WriteStream(dev, zones, t, opts.threads, secs, sw);
      if (!r.ok()) return r.status();
      bytes[t] = r->bytes;
      return absl::OkStatus();
    });
    if (!s.ok()) return s;
    uint64_t total = 0;
    for (uint64_t b : bytes) total += b;
    out.push_back({fmt::format("seq write 1MiB x{} threads", opts.threads), "MiB/s",
                   total / static_cast<double>(kMiB) / sw.Seconds(), 0});
    meter.Finish(out.back());
  }
  if (auto s = ResetAll(dev, zones); !s.ok()) return s;
  return out;
}

std::string FormatDevbench(const std::vector<DevbenchResult>& results) {
  std::string s = fmt::format("{:<28} {:>12} {:>7} {:>12} {:>8} {:>9} {:>13}\n", "test",
                              "measured", "unit", "published", "ratio", "cpu/GBps", "late");
  for (const DevbenchResult& r : results) {
    const std::string cpu = r.cpu_s_per_gb > 0 ? fmt::format("{:.3f}", r.cpu_s_per_gb) : "-";
    const std::string late = fmt::format("{}/{}", r.late_commands, r.commands);
    if (r.target > 0) {
      s += fmt::format("{:<28} {:>12.1f} {:>7} {:>12.1f} {:>8.3f} {:>9} {:>13}\n", r.test,
                       r.value, r.unit, r.target, r.value / r.target, cpu, late);
    } else {
      s += fmt::format("{:<28} {:>12.2f} {:>7} {:>12} {:>8} {:>9} {:>13}\n", r.test, r.value,
                       r.unit, "-", "-", cpu, late);
    }
  }
  return s;
}

}  // namespace zonestack::tools
