// Damage to the metadata log, on a file-backed device whose bytes the test
// edits between mounts. A torn tail (the last record's write cut short, so
// never acknowledged) is dropped and the log goes on; any other damage is
// corruption: mount refuses it naming the zone, offset and record, changes
// nothing, and Volume::Repair salvages every file whose extents are intact.
// The torture test corrupts every record position in turn and counts the
// outcomes: recovered exactly, refused, or silently wrong (must be none).
#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "zfs_test_util.h"

namespace zonestack::zfs {
namespace {

using namespace testing_util;

// What a volume holds, to compare exactly: every file's names and bytes,
// and the directories under "/".
struct VolumeContents {
  std::map<std::string, std::vector<uint8_t>> files;
  std::vector<std::string> root;
  bool operator==(const VolumeContents&) const = default;
};

absl::StatusOr<VolumeContents> ContentsOf(const Volume& vol) {
  VolumeContents c;
  for (const FileInfo& f : vol.Files()) {
    for (const std::string& name : f.names) {
      auto data = ReadFile(vol, name);
      if (!data.ok()) return data.status();
      c.files[name] = std::move(*data);
    }
  }
  auto root = vol.List("/");
  if (!root.ok()) return root.status();
  c.root = std::move(*root);
  std::sort(c.root.begin(), c.root.end());
  return c;
}

class LogDamageTest : public VolumeTest {
 protected:
  static constexpr uint32_t kZones = 16;
  void SetUp() override {
    std::string tmpl = testing::TempDir() + "zfs_log_damage.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    FormatAndMount({OpenDev(Uri())});
  }
  void TearDown() override {
    vol_.reset();
    devs_.clear();
    std::filesystem::remove_all(dir_);
  }
  std::string Image() const { return dir_ + "/dev.img"; }
  std::string Uri() const { return ZnsUri(kZones, "&file=" + Image()); }

  // Three files, a directory and a fourth file; each its own records.
  void WriteSome() {
    for (int i = 0; i < 3; ++i) {
      ASSERT_OK(WriteFile(*vol_, "/f" + std::to_string(i), Pattern(i, 5000)));
    }
    ASSERT_OK(vol_->CreateDir("/dir"));
    ASSERT_OK(WriteFile(*vol_, "/last", Pattern(7, 9000)));
  }

  // Device offsets of the records DumpLog lists, oldest first.
  std::vector<uint64_t> RecordOffsets(const Volume& vol) {
    auto lines = vol.DumpLog();
    EXPECT_TRUE(lines.ok()) << lines.status();
    std::vector<uint64_t> out;
    if (!lines.ok()) return out;
    for (const std::string& line : *lines) {
      if (!line.starts_with("@")) continue;
      uint64_t at = 0;
      EXPECT_TRUE(absl::SimpleAtoi(line.substr(1, line.find(' ') - 1), &at)) << line;
      out.push_back(at);
    }
    return out;
  }

  // Backing file layout (docs/format.md): header, zone table, then zones.
  static uint64_t DataOffset() { return 4096 + (kZones * 32 + 4095) / 4096 * 4096; }

  void Unmount() {
    vol_.reset();
    devs_.clear();
  }
  void Reopen() { devs_ = {OpenDev(Uri())}; }

