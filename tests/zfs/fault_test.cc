// zfs under device faults (device/fault_injection.h): an I/O error reaches
// the caller naming the file; a zone that goes read-only is retired, the
// write goes on in another zone and the zone's live data moves out; a zone
// that goes offline is retired and every read of data it held fails naming
// the file. No read ever returns anything but the data written.
#include <set>

#include <gtest/gtest.h>

#include "device/fault_injection.h"
#include "device/zone_error.h"
#include "test_clock.h"
#include "zfs_test_util.h"

namespace zonestack::zfs {
namespace {

using namespace testing_util;
using device::FaultInjectingDevice;
using device::FaultKind;
using device::FaultOn;
using device::FaultSpec;
using device::ZoneError;
using device::ZoneState;

// Zone 0 holds the label and zones 1-2 the metadata log: faults aimed at
// data zones start here.
constexpr uint32_t kFirstDataZone = 3;

FileHint Sst(Lifetime lifetime) {
  return {.kind = FileKind::kSst, .lifetime = lifetime};
}

bool Mentions(const absl::Status& s, const std::string& text) {
  return std::string(s.message()).find(text) != std::string::npos;
}

class FaultTest : public VolumeTest {
 protected:
  void SetUp() override {
    fault_ = std::make_shared<FaultInjectingDevice>(OpenDev(ZnsUri(16)));
    // No background GC runs but the failed-zone handling, which tests wait
    // for, moving the clock.
    FormatAndMount({fault_}, {.gc_free_zone_threshold = -1, .clock = clock_});
  }

  FaultSpec DataZones(FaultKind kind) const {
    return {.kind = kind, .first_zone = kFirstDataZone};
  }

  // The zones holding `path`'s data.
  std::set<uint32_t> ZonesOf(const std::string& path) const {
    std::set<uint32_t> zones;
    for (const FileInfo& f : vol_->Files()) {
      if (f.names.empty() || f.names[0] != path) continue;
      for (const ExtentInfo& x : f.extents) zones.insert(x.zone);
    }
    return zones;
  }

  ZoneReport ReportOf(uint32_t zone) const {
    for (const ZoneReport& z : vol_->Zones()) {
      if (z.zone.index == zone) return z;
    }
    ADD_FAILURE() << "no zone " << zone;
    return {};
  }

