// Reads through the host's page cache: a file opened with
// OpenOptions::host_cache on a device that offers it (a kernel zoned block
// device; here an emulated one that says it does) sends the device exactly
// the bytes asked for, marked host_cache; without the option, or on a
// device without a page cache, every device read is whole blocks.
#include <random>
#include <utility>

#include <gtest/gtest.h>

#include "absl/synchronization/mutex.h"
#include "hooked_writes.h"
#include "zfs_test_util.h"

namespace zonestack::zfs {
namespace {

using namespace testing_util;

// Says it has a page cache and serves unaligned host_cache reads from the
// covering blocks of the emulator; records every user read it sees.
class PageCachedDevice : public HookedWrites {
 public:
  struct Seen {
    uint64_t offset, length;
    bool host_cache;
  };
  explicit PageCachedDevice(std::shared_ptr<device::ZonedDevice> inner)
      : HookedWrites(inner, [](uint64_t) { return absl::OkStatus(); }),
        inner_(std::move(inner)),
        info_(inner_->info()) {
    info_.host_cache = true;
  }

  const device::DeviceInfo& info() const override { return info_; }

  absl::Status Read(uint64_t offset, std::span<uint8_t> dst,
                    const device::IoContext& ctx) override {
    if (ctx.io_class == device::IoClass::kUserRead) {
      absl::MutexLock lock(&mu_);
      seen_.push_back({offset, dst.size(), ctx.host_cache});
    }
    if (!ctx.host_cache) return inner_->Read(offset, dst, ctx);
    const uint64_t bs = info_.block_size;
    const uint64_t start = offset / bs * bs;
    const uint64_t end = (offset + dst.size() + bs - 1) / bs * bs;
    std::vector<uint8_t> blocks(end - start);
    if (auto s = inner_->Read(start, blocks, ctx); !s.ok()) return s;
    std::memcpy(dst.data(), blocks.data() + (offset - start), dst.size());
    return absl::OkStatus();
  }

  std::vector<Seen> TakeSeen() {
    absl::MutexLock lock(&mu_);
    return std::exchange(seen_, {});
  }

 private:
  std::shared_ptr<device::ZonedDevice> inner_;
  device::DeviceInfo info_;
  absl::Mutex mu_;
  std::vector<Seen> seen_ ABSL_GUARDED_BY(mu_);
};

class HostCacheTest : public VolumeTest {
 protected:
  void SetUp() override {
    dev_ = std::make_shared<PageCachedDevice>(OpenDev(ZnsUri(16)));
    FormatAndMount({dev_});
    // Synced in pieces, so the file's extents end in padded blocks and its
    // file offsets do not map to block-aligned device offsets.
    auto w = vol_->Create("/f", {});
    ASSERT_TRUE(w.ok()) << w.status();
    for (uint64_t at = 0; at < kSize; at += kPiece) {
      ASSERT_OK((*w)->Append(Pattern(kSeed, at, std::min(kPiece, kSize - at))));
      ASSERT_OK((*w)->Sync());
    }
    ASSERT_OK((*w)->Close());
    dev_->TakeSeen();
  }

  // Random unaligned ranges of /f, checked against the pattern.
  void ReadRandomRanges(const OpenOptions& options) {
    ASSERT_OK_AND_ASSIGN(auto r, vol_->Open("/f", options));
    std::mt19937_64 rng(7);
    for (int i = 0; i < 50; ++i) {
      const uint64_t off = rng() % kSize;
      std::vector<uint8_t> buf(1 + rng() % 9000);
      ASSERT_OK_AND_ASSIGN(size_t n, r->Read(off, buf));
      ASSERT_EQ(n, std::min<uint64_t>(buf.size(), kSize - off));
      buf.resize(n);
      ASSERT_TRUE(MatchesPattern(kSeed, off, buf)) << off << "+" << n;
    }
  }

  static constexpr uint64_t kSeed = 11, kSize = 300000, kPiece = 10007;
  std::shared_ptr<PageCachedDevice> dev_;
};

TEST_F(HostCacheTest, CachedReadsAskTheDeviceForExactlyTheBytesWanted) {
  ReadRandomRanges({.host_cache = true});
  const auto seen = dev_->TakeSeen();
  ASSERT_FALSE(seen.empty());
  int unaligned = 0;
  for (const auto& s : seen) {
    EXPECT_TRUE(s.host_cache) << s.offset;
    if (s.offset % 4096 != 0 || s.length % 4096 != 0) ++unaligned;
  }
  EXPECT_GT(unaligned, 0);  // reads were passed on as asked, not rounded
}

TEST_F(HostCacheTest, DirectReadsAreWholeBlocks) {
  ReadRandomRanges({.host_cache = false});
  const auto seen = dev_->TakeSeen();
  ASSERT_FALSE(seen.empty());
  for (const auto& s : seen) {
    EXPECT_FALSE(s.host_cache) << s.offset;
    EXPECT_EQ(s.offset % 4096, 0u);
    EXPECT_EQ(s.length % 4096, 0u);
  }
}

}  // namespace
}  // namespace zonestack::zfs