  // With everything unmounted and closed: edits the image.
  void Poke(uint64_t file_offset, const std::vector<uint8_t>& bytes) {
    std::fstream f(Image(), std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(f.is_open());
    f.seekp(static_cast<std::streamoff>(file_offset));
    f.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  }
  uint8_t Peek(uint64_t file_offset) {
    std::ifstream f(Image(), std::ios::binary);
    f.seekg(static_cast<std::streamoff>(file_offset));
    char c = 0;
    f.read(&c, 1);
    return static_cast<uint8_t>(c);
  }
  void XorDeviceByte(uint64_t device_offset, uint8_t mask) {
    const uint64_t at = DataOffset() + device_offset;
    ASSERT_NO_FATAL_FAILURE(Poke(at, {static_cast<uint8_t>(Peek(at) ^ mask)}));
  }
  // Moves zone `zone`'s recorded write pointer back to `wp`, as a write
  // that was cut short leaves it: the bytes past it were never written.
  void SetWritePointer(uint32_t zone, uint64_t wp) {
    std::vector<uint8_t> b(8);
    std::memcpy(b.data(), &wp, 8);
    for (uint64_t field : {8, 24}) {
      const uint64_t at = 4096 + zone * 32 + field;
      bool set = field == 8;
      for (int i = 0; i < 8 && !set; ++i) set = Peek(at + i) != 0;
      if (set) {
        ASSERT_NO_FATAL_FAILURE(Poke(at, b));
      }
    }
  }

  std::string dir_;
};

// A record torn by a crash mid-write: the write pointer stops inside it.
TEST_F(LogDamageTest, TornTailIsDroppedAndTheLogGoesOnAfterIt) {
  for (int i = 0; i < 3; ++i) ASSERT_OK(WriteFile(*vol_, "/f" + std::to_string(i), Pattern(i, 5000)));
  // A name longer than a block makes a two-block record.
  const std::string torn = "/" + std::string(6000, 'x');
  ASSERT_OK(WriteFile(*vol_, torn, {}));
  const uint64_t at = RecordOffsets(*vol_).back();
  const uint32_t zone = static_cast<uint32_t>(at / devs_[0]->info().zone_size);
  Unmount();
  ASSERT_NO_FATAL_FAILURE(SetWritePointer(zone, at + 4096));
  Reopen();
  ASSERT_NO_FATAL_FAILURE(Mount());
  for (int i = 0; i < 3; ++i) {
    auto got = ReadFile(*vol_, "/f" + std::to_string(i));
    ASSERT_OK(got);
    EXPECT_TRUE(*got == Pattern(i, 5000)) << i;
  }
  EXPECT_EQ(vol_->Stat(torn).status().code(), absl::StatusCode::kNotFound);
  ExpectConsistent(*vol_, " after a torn tail");
  // Records follow the torn one (behind its marker) and survive remounts.
  ASSERT_OK(WriteFile(*vol_, "/after", Pattern(9, 7000)));
  ASSERT_NO_FATAL_FAILURE(Remount());
  EXPECT_TRUE(*ReadFile(*vol_, "/after") == Pattern(9, 7000));
  EXPECT_EQ(vol_->Stat(torn).status().code(), absl::StatusCode::kNotFound);
  ASSERT_NO_FATAL_FAILURE(Remount());
  EXPECT_TRUE(*ReadFile(*vol_, "/after") == Pattern(9, 7000));
  ExpectConsistent(*vol_);
}

// Issue 26, finding 1: one flipped byte in a record with valid records
// after it used to pass for a torn tail; the later records were dropped,
// fsck said nothing and the next read-write mount reset their data zones.
TEST_F(LogDamageTest, CorruptRecordInTheMiddleIsRefusedAndNothingIsReset) {
  ASSERT_NO_FATAL_FAILURE(WriteSome());
  auto before = ContentsOf(*vol_);
  ASSERT_OK(before);
  const std::vector<uint64_t> records = RecordOffsets(*vol_);
  ASSERT_GE(records.size(), 4u);
  const uint64_t bad = records[2];
  Unmount();
  ASSERT_NO_FATAL_FAILURE(XorDeviceByte(bad + 30, 0x01));
  Reopen();
  for (bool read_only : {true, false}) {
    auto v = Volume::Mount(devs_, {.read_only = read_only});
    ASSERT_FALSE(v.ok()) << "read_only=" << read_only;
    EXPECT_EQ(v.status().code(), absl::StatusCode::kDataLoss) << v.status();
    EXPECT_TRUE(absl::StrContains(v.status().message(), absl::StrCat("device offset ", bad)))
        << v.status();
    EXPECT_TRUE(absl::StrContains(v.status().message(), "fsck --repair")) << v.status();
  }
  EXPECT_EQ(devs_[0]->Stats().zone_resets, 0u);
  // Undo the damage: the volume is whole again, so nothing was changed.
  Unmount();
  ASSERT_NO_FATAL_FAILURE(XorDeviceByte(bad + 30, 0x01));
  Reopen();
  ASSERT_NO_FATAL_FAILURE(Mount());
  auto after = ContentsOf(*vol_);
  ASSERT_OK(after);
  EXPECT_TRUE(*after == *before);
}

// A corrupt last record is not a torn one: it was written whole (the write
// pointer is past it) and acknowledged.
TEST_F(LogDamageTest, CorruptLastRecordIsRefused) {
  ASSERT_NO_FATAL_FAILURE(WriteSome());
  const uint64_t last = RecordOffsets(*vol_).back();
  Unmount();
  ASSERT_NO_FATAL_FAILURE(XorDeviceByte(last + 40, 0x80));
  Reopen();
  auto v = Volume::Mount(devs_);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), absl::StatusCode::kDataLoss) << v.status();
}

TEST_F(LogDamageTest, CorruptLengthIsRefused) {
  ASSERT_NO_FATAL_FAILURE(WriteSome());
  const uint64_t last = RecordOffsets(*vol_).back();
  Unmount();
  ASSERT_NO_FATAL_FAILURE(Poke(DataOffset() + last + 4, {0xff, 0xff, 0xff, 0x7f}));
  Reopen();
  auto v = Volume::Mount(devs_);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), absl::StatusCode::kDataLoss) << v.status();
}

