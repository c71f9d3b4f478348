// Durability of the emulator: what survives destroying and reopening a
// file-backed device, what a power cut (EmulatedDevice::PowerCut) keeps and
// drops, the backings themselves, and the errors OpenDevice gives for bad
// URIs and mismatched files (docs/format.md, "Emulator backing file").
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "device/backing.h"
#include "device/emulated_device.h"
#include "device/zone.h"
#include "device/zone_error.h"
#include "device/zoned_device.h"
#include "device_test_util.h"

namespace zonestack::device {
namespace {

using testing_util::Contains;
using testing_util::Pattern;

constexpr uint64_t KiB = 1024;
constexpr uint64_t kBlock = 4096;
const IoContext kCtx;

std::vector<uint8_t> Zeroes(uint64_t len) { return std::vector<uint8_t>(len, 0); }

// A fresh directory per test, removed afterwards.
class TempDirTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = testing::TempDir() + "zonestack_backing.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr) << tmpl;
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

 private:
  std::string dir_;
};

// Device helpers over a URI; `dev_` is the device under test.
class DeviceTest : public TempDirTest {
 protected:
  // zn540 at 1/256: 8 MiB zones holding 4411392 bytes, 14 open/active.
  static std::string Uri(const std::string& extra) {
    return "emu:zn540?zones=8&scale=1/256&timing=none" + extra;
  }
  std::string FileUri(const std::string& extra = "") const {
    return Uri("&file=" + Path("dev.img") + extra);
  }

  void Open(const std::string& uri) {
    dev_.reset();  // a clean shutdown of the previous device first
    auto dev = OpenDevice(uri);
    ASSERT_TRUE(dev.ok()) << dev.status();
    dev_ = std::move(*dev);
    emu_ = dynamic_cast<EmulatedDevice*>(dev_.get());
    ASSERT_NE(emu_, nullptr);
  }
  // Destroys the device (a clean shutdown) and opens `uri` again.
  void Reopen(const std::string& uri) { Open(uri); }

  uint64_t Start(uint32_t zone) { return dev_->ZoneStart(zone); }
  ZoneInfo Report(uint32_t zone) {
    auto z = dev_->ReportZone(zone);
    EXPECT_TRUE(z.ok()) << z.status();
    return z.ok() ? *z : ZoneInfo{};
  }
  ZoneState State(uint32_t zone) { return Report(zone).state; }
  uint64_t Written(uint32_t zone) { return Report(zone).write_pointer - Start(zone); }

  absl::Status WriteAt(uint64_t offset, uint64_t len, uint8_t seed) {
    const std::vector<uint8_t> data = Pattern(len, seed);
    return dev_->Write(offset, data, kCtx);
  }
  std::vector<uint8_t> ReadBytes(uint64_t offset, uint64_t len) {
    std::vector<uint8_t> buf(len);
    const absl::Status s = dev_->Read(offset, buf, kCtx);
    EXPECT_TRUE(s.ok()) << s;
    return buf;
  }

