// What ZbdDevice promises beyond the conformance suite, checked on the real
// device ZONESTACK_ZBD_DEVICE names (skipped without one): its DeviceInfo
// matches the kernel's view, reads cross zones where it says so, its
// emulated Append serializes concurrent appends to a zone, and reads
// through the page cache never return stale data.
#include "device/zbd_device.h"

#include <fstream>
#include <set>
#include <thread>

#include "device_test_util.h"
#include "real_device.h"

namespace zonestack::device {
namespace {

using testing_util::Pattern;

const IoContext kCtx;

class ZbdDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = conformance::RealDevicePath();
    if (path_.empty()) GTEST_SKIP() << "ZONESTACK_ZBD_DEVICE names no zoned block device";
    auto dev = conformance::OpenFreshRealDevice(path_);
    ASSERT_TRUE(dev.ok()) << dev.status();
    dev_ = std::move(*dev);
  }
  uint32_t Seq(uint32_t i) const { return dev_->info().num_conventional_zones + i; }

  std::string path_;
  std::unique_ptr<ZonedDevice> dev_;
};

uint64_t SysfsValue(const std::string& dev_path, const std::string& attr) {
  const std::string name = dev_path.substr(dev_path.find_last_of('/') + 1);
  std::ifstream in("/sys/block/" + name + "/queue/" + attr);
  uint64_t v = 0;
  in >> v;
  return v;
}

TEST_F(ZbdDeviceTest, InfoMatchesTheKernelsView) {
  const DeviceInfo& info = dev_->info();
  EXPECT_EQ(info.zone_size, SysfsValue(path_, "chunk_sectors") * 512);
  EXPECT_EQ(info.num_zones, SysfsValue(path_, "nr_zones"));
  EXPECT_EQ(info.max_open_zones, SysfsValue(path_, "max_open_zones"));
  EXPECT_EQ(info.max_active_zones, SysfsValue(path_, "max_active_zones"));
  EXPECT_EQ(info.block_size, SysfsValue(path_, "physical_block_size"));
  auto z = dev_->ReportZone(Seq(0));
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ(z->capacity, info.zone_capacity);
}

TEST_F(ZbdDeviceTest, ReadAcrossZonesReturnsBothZonesData) {
  if (!dev_->info().cross_zone_reads_allowed) GTEST_SKIP() << "device says no";
  const uint64_t a = dev_->ZoneStart(Seq(0)), b = dev_->ZoneStart(Seq(1));
  const uint64_t bs = dev_->info().block_size;
  auto cap = dev_->ReportZone(Seq(0));
  ASSERT_TRUE(cap.ok());
  ASSERT_TRUE(dev_->Write(a, Pattern(cap->capacity, 1), kCtx).ok());
  ASSERT_TRUE(dev_->Write(b, Pattern(bs, 2), kCtx).ok());
  std::vector<uint8_t> got(2 * bs);
  ASSERT_TRUE(dev_->Read(b - bs, got, kCtx).ok());
  // The last block before zone b is data only if the capacity fills zone a.
  std::vector<uint8_t> want(bs, 0);
  if (cap->capacity == cap->size) {
    const std::vector<uint8_t> first = Pattern(cap->capacity, 1);
    want.assign(first.end() - static_cast<std::ptrdiff_t>(bs), first.end());
  }
  const std::vector<uint8_t> second = Pattern(bs, 2);
  want.insert(want.end(), second.begin(), second.end());
  EXPECT_EQ(got, want);
}

TEST_F(ZbdDeviceTest, ConcurrentAppendsToOneZoneLandAtDistinctOffsets) {
  const uint32_t zone = Seq(0);
  const uint64_t bs = dev_->info().block_size;
  constexpr int kThreads = 4, kEach = 2;  // 8 blocks fit any zone capacity here
  std::vector<std::vector<uint64_t>> landed(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        auto at = dev_->Append(zone, Pattern(bs, static_cast<uint8_t>(t * kEach + i)), kCtx);
        EXPECT_TRUE(at.ok()) << at.status();
        if (at.ok()) landed[t].push_back(*at);
      }
    });
  }
  for (auto& th : threads) th.join();
  std::set<uint64_t> offsets;
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < static_cast<int>(landed[t].size()); ++i) {
      offsets.insert(landed[t][i]);
      std::vector<uint8_t> got(bs);
      ASSERT_TRUE(dev_->Read(landed[t][i], got, kCtx).ok());
      EXPECT_EQ(got, Pattern(bs, static_cast<uint8_t>(t * kEach + i)));
    }
  }
  EXPECT_EQ(offsets.size(), static_cast<size_t>(kThreads * kEach));
  auto z = dev_->ReportZone(zone);
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(z->write_pointer - z->start, kThreads * kEach * bs);
}

// The page cache must not outlive what it caches: a cached read of a zone
// that was read (and read ahead, past its write pointer), then reset and
// written again, returns the new data, at unaligned offsets too.
TEST_F(ZbdDeviceTest, CachedReadsSeeResetsAndNewWrites) {
  if (!dev_->info().host_cache) GTEST_SKIP() << "device offers no cached reads";
  const IoContext cached{IoClass::kUserRead, /*host_cache=*/true};
  const uint32_t zone = Seq(0);
  const uint64_t start = dev_->ZoneStart(zone);
  const uint64_t bs = dev_->info().block_size;
  auto read = [&](uint64_t offset, size_t n) {
    std::vector<uint8_t> got(n);
    const absl::Status s = dev_->Read(offset, got, cached);
    EXPECT_TRUE(s.ok()) << s;
    return got;
  };
  auto slice = [](const std::vector<uint8_t>& v, size_t from, size_t n) {
    return std::vector<uint8_t>(v.begin() + static_cast<std::ptrdiff_t>(from),
                                v.begin() + static_cast<std::ptrdiff_t>(from + n));
  };
  const std::vector<uint8_t> first = Pattern(2 * bs, 1);
  ASSERT_TRUE(dev_->Write(start, first, kCtx).ok());
  EXPECT_EQ(read(start + 7, bs + 5), slice(first, 7, bs + 5));
  // Past the write pointer: whatever the device returns there (zeroes on
  // ZNS, stale bytes on null_blk), now in the page cache.
  read(start + 2 * bs, bs);

  ASSERT_TRUE(dev_->ResetZone(zone, kCtx).ok());
  const std::vector<uint8_t> second = Pattern(3 * bs, 2);
  ASSERT_TRUE(dev_->Write(start, second, kCtx).ok());
  EXPECT_EQ(read(start + 7, bs + 5), slice(second, 7, bs + 5));
  EXPECT_EQ(read(start + 2 * bs + 1, bs - 1), slice(second, 2 * bs + 1, bs - 1));

  // A direct read of the same bytes agrees.
  std::vector<uint8_t> direct(3 * bs);
  ASSERT_TRUE(dev_->Read(start, direct, kCtx).ok());
  EXPECT_EQ(direct, second);
}

}  // namespace
}  // namespace zonestack::device
