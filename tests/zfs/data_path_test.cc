// The data path: files of random sizes written in random-sized appends with
// interleaved syncs, read back in random unaligned ranges, across zone
// boundaries, on a ZNS SSD, an HM-SMR disk and a two-device hybrid volume;
// hybrid placement's SSD-first spill; concurrent writers and readers.
#include <map>
#include <optional>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "absl/synchronization/mutex.h"
#include "ssd_first_placement.h"
#include "zfs_test_util.h"

namespace zonestack::zfs {
namespace {

using namespace testing_util;
using testing_common::TestThread;

struct Layout {
  std::string name;
  std::vector<std::string> uris;
  std::string placement;
  uint64_t total_bytes;  // written across all files
};

class RandomFilesTest : public VolumeTest, public testing::WithParamInterface<Layout> {
 protected:
  void SetUp() override {
    Devices devs;
    for (const std::string& uri : GetParam().uris) devs.push_back(OpenDev(uri));
    MountOptions options;
    options.placement =
        GetParam().placement == "hybrid" ? SsdFirst() : MakeLifetimePlacement();
    FormatAndMount(devs, options);
  }

  // Every file's size and, at random unaligned ranges, its content.
  void VerifyAll(std::mt19937_64& rng, const std::map<std::string, uint64_t>& sizes) {
    for (const auto& [path, size] : sizes) {
      const uint64_t seed = std::hash<std::string>()(path);
      ASSERT_OK_AND_ASSIGN(auto r, vol_->Open(path));
      ASSERT_EQ(r->size(), size) << path;
      for (int i = 0; i < 12; ++i) {
        const uint64_t off = size == 0 ? 0 : rng() % size;
        const uint64_t len = 1 + rng() % (i % 3 == 0 ? 2 << 20 : 9000);
        std::vector<uint8_t> buf(len);
        ASSERT_OK_AND_ASSIGN(size_t n, r->Read(off, buf));
        ASSERT_EQ(n, std::min(len, size - off)) << path << " @" << off;
        buf.resize(n);
        ASSERT_TRUE(MatchesPattern(seed, off, buf)) << path << " @" << off << "+" << n;
      }
      std::vector<uint8_t> past(10);
      ASSERT_OK_AND_ASSIGN(size_t n, r->Read(size, past));
      EXPECT_EQ(n, 0u);
    }
  }
};

TEST_P(RandomFilesTest, RandomAppendsAndSyncsReadBackInRandomRanges) {
  std::mt19937_64 rng(42);
  std::map<std::string, uint64_t> sizes;
  struct Open {
    std::string path;
    std::unique_ptr<WritableFile> w;
    uint64_t target, written = 0;
  };
  std::vector<Open> open;
  const uint64_t total = GetParam().total_bytes;
  uint64_t planned = 0;
  int next = 0;
  while (planned < total || !open.empty()) {
    // Up to four files written at once, in turns.
    while (open.size() < 4 && planned < total) {
      Open o;
      o.path = "/f" + std::to_string(next++);
      o.target = std::min<uint64_t>(total - planned, rng() % 4 == 0 ? rng() % (6 << 20)
                                                                    : rng() % (600 << 10));
      planned += o.target;
      ASSERT_OK_AND_ASSIGN(o.w, vol_->Create(o.path, {}));
      open.push_back(std::move(o));
    }
    Open& o = open[rng() % open.size()];
    const uint64_t seed = std::hash<std::string>()(o.path);
    const uint64_t n = std::min<uint64_t>(o.target - o.written, 1 + rng() % (rng() % 2 ? 5000 : 400000));
    ASSERT_OK(o.w->Append(Pattern(seed, o.written, n)));
    o.written += n;
    if (rng() % 5 == 0) ASSERT_OK(o.w->Sync());
    if (o.written == o.target) {
      ASSERT_OK(o.w->Close());
      sizes[o.path] = o.target;
      std::swap(o, open.back());
      open.pop_back();
    }
  }
  ASSERT_NO_FATAL_FAILURE(VerifyAll(rng, sizes));
  ExpectConsistent(*vol_);
  // Some file must have crossed a zone boundary for the test to mean much.
  bool spans = false;
  for (const FileInfo& f : vol_->Files()) {
    for (size_t i = 1; i < f.extents.size(); ++i) {
      spans |= f.extents[i].zone != f.extents[0].zone || f.extents[i].device != f.extents[0].device;
    }
  }
  EXPECT_TRUE(spans);
  ASSERT_NO_FATAL_FAILURE(Remount());
  ASSERT_NO_FATAL_FAILURE(VerifyAll(rng, sizes));
  ExpectConsistent(*vol_);
  ExpectNoLeakedSpace(*vol_);
}

INSTANTIATE_TEST_SUITE_P(
    Devices, RandomFilesTest,
    testing::Values(Layout{"Zns", {ZnsUri(24)}, "lifetime", 24 << 20},
                    Layout{"HmSmr", {SmrUri(64)}, "lifetime", 24 << 20},
                    Layout{"Hybrid", {ZnsUri(8), SmrUri(64)}, "hybrid", 32 << 20}),
    [](const testing::TestParamInfo<Layout>& p) { return p.param.name; });

class HybridTest : public VolumeTest {
 protected:
  void SetUp() override {
    MountOptions options;
    options.placement = SsdFirst();
    FormatAndMount({OpenDev(ZnsUri(8)), OpenDev(SmrUri(64))}, options);
  }
};

TEST_F(HybridTest, MetadataGoesToTheSsd) { EXPECT_EQ(vol_->metadata_device(), 0u); }

TEST_F(HybridTest, DataLandsOnTheSsdFirstAndSpillsToTheDiskWhenItIsFull) {
  const uint64_t ssd_free = vol_->Space()[0].free_bytes;
  const uint64_t file = 1 << 20;
  const int files = static_cast<int>(ssd_free / file) + 4;
  for (int i = 0; i < files; ++i) {
    const std::string path = "/f" + std::to_string(i);
    ASSERT_OK(WriteFile(*vol_, path, Pattern(i, file)));
    if (i == 0) {
      EXPECT_EQ(DevicesOf(*vol_, path), std::set<uint32_t>{0});
    }
  }
  EXPECT_EQ(DevicesOf(*vol_, "/f" + std::to_string(files - 1)), std::set<uint32_t>{1});
  const auto space = vol_->Space();
  EXPECT_LE(space[0].empty_zones, 1u) << "the SSD keeps one empty zone for GC";
  EXPECT_GT(space[1].valid_bytes, 0u);
  // The SSD holds all it can before the disk gets anything.
  EXPECT_GE(space[0].valid_bytes + space[0].free_bytes, ssd_free - 2 * file);
  for (int i = 0; i < files; ++i) {
    auto got = ReadFile(*vol_, "/f" + std::to_string(i));
    ASSERT_OK(got);
    EXPECT_TRUE(*got == Pattern(i, file)) << i;
  }
  ExpectConsistent(*vol_);
}

TEST(ConcurrencyTest, ConcurrentWritersAndReadersSeeConsistentData) {
  Devices devs = {OpenDev(ZnsUri(24))};
  ASSERT_OK(Volume::Format(devs));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Volume> vol, Volume::Mount(devs));
  absl::Mutex mu;
  std::vector<std::pair<std::string, uint64_t>> done;  // guarded by mu
  {
    std::vector<TestThread> writers;
    for (int t = 0; t < 4; ++t) {
      writers.emplace_back([&, t](std::stop_token stop) {
        std::mt19937_64 rng(t);
        for (int i = 0; i < 6 && !stop.stop_requested() && !::testing::Test::HasFailure(); ++i) {
          const std::string path = "/w" + std::to_string(t) + "_" + std::to_string(i);
          const uint64_t seed = std::hash<std::string>()(path);
          const uint64_t size = 1000 + rng() % (1500 << 10);
          auto w = vol->Create(path, {.lifetime = static_cast<Lifetime>(t % 3)});
          absl::Status s = w.status();
          for (uint64_t pos = 0; s.ok() && pos < size;) {
            const uint64_t n = std::min<uint64_t>(size - pos, 1 + rng() % 200000);
            s = (*w)->Append(Pattern(seed, pos, n));
            pos += n;
            if (s.ok() && rng() % 3 == 0) s = (*w)->Sync();
          }
          if (s.ok()) s = (*w)->Close();
          if (!s.ok()) {
            ADD_FAILURE() << path << ": " << s;
            return;
          }
          absl::MutexLock l(&mu);
          done.push_back({path, size});
        }
      });
    }
    auto pick = [&](std::mt19937_64& rng) -> std::optional<std::string> {
      absl::MutexLock l(&mu);
      if (done.empty()) return std::nullopt;
      return done[rng() % done.size()].first;
    };
    PatternReader reader1(*vol, pick, 100), reader2(*vol, pick, 101);
    for (TestThread& w : writers) w.Join();
  }
  ASSERT_EQ(done.size(), 24u);
  ExpectFilesIntact(*vol, done);
  ExpectConsistent(*vol);
  ExpectNoLeakedSpace(*vol);
}

TEST(ConcurrencyTest, ReaderOfAFileBeingWrittenSeesAGrowingPrefix) {
  Devices devs = {OpenDev(ZnsUri(16))};
  ASSERT_OK(Volume::Format(devs));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Volume> vol, Volume::Mount(devs));
  ASSERT_OK_AND_ASSIGN(auto w, vol->Create("/grow", {}));
  ASSERT_OK_AND_ASSIGN(auto r, vol->Open("/grow"));
  const uint64_t seed = 77, total = 6 << 20;
  TestThread reader([&](std::stop_token stop) {
    while (!stop.stop_requested()) {
      const uint64_t size = r->size();
      std::vector<uint8_t> buf(std::min<uint64_t>(size, 256 << 10));
      const uint64_t off = size - buf.size();
      auto n = r->Read(off, buf);
      if (!n.ok()) {
        ADD_FAILURE() << n.status();
        return;
      }
      buf.resize(*n);
      if (!MatchesPattern(seed, off, buf)) {
        ADD_FAILURE() << "@" << off;
        return;
      }
    }
  });
  for (uint64_t pos = 0; pos < total; pos += 100000) {
    ASSERT_OK(w->Append(Pattern(seed, pos, std::min<uint64_t>(100000, total - pos))));
    if (pos % 700000 == 0) ASSERT_OK(w->Sync());
  }
  ASSERT_OK(w->Close());
  reader.Stop();
  EXPECT_EQ(r->size(), total);
}

}  // namespace
}  // namespace zonestack::zfs