  std::shared_ptr<TestClock> clock_ = std::make_shared<TestClock>();
  std::shared_ptr<FaultInjectingDevice> fault_;
};

TEST_F(FaultTest, WriteErrorReachesTheWriterAndTheDataIsKept) {
  const auto data = Pattern(1, 300000);
  ASSERT_OK_AND_ASSIGN(auto f, vol_->Create("/w", {}));
  ASSERT_OK(f->Append(data));
  fault_->AddFault(DataZones(FaultKind::kWriteError));
  absl::Status s = f->Sync();
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(Mentions(s, "injected")) << s;
  EXPECT_TRUE(Mentions(s, "/w")) << s;
  EXPECT_EQ(fault_->injected(), 1u);
  // The data stayed in the writer: once the device writes again, a retry
  // makes it durable.
  ASSERT_OK(f->Sync());
  ASSERT_OK(f->Close());
  f.reset();
  ASSERT_OK_AND_ASSIGN(auto got, ReadFile(*vol_, "/w"));
  EXPECT_TRUE(got == data);
  ExpectConsistent(*vol_);
}

TEST_F(FaultTest, ReadErrorReachesTheReaderNamingTheFile) {
  const auto data = Pattern(2, 200000);
  ASSERT_OK(WriteFile(*vol_, "/r", data));
  fault_->AddFault(DataZones(FaultKind::kReadError));
  auto bad = ReadFile(*vol_, "/r");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(absl::IsUnavailable(bad.status())) << bad.status();
  EXPECT_TRUE(Mentions(bad.status(), "/r")) << bad.status();
  EXPECT_TRUE(Mentions(bad.status(), "injected")) << bad.status();
  // One failed read changes nothing: the next one returns the data.
  ASSERT_OK_AND_ASSIGN(auto got, ReadFile(*vol_, "/r"));
  EXPECT_TRUE(got == data);
}

TEST_F(FaultTest, ZoneGoingReadOnlyMidWriteIsRetiredAndItsDataMoved) {
  // The file's zone fails at its third write: two 1 MiB batches landed in
  // it, the rest must go elsewhere.
  FaultSpec ro = DataZones(FaultKind::kReadOnly);
  ro.after = 2;
  fault_->AddFault(ro);
  const auto data = Pattern(3, 3'500'000);
  ASSERT_OK(WriteFile(*vol_, "/ro", data, {}, 1 << 20));
  ASSERT_EQ(fault_->injected(), 1u);
  uint32_t failed = UINT32_MAX;
  for (const ZoneReport& z : vol_->Zones()) {
    if (z.zone.state == ZoneState::kReadOnly) failed = z.zone.index;
  }
  ASSERT_NE(failed, UINT32_MAX);
  EXPECT_NE(ReportOf(failed).role, ZoneRole::kData) << "a read-only zone stays a data zone";
  // The file reads back whole at once, part of it from the read-only zone.
  ASSERT_OK_AND_ASSIGN(auto got, ReadFile(*vol_, "/ro"));
  EXPECT_TRUE(got == data);
  // The GC thread moves the live data out of the read-only zone.
  ASSERT_TRUE(WaitUntilEmptied(*clock_, *vol_, failed));
  ASSERT_OK_AND_ASSIGN(got, ReadFile(*vol_, "/ro"));
  EXPECT_TRUE(got == data);
  ExpectConsistent(*vol_);
  // The retired zone is never handed out again, before or after a remount.
  ASSERT_NO_FATAL_FAILURE(Remount());
  for (int i = 0; i < 6; ++i) {
    const std::string path = "/more" + std::to_string(i);
    ASSERT_OK(WriteFile(*vol_, path, Pattern(10 + i, 2'000'000)));
    EXPECT_FALSE(ZonesOf(path).contains(failed)) << path;
  }
  EXPECT_EQ(ReportOf(failed).zone.state, ZoneState::kReadOnly);
  ASSERT_OK_AND_ASSIGN(got, ReadFile(*vol_, "/ro"));
  EXPECT_TRUE(got == data);
  ExpectConsistent(*vol_);
}

TEST_F(FaultTest, ZoneFoundReadOnlyAtMountHasItsDataMoved) {
  const auto data = Pattern(4, 1'000'000);
  ASSERT_OK(WriteFile(*vol_, "/old", data));
  const uint32_t zone = *ZonesOf("/old").begin();
  vol_.reset();
  fault_->SetZoneReadOnly(zone);
  ASSERT_NO_FATAL_FAILURE(Mount());
  ASSERT_TRUE(WaitUntilEmptied(*clock_, *vol_, zone));
  ASSERT_OK_AND_ASSIGN(auto got, ReadFile(*vol_, "/old"));
  EXPECT_TRUE(got == data);
  ExpectConsistent(*vol_);
}

TEST_F(FaultTest, ZoneGoingOfflineWithLiveDataIsReportedByName) {
  const auto lost = Pattern(5, 500000);
  const auto kept = Pattern(6, 500000);
  // Different lifetimes: different zones.
  ASSERT_OK(WriteFile(*vol_, "/lost", lost, Sst(Lifetime::kShort)));
  ASSERT_OK(WriteFile(*vol_, "/kept", kept, Sst(Lifetime::kExtreme)));
  const std::set<uint32_t> zones = ZonesOf("/lost");
  ASSERT_EQ(zones.size(), 1u);
  const uint32_t zone = *zones.begin();
  ASSERT_FALSE(ZonesOf("/kept").contains(zone));
  fault_->SetZoneOffline(zone);
  for (int pass = 0; pass < 2; ++pass) {  // mounted, then after a remount
    SCOPED_TRACE(pass == 0 ? "mounted" : "remounted");
    auto bad = ReadFile(*vol_, "/lost");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(device::GetZoneError(bad.status()), ZoneError::kOffline) << bad.status();
    EXPECT_TRUE(Mentions(bad.status(), "/lost")) << bad.status();
    EXPECT_TRUE(Mentions(bad.status(), "offline")) << bad.status();
    ASSERT_OK_AND_ASSIGN(auto got, ReadFile(*vol_, "/kept"));
    EXPECT_TRUE(got == kept);
    // fsck names the file too.
    bool named = false;
    for (const std::string& p : vol_->Check()) named |= p.find("/lost") != std::string::npos;
    EXPECT_TRUE(named);
    EXPECT_NE(ReportOf(zone).role, ZoneRole::kData);
    if (pass == 0) {
      ASSERT_NO_FATAL_FAILURE(Remount());
    }
  }
  // New data never goes to the offline zone.
  for (int i = 0; i < 6; ++i) {
    const std::string path = "/new" + std::to_string(i);
    ASSERT_OK(WriteFile(*vol_, path, Pattern(20 + i, 2'000'000)));
    EXPECT_FALSE(ZonesOf(path).contains(zone)) << path;
  }
}

TEST_F(FaultTest, ZoneGoingOfflineUnderAWriter) {
  // A writer whose zone goes offline before it wrote anything there loses
  // nothing: the write goes to another zone.
  FaultSpec off = DataZones(FaultKind::kOffline);
  fault_->AddFault(off);
  const auto fresh = Pattern(7, 600000);
  ASSERT_OK(WriteFile(*vol_, "/fresh", fresh));
  ASSERT_EQ(fault_->injected(), 1u);
  ASSERT_OK_AND_ASSIGN(auto got, ReadFile(*vol_, "/fresh"));
  EXPECT_TRUE(got == fresh);
  // A writer with synced data in a zone that then goes offline is told so.
  ASSERT_OK_AND_ASSIGN(auto f, vol_->Create("/half", Sst(Lifetime::kLong)));
  ASSERT_OK(f->Append(Pattern(8, 100000)));
  ASSERT_OK(f->Sync());
  const uint32_t zone = *ZonesOf("/half").begin();
  fault_->SetZoneOffline(zone);
  ASSERT_OK(f->Append(Pattern(9, 100000)));
  absl::Status s = f->Sync();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(device::GetZoneError(s), ZoneError::kOffline) << s;
  EXPECT_TRUE(Mentions(s, "/half")) << s;
  (void)f->Close();  // its data is lost; closing reports nothing new
  f.reset();
  EXPECT_FALSE(ReadFile(*vol_, "/half").ok());
  ASSERT_OK_AND_ASSIGN(got, ReadFile(*vol_, "/fresh"));
  EXPECT_TRUE(got == fresh);
}

TEST_F(FaultTest, GcDoesNotTakeAFailedReadForACopy) {
  // Two files fill zones together; deleting one leaves GC victims.
  constexpr int kFiles = 30;
  constexpr uint64_t kSize = 300000;
  for (int i = 0; i < kFiles; ++i) {
    ASSERT_OK(WriteFile(*vol_, "/g" + std::to_string(i), Pattern(100 + i, kSize)));
  }
  for (int i = 1; i < kFiles; i += 2) ASSERT_OK(vol_->Delete("/g" + std::to_string(i)));
  FaultSpec reads = DataZones(FaultKind::kReadError);
  reads.count = 0;  // every read fails
  fault_->AddFault(reads);
  const uint64_t resets = ZoneResets(*vol_);
  ASSERT_OK_AND_ASSIGN(GcStats stats, vol_->CollectGarbage(/*force=*/true));
  EXPECT_EQ(stats.zones_reclaimed, 0u);
  EXPECT_EQ(ZoneResets(*vol_), resets) << "a zone was reset though its data was not copied";
  fault_->ClearFaults();
  for (int i = 0; i < kFiles; i += 2) {
    ASSERT_OK_AND_ASSIGN(auto got, ReadFile(*vol_, "/g" + std::to_string(i)));
    EXPECT_TRUE(got == Pattern(100 + i, kSize)) << i;
  }
  ExpectConsistent(*vol_);
  // With the device healthy again GC reclaims, and nothing is lost.
  ASSERT_OK_AND_ASSIGN(stats, vol_->CollectGarbage(/*force=*/true));
  EXPECT_GT(stats.zones_reclaimed, 0u);
  for (int i = 0; i < kFiles; i += 2) {
    ASSERT_OK_AND_ASSIGN(auto got, ReadFile(*vol_, "/g" + std::to_string(i)));
    EXPECT_TRUE(got == Pattern(100 + i, kSize)) << i;
  }
}

}  // namespace
}  // namespace zonestack::zfs
