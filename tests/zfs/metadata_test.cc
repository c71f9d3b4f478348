// The metadata log: a remount restores the namespace and the log rolls to
// the other metadata zone when one fills. Torn and corrupt records:
// log_damage_test.cc.
#include <set>

#include <gtest/gtest.h>

#include "absl/strings/numbers.h"
#include "zfs_test_util.h"

namespace zonestack::zfs {
namespace {

using namespace testing_util;

// The sequence number in DumpLog's first line, "metadata zone Z sequence S".
uint64_t LogSequence(const Volume& vol) {
  auto lines = vol.DumpLog();
  EXPECT_TRUE(lines.ok()) << lines.status();
  if (!lines.ok()) return 0;
  const std::string& head = (*lines)[0];
  uint64_t seq = 0;
  EXPECT_TRUE(absl::SimpleAtoi(head.substr(head.rfind(' ') + 1), &seq)) << head;
  return seq;
}

using MetadataTest = VolumeTest;

TEST_F(MetadataTest, RemountAfterCleanUnmountRestoresEverything) {
  FormatAndMount({OpenDev(ZnsUri(16))});
  ASSERT_OK(vol_->CreateDir("/db/archive"));
  const FileHint sst{.kind = FileKind::kSst,
                             .lifetime = Lifetime::kMedium, .level = 3};
  ASSERT_OK(WriteFile(*vol_, "/db/000001.sst", Pattern(1, 5 << 20), sst));
  ASSERT_OK(WriteFile(*vol_, "/db/000002.log", Pattern(2, 12345),
                      {.kind = FileKind::kWal}));
  ASSERT_OK(WriteFile(*vol_, "/db/empty", {}));
  ASSERT_OK(vol_->Link("/db/000001.sst", "/db/archive/000001.sst"));
  const auto files_before = vol_->Files();
  const auto mtime = vol_->Stat("/db/000002.log")->mtime_us;
  ASSERT_NO_FATAL_FAILURE(Remount());
  EXPECT_EQ(*vol_->List("/"), std::vector<std::string>{"db"});
  EXPECT_EQ(*vol_->List("/db"),
            (std::vector<std::string>{"000001.sst", "000002.log", "empty", "archive"}));
  EXPECT_EQ(*vol_->List("/db/archive"), std::vector<std::string>{"000001.sst"});
  const auto files_after = vol_->Files();
  ASSERT_EQ(files_after.size(), files_before.size());
  for (size_t i = 0; i < files_after.size(); ++i) {
    const FileInfo &a = files_before[i], &b = files_after[i];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.names, b.names);
    EXPECT_EQ(a.size, b.size);
    EXPECT_EQ(a.hint.kind, b.hint.kind) << a.names[0];
    EXPECT_EQ(a.hint.lifetime, b.hint.lifetime) << a.names[0];
    EXPECT_EQ(a.hint.level, b.hint.level) << a.names[0];
    ASSERT_EQ(a.extents.size(), b.extents.size()) << a.names[0];
    for (size_t j = 0; j < a.extents.size(); ++j) {
      EXPECT_EQ(a.extents[j].offset, b.extents[j].offset);
      EXPECT_EQ(a.extents[j].length, b.extents[j].length);
    }
  }
  EXPECT_EQ(vol_->Stat("/db/000002.log")->mtime_us, mtime);
  EXPECT_EQ(vol_->Stat("/db/archive/000001.sst")->links, 2u);
  EXPECT_TRUE(*ReadFile(*vol_, "/db/archive/000001.sst") == Pattern(1, 5 << 20));
  EXPECT_TRUE(*ReadFile(*vol_, "/db/000002.log") == Pattern(2, 12345));
  EXPECT_EQ(vol_->Stat("/db/empty")->size, 0u);
  ExpectConsistent(*vol_);
}

TEST_F(MetadataTest, SetHintSurvivesRemount) {
  FormatAndMount({OpenDev(ZnsUri(16))});
  ASSERT_OK(WriteFile(*vol_, "/000007.sst", Pattern(1, 1000), {.kind = FileKind::kSst}));
  ASSERT_OK(vol_->SetHint("/000007.sst", {.kind = FileKind::kSst,
                                          .lifetime = Lifetime::kLong, .level = 4}));
  EXPECT_EQ(vol_->SetHint("/none", {}).code(), absl::StatusCode::kNotFound);
  ASSERT_NO_FATAL_FAILURE(Remount());
  const auto files = vol_->Files();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].hint.level, 4);
  EXPECT_EQ(files[0].hint.lifetime, Lifetime::kLong);
  EXPECT_TRUE(*ReadFile(*vol_, "/000007.sst") == Pattern(1, 1000));
}

TEST_F(MetadataTest, ReadOnlyMountReadsButRefusesWrites) {
  FormatAndMount({OpenDev(ZnsUri(16))});
  ASSERT_OK(WriteFile(*vol_, "/f", Pattern(1, 1000)));
  vol_.reset();
  options_.read_only = true;
  ASSERT_NO_FATAL_FAILURE(Mount());
  EXPECT_TRUE(*ReadFile(*vol_, "/f") == Pattern(1, 1000));
  const auto denied = absl::StatusCode::kFailedPrecondition;
  EXPECT_EQ(vol_->Create("/g", {}).status().code(), denied);
  EXPECT_EQ(vol_->Delete("/f").code(), denied);
  EXPECT_EQ(vol_->CreateDir("/d").code(), denied);
  ExpectConsistent(*vol_);
}