// Repair keeps every file whose record survived and every byte of data no
// record accounts for any more (as /lost+found files), and leaves a volume
// that mounts.
TEST_F(LogDamageTest, RepairSalvagesIntactFilesAndKeepsUnaccountedZones) {
  // Each file in a zone of its own (a new writer of the same hint reuses
  // the group's zone, so give them different lifetimes).
  ASSERT_OK(WriteFile(*vol_, "/a", Pattern(1, 300000),
                      {.kind = FileKind::kSst, .lifetime = Lifetime::kShort}));
  ASSERT_OK(WriteFile(*vol_, "/b", Pattern(2, 300000),
                      {.kind = FileKind::kSst, .lifetime = Lifetime::kLong}));
  ASSERT_OK(vol_->CreateDir("/d"));
  const std::vector<uint64_t> records = RecordOffsets(*vol_);
  // The record that created /b (its first one): find it by its name.
  auto lines = vol_->DumpLog();
  ASSERT_OK(lines);
  uint64_t b_record = 0;
  size_t r = 0;
  for (const std::string& l : *lines) {
    if (l.starts_with("@")) {
      ++r;
    } else if (b_record == 0 && absl::StrContains(l, "names=/b ")) {
      b_record = records[r - 1];
    }
  }
  ASSERT_NE(b_record, 0u);
  Unmount();
  ASSERT_NO_FATAL_FAILURE(XorDeviceByte(b_record + 28, 0x10));
  Reopen();
  ASSERT_FALSE(Volume::Mount(devs_).ok());
  auto report = Volume::Repair(devs_);
  ASSERT_OK(report);
  EXPECT_FALSE(report->problems.empty());
  // Only the two metadata zones: the new log's before its header, the old
  // one after the new snapshot.
  EXPECT_EQ(devs_[0]->Stats().zone_resets, 2u);
  ASSERT_NO_FATAL_FAILURE(Mount());
  auto a = ReadFile(*vol_, "/a");
  ASSERT_OK(a);
  EXPECT_TRUE(*a == Pattern(1, 300000));
  // /b's record is gone, its bytes are not.
  EXPECT_EQ(vol_->Stat("/b").status().code(), absl::StatusCode::kNotFound);
  auto lost = vol_->List("/lost+found");
  ASSERT_OK(lost);
  ASSERT_EQ(lost->size(), 1u);
  auto kept = ReadFile(*vol_, "/lost+found/" + (*lost)[0]);
  ASSERT_OK(kept);
  ASSERT_GE(kept->size(), 300000u);
  EXPECT_TRUE(std::vector<uint8_t>(kept->begin(), kept->begin() + 300000) == Pattern(2, 300000));
  ExpectConsistent(*vol_, " after repair");
  ASSERT_NO_FATAL_FAILURE(Remount());
  ExpectConsistent(*vol_);
}

TEST_F(LogDamageTest, RepairOfAHealthyVolumeChangesNoFile) {
  ASSERT_NO_FATAL_FAILURE(WriteSome());
  auto before = ContentsOf(*vol_);
  ASSERT_OK(before);
  Unmount();
  Reopen();
  auto report = Volume::Repair(devs_);
  ASSERT_OK(report);
  EXPECT_TRUE(report->problems.empty());
  ASSERT_NO_FATAL_FAILURE(Mount());
  auto after = ContentsOf(*vol_);
  ASSERT_OK(after);
  EXPECT_TRUE(*after == *before);
}

