// The WAL/cache pool (HHZS 3.2) and SSD cache zones (HHZS 3.5): general
// writers leave the pool's zones empty, the WAL takes them, a full pool
// asks the cache to give one back before the WAL spills into general
// zones, the pool survives a remount and log rolls, and cache zones are
// written at their write pointer, kept from GC and reset at mount.
#include <deque>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "recording_policy.h"
#include "test_clock.h"
#include "zfs_test_util.h"

namespace zonestack::zfs {
namespace {

using namespace testing_util;

// A zn540 zone at 1/256 holds this much.
constexpr uint64_t kZnsZoneCapacity = 4411392;

class PoolTest : public VolumeTest {
 protected:
  // A ZN540 (16 zones: 13 for data, one kept for GC) and an HM-SMR disk.
  void SetUpVolume(std::vector<uint32_t> pool, std::vector<uint32_t> devices = {0, 1},
                   std::vector<uint32_t> wal_devices = {0, 1}, MountOptions options = {}) {
    policy_ = std::make_shared<RecordingPolicy>();
    policy_->SetPoolZones(std::move(pool));
    policy_->SetDevices(std::move(devices), std::move(wal_devices));
    options.placement = policy_;
    FormatAndMount({OpenDev(ZnsUri(16)), OpenDev(SmrUri(64))}, std::move(options));
  }
  absl::Status WriteWal(const std::string& path, uint64_t size) {
    return WriteFile(*vol_, path, Pattern(std::hash<std::string>()(path), size),
                     {.kind = FileKind::kWal}, 1 << 20);
  }
  std::set<uint32_t> PoolZonesOf(uint32_t device) {
    std::set<uint32_t> out;
    for (const ZoneReport& z : vol_->Zones()) {
      if (z.device == device && z.pool) out.insert(z.zone.index);
    }
    return out;
  }
  std::set<uint32_t> ZonesWithRole(uint32_t device, ZoneRole role) {
    std::set<uint32_t> out;
    for (const ZoneReport& z : vol_->Zones()) {
      if (z.device == device && z.role == role) out.insert(z.zone.index);
    }
    return out;
  }
  ZoneReport Zone(uint32_t device, uint32_t zone) {
    for (const ZoneReport& z : vol_->Zones()) {
      if (z.device == device && z.zone.index == zone) return z;
    }
    ADD_FAILURE() << "no zone " << zone;
    return {};
  }
  // The zones holding `path`'s data, with their devices.
  std::set<std::pair<uint32_t, uint32_t>> ZonesOf(const std::string& path) {
    std::set<std::pair<uint32_t, uint32_t>> out;
    for (const FileInfo& f : vol_->Files()) {
      if (f.names[0] != path) continue;
      for (const ExtentInfo& x : f.extents) out.insert({x.device, x.zone});
    }
    return out;
  }
  // What the policy sees of `device` at the next allocation.
  DeviceView ViewAtNextAllocation(uint32_t device) {
    EXPECT_OK(WriteFile(*vol_, "/probe", Pattern(0, 4096)));
    EXPECT_OK(vol_->Delete("/probe"));
    return policy_->last_views().at(device);
  }

