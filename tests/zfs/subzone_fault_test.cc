// zfs's split zones under device faults (device/fault_injection.h) on the
// emulated splitzns device: a subzone writer's failed write reaches it and
// a retry makes the data durable; a split zone that goes read-only under a
// subzone writer is retired, the writer goes on elsewhere and GC moves the
// zone's live files out; a subzone reset that fails because its zone went
// read-only loses none of the zone's other files. Every file closed (or
// synced) before the fault reads back whole, before and after a remount.
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "device/fault_injection.h"
#include "test_clock.h"
#include "subzone_policy.h"
#include "zfs_test_util.h"

namespace zonestack::zfs {
namespace {

using namespace testing_util;
using device::FaultInjectingDevice;
using device::FaultKind;
using device::FaultOn;
using device::FaultSpec;
using device::ZoneState;

// Records the outcome of every subzone reset, so a test can tell that the
// fault it armed hit the reset and not another command.
class ResetRecordingDevice : public FaultInjectingDevice {
 public:
  using FaultInjectingDevice::FaultInjectingDevice;
  absl::Status ResetSubzone(uint32_t zone, uint32_t subzone,
                            const device::IoContext& ctx) override {
    absl::Status s = FaultInjectingDevice::ResetSubzone(zone, subzone, ctx);
    absl::MutexLock lock(&mu_);
    (s.ok() ? resets_ok_ : resets_failed_)[zone] += 1;
    return s;
  }
  int ResetsFailed(uint32_t zone) const {
    absl::MutexLock lock(&mu_);
    auto it = resets_failed_.find(zone);
    return it == resets_failed_.end() ? 0 : it->second;
  }

 private:
  mutable absl::Mutex mu_;
  std::map<uint32_t, int> resets_ok_ ABSL_GUARDED_BY(mu_), resets_failed_ ABSL_GUARDED_BY(mu_);
};

bool Mentions(const absl::Status& s, const std::string& text) {
  return std::string(s.message()).find(text) != std::string::npos;
}

class SubzoneFaultTest : public VolumeTest {
 protected:
  void SetUp() override {
    // splitzns at 1/64: 8 MiB zones of 16 subzones of 512 KiB.
    fault_ = std::make_shared<ResetRecordingDevice>(
        OpenDev("emu:splitzns?zones=24&scale=1/64&timing=none"));
    // No background GC but the failed-zone handling, which tests wait for
    // by moving the clock.
    FormatAndMount({fault_}, {.placement = std::make_shared<SubzonePolicy>(),
                              .gc_free_zone_threshold = -1,
                              .clock = clock_});
  }