// The torture test: every record position of a small volume's log (each
// header byte, and a sample of body and padding bytes), one byte at a time.
// Each mount (read-only, then read-write) must give back exactly what was
// there or refuse with DataLoss; the damage is then undone and the volume
// must be exactly as before, so a read-write mount never changed anything
// it should not have.
TEST_F(LogDamageTest, TortureEveryRecordPosition) {
  ASSERT_NO_FATAL_FAILURE(WriteSome());
  ASSERT_OK(vol_->Rename("/f1", "/dir/f1"));
  ASSERT_OK(vol_->Link("/f0", "/dir/f0-link"));
  ASSERT_OK(vol_->Delete("/f2"));
  {
    ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/wal", {.kind = FileKind::kWal}));
    for (int i = 0; i < 4; ++i) {
      ASSERT_OK(w->Append(Pattern(11, i * 700, 700)));
      ASSERT_OK(w->Sync());
    }
    ASSERT_OK(w->Close());
  }
  ASSERT_OK_AND_ASSIGN(const VolumeContents want, ContentsOf(*vol_));
  std::vector<uint64_t> records = RecordOffsets(*vol_);
  ASSERT_GE(records.size(), 10u);
  const uint64_t bs = devs_[0]->info().block_size;
  // Where each record's padded bytes end: the next record, or a block on.
  std::vector<uint64_t> positions;
  const uint64_t zone_start = records[0] - bs;
  for (uint64_t b = 0; b < 32; ++b) positions.push_back(zone_start + b);  // zone header
  for (size_t r = 0; r < records.size(); ++r) {
    const uint64_t end = r + 1 < records.size() ? records[r + 1] : records[r] + bs;
    for (uint64_t b = 0; b < 24; ++b) positions.push_back(records[r] + b);  // the header
    const uint64_t span = end - records[r] - 24;
    for (uint64_t k = 0; k < 12; ++k) positions.push_back(records[r] + 24 + span * k / 12);
    positions.push_back(end - 1);  // padding
  }
  Unmount();
  uint64_t exact = 0, refused = 0, wrong = 0;
  for (uint64_t at : positions) {
    for (uint8_t mask : {uint8_t{0x01}, uint8_t{0xff}}) {
      ASSERT_NO_FATAL_FAILURE(XorDeviceByte(at, mask));
      Reopen();
      for (bool read_only : {true, false}) {
        auto v = Volume::Mount(devs_, {.read_only = read_only});
        if (!v.ok()) {
          EXPECT_EQ(v.status().code(), absl::StatusCode::kDataLoss)
              << "offset " << at << ": " << v.status();
          ++refused;
          continue;
        }
        auto got = ContentsOf(**v);
        if (got.ok() && *got == want && (*v)->Check().empty()) {
          ++exact;
        } else {
          ++wrong;
          ADD_FAILURE() << "offset " << at << " mask " << int(mask) << " read_only "
                        << read_only << ": mounted with other contents";
        }
      }
      Unmount();
      ASSERT_NO_FATAL_FAILURE(XorDeviceByte(at, mask));
    }
  }
  Reopen();
  ASSERT_NO_FATAL_FAILURE(Mount());
  auto end = ContentsOf(*vol_);
  ASSERT_OK(end);
  EXPECT_TRUE(*end == want) << "the volume changed under the torture";
  std::cout << "log torture: " << positions.size() << " positions x 2 masks x 2 mounts = "
            << exact + refused + wrong << " mounts: " << exact << " exact, " << refused
            << " refused with DataLoss, " << wrong << " silently wrong\n";
  RecordProperty("exact", static_cast<int>(exact));
  RecordProperty("refused", static_cast<int>(refused));
  RecordProperty("silently_wrong", static_cast<int>(wrong));
  EXPECT_EQ(wrong, 0u);
}

// File data checksums (format.md, "Extents"): a flipped data byte is found
// by fsck's data check, naming the file, and a move (GC, migration) of the
// file fails instead of copying the bad bytes on as good.
TEST_F(LogDamageTest, CorruptFileDataIsFoundByFsckAndNotMoved) {
  const FileHint hint{.kind = FileKind::kSst, .lifetime = Lifetime::kLong};
  ASSERT_OK(WriteFile(*vol_, "/good", Pattern(1, 200000)));
  // /junk fills most of a zone, /bad the rest of it (and more): with /junk
  // deleted, that zone is full and mostly dead, what GC picks first.
  ASSERT_OK(WriteFile(*vol_, "/junk", Pattern(3, 4300000), hint));
  ASSERT_OK(WriteFile(*vol_, "/bad", Pattern(2, 200000), hint));
  EXPECT_TRUE(vol_->CheckData().empty());
  uint64_t at = 0, junk_zone = 1, bad_zone = 0;
  const uint64_t zone_size = devs_[0]->info().zone_size;
  for (const FileInfo& f : vol_->Files()) {
    if (f.names[0] == "/bad") {
      at = f.extents[0].offset + 12345;
      bad_zone = f.extents[0].offset / zone_size;
    }
    if (f.names[0] == "/junk") junk_zone = f.extents[0].offset / zone_size;
  }
  ASSERT_NE(at, 0u);
  ASSERT_EQ(bad_zone, junk_zone) << "the test needs /bad beside dead data";
  Unmount();
  ASSERT_NO_FATAL_FAILURE(XorDeviceByte(at, 0x04));
  Reopen();
  ASSERT_NO_FATAL_FAILURE(Mount());
  EXPECT_TRUE(vol_->Check().empty());  // the metadata is fine
  std::vector<std::string> problems = vol_->CheckData();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_TRUE(absl::StrContains(problems[0], "/bad: checksum mismatch")) << problems[0];
  // GC wants /bad's zone (mostly dead once /junk goes): the move of /bad
  // must fail rather than give the bad bytes a fresh, matching checksum.
  ASSERT_OK(vol_->Delete("/junk"));
  (void)vol_->CollectGarbage(/*force=*/true);
  problems = vol_->CheckData();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_TRUE(absl::StrContains(problems[0], "/bad: checksum mismatch")) << problems[0];
  auto good = ReadFile(*vol_, "/good");
  ASSERT_OK(good);
  EXPECT_TRUE(*good == Pattern(1, 200000));
}

