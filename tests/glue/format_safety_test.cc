// Format "if-needed" formats only devices that carry no sign of a volume:
// a member whose sibling is missing, blank or damaged keeps its label, and
// a truncated member image is an error, not a new device. Only "always"
// erases (issue 26, finding 3).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "glue/config.h"
#include "glue/volume_registry.h"

namespace zonestack::rocks {
namespace {

bool Contains(const absl::Status& s, const std::string& needle) {
  return std::string(s.message()).find(needle) != std::string::npos;
}

// A hybrid volume of two file-backed members: an SSD (device 0, which
// holds the metadata) and an HM-SMR disk whose label lies in a
// conventional zone, the only zone formatting writes on it.
class FormatSafetyTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = testing::TempDir() + "zonestack_format.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr) << tmpl;
    dir_ = tmpl;
  }
  void TearDown() override {
    (void)Forget(Uri());
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::string Ssd() const { return dir_ + "/ssd.img"; }
  std::string Hdd() const { return dir_ + "/hdd.img"; }
  std::string Uri() const {
    return absl::StrCat("zonestack://emu:zn540?zones=8&scale=1/256&timing=none&file=", Ssd(),
                        ";emu:st14000nm0007?zones=16&scale=1/2048&timing=none&file=", Hdd());
  }
  // Mounts (formatting as `format` says), then unmounts and closes the
  // devices, so the next call opens the files afresh.
  absl::Status Acquire(FormatMode format) {
    auto config = ParseUri(Uri());
    if (!config.ok()) return config.status();
    config->format = format;
    auto volume = AcquireVolume(*config);
    absl::Status s = volume.status();
    std::string id;
    if (volume.ok()) id = (*volume)->volume_id();
    volume = absl::UnknownError("released");
    if (auto f = Forget(Uri()); !f.ok() && s.ok()) s = f;
    if (s.ok()) last_volume_id_ = id;
    return s;
  }

  std::string dir_;
  std::string last_volume_id_;
};

TEST_F(FormatSafetyTest, IfNeededFormatsBlankDevicesAndMountsThemAgain) {
  ASSERT_TRUE(Acquire(FormatMode::kIfNeeded).ok());
  const std::string id = last_volume_id_;
  ASSERT_TRUE(Acquire(FormatMode::kIfNeeded).ok());
  EXPECT_EQ(last_volume_id_, id);
}

TEST_F(FormatSafetyTest, IfNeededRefusesWhenAMissingMemberLeavesASiblingsLabel) {
  ASSERT_TRUE(Acquire(FormatMode::kIfNeeded).ok());
  ASSERT_EQ(std::remove(Ssd().c_str()), 0);
  const absl::Status s = Acquire(FormatMode::kIfNeeded);
  ASSERT_FALSE(s.ok()) << "a new volume was formatted over the disk's label";
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_TRUE(Contains(s, "device 1 (")) << s;
  EXPECT_TRUE(Contains(s, "carries the label of volume")) << s;
  EXPECT_TRUE(Contains(s, "member 1 of 2")) << s;
  EXPECT_TRUE(Contains(s, "\"always\"")) << s;
}

TEST_F(FormatSafetyTest, TruncatedMemberImageIsAnErrorNotAReformat) {
  ASSERT_TRUE(Acquire(FormatMode::kIfNeeded).ok());
  ASSERT_EQ(truncate(Ssd().c_str(), 100), 0);
  const absl::Status s = Acquire(FormatMode::kIfNeeded);
  ASSERT_FALSE(s.ok()) << "a truncated member was reformatted";
  EXPECT_TRUE(Contains(s, Ssd())) << s;
  EXPECT_TRUE(Contains(s, "is 100 bytes")) << s;
}

TEST_F(FormatSafetyTest, AlwaysStillFormatsOverAnExistingVolume) {
  ASSERT_TRUE(Acquire(FormatMode::kIfNeeded).ok());
  const std::string old_id = last_volume_id_;
  ASSERT_EQ(std::remove(Ssd().c_str()), 0);
  ASSERT_FALSE(Acquire(FormatMode::kIfNeeded).ok());
  const absl::Status s = Acquire(FormatMode::kAlways);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_NE(last_volume_id_, old_id);
  EXPECT_TRUE(Acquire(FormatMode::kIfNeeded).ok());
}

}  // namespace
}  // namespace zonestack::rocks