  void Write(const std::string& path, uint64_t size) {
    ASSERT_OK(WriteFile(*vol_, path, Pattern(std::hash<std::string>()(path), size),
                        {.name = path, .kind = FileKind::kSst}));
    files_[path] = size;
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

  bool IsSplit(uint32_t zone) const {
    auto z = fault_->ReportZone(zone);
    return z.ok() && z->IsSplit();
  }

  FaultSpec On(uint32_t zone, FaultKind kind, FaultOn on = FaultOn::kWrite) const {
    return {.kind = kind, .first_zone = zone, .last_zone = zone, .on = on};
  }

  std::shared_ptr<TestClock> clock_ = std::make_shared<TestClock>();
  std::shared_ptr<ResetRecordingDevice> fault_;
  std::map<std::string, uint64_t> files_;
};

TEST_F(SubzoneFaultTest, FailedSubzoneWriteReachesTheWriterAndARetryKeepsTheData) {
  for (int i = 0; i < 3; ++i) Write(absl::StrCat("/sub-closed", i), 300 << 10);
  const std::string path = "/sub-w";
  const auto data = Pattern(std::hash<std::string>()(path), 256 << 10);
  ASSERT_OK_AND_ASSIGN(auto f, vol_->Create(path, {.name = path, .kind = FileKind::kSst}));
  ASSERT_OK(f->Append(std::span(data).first(64 << 10)));
  ASSERT_OK(f->Sync());
  const std::set<uint32_t> zones = ZonesOf(path);
  ASSERT_EQ(zones.size(), 1u);
  const uint32_t zone = *zones.begin();
  ASSERT_TRUE(IsSplit(zone));
  // The next write to that split zone fails.
  fault_->AddFault(On(zone, FaultKind::kWriteError));
  ASSERT_OK(f->Append(std::span(data).subspan(64 << 10)));
  absl::Status s = f->Sync();
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(Mentions(s, "injected")) << s;
  EXPECT_TRUE(Mentions(s, path)) << s;
  EXPECT_EQ(fault_->injected(), 1u);
  // The data stayed in the writer: the retry makes it durable.
  ASSERT_OK(f->Sync());
  ASSERT_OK(f->Close());
  f.reset();
  files_[path] = data.size();
  ExpectFilesIntact(*vol_, files_);
  ExpectConsistent(*vol_);
  ASSERT_NO_FATAL_FAILURE(Remount());
  ExpectFilesIntact(*vol_, files_);
  ExpectConsistent(*vol_, " after a remount");
}

TEST_F(SubzoneFaultTest, SplitZoneGoingReadOnlyUnderASubzoneWriterIsRetiredAndEmptied) {
  for (int i = 0; i < 3; ++i) Write(absl::StrCat("/sub-closed", i), 300 << 10);
  const std::string path = "/sub-ro";
  const auto data = Pattern(std::hash<std::string>()(path), 400 << 10);
  ASSERT_OK_AND_ASSIGN(auto f, vol_->Create(path, {.name = path, .kind = FileKind::kSst}));
  ASSERT_OK(f->Append(std::span(data).first(128 << 10)));
  ASSERT_OK(f->Sync());
  const uint32_t zone = *ZonesOf(path).begin();
  ASSERT_TRUE(IsSplit(zone));
  // The closed files share the writer's split zone (the greedy lease).
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(ZonesOf(absl::StrCat("/sub-closed", i)).contains(zone));
  }
  fault_->AddFault(On(zone, FaultKind::kReadOnly));
  ASSERT_OK(f->Append(std::span(data).subspan(128 << 10)));
  ASSERT_OK(f->Sync());  // the zone is retired and the write goes on elsewhere
  ASSERT_OK(f->Close());
  f.reset();
  EXPECT_EQ(fault_->injected(), 1u);
  files_[path] = data.size();
  ASSERT_OK_AND_ASSIGN(auto report, fault_->ReportZone(zone));
  EXPECT_EQ(report.state, ZoneState::kReadOnly);
  // Everything reads back, part of it from the read-only zone.
  ExpectFilesIntact(*vol_, files_);
  // The GC thread moves the live files out of the read-only split zone.
  ASSERT_TRUE(WaitUntilEmptied(*clock_, *vol_, zone));
  ExpectFilesIntact(*vol_, files_);
  ExpectConsistent(*vol_);
  ASSERT_NO_FATAL_FAILURE(Remount());
  ExpectFilesIntact(*vol_, files_);
  ExpectConsistent(*vol_, " after a remount");
  // The retired zone takes no new file.
  for (int i = 0; i < 4; ++i) {
    const std::string more = absl::StrCat("/sub-more", i);
    Write(more, 200 << 10);
    EXPECT_FALSE(ZonesOf(more).contains(zone)) << more;
  }
}

TEST_F(SubzoneFaultTest, FailedSubzoneResetLosesNoneOfTheSplitZonesOtherFiles) {
  for (int i = 0; i < 4; ++i) Write(absl::StrCat("/sub", i), 300 << 10);
  const uint32_t zone = *ZonesOf("/sub0").begin();
  ASSERT_TRUE(IsSplit(zone));
  for (int i = 1; i < 4; ++i) ASSERT_TRUE(ZonesOf(absl::StrCat("/sub", i)).contains(zone));
  // The split zone fails read-only at its next command of any kind: the
  // reset of /sub0's subzone, which its deletion causes.
  fault_->AddFault(On(zone, FaultKind::kReadOnly, FaultOn::kAny));
  ASSERT_OK(vol_->Delete("/sub0"));
  files_.erase("/sub0");
  // The reset runs once the deletion is durable: at the latest by the
  // unmount and the mount's cleanup of dead subzones.
  ASSERT_NO_FATAL_FAILURE(Remount());
  EXPECT_EQ(fault_->injected(), 1u);
  EXPECT_GE(fault_->ResetsFailed(zone), 1) << "the fault did not hit the subzone's reset";
  ASSERT_OK_AND_ASSIGN(auto report, fault_->ReportZone(zone));
  EXPECT_EQ(report.state, ZoneState::kReadOnly);
  ExpectFilesIntact(*vol_, files_);
  EXPECT_FALSE(ReadFile(*vol_, "/sub0").ok());
  ASSERT_TRUE(WaitUntilEmptied(*clock_, *vol_, zone));
  ExpectFilesIntact(*vol_, files_);
  ExpectConsistent(*vol_);
  ASSERT_NO_FATAL_FAILURE(Remount());
  ExpectFilesIntact(*vol_, files_);
  ExpectConsistent(*vol_, " after a second remount");
}

}  // namespace
}  // namespace zonestack::zfs