  std::unique_ptr<ZonedDevice> dev_;
  EmulatedDevice* emu_ = nullptr;
};

// --- Persistence across reopen (file backing) -------------------------------

using PersistenceTest = DeviceTest;

TEST_F(PersistenceTest, DataSurvivesReopen) {
  Open(FileUri());
  ASSERT_OK(WriteAt(Start(0), 16 * KiB, 1));
  ASSERT_OK(WriteAt(Start(3), 8 * KiB, 2));
  Reopen(FileUri());
  EXPECT_EQ(ReadBytes(Start(0), 16 * KiB), Pattern(16 * KiB, 1));
  EXPECT_EQ(ReadBytes(Start(3), 8 * KiB), Pattern(8 * KiB, 2));
}

TEST_F(PersistenceTest, UntouchedZonesReopenEmpty) {
  Open(FileUri());
  ASSERT_OK(WriteAt(Start(0), kBlock, 1));
  Reopen(FileUri());
  for (uint32_t z = 1; z < 8; ++z) {
    EXPECT_EQ(State(z), ZoneState::kEmpty) << "zone " << z;
    EXPECT_EQ(Written(z), 0u) << "zone " << z;
  }
}

TEST_F(PersistenceTest, OpenZoneReopensClosedAtItsWritePointer) {
  Open(FileUri());
  ASSERT_OK(WriteAt(Start(2), 3 * kBlock, 1));
  ASSERT_EQ(State(2), ZoneState::kImplicitlyOpened);
  Reopen(FileUri());
  EXPECT_EQ(State(2), ZoneState::kClosed);
  EXPECT_EQ(Written(2), 3 * kBlock);
}

TEST_F(PersistenceTest, ReopenedZoneContinuesAtItsWritePointer) {
  Open(FileUri());
  ASSERT_OK(WriteAt(Start(2), 3 * kBlock, 1));
  Reopen(FileUri());
  ASSERT_OK(WriteAt(Start(2) + 3 * kBlock, kBlock, 2));
  EXPECT_EQ(ReadBytes(Start(2), 3 * kBlock), Pattern(3 * kBlock, 1));
  EXPECT_EQ(ReadBytes(Start(2) + 3 * kBlock, kBlock), Pattern(kBlock, 2));
}

TEST_F(PersistenceTest, ClosedZoneReopensClosed) {
  Open(FileUri());
  ASSERT_OK(WriteAt(Start(1), kBlock, 1));
  ASSERT_OK(dev_->CloseZone(1, kCtx));
  Reopen(FileUri());
  EXPECT_EQ(State(1), ZoneState::kClosed);
  EXPECT_EQ(Written(1), kBlock);
}

TEST_F(PersistenceTest, ZoneFilledByWritesReopensFull) {
  Open(FileUri());
  const uint64_t cap = Report(4).capacity;
  ASSERT_OK(WriteAt(Start(4), cap, 3));
  ASSERT_EQ(State(4), ZoneState::kFull);
  Reopen(FileUri());
  EXPECT_EQ(State(4), ZoneState::kFull);
  EXPECT_EQ(Written(4), cap);
  const std::vector<uint8_t> data = Pattern(cap, 3);
  EXPECT_EQ(ReadBytes(Start(4) + cap - kBlock, kBlock),
            std::vector<uint8_t>(data.end() - kBlock, data.end()));
}

TEST_F(PersistenceTest, FinishedZoneReopensFull) {
  Open(FileUri());
  ASSERT_OK(WriteAt(Start(5), 2 * kBlock, 4));
  ASSERT_OK(dev_->FinishZone(5, kCtx));
  Reopen(FileUri());
  EXPECT_EQ(State(5), ZoneState::kFull);
  EXPECT_EQ(Written(5), Report(5).capacity);
  EXPECT_EQ(ReadBytes(Start(5), 2 * kBlock), Pattern(2 * kBlock, 4));
}

TEST_F(PersistenceTest, ResetZoneReopensEmptyWithoutItsOldData) {
  Open(FileUri());
  ASSERT_OK(WriteAt(Start(6), 2 * kBlock, 5));
  ASSERT_OK(dev_->Flush(kCtx));
  ASSERT_OK(dev_->ResetZone(6, kCtx));
  Reopen(FileUri());
  EXPECT_EQ(State(6), ZoneState::kEmpty);
  EXPECT_EQ(ReadBytes(Start(6), 2 * kBlock), Zeroes(2 * kBlock));
}

TEST_F(PersistenceTest, ConventionalZoneDataSurvivesReopen) {
  // Unflushed conventional blocks sit in the write cache; a clean shutdown
  // flushes them.
  Open(FileUri("&conv=2"));
  ASSERT_OK(WriteAt(Start(1) + 4 * kBlock, kBlock, 6));
  Reopen(FileUri("&conv=2"));
  EXPECT_EQ(ReadBytes(Start(1) + 4 * kBlock, kBlock), Pattern(kBlock, 6));
  EXPECT_EQ(State(1), ZoneState::kNotWritePointer);
}

TEST_F(PersistenceTest, CellModeAndCapacitySurviveReopen) {
  const std::string uri =
      "emu:znh2?zones=4&scale=1/256&timing=none&file=" + Path("hzns.img");
  Open(uri);
  ASSERT_OK(dev_->OpenZone(1, CellMode::kQlc, kCtx));
  ASSERT_OK(WriteAt(Start(1), kBlock, 1));
  const ZoneInfo before = Report(1);
  ASSERT_EQ(before.cell_mode, CellMode::kQlc);
  Reopen(uri);
  const ZoneInfo after = Report(1);
  EXPECT_EQ(after.cell_mode, CellMode::kQlc);
  EXPECT_EQ(after.capacity, before.capacity);
  EXPECT_EQ(after.state, ZoneState::kClosed);
}

TEST_F(PersistenceTest, ReadOnlyAndOfflineZonesSurviveReopen) {
  Open(FileUri());
  ASSERT_OK(WriteAt(Start(2), kBlock, 1));
  emu_->SetZoneReadOnly(2);
  emu_->SetZoneOffline(3);
  Reopen(FileUri());
  EXPECT_EQ(State(2), ZoneState::kReadOnly);
  EXPECT_EQ(Written(2), kBlock);
  EXPECT_EQ(State(3), ZoneState::kOffline);
}

TEST_F(PersistenceTest, ReopenedClosedZonesCountAgainstActiveLimit) {
  const std::string limits = "&max_open=2&max_active=3";
  Open(FileUri(limits));
  for (uint32_t z = 0; z < 3; ++z) ASSERT_OK(WriteAt(Start(z), kBlock, 1));
  Reopen(FileUri(limits));
  EXPECT_ZONE_ERROR(WriteAt(Start(3), kBlock, 1), ZoneError::kTooManyActive);
  EXPECT_OK(WriteAt(Start(0) + kBlock, kBlock, 1));  // already active
}

TEST_F(PersistenceTest, ReopenWithDifferentGeometryFailsNamingBoth) {
  Open(FileUri());
  dev_.reset();
  const std::string other =
      "emu:zn540?zones=16&scale=1/256&timing=none&file=" + Path("dev.img");
  auto dev = OpenDevice(other);
  ASSERT_FALSE(dev.ok());
  EXPECT_EQ(dev.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(dev.status(), Path("dev.img"))) << dev.status();
  EXPECT_TRUE(Contains(dev.status(), "holds a device of 8 zones")) << dev.status();
  EXPECT_TRUE(Contains(dev.status(), "asks for 16 zones")) << dev.status();
}

TEST_F(PersistenceTest, ReopenWithDifferentZoneSizeFails) {
  Open(FileUri());
  dev_.reset();
  auto dev = OpenDevice("emu:zn540?zones=8&scale=1/128&timing=none&file=" +
                        Path("dev.img"));
  ASSERT_FALSE(dev.ok());
  EXPECT_TRUE(Contains(dev.status(), "8388608 bytes")) << dev.status();
  EXPECT_TRUE(Contains(dev.status(), "16777216 bytes")) << dev.status();
}

TEST_F(PersistenceTest, NonDeviceFileFailsWithBadMagic) {
  const std::string path = Path("notes.txt");
  std::ofstream(path) << "not a zoned device, just some text\n";
  auto dev = OpenDevice(Uri("&file=" + path));
  ASSERT_FALSE(dev.ok());
  EXPECT_EQ(dev.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(dev.status(), "bad magic")) << dev.status();
  EXPECT_TRUE(Contains(dev.status(), path)) << dev.status();
}

// What a process death keeps: process_death_test.cc.

// --- Power cut, on both backings --------------------------------------------

enum class BackingKind { kMemory, kFile };

class PowerCutTest : public DeviceTest,
                     public testing::WithParamInterface<BackingKind> {
 protected:
  // Zones 0 and 1 are conventional; 2..7 have write pointers.
  std::string TestUri(const std::string& extra = "") const {
    const std::string conv = "&conv=2" + extra;
    return GetParam() == BackingKind::kFile ? FileUri(conv) : Uri(conv);
  }
  void SetUp() override {
    DeviceTest::SetUp();
    Open(TestUri());
  }
};

INSTANTIATE_TEST_SUITE_P(Backings, PowerCutTest,
                         testing::Values(BackingKind::kMemory, BackingKind::kFile),
                         [](const testing::TestParamInfo<BackingKind>& p) {
                           return p.param == BackingKind::kFile ? "File" : "Memory";
                         });

TEST_P(PowerCutTest, KeepsWritesMadeBeforeFlush) {
  ASSERT_OK(WriteAt(Start(2), 3 * kBlock, 1));
  ASSERT_OK(dev_->Flush(kCtx));
  emu_->PowerCut();
  EXPECT_EQ(Written(2), 3 * kBlock);
  EXPECT_EQ(ReadBytes(Start(2), 3 * kBlock), Pattern(3 * kBlock, 1));
}

TEST_P(PowerCutTest, RollsWritePointerBackToDurableWritePointer) {
  ASSERT_OK(WriteAt(Start(2), 2 * kBlock, 1));
  ASSERT_OK(dev_->Flush(kCtx));
  ASSERT_OK(WriteAt(Start(2) + 2 * kBlock, 3 * kBlock, 2));
  emu_->PowerCut();
  EXPECT_EQ(Written(2), 2 * kBlock);
}

TEST_P(PowerCutTest, DropsWritesMadeAfterFlush) {
  ASSERT_OK(WriteAt(Start(2), 2 * kBlock, 1));
  ASSERT_OK(dev_->Flush(kCtx));
  ASSERT_OK(WriteAt(Start(2) + 2 * kBlock, 3 * kBlock, 2));
  emu_->PowerCut();
  EXPECT_EQ(ReadBytes(Start(2), 2 * kBlock), Pattern(2 * kBlock, 1));
  EXPECT_EQ(ReadBytes(Start(2) + 2 * kBlock, 3 * kBlock), Zeroes(3 * kBlock));
}

TEST_P(PowerCutTest, ZoneAcceptsWritesAtDurableWritePointerAfterPowerCut) {
  ASSERT_OK(WriteAt(Start(2), kBlock, 1));
  ASSERT_OK(dev_->Flush(kCtx));
  ASSERT_OK(WriteAt(Start(2) + kBlock, 3 * kBlock, 2));
  emu_->PowerCut();
  ASSERT_OK(WriteAt(Start(2) + kBlock, kBlock, 3));
  EXPECT_EQ(ReadBytes(Start(2) + kBlock, kBlock), Pattern(kBlock, 3));
  EXPECT_EQ(ReadBytes(Start(2) + 2 * kBlock, 2 * kBlock), Zeroes(2 * kBlock));
}

TEST_P(PowerCutTest, BringsOpenZonesBackClosed) {
  ASSERT_OK(WriteAt(Start(2), kBlock, 1));  // implicitly opened
  ASSERT_OK(dev_->OpenZone(3, kCtx));
  ASSERT_OK(WriteAt(Start(3), kBlock, 2));  // explicitly opened
  ASSERT_OK(dev_->Flush(kCtx));
  emu_->PowerCut();
  EXPECT_EQ(State(2), ZoneState::kClosed);
  EXPECT_EQ(State(3), ZoneState::kClosed);
}

TEST_P(PowerCutTest, EmptiesZoneWithNoDurableWrites) {
  ASSERT_OK(WriteAt(Start(2), 2 * kBlock, 1));
  ASSERT_OK(dev_->OpenZone(3, kCtx));
  emu_->PowerCut();
  EXPECT_EQ(State(2), ZoneState::kEmpty);
  EXPECT_EQ(Written(2), 0u);
  EXPECT_EQ(State(3), ZoneState::kEmpty);
  EXPECT_EQ(ReadBytes(Start(2), 2 * kBlock), Zeroes(2 * kBlock));
}

TEST_P(PowerCutTest, ZoneFilledByUnflushedWritesRollsBack) {
  const uint64_t cap = Report(2).capacity;
  ASSERT_OK(WriteAt(Start(2), kBlock, 1));
  ASSERT_OK(dev_->Flush(kCtx));
  ASSERT_OK(WriteAt(Start(2) + kBlock, cap - kBlock, 2));
  ASSERT_EQ(State(2), ZoneState::kFull);
  emu_->PowerCut();
  EXPECT_EQ(State(2), ZoneState::kClosed);
  EXPECT_EQ(Written(2), kBlock);
}

TEST_P(PowerCutTest, RevertsUnflushedConventionalBlocksToTheirOldContent) {
  ASSERT_OK(WriteAt(Start(0) + kBlock, kBlock, 1));
  ASSERT_OK(dev_->Flush(kCtx));
  ASSERT_OK(WriteAt(Start(0) + kBlock, kBlock, 2));  // overwrite, unflushed
  ASSERT_OK(WriteAt(Start(0) + 5 * kBlock, kBlock, 3));  // new, unflushed
  ASSERT_EQ(ReadBytes(Start(0) + kBlock, kBlock), Pattern(kBlock, 2));
  emu_->PowerCut();
  EXPECT_EQ(ReadBytes(Start(0) + kBlock, kBlock), Pattern(kBlock, 1));
  EXPECT_EQ(ReadBytes(Start(0) + 5 * kBlock, kBlock), Zeroes(kBlock));
}

TEST_P(PowerCutTest, FlushedConventionalBlocksSurvive) {
  ASSERT_OK(WriteAt(Start(1), 2 * kBlock, 1));
  ASSERT_OK(dev_->Flush(kCtx));
  emu_->PowerCut();
  EXPECT_EQ(ReadBytes(Start(1), 2 * kBlock), Pattern(2 * kBlock, 1));
}

TEST_P(PowerCutTest, FinishMakesZoneDurable) {
  ASSERT_OK(WriteAt(Start(2), 2 * kBlock, 1));
  ASSERT_OK(dev_->FinishZone(2, kCtx));  // no flush
  emu_->PowerCut();
  EXPECT_EQ(State(2), ZoneState::kFull);
  EXPECT_EQ(Written(2), Report(2).capacity);
  EXPECT_EQ(ReadBytes(Start(2), 2 * kBlock), Pattern(2 * kBlock, 1));
}

TEST_P(PowerCutTest, ResetIsDurable) {
  ASSERT_OK(WriteAt(Start(2), 2 * kBlock, 1));
  ASSERT_OK(dev_->Flush(kCtx));
  ASSERT_OK(dev_->ResetZone(2, kCtx));  // no flush
  emu_->PowerCut();
  EXPECT_EQ(State(2), ZoneState::kEmpty);
  EXPECT_EQ(ReadBytes(Start(2), 2 * kBlock), Zeroes(2 * kBlock));
}

TEST_P(PowerCutTest, ClosedZonesAfterPowerCutStillCountAsActive) {
  Open(TestUri("&max_open=2&max_active=3"));
  for (uint32_t z = 2; z < 5; ++z) ASSERT_OK(WriteAt(Start(z), kBlock, 1));
  ASSERT_OK(dev_->Flush(kCtx));
  emu_->PowerCut();
  EXPECT_ZONE_ERROR(WriteAt(Start(5), kBlock, 1), ZoneError::kTooManyActive);
  EXPECT_OK(WriteAt(Start(2) + kBlock, kBlock, 1));
}

TEST_P(PowerCutTest, PowerCutFreesResourcesOfZonesThatComeBackEmpty) {
  Open(TestUri("&max_open=2&max_active=3"));
  for (uint32_t z = 2; z < 5; ++z) ASSERT_OK(WriteAt(Start(z), kBlock, 1));
  emu_->PowerCut();  // nothing was flushed
  for (uint32_t z = 5; z < 8; ++z) EXPECT_OK(WriteAt(Start(z), kBlock, 1));
}

TEST_F(DeviceTest, PowerCutThenReopenSeesTheSameDurableState) {
  Open(FileUri("&conv=2"));
  ASSERT_OK(WriteAt(Start(0), kBlock, 1));
  ASSERT_OK(WriteAt(Start(2), 2 * kBlock, 2));
  ASSERT_OK(dev_->FinishZone(4, kCtx));
  ASSERT_OK(dev_->Flush(kCtx));
  ASSERT_OK(WriteAt(Start(0), kBlock, 3));
  ASSERT_OK(WriteAt(Start(2) + 2 * kBlock, kBlock, 4));
  ASSERT_OK(WriteAt(Start(3), kBlock, 5));
  emu_->PowerCut();
  Reopen(FileUri("&conv=2"));
  EXPECT_EQ(ReadBytes(Start(0), kBlock), Pattern(kBlock, 1));
  EXPECT_EQ(State(2), ZoneState::kClosed);
  EXPECT_EQ(Written(2), 2 * kBlock);
  EXPECT_EQ(ReadBytes(Start(2), 3 * kBlock),
            [] {
              std::vector<uint8_t> v = Pattern(2 * kBlock, 2);
              v.resize(3 * kBlock, 0);
              return v;
            }());
  EXPECT_EQ(State(3), ZoneState::kEmpty);
  EXPECT_EQ(State(4), ZoneState::kFull);
}

// --- The backings directly --------------------------------------------------

DeviceInfo SmallInfo() {
  DeviceInfo i;
  i.name = "backing-test";
  i.model = "backing test";
  i.block_size = kBlock;
  i.zone_size = 64 * KiB;
  i.zone_capacity = 64 * KiB;
  i.num_zones = 4;
  return i;
}

// Every memory backing test runs on each way the memory is taken: as zones
// are first written, with fill-ahead (and its spare zones), and all of it
// reserved at the start. None may change what reads return.
enum class MemoryKind { kLazy, kFillAhead, kReserved };

class MemoryBackingTest : public testing::TestWithParam<MemoryKind> {
 protected:
  static std::unique_ptr<Backing> NewBacking() {
    if (GetParam() == MemoryKind::kReserved) {
      auto b = NewReservedMemoryBacking(SmallInfo());
      EXPECT_TRUE(b.ok()) << b.status();
      return b.ok() ? std::move(*b) : nullptr;
    }
    MemoryBackingOptions o;
    if (GetParam() == MemoryKind::kFillAhead) o = {.fill_ahead = 16 * KiB, .spare_zones = 2};
    return NewMemoryBacking(SmallInfo(), o);
  }
};
INSTANTIATE_TEST_SUITE_P(Memory, MemoryBackingTest,
                         testing::Values(MemoryKind::kLazy, MemoryKind::kFillAhead,
                                         MemoryKind::kReserved),
                         [](const testing::TestParamInfo<MemoryKind>& p) {
                           switch (p.param) {
                             case MemoryKind::kLazy: return "Lazy";
                             case MemoryKind::kFillAhead: return "FillAhead";
                             case MemoryKind::kReserved: return "Reserved";
                           }
                           return "Unknown";
                         });

TEST_P(MemoryBackingTest, NeverWrittenBlocksReadAsZeroes) {
  auto b = NewBacking();
  std::vector<uint8_t> buf(2 * kBlock, 0xAA);
  ASSERT_OK(b->Read(64 * KiB, buf));
  EXPECT_EQ(buf, Zeroes(2 * kBlock));
}

TEST_P(MemoryBackingTest, BlocksPastWhatAZoneHoldsReadAsZeroes) {
  auto b = NewBacking();
  const std::vector<uint8_t> data = Pattern(kBlock, 1);
  ASSERT_OK(b->Write(0, data));
  std::vector<uint8_t> buf(3 * kBlock, 0xAA);
  ASSERT_OK(b->Read(0, buf));
  // Built whole rather than by resizing `data`: GCC 12 at -O3 warns
  // (-Warray-bounds, a false positive) about vector::resize's move here.
  std::vector<uint8_t> want(3 * kBlock, 0);
  std::copy(data.begin(), data.end(), want.begin());
  EXPECT_EQ(buf, want);
}

TEST_P(MemoryBackingTest, ReadSpanningZonesJoinsThem) {
  auto b = NewBacking();
  const std::vector<uint8_t> data = Pattern(2 * kBlock, 1);
  ASSERT_OK(b->Write(64 * KiB - kBlock, data));
  std::vector<uint8_t> buf(2 * kBlock);
  ASSERT_OK(b->Read(64 * KiB - kBlock, buf));
  EXPECT_EQ(buf, data);
}

TEST_P(MemoryBackingTest, DiscardedBlocksReadAsZeroes) {
  auto b = NewBacking();
  ASSERT_OK(b->Write(0, Pattern(4 * kBlock, 1)));
  ASSERT_OK(b->Discard(kBlock, kBlock));       // inside what the zone holds
  ASSERT_OK(b->Discard(3 * kBlock, kBlock));   // its tail
  std::vector<uint8_t> buf(4 * kBlock);
  ASSERT_OK(b->Read(0, buf));
  std::vector<uint8_t> want = Pattern(4 * kBlock, 1);
  std::fill(want.begin() + kBlock, want.begin() + 2 * kBlock, 0);
  std::fill(want.begin() + 3 * kBlock, want.end(), 0);
  EXPECT_EQ(buf, want);
}

TEST_P(MemoryBackingTest, DiscardedTailStaysZeroAfterLaterWritesBeforeIt) {
  auto b = NewBacking();
  ASSERT_OK(b->Write(0, Pattern(4 * kBlock, 1)));
  ASSERT_OK(b->Discard(kBlock, 3 * kBlock));
  ASSERT_OK(b->Write(kBlock, Pattern(kBlock, 2)));
  std::vector<uint8_t> buf(2 * kBlock);
  ASSERT_OK(b->Read(2 * kBlock, buf));
  EXPECT_EQ(buf, Zeroes(2 * kBlock));
}

TEST_P(MemoryBackingTest, RecycledZoneMemoryReadsZeroesWhereNotWritten) {
  // A fully discarded zone hands its memory back for reuse by another zone
  // (or, reserved, keeps it for its own next write); none of its old bytes
  // may show through, whether the next write starts at the zone's start
  // or further in.
  for (const uint64_t first : {uint64_t{0}, 2 * kBlock}) {
    auto b = NewBacking();
    ASSERT_OK(b->Write(0, Pattern(4 * kBlock, 1)));
    ASSERT_OK(b->Discard(0, 64 * KiB));
    ASSERT_OK(b->Write(first, Pattern(kBlock, 3)));  // the zone itself again
    ASSERT_OK(b->Write(64 * KiB + first, Pattern(kBlock, 2)));
    for (const uint64_t zone : {uint64_t{0}, uint64_t{1}}) {
      std::vector<uint8_t> buf(4 * kBlock, 0xAA);
      ASSERT_OK(b->Read(zone * 64 * KiB, buf));
      std::vector<uint8_t> want = Zeroes(4 * kBlock);
      const std::vector<uint8_t> data = Pattern(kBlock, zone == 0 ? 3 : 2);
      std::copy(data.begin(), data.end(), want.begin() + static_cast<std::ptrdiff_t>(first));
      EXPECT_EQ(buf, want) << "zone " << zone << ", first write at " << first;
    }
  }
}

TEST_P(MemoryBackingTest, WriteBeyondADiscardedTailLeavesTheGapZero) {
  auto b = NewBacking();
  ASSERT_OK(b->Write(0, Pattern(4 * kBlock, 1)));
  ASSERT_OK(b->Discard(kBlock, 3 * kBlock));
  ASSERT_OK(b->Write(3 * kBlock, Pattern(kBlock, 2)));  // a subzone further on
  std::vector<uint8_t> buf(2 * kBlock, 0xAA);
  ASSERT_OK(b->Read(kBlock, buf));
  EXPECT_EQ(buf, Zeroes(2 * kBlock));
}

TEST_P(MemoryBackingTest, WriteFarIntoAFreshZoneReadsZeroesBeforeIt) {
  auto b = NewBacking();
  ASSERT_OK(b->Write(2 * 64 * KiB + 12 * kBlock, Pattern(kBlock, 3)));
  std::vector<uint8_t> buf(12 * kBlock, 0xAA);
  ASSERT_OK(b->Read(2 * 64 * KiB, buf));
  EXPECT_EQ(buf, Zeroes(12 * kBlock));
}

TEST_P(MemoryBackingTest, ZonesTakenFromSparesAndReusedKeepTheirData) {
  // More zones written than there are spares, one emptied and written
  // again: each zone reads back exactly what it was given.
  auto b = NewBacking();
  for (uint64_t z = 0; z < 4; ++z) ASSERT_OK(b->Write(z * 64 * KiB, Pattern(8 * kBlock, static_cast<uint8_t>(z + 1))));
  ASSERT_OK(b->Discard(64 * KiB, 64 * KiB));
  ASSERT_OK(b->Write(64 * KiB, Pattern(2 * kBlock, 9)));
  for (uint64_t z = 0; z < 4; ++z) {
    std::vector<uint8_t> buf(8 * kBlock, 0xAA);
    ASSERT_OK(b->Read(z * 64 * KiB, buf));
    std::vector<uint8_t> want = Pattern(8 * kBlock, static_cast<uint8_t>(z + 1));
    if (z == 1) {
      want = Zeroes(8 * kBlock);
      const std::vector<uint8_t> data = Pattern(2 * kBlock, 9);
      std::copy(data.begin(), data.end(), want.begin());
    }
    EXPECT_EQ(buf, want) << "zone " << z;
  }
}

using FileBackingTest = TempDirTest;

TEST_F(FileBackingTest, NewFileHasNoSavedZonesAndReadsZeroes) {
  auto b = OpenFileBacking(Path("new.img"), SmallInfo());
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_FALSE((*b)->LoadedZones().has_value());
  std::vector<uint8_t> buf(kBlock, 0xAA);
  ASSERT_OK((*b)->Read(3 * 64 * KiB, buf));
  EXPECT_EQ(buf, Zeroes(kBlock));
}

TEST_F(FileBackingTest, DiscardedBlocksReadAsZeroes) {
  auto b = OpenFileBacking(Path("d.img"), SmallInfo());
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_OK((*b)->Write(0, Pattern(3 * kBlock, 1)));
  ASSERT_OK((*b)->Discard(kBlock, kBlock));
  std::vector<uint8_t> buf(3 * kBlock);
  ASSERT_OK((*b)->Read(0, buf));
  std::vector<uint8_t> want = Pattern(3 * kBlock, 1);
  std::fill(want.begin() + kBlock, want.begin() + 2 * kBlock, 0);
  EXPECT_EQ(buf, want);
}

TEST_F(FileBackingTest, SavedZoneIsLoadedOnReopen) {
  const DeviceInfo info = SmallInfo();
  {
    auto b = OpenFileBacking(Path("z.img"), info);
    ASSERT_TRUE(b.ok()) << b.status();
    ZoneInfo z;
    z.index = 2;
    z.start = 2 * info.zone_size;
    z.size = info.zone_size;
    z.capacity = info.zone_capacity;
    z.write_pointer = z.start + 3 * kBlock;
    z.state = ZoneState::kClosed;
    z.type = ZoneType::kSequentialWriteRequired;
    ASSERT_OK((*b)->SaveZone({.durable = z, .cached_write_pointer = z.write_pointer + kBlock}));
  }
  auto b = OpenFileBacking(Path("z.img"), info);
  ASSERT_TRUE(b.ok()) << b.status();
  auto zones = (*b)->LoadedZones();
  ASSERT_TRUE(zones.has_value());
  ASSERT_EQ(zones->size(), 4u);
  EXPECT_EQ((*zones)[2].durable.state, ZoneState::kClosed);
  EXPECT_EQ((*zones)[2].durable.write_pointer, 2 * info.zone_size + 3 * kBlock);
  EXPECT_EQ((*zones)[2].cached_write_pointer, 2 * info.zone_size + 4 * kBlock);
  EXPECT_EQ((*zones)[1].durable.state, ZoneState::kEmpty);  // never saved
  EXPECT_EQ((*zones)[1].durable.write_pointer, info.zone_size);
  EXPECT_EQ((*zones)[1].cached_write_pointer, info.zone_size);
}

// --- Device URIs ------------------------------------------------------------

TEST(OpenDeviceTest, UnknownPresetListsThePresets) {
  auto dev = OpenDevice("emu:zn999?zones=4");
  ASSERT_FALSE(dev.ok());
  EXPECT_EQ(dev.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(dev.status(), "unknown preset 'zn999'")) << dev.status();
  for (const char* name : {"zn540", "st14000nm0007", "znh2", "splitzns"}) {
    EXPECT_TRUE(Contains(dev.status(), name)) << name << ": " << dev.status();
  }
}

TEST(OpenDeviceTest, UnknownParameterListsTheParameters) {
  auto dev = OpenDevice("emu:zn540?zones=4&colour=blue");
  ASSERT_FALSE(dev.ok());
  EXPECT_EQ(dev.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(dev.status(), "unknown parameter 'colour'")) << dev.status();
  for (const char* p : {"zones=", "scale=", "conv=", "max_open=", "max_active=",
                        "file=", "memory=", "timing=", "write_cache=", "positioning="}) {
    EXPECT_TRUE(Contains(dev.status(), p)) << p << ": " << dev.status();
  }
}

TEST(OpenDeviceTest, ReservedMemoryHoldsDataAndIsRefusedWhereItCannotBe) {
  auto dev = OpenDevice("emu:zn540?zones=8&scale=1/1024&timing=none&memory=reserve");
  ASSERT_TRUE(dev.ok()) << dev.status();
  const DeviceInfo& info = (*dev)->info();
  const uint64_t zone = info.num_conventional_zones;  // the first sequential one
  const std::vector<uint8_t> data = Pattern(info.block_size, 7);
  ASSERT_OK((*dev)->Write(info.zone_size * zone, data, kCtx));
  std::vector<uint8_t> buf(info.block_size);
  ASSERT_OK((*dev)->Read(info.zone_size * zone, buf, kCtx));
  EXPECT_EQ(buf, data);

  auto refused = [](const std::string& uri, absl::StatusCode code, const std::string& says) {
    auto d = OpenDevice(uri);
    ASSERT_FALSE(d.ok()) << uri;
    EXPECT_EQ(d.status().code(), code) << d.status();
    EXPECT_TRUE(Contains(d.status(), says)) << d.status();
  };
  refused("emu:zn540?zones=8&memory=eager", absl::StatusCode::kInvalidArgument,
          "must be lazy or reserve");
  refused("emu:zn540?zones=8&memory=reserve&file=/tmp/x.img",
          absl::StatusCode::kInvalidArgument, "not with file=");
  // Far more than any host here: refused before any memory is taken.
  refused("emu:st14000nm0007?zones=100000&timing=none&memory=reserve",
          absl::StatusCode::kResourceExhausted, "MiB available");
}

TEST(OpenDeviceTest, BadScaleSaysWhatIsValid) {
  for (const char* scale : {"2", "0", "abc", "1/0", "-1/4"}) {
    auto dev = OpenDevice(std::string("emu:zn540?zones=4&timing=none&scale=") + scale);
    ASSERT_FALSE(dev.ok()) << scale;
    EXPECT_EQ(dev.status().code(), absl::StatusCode::kInvalidArgument) << scale;
    EXPECT_TRUE(Contains(dev.status(), std::string("scale='") + scale + "'"))
        << dev.status();
    EXPECT_TRUE(Contains(dev.status(), "fraction in (0, 1]")) << dev.status();
  }
}

TEST(OpenDeviceTest, UnknownSchemeListsTheSchemes) {
  auto dev = OpenDevice("nvme:zn540");
  ASSERT_FALSE(dev.ok());
  EXPECT_TRUE(Contains(dev.status(), "emu:")) << dev.status();
  EXPECT_TRUE(Contains(dev.status(), "zbd:")) << dev.status();
}

TEST(OpenDeviceTest, WriteCacheIsForDisksOnly) {
  auto ssd = OpenDevice("emu:zn540?zones=4&timing=none&write_cache=1048576");
  ASSERT_FALSE(ssd.ok());
  EXPECT_TRUE(Contains(ssd.status(), "disk presets only")) << ssd.status();
  auto bad = OpenDevice("emu:st14000nm0007?zones=4&scale=1/2048&write_cache=lots");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(Contains(bad.status(), "write_cache='lots'")) << bad.status();

  // A cached write returns before the head could have reached the zone.
  auto disk = OpenDevice("emu:st14000nm0007?zones=8&scale=1/2048&timing=sim&write_cache=1048576");
  ASSERT_TRUE(disk.ok()) << disk.status();
  std::vector<uint8_t> data(64 * KiB, 7);
  const uint64_t zone4 = 4 * (*disk)->info().zone_size;
  ASSERT_OK((*disk)->Write(zone4, data, {}));
  EXPECT_EQ((*disk)->Stats().destages, 0u);
  EXPECT_LT((*disk)->Stats().busy_ns.at("head"), 1'000'000u);
  ASSERT_OK((*disk)->Flush({}));
  EXPECT_EQ((*disk)->Stats().destages, 1u);
  EXPECT_GT((*disk)->Stats().busy_ns.at("head"), 1'000'000u);
}

TEST(OpenDeviceTest, PositioningIsForDisksAndShortensTheHeadsMoves) {
  auto ssd = OpenDevice("emu:zn540?zones=4&timing=none&positioning=1/64");
  ASSERT_FALSE(ssd.ok());
  EXPECT_TRUE(Contains(ssd.status(), "disk presets only")) << ssd.status();
  auto bad = OpenDevice("emu:st13125nm007?zones=4&positioning=2");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(Contains(bad.status(), "positioning='2' must be a fraction")) << bad.status();

  // The same far write costs the head less with positioning scaled down.
  uint64_t busy[2] = {0, 0};
  const char* uris[2] = {"emu:st13125nm007?zones=8&scale=1/1024&timing=sim",
                         "emu:st13125nm007?zones=8&scale=1/1024&timing=sim&positioning=1/64"};
  for (int i = 0; i < 2; ++i) {
    auto disk = OpenDevice(uris[i]);
    ASSERT_TRUE(disk.ok()) << disk.status();
    std::vector<uint8_t> data(64 * KiB, 7);
    ASSERT_OK((*disk)->Write(6 * (*disk)->info().zone_size, data, {}));
    busy[i] = (*disk)->Stats().busy_ns.at("head");
  }
  EXPECT_GT(busy[0], 1'000'000u);  // a seek over most of the stroke
  EXPECT_LT(busy[1], busy[0] / 4);
}

TEST(OpenDeviceTest, ScaledPresetHasTheScaledGeometry) {
  auto dev = OpenDevice("emu:zn540?zones=8&scale=1/256&timing=none");
  ASSERT_TRUE(dev.ok()) << dev.status();
  EXPECT_EQ((*dev)->info().num_zones, 8u);
  EXPECT_EQ((*dev)->info().zone_size, 8 * 1024 * KiB);
  EXPECT_EQ((*dev)->info().zone_capacity, 1077 * kBlock);  // 1077 MiB / 256
}

}  // namespace
}  // namespace zonestack::device
