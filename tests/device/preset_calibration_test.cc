// The presets' timing models reproduce the QD1 figures published for the
// real devices (within 5%), measured the way fio measures them: 1 MiB
// sequential writes then reads, and 4 KiB random reads, one at a time.
// Devices run on simulated time (timing=sim), so the figures are exact
// functions of the model, not of this machine's speed.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "device/emulated_device.h"
#include "device/presets.h"
#include "device/zoned_device.h"
#include "device_test_util.h"

namespace zonestack::device {
namespace {

constexpr uint64_t kKiB = 1024, kMiB = 1024 * kKiB;
constexpr double kTolerance = 0.05;
constexpr int kSeqRequests = 64;     // timed, after one untimed request
constexpr int kRandomReads = 4000;
constexpr uint32_t kDiskChunks = 500;  // written zones random disk reads hit
constexpr uint64_t kDiskChunkBytes = 64 * kKiB;
constexpr uint64_t kIdleNs = 1'000'000'000;  // lets pending programs finish

struct Measured {
  double seq_write_mib_s = 0;
  double seq_read_mib_s = 0;
  double rand_read_iops = 0;
};

// A scaled-down device on simulated time; scaling keeps the timing
// parameters (the disk model spreads any capacity over the full stroke).
class SimDevice {
 public:
  explicit SimDevice(const std::string& preset) {
    const std::string uri = absl::StrCat("emu:", preset, "?zones=2000&scale=1/64&timing=sim");
    auto dev = OpenDevice(uri);
    EXPECT_TRUE(dev.ok()) << dev.status();
    if (!dev.ok()) return;
    dev_ = std::move(*dev);
    emu_ = dynamic_cast<EmulatedDevice*>(dev_.get());
    EXPECT_NE(emu_, nullptr);
  }
  bool ok() const { return emu_ != nullptr; }
  ZonedDevice& dev() { return *dev_; }
  uint64_t Now() const { return emu_->clock()->NowNs(); }
  void Idle() { emu_->clock()->WaitUntil(Now() + kIdleNs); }

 private:
  std::unique_ptr<ZonedDevice> dev_;
  EmulatedDevice* emu_ = nullptr;
};

double MibPerS(uint64_t bytes, uint64_t ns) {
  return static_cast<double>(bytes) / kMiB / (static_cast<double>(ns) / 1e9);
}

// 1 MiB writes from the first sequential zone on (as many as fit in each
// zone's capacity), then reads of the same range. The first request of each
// phase is not timed: it positions a disk's head.
void MeasureSequential(const std::string& preset, Measured* m) {
  SimDevice sim(preset);
  ASSERT_TRUE(sim.ok());
  ZonedDevice& dev = sim.dev();
  const IoContext ctx;
  std::vector<uint64_t> offsets;
  for (uint32_t zone = dev.info().num_conventional_zones;
       offsets.size() < kSeqRequests + 1 && zone < dev.info().num_zones; ++zone) {
    auto z = dev.ReportZone(zone);
    ASSERT_TRUE(z.ok()) << z.status();
    for (uint64_t pos = 0; pos + kMiB <= z->capacity && offsets.size() < kSeqRequests + 1;
         pos += kMiB) {
      offsets.push_back(z->start + pos);
    }
  }
  ASSERT_EQ(offsets.size(), kSeqRequests + 1u);
  std::vector<uint8_t> buf(kMiB, 0x5a);

  ASSERT_OK(dev.Write(offsets[0], buf, ctx));
  uint64_t start = sim.Now();
  for (int i = 1; i <= kSeqRequests; ++i) {
    ASSERT_OK(dev.Write(offsets[i], buf, ctx));
  }
  m->seq_write_mib_s = MibPerS(kSeqRequests * kMiB, sim.Now() - start);

  sim.Idle();
  ASSERT_OK(dev.Read(offsets[0], buf, ctx));
  start = sim.Now();
  for (int i = 1; i <= kSeqRequests; ++i) {
    ASSERT_OK(dev.Read(offsets[i], buf, ctx));
  }
  m->seq_read_mib_s = MibPerS(kSeqRequests * kMiB, sim.Now() - start);
}

// 4 KiB reads at random aligned offsets. An SSD reads anywhere (unwritten
// blocks read as zeroes). A ZBC disk rejects reads beyond the write pointer,
// so a 64 KiB chunk is first written at the start of zones spread evenly
// over the device, and the reads land inside those chunks.
void MeasureRandomRead(const std::string& preset, bool is_disk, Measured* m) {
  SimDevice sim(preset);
  ASSERT_TRUE(sim.ok());
  ZonedDevice& dev = sim.dev();
  const DeviceInfo& info = dev.info();
  const IoContext ctx;
  std::vector<uint64_t> regions;  // starts of readable regions
  uint64_t region_bytes;
  if (is_disk) {
    const uint32_t first = info.num_conventional_zones;
    const uint32_t seq_zones = info.num_zones - first;
    ASSERT_GE(seq_zones, kDiskChunks);
    std::vector<uint8_t> chunk(kDiskChunkBytes, 0x77);
    for (uint32_t i = 0; i < kDiskChunks; ++i) {
      const uint32_t zone = first + static_cast<uint32_t>(uint64_t{i} * seq_zones / kDiskChunks);
      const absl::Status s = dev.Write(dev.ZoneStart(zone), chunk, ctx);
      ASSERT_TRUE(s.ok()) << "zone " << zone << ": " << s;
      regions.push_back(dev.ZoneStart(zone));
    }
    region_bytes = kDiskChunkBytes;
  } else {
    regions.push_back(0);
    region_bytes = info.capacity_bytes();
  }
  sim.Idle();

  std::mt19937_64 rng(42);
  std::uniform_int_distribution<size_t> pick_region(0, regions.size() - 1);
  std::uniform_int_distribution<uint64_t> pick_block(0, region_bytes / (4 * kKiB) - 1);
  std::vector<uint8_t> buf(4 * kKiB);
  const uint64_t start = sim.Now();
  for (int i = 0; i < kRandomReads; ++i) {
    const uint64_t offset = regions[pick_region(rng)] + pick_block(rng) * 4 * kKiB;
    const absl::Status s = dev.Read(offset, buf, ctx);
    ASSERT_TRUE(s.ok()) << "offset " << offset << ": " << s;
  }
  const double seconds = static_cast<double>(sim.Now() - start) / 1e9;
  m->rand_read_iops = kRandomReads / seconds;
}

class PresetCalibrationTest : public ::testing::Test {
 protected:
  static Preset Get(const std::string& name) {
    std::optional<Preset> p = FindPreset(name);
    EXPECT_TRUE(p.has_value()) << name;
    return p.value_or(Preset{});
  }