// A Flush logs a partial extent that later appends extend: the checksum
// of each logged piece and of the merged extent must agree after a remount.
TEST_F(LogDamageTest, ChecksumsHoldAcrossFlushesSyncsAndRemounts) {
  ASSERT_OK_AND_ASSIGN(auto w, vol_->Create("/wal", {.kind = FileKind::kWal}));
  uint64_t size = 0;
  for (int i = 0; i < 40; ++i) {
    const uint64_t n = 100 + (i * 977) % 9000;
    ASSERT_OK(w->Append(Pattern(5, size, n)));
    size += n;
    ASSERT_OK(i % 3 == 0 ? w->Sync() : w->Flush());
  }
  ASSERT_OK(w->Append(Pattern(5, size, 8192)));
  size += 8192;
  ASSERT_OK(w->Close());
  ExpectConsistent(*vol_);
  ASSERT_NO_FATAL_FAILURE(Remount());
  ExpectConsistent(*vol_, " after remount");
  auto got = ReadFile(*vol_, "/wal");
  ASSERT_OK(got);
  EXPECT_TRUE(*got == Pattern(5, 0, size));
}

// The torture test for truncated member images: the image cut at each
// zone boundary, in the middle of each zone, and inside the file's header
// and zone table. Each must be refused (by the device open or the mount)
// or mount with exactly what was there; never mount with less.
TEST_F(LogDamageTest, TortureTruncatedImages) {
  ASSERT_NO_FATAL_FAILURE(WriteSome());
  ASSERT_OK_AND_ASSIGN(const VolumeContents want, ContentsOf(*vol_));
  const uint64_t zone_size = devs_[0]->info().zone_size;
  Unmount();
  const uint64_t full = std::filesystem::file_size(Image());
  std::vector<uint64_t> sizes = {0, 1, 100, 4095, 4096, 4097, DataOffset() - 1, DataOffset()};
  for (uint64_t z = 0; z < kZones; ++z) {
    sizes.push_back(DataOffset() + z * zone_size + zone_size / 2);
    sizes.push_back(DataOffset() + (z + 1) * zone_size - (z + 1 < kZones ? 0 : 4096));
  }
  // cp keeps the image sparse (copy_file would write every hole).
  const std::string saved = dir_ + "/saved.img";
  const std::string save = "cp --sparse=always '" + Image() + "' '" + saved + "'";
  const std::string restore = "cp --sparse=always '" + saved + "' '" + Image() + "'";
  ASSERT_EQ(std::system(save.c_str()), 0);
  uint64_t exact = 0, refused = 0, wrong = 0;
  for (uint64_t size : sizes) {
    ASSERT_LT(size, full);
    std::filesystem::resize_file(Image(), size);
    auto dev = device::OpenDevice(Uri());
    if (!dev.ok()) {
      ++refused;
    } else {
      devs_ = {std::shared_ptr<device::ZonedDevice>(std::move(*dev))};
      auto v = Volume::Mount(devs_, {.read_only = true});
      if (!v.ok()) {
        ++refused;
      } else {
        auto got = ContentsOf(**v);
        if (got.ok() && *got == want) {
          ++exact;
        } else {
          ++wrong;
          ADD_FAILURE() << "truncated to " << size << ": mounted with other contents";
        }
      }
      devs_.clear();
    }
    ASSERT_EQ(std::system(restore.c_str()), 0);
  }
  Reopen();
  ASSERT_NO_FATAL_FAILURE(Mount());
  std::cout << "truncation torture: " << sizes.size() << " sizes: " << exact << " exact, "
            << refused << " refused, " << wrong << " silently wrong\n";
  EXPECT_EQ(wrong, 0u);
}

}  // namespace
}  // namespace zonestack::zfs