TEST_F(MetadataTest, LogRollsToTheOtherZoneWhenFullAndRemountStillWorks) {
  // 1 MiB zones holding 134 blocks: a few hundred records fill one.
  FormatAndMount({OpenDev("emu:zn540?zones=24&scale=1/2048&timing=none")});
  const uint64_t seq = LogSequence(*vol_);
  for (int i = 0; i < 1500; ++i) {
    const std::string path = "/f" + std::to_string(i);
    ASSERT_OK(WriteFile(*vol_, path, Pattern(i, 100)));
    if (i % 10 != 0) ASSERT_OK(vol_->Delete(path));
  }
  EXPECT_GE(LogSequence(*vol_), seq + 20) << "expected many rolls";
  ExpectConsistent(*vol_);
  ASSERT_NO_FATAL_FAILURE(Remount());
  EXPECT_EQ(vol_->List("/")->size(), 150u);
  for (int i = 0; i < 1500; i += 10) {
    auto got = ReadFile(*vol_, "/f" + std::to_string(i));
    ASSERT_OK(got);
    EXPECT_TRUE(*got == Pattern(i, 100)) << i;
  }
  ExpectConsistent(*vol_);
  // And it keeps rolling after the remount.
  for (int i = 0; i < 400; ++i) ASSERT_OK(vol_->CreateDir("/d" + std::to_string(i)));
  ASSERT_NO_FATAL_FAILURE(Remount());
  EXPECT_EQ(vol_->List("/")->size(), 550u);
  ExpectConsistent(*vol_);
}

TEST_F(MetadataTest, LogTotalsCountPaddedRecordsFlushesAndRolls) {
  // 1 MiB zones holding 134 blocks, as above: a few hundred records roll.
  FormatAndMount({OpenDev("emu:zn540?zones=24&scale=1/2048&timing=none")});
  const uint64_t block = vol_->devices()[0]->info().block_size;
  const MetadataLogTotals start = vol_->metadata_log_totals();
  for (int i = 0; i < 5; ++i) ASSERT_OK(vol_->CreateDir("/d" + std::to_string(i)));
  MetadataLogTotals t = vol_->metadata_log_totals();
  EXPECT_EQ(t.records - start.records, 5u);
  EXPECT_EQ(t.bytes - start.bytes, 5 * block) << "a small record takes a whole block";
  EXPECT_EQ(t.flushes - start.flushes, 5u);
  // A hint is logged without a flush (SetHint).
  ASSERT_OK(WriteFile(*vol_, "/f", Pattern(1, 100)));
  const MetadataLogTotals before_hint = vol_->metadata_log_totals();
  ASSERT_OK(vol_->SetHint("/f", {.kind = FileKind::kSst, .level = 2}));
  t = vol_->metadata_log_totals();
  EXPECT_EQ(t.records - before_hint.records, 1u);
  EXPECT_EQ(t.flushes, before_hint.flushes);
  EXPECT_EQ(t.rolls, start.rolls);
  for (int i = 0; i < 300; ++i) ASSERT_OK(vol_->CreateDir("/e" + std::to_string(i)));
  t = vol_->metadata_log_totals();
  EXPECT_GE(t.rolls, start.rolls + 1);
  EXPECT_GT(t.snapshot_bytes, start.snapshot_bytes);
  // Each roll also writes its zone's header block.
  EXPECT_GE(t.bytes - start.bytes,
            (t.records - start.records + t.rolls - start.rolls) * block);
}

TEST_F(MetadataTest, FullMetadataFailsOpsWithoutLosingAcknowledgedOnes) {
  // 269 KB metadata zones and file records of over 1 KB: the snapshot
  // grows until a record no longer fits beside it. Ops then fail with
  // kResourceExhausted; none that succeeded may be lost.
  FormatAndMount({OpenDev("emu:zn540?zones=24&scale=1/4096&timing=none")});
  absl::Status full;
  int created = 0;
  for (; created < 1000; ++created) {
    full = WriteFile(*vol_, absl::StrCat("/", std::string(1200, 'n'), created), {});
    if (!full.ok()) break;
  }
  ASSERT_EQ(full.code(), absl::StatusCode::kResourceExhausted) << full;
  EXPECT_EQ(vol_->CreateDir("/after").code(), absl::StatusCode::kResourceExhausted);
  ASSERT_NO_FATAL_FAILURE(Remount());
  EXPECT_EQ(vol_->List("/")->size(), static_cast<size_t>(created));
  ExpectConsistent(*vol_);
}

TEST_F(MetadataTest, LogCyclesThroughThreeMetadataZones) {
  devs_ = {OpenDev("emu:zn540?zones=24&scale=1/2048&timing=none")};
  ASSERT_OK(Volume::Format(devs_, {.metadata_zones = 3}));
  ASSERT_NO_FATAL_FAILURE(Mount());
  std::set<std::string> zones;
  for (int i = 0; i < 700; ++i) {
    ASSERT_OK(vol_->CreateDir("/d" + std::to_string(i % 50)));
    if (i % 50 == 49) {
      for (int j = 0; j < 50; ++j) ASSERT_OK(vol_->DeleteDir("/d" + std::to_string(j)));
    }
    const std::string head = (*vol_->DumpLog())[0];
    zones.insert(head.substr(0, head.find(" sequence")));
  }
  EXPECT_EQ(zones.size(), 3u) << "each metadata zone used in turn";
  ASSERT_OK(WriteFile(*vol_, "/f", Pattern(1, 5000)));
  ASSERT_NO_FATAL_FAILURE(Remount());
  EXPECT_TRUE(*ReadFile(*vol_, "/f") == Pattern(1, 5000));
  EXPECT_EQ(*vol_->List("/"), std::vector<std::string>{"f"});  // the dirs were deleted
  ExpectConsistent(*vol_);
}

}  // namespace
}  // namespace zonestack::zfs