  void ExpectPublished(const char* what, double measured, double published) {
    RecordProperty(what, absl::StrCat(measured));
    ASSERT_GT(published, 0) << what;
    EXPECT_NEAR(measured, published, kTolerance * published)
        << what << ": model " << measured << ", published " << published;
  }

  void CheckSequentialWrite(const std::string& name) {
    const Preset p = Get(name);
    Measured m;
    MeasureSequential(name, &m);
    ExpectPublished("seq_write_mib_s", m.seq_write_mib_s, p.published.seq_write_mib_s);
  }
  void CheckSequentialRead(const std::string& name) {
    const Preset p = Get(name);
    Measured m;
    MeasureSequential(name, &m);
    ExpectPublished("seq_read_mib_s", m.seq_read_mib_s, p.published.seq_read_mib_s);
  }
  void CheckRandomRead(const std::string& name) {
    const Preset p = Get(name);
    Measured m;
    MeasureRandomRead(name, p.is_disk, &m);
    ExpectPublished("rand_read_iops", m.rand_read_iops, p.published.rand_read_iops);
  }
};

TEST_F(PresetCalibrationTest, Zn540SequentialWrite) { CheckSequentialWrite("zn540"); }
TEST_F(PresetCalibrationTest, Zn540SequentialRead) { CheckSequentialRead("zn540"); }
TEST_F(PresetCalibrationTest, Zn540RandomRead) { CheckRandomRead("zn540"); }

TEST_F(PresetCalibrationTest, St14000nm0007SequentialWrite) {
  CheckSequentialWrite("st14000nm0007");
}
TEST_F(PresetCalibrationTest, St14000nm0007SequentialRead) {
  CheckSequentialRead("st14000nm0007");
}
TEST_F(PresetCalibrationTest, St14000nm0007RandomRead) { CheckRandomRead("st14000nm0007"); }

TEST_F(PresetCalibrationTest, St13125nm007SequentialWrite) {
  CheckSequentialWrite("st13125nm007");
}
TEST_F(PresetCalibrationTest, St13125nm007SequentialRead) {
  CheckSequentialRead("st13125nm007");
}
TEST_F(PresetCalibrationTest, St13125nm007RandomRead) { CheckRandomRead("st13125nm007"); }

}  // namespace
}  // namespace zonestack::device