  std::shared_ptr<RecordingPolicy> policy_;
};

TEST_F(PoolTest, GeneralWritersLeaveThePoolEmptyAndTheWalTakesIt) {
  // SSTs only on the SSD, so they fail when its general zones are gone.
  // Deleting the SST that failed leaves garbage in the last SST's zone, and
  // the SSD is then below the default GC threshold: the background GC
  // thread (every 200 ms) would relocate that zone's live tail at any point
  // below, through an empty zone it may take from the pool or GC's reserve,
  // so the zone counts would depend on when it runs (a WAL could even spill
  // to the disk meanwhile). With threshold 0 it only runs when no usable
  // empty zone is left, which never happens here: writers always leave
  // GC's zone and the pool's unused zones.
  SetUpVolume({3, 0}, /*devices=*/{0}, /*wal_devices=*/{0, 1}, {.gc_free_zone_threshold = 0});
  std::map<std::string, uint64_t> files;
  for (int i = 0;; ++i) {
    const std::string path = absl::StrCat("/sst", i);
    const absl::Status s =
        WriteFile(*vol_, path, Pattern(std::hash<std::string>()(path), 4 << 20), {}, 1 << 20);
    if (!s.ok()) {
      ASSERT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
      ASSERT_OK(vol_->Delete(path));
      break;
    }
    files[path] = 4 << 20;
  }
  EXPECT_EQ(vol_->Space()[0].empty_zones, 1u + 3u) << "GC's zone and the pool's three";
  EXPECT_TRUE(PoolZonesOf(0).empty());

  // The WAL takes the pool's zones: two for 8 MiB, then a third.
  ASSERT_OK(WriteWal("/wal1", 8 << 20));
  EXPECT_EQ(PoolZonesOf(0).size(), 2u);
  for (const auto& [dev, zone] : ZonesOf("/wal1")) {
    EXPECT_EQ(dev, 0u);
    EXPECT_TRUE(PoolZonesOf(0).contains(zone));
  }
  ASSERT_OK(WriteWal("/wal2", 2 << 20));
  EXPECT_EQ(PoolZonesOf(0).size(), 3u);
  EXPECT_EQ(vol_->Space()[0].empty_zones, 1u);
  // The pool is full and holds no cache zone: the next WAL spills over;
  // with only GC's zone left on the SSD, onto the disk.
  ASSERT_OK(WriteWal("/wal3", 6 << 20));
  std::set<uint32_t> wal3_devices;
  for (const auto& [dev, zone] : ZonesOf("/wal3")) wal3_devices.insert(dev);
  EXPECT_TRUE(wal3_devices.contains(1));
  EXPECT_EQ(vol_->Space()[0].empty_zones, 1u) << "GC's zone stays";
  const DeviceView view = policy_->last_views()[0];
  EXPECT_EQ(view.pool_zones, 3u);
  EXPECT_EQ(view.cache_zones, 0u);
  files["/wal1"] = 8 << 20;
  files["/wal2"] = 2 << 20;
  files["/wal3"] = 6 << 20;
  ExpectFilesIntact(*vol_, files);
  ExpectConsistent(*vol_);

  // A reset pool zone goes back to the general zones.
  ASSERT_OK(vol_->Delete("/wal1"));
  ASSERT_OK(vol_->Delete("/wal2"));
  ASSERT_OK(vol_->Delete("/wal3"));
  EXPECT_TRUE(PoolZonesOf(0).empty());
  EXPECT_EQ(vol_->Space()[0].empty_zones, 1u + 3u);
  ExpectConsistent(*vol_);
  ExpectNoLeakedSpace(*vol_);
}

TEST_F(PoolTest, FullPoolAsksTheCacheForAZoneBeforeTheWalSpills) {
  SetUpVolume({2, 0});
  std::deque<CacheZone> cache;
  for (int i = 0; i < 2; ++i) {
    ASSERT_OK_AND_ASSIGN(CacheZone c, vol_->cache_zones().Acquire(0));
    ASSERT_OK(vol_->cache_zones().Write(c, 0, Pattern(i, 64 << 10)));
    cache.push_back(c);
  }
  EXPECT_EQ(vol_->cache_zones().Acquire(0).status().code(), absl::StatusCode::kResourceExhausted);
  const DeviceView full = ViewAtNextAllocation(0);
  EXPECT_EQ(full.pool_zones, 2u);
  EXPECT_EQ(full.cache_zones, 2u);

  int reclaims = 0;
  vol_->cache_zones().SetReclaimer([&] {
    ++reclaims;
    if (cache.empty()) return false;
    EXPECT_OK(vol_->cache_zones().Release(cache.front()));  // FIFO: the oldest
    cache.pop_front();
    return true;
  });
  // Each WAL writer holds its zone: each needs a zone of its own.
  std::vector<std::unique_ptr<WritableFile>> wals;
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(auto w, vol_->Create(absl::StrCat("/wal", i), {.kind = FileKind::kWal}));
    ASSERT_OK(w->Append(Pattern(i, 100000)));
    ASSERT_OK(w->Sync());
    wals.push_back(std::move(w));
  }
  EXPECT_EQ(reclaims, 2) << "once for each of the first two WALs; the third found no cache zone";
  EXPECT_TRUE(cache.empty());
  const auto pool = PoolZonesOf(0);
  EXPECT_EQ(pool.size(), 2u);
  EXPECT_TRUE(pool.contains(ZonesOf("/wal0").begin()->second));
  EXPECT_TRUE(pool.contains(ZonesOf("/wal1").begin()->second));
  EXPECT_FALSE(pool.contains(ZonesOf("/wal2").begin()->second)) << "a general zone";
  EXPECT_EQ(ZonesOf("/wal2").begin()->first, 0u);
  EXPECT_TRUE(ZonesWithRole(0, ZoneRole::kCache).empty());
  for (auto& w : wals) ASSERT_OK(w->Close());
  ExpectConsistent(*vol_);
}

TEST_F(PoolTest, CacheThatCannotGiveAZoneBackLetsTheWalSpill) {
  SetUpVolume({1, 0});
  ASSERT_OK_AND_ASSIGN(CacheZone c, vol_->cache_zones().Acquire(0));
  int reclaims = 0;
  vol_->cache_zones().SetReclaimer([&] {
    ++reclaims;
    return false;
  });
  ASSERT_OK(WriteWal("/wal", 100000));
  EXPECT_EQ(reclaims, 1);
  EXPECT_EQ(ZonesOf("/wal").begin()->first, 0u);
  EXPECT_EQ(PoolZonesOf(0), std::set<uint32_t>{c.zone}) << "the WAL is in a general zone";
  ExpectConsistent(*vol_);
}

TEST_F(PoolTest, PoolZonesAreCountedAgainAfterRemountAndLogRolls) {
  // 1 MiB zones of 538 KiB, so the WAL fills some and the log rolls often.
  policy_ = std::make_shared<RecordingPolicy>();
  policy_->SetPoolZones({4});
  policy_->SetDevices({0}, {0});
  FormatAndMount({OpenDev("emu:zn540?zones=32&scale=1/2048&timing=none")},
                 {.placement = policy_});
  ASSERT_OK(WriteWal("/wal", 1536 << 10));
  ASSERT_OK(WriteFile(*vol_, "/sst", Pattern(1, 1 << 20)));
  const std::set<uint32_t> pool = PoolZonesOf(0);
  ASSERT_EQ(pool.size(), 3u);
  ASSERT_NO_FATAL_FAILURE(Remount());
  EXPECT_EQ(PoolZonesOf(0), pool);
  EXPECT_EQ(ViewAtNextAllocation(0).pool_zones, 3u);
  ExpectConsistent(*vol_);
  // Snapshots carry the pool's full zones too.
  for (int i = 0; i < 400; ++i) ASSERT_OK(vol_->CreateDir(absl::StrCat("/d", i)));
  ASSERT_NO_FATAL_FAILURE(Remount());
  EXPECT_EQ(PoolZonesOf(0), pool);
  EXPECT_EQ(ViewAtNextAllocation(0).pool_zones, 3u);
  ExpectConsistent(*vol_);
  EXPECT_TRUE(*ReadFile(*vol_, "/wal") == Pattern(std::hash<std::string>()("/wal"), 1536 << 10));
  // Once reset, they are general zones, also for the next mount.
  ASSERT_OK(vol_->Delete("/wal"));
  EXPECT_TRUE(PoolZonesOf(0).empty());
  ASSERT_NO_FATAL_FAILURE(Remount());
  EXPECT_TRUE(PoolZonesOf(0).empty());
  EXPECT_EQ(ViewAtNextAllocation(0).pool_zones, 0u);
  ExpectConsistent(*vol_);
  ExpectNoLeakedSpace(*vol_);
}

// A policy learns what a device is from the device's own info, the same
// facts every layer reads (DeviceInfo::is_ssd(), cell modes, limits).
TEST_F(PoolTest, DeviceViewsCarryTheDevicesOwnInfo) {
  SetUpVolume({0, 0});
  for (uint32_t d : {0u, 1u}) {
    const DeviceView v = ViewAtNextAllocation(d);
    ASSERT_NE(v.info, nullptr);
    const device::DeviceInfo& info = vol_->devices()[d]->info();
    EXPECT_EQ(v.info->name, info.name);
    EXPECT_EQ(v.info->native_cell_mode, info.native_cell_mode);
    EXPECT_EQ(v.info->max_active_zones, info.max_active_zones);
    EXPECT_EQ(v.is_ssd, info.is_ssd());
  }
  EXPECT_TRUE(ViewAtNextAllocation(0).is_ssd);   // the ZN540
  EXPECT_FALSE(ViewAtNextAllocation(1).is_ssd);  // the HM-SMR disk
}

TEST_F(PoolTest, DeviceViewsCountBytesWrittenAndCacheTheCountBriefly) {
  auto clock = std::make_shared<TestClock>();
  SetUpVolume({0, 0}, {0, 1}, {0, 1}, {.clock = clock});
  const uint64_t before = ViewAtNextAllocation(0).bytes_written;
  ASSERT_OK(WriteFile(*vol_, "/f", Pattern(1, 1 << 20)));
  EXPECT_EQ(ViewAtNextAllocation(0).bytes_written, before) << "the cached count";
  clock->Advance(1'000'000'000);  // past the cache's few milliseconds
  EXPECT_GE(ViewAtNextAllocation(0).bytes_written, before + (1 << 20));
}

TEST_F(PoolTest, CacheZoneIsWrittenAtItsWritePointerAndReadBack) {
  SetUpVolume({2, 0});
  const uint32_t empty = vol_->Space()[0].empty_zones;
  ASSERT_OK_AND_ASSIGN(CacheZone c, vol_->cache_zones().Acquire(0));
  EXPECT_EQ(c.device, 0u);
  EXPECT_EQ(c.capacity, kZnsZoneCapacity);
  EXPECT_EQ(c.start, vol_->devices()[0]->ZoneStart(c.zone));
  EXPECT_EQ(Zone(0, c.zone).role, ZoneRole::kCache);
  EXPECT_TRUE(Zone(0, c.zone).pool);
  EXPECT_EQ(vol_->Space()[0].empty_zones, empty - 1);

  const auto io = [&](auto field) {
    return vol_->devices()[0]->Stats().by_class[static_cast<int>(device::IoClass::kCache)].*field;
  };
  const std::vector<uint8_t> data = Pattern(7, 12288);
  ASSERT_OK(vol_->cache_zones().Write(c, 0, std::span(data).first(8192)));
  EXPECT_EQ(vol_->cache_zones().Write(c, 0, std::span(data).first(4096)).code(),
            absl::StatusCode::kInvalidArgument) << "not at the write pointer";
  EXPECT_EQ(vol_->cache_zones().Write(c, 8192, std::span(data).subspan(8192, 100)).code(),
            absl::StatusCode::kInvalidArgument) << "not whole blocks";
  ASSERT_OK(vol_->cache_zones().Write(c, 8192, std::span(data).subspan(8192)));
  EXPECT_EQ(io(&device::IoCounters::write_bytes), 12288u);

  std::vector<uint8_t> got(12288);
  ASSERT_OK(vol_->cache_zones().Read(c, 0, got));
  EXPECT_TRUE(got == data);
  std::vector<uint8_t> part(5000);
  ASSERT_OK(vol_->cache_zones().Read(c, 100, part));
  EXPECT_TRUE(MatchesPattern(7, 100, part)) << "reads need not be aligned";
  EXPECT_GT(io(&device::IoCounters::read_bytes), 0u);
  EXPECT_EQ(vol_->cache_zones().Read(c, 8192, got).code(), absl::StatusCode::kOutOfRange);

  // Up to its capacity and no further.
  const std::vector<uint8_t> fill(1 << 20, 0xab);
  uint64_t wp = 12288;
  while (wp < c.capacity) {
    const uint64_t n = std::min<uint64_t>(fill.size(), c.capacity - wp);
    ASSERT_OK(vol_->cache_zones().Write(c, wp, std::span(fill).first(n)));
    wp += n;
  }
  EXPECT_EQ(vol_->cache_zones().Write(c, wp, std::span(fill).first(4096)).code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(Zone(0, c.zone).zone.state, device::ZoneState::kFull);

  // GC never touches it, and fsck has nothing to say about it.
  ASSERT_OK(WriteFile(*vol_, "/a", Pattern(1, 300000)));
  ASSERT_OK(WriteFile(*vol_, "/b", Pattern(2, 300000)));
  ASSERT_OK(vol_->Delete("/a"));
  ASSERT_OK(vol_->CollectGarbage(/*force=*/true));
  ASSERT_OK(vol_->cache_zones().Read(c, 0, got));
  EXPECT_TRUE(got == data);
  EXPECT_EQ(Zone(0, c.zone).role, ZoneRole::kCache);
  ExpectConsistent(*vol_);
  EXPECT_EQ(vol_->Space()[0].valid_bytes, 300000u / 4096 * 4096 + 4096) << "only /b";

  // Bad requests.
  EXPECT_EQ(vol_->cache_zones().Acquire(1).status().code(), absl::StatusCode::kResourceExhausted)
      << "no pool on the disk";
  EXPECT_EQ(vol_->cache_zones().Acquire(5).status().code(), absl::StatusCode::kInvalidArgument);
  CacheZone bogus = c;
  bogus.zone = c.zone + 1;
  bogus.start = vol_->devices()[0]->ZoneStart(bogus.zone);
  EXPECT_EQ(vol_->cache_zones().Write(bogus, 0, std::span(fill).first(4096)).code(),
            absl::StatusCode::kFailedPrecondition);

  // Released: reset, empty and general again.
  const uint64_t resets = ZoneResets(*vol_);
  ASSERT_OK(vol_->cache_zones().Release(c));
  EXPECT_EQ(ZoneResets(*vol_), resets + 1);
  EXPECT_EQ(Zone(0, c.zone).role, ZoneRole::kFree);
  EXPECT_EQ(Zone(0, c.zone).zone.state, device::ZoneState::kEmpty);
  EXPECT_FALSE(Zone(0, c.zone).pool);
  EXPECT_EQ(vol_->cache_zones().Read(c, 0, got).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(vol_->cache_zones().Release(c).code(), absl::StatusCode::kFailedPrecondition);
  ExpectConsistent(*vol_);
}

TEST_F(PoolTest, LeftoverCacheZonesAreResetAtMountAndNeverCountedAsData) {
  SetUpVolume({3, 0});
  // A pool zone whose group was logged, then reset: the cache may get it
  // next, and the stale record must not make it a data zone again.
  ASSERT_OK(WriteWal("/wal", 100000));
  ASSERT_OK(vol_->Delete("/wal"));
  ASSERT_OK(WriteFile(*vol_, "/f", Pattern(std::hash<std::string>()("/f"), 300000)));
  std::set<uint32_t> cached;
  for (int i = 0; i < 2; ++i) {
    ASSERT_OK_AND_ASSIGN(CacheZone c, vol_->cache_zones().Acquire(0));
    ASSERT_OK(vol_->cache_zones().Write(c, 0, Pattern(i, 1 << 20)));
    cached.insert(c.zone);
  }
  const std::map<std::string, uint64_t> files = {{"/f", 300000}};
  auto expect_reclaimed = [&](const std::string& when) {
    SCOPED_TRACE(when);
    for (uint32_t zone : cached) {
      const ZoneReport z = Zone(0, zone);
      EXPECT_EQ(z.role, ZoneRole::kFree) << zone;
      EXPECT_EQ(z.zone.state, device::ZoneState::kEmpty) << zone;
      EXPECT_EQ(z.written_bytes, 0u) << zone;
      EXPECT_FALSE(z.pool) << zone;
    }
    EXPECT_TRUE(PoolZonesOf(0).empty());
    // Nothing of the cache's megabytes counts as written data (the probes
    // below leave a few dead blocks).
    EXPECT_LT(vol_->Space()[0].written_bytes, vol_->Space()[0].valid_bytes + (64 << 10));
    EXPECT_EQ(ViewAtNextAllocation(0).pool_zones, 0u);
    ExpectFilesIntact(*vol_, files);
    ExpectConsistent(*vol_);
    ExpectNoLeakedSpace(*vol_);
  };
  ASSERT_NO_FATAL_FAILURE(Remount());
  expect_reclaimed("after a clean unmount");

  // And after a power cut with cache data on the media.
  cached.clear();
  for (int i = 0; i < 2; ++i) {
    ASSERT_OK_AND_ASSIGN(CacheZone c, vol_->cache_zones().Acquire(0));
    ASSERT_OK(vol_->cache_zones().Write(c, 0, Pattern(i, 1 << 20)));
    cached.insert(c.zone);
  }
  ASSERT_OK(vol_->devices()[0]->Flush({device::IoClass::kCache}));
  Crash(devs_, vol_);
  ASSERT_NO_FATAL_FAILURE(Mount());
  expect_reclaimed("after a crash");
  // The pool is whole again.
  for (int i = 0; i < 3; ++i) ASSERT_OK(vol_->cache_zones().Acquire(0));
}

TEST_F(PoolTest, ReadOnlyMountDoesNotReportLeftoverCacheZones) {
  SetUpVolume({2, 0});
  ASSERT_OK_AND_ASSIGN(CacheZone c, vol_->cache_zones().Acquire(0));
  ASSERT_OK(vol_->cache_zones().Write(c, 0, Pattern(1, 1 << 20)));
  vol_.reset();
  options_.read_only = true;
  ASSERT_NO_FATAL_FAILURE(Mount());
  ExpectConsistent(*vol_);
  EXPECT_EQ(vol_->cache_zones().Acquire(0).status().code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace zonestack::zfs
