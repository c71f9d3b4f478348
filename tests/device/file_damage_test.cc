// A device file that cannot be read as a whole is an error naming the file
// and the sizes, never silently made into a new, empty device; only a
// missing or empty file is (docs/format.md, "Emulator backing file").
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "absl/strings/str_cat.h"
#include "file_device_test_util.h"

namespace zonestack::device {
namespace {

using testing_util::Contains;
using testing_util::FileDeviceTest;
using testing_util::Pattern;

class FileDamageTest : public FileDeviceTest {
 protected:
  // A device with data in zone 2, cleanly shut down.
  void MakeDevice() {
    Open();
    ASSERT_OK(dev_->Write(dev_->ZoneStart(2), Pattern(2 * kBlock, 1), IoContext{}));
    dev_.reset();
  }
  uint64_t FileSize() {
    struct stat st;
    EXPECT_EQ(stat(Path().c_str(), &st), 0);
    return static_cast<uint64_t>(st.st_size);
  }
};

TEST_F(FileDamageTest, TruncatedToAFewBytesIsAnErrorNamingFileAndSizes) {
  MakeDevice();
  const uint64_t whole = FileSize();
  ASSERT_EQ(truncate(Path().c_str(), 100), 0);
  auto dev = OpenDevice(FileUri());
  ASSERT_FALSE(dev.ok()) << "a truncated file opened as a device";
  EXPECT_EQ(dev.status().code(), absl::StatusCode::kDataLoss) << dev.status();
  EXPECT_TRUE(Contains(dev.status(), Path())) << dev.status();
  EXPECT_TRUE(Contains(dev.status(), "is 100 bytes")) << dev.status();
  EXPECT_TRUE(Contains(dev.status(), absl::StrCat("needs ", whole))) << dev.status();
  EXPECT_EQ(FileSize(), 100u) << "the damaged file must be left alone";
}

TEST_F(FileDamageTest, FileMissingItsTailIsAnError) {
  MakeDevice();
  const uint64_t whole = FileSize();
  ASSERT_EQ(truncate(Path().c_str(), static_cast<off_t>(whole - kBlock)), 0);
  auto dev = OpenDevice(FileUri());
  ASSERT_FALSE(dev.ok());
  EXPECT_EQ(dev.status().code(), absl::StatusCode::kDataLoss) << dev.status();
}

TEST_F(FileDamageTest, HeaderDamagedIsAnErrorNotANewDevice) {
  MakeDevice();
  {
    std::fstream f(Path(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(0);
    f.write("XXXX", 4);
  }
  auto dev = OpenDevice(FileUri());
  ASSERT_FALSE(dev.ok());
  EXPECT_TRUE(Contains(dev.status(), "bad magic")) << dev.status();
}

TEST_F(FileDamageTest, NewDeviceFileHasItsWholeSizeFromTheStart) {
  Open();
  EXPECT_GE(FileSize(), 8 * dev_->info().zone_size);
}

TEST_F(FileDamageTest, EmptyFileBecomesANewDevice) {
  std::ofstream(Path()).close();
  ASSERT_EQ(FileSize(), 0u);
  Open();
  EXPECT_EQ(Report(2).state, ZoneState::kEmpty);
  dev_.reset();
  EXPECT_GE(FileSize(), 8 * (uint64_t{8} << 20));  // 8 zones of 8 MiB
}

// Version 1 files grew as they were written and had no cached write
// pointers: one is opened as it was, then extended and marked version 2.
TEST_F(FileDamageTest, Version1FileIsUpgradedInPlace) {
  MakeDevice();  // zone 2's record: durable write pointer at 2 blocks
  const uint64_t whole = FileSize();
  const uint64_t zone_bytes = 8 << 20;
  {
    std::fstream f(Path(), std::ios::in | std::ios::out | std::ios::binary);
    const uint32_t v1 = 1;
    f.seekp(8);
    f.write(reinterpret_cast<const char*>(&v1), sizeof v1);
    const uint64_t zero = 0;
    for (uint32_t zone = 0; zone < 8; ++zone) {  // version 1 left these zero
      f.seekp(4096 + zone * 32 + 24);
      f.write(reinterpret_cast<const char*>(&zero), sizeof zero);
    }
  }
  // As version 1 left it: ending after the last block written (zone 2's).
  ASSERT_EQ(truncate(Path().c_str(), static_cast<off_t>(whole - 5 * zone_bytes)), 0);
  Open();
  EXPECT_EQ(Written(2), 2 * kBlock);
  EXPECT_EQ(ReadBytes(dev_->ZoneStart(2), 2 * kBlock), Pattern(2 * kBlock, 1));
  dev_.reset();
  EXPECT_EQ(FileSize(), whole);
}

}  // namespace
}  // namespace zonestack::device
