// zsctl zones' table (tools/volume_cmds.h, ZoneTable) of a volume on the
// emulated splitzns device: a split zone shows its subzone count, and with
// --subzones each subzone's state, chip, written and live bytes; a
// subzone whose file died shows empty again. In process, because a device
// that a new zsctl process opens keeps no split zones (docs/splitzns.md).
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "../zfs/zfs_test_util.h"
#include "tools/volume_cmds.h"

namespace zonestack::tools {
namespace {

using zfs::testing_util::OpenDev;
using zfs::testing_util::Pattern;
using zfs::testing_util::WriteFile;

// Files whose name starts with "/sub" go to subzones, the rest to group 1.
class SubzonePolicy : public zfs::PlacementPolicy {
 public:
  std::string name() const override { return "zone-table-test"; }
  zfs::PlacementDecision Place(const zfs::FileHint& f,
                               const std::vector<zfs::DeviceView>& views) override {
    zfs::PlacementDecision d;
    for (uint32_t i = 0; i < views.size(); ++i) d.devices.push_back(i);
    d.group = 1;
    d.use_subzone = f.name.rfind("/sub", 0) == 0;
    return d;
  }
};

struct SubzoneRow {
  uint32_t index;
  std::string state, chip;
  uint64_t written_kib, valid_kib;
};

// The subzone rows of the table (those after a "sub state chip" header).
std::vector<SubzoneRow> SubzoneRows(const std::string& table) {
  std::vector<SubzoneRow> rows;
  std::istringstream in(table);
  std::string line;
  bool in_subzones = false;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first == "sub") {
      in_subzones = true;
      continue;
    }
    if (!in_subzones || line.rfind("          ", 0) != 0) {
      in_subzones = false;
      continue;
    }
    SubzoneRow r;
    std::istringstream w(line);
    w >> r.index >> r.state >> r.chip >> r.written_kib >> r.valid_kib;
    rows.push_back(r);
  }
  return rows;
}

class ZoneTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // splitzns at 1/64: 8 MiB zones of 16 subzones of 512 KiB.
    devs_ = {OpenDev("emu:splitzns?zones=24&scale=1/64&timing=none")};
    ASSERT_TRUE(zfs::Volume::Format(devs_).ok());
    auto vol = zfs::Volume::Mount(devs_, {.placement = std::make_shared<SubzonePolicy>(),
                                          .gc_free_zone_threshold = -1});
    ASSERT_TRUE(vol.ok()) << vol.status();
    vol_ = std::move(*vol);
  }
  void Write(const std::string& path, uint64_t size) {
    ASSERT_TRUE(WriteFile(*vol_, path, Pattern(size, size),
                          {.name = path, .kind = zfs::FileKind::kSst})
                    .ok());
  }

  zfs::testing_util::Devices devs_;
  std::unique_ptr<zfs::Volume> vol_;
};

TEST_F(ZoneTableTest, SplitZoneRowsListItsSubzonesWithChipsAndBytes) {
  Write("/sub-a", 300 << 10);
  Write("/sub-b", 200 << 10);
  Write("/wide", 100 << 10);
  const std::string table = ZoneTable(*vol_, /*all=*/false, /*subzones=*/true);
  const std::vector<SubzoneRow> rows = SubzoneRows(table);
  ASSERT_EQ(rows.size(), 16u) << table;  // one split zone, all its subzones
  std::set<std::string> chips;
  std::multiset<uint64_t> valid;
  for (const SubzoneRow& r : rows) {
    if (r.state == "empty") {
      EXPECT_EQ(r.chip, "-") << table;
      EXPECT_EQ(r.written_kib, 0u) << table;
      continue;
    }
    chips.insert(r.chip);
    valid.insert(r.valid_kib);
    EXPECT_GE(r.written_kib, r.valid_kib) << table;
  }
  EXPECT_EQ(valid, (std::multiset<uint64_t>{200, 300})) << table;
  EXPECT_EQ(chips.size(), 2u) << "each subzone on its own chip\n" << table;
  EXPECT_NE(table.find(" 16\n"), std::string::npos) << "the split zone's subzone count\n" << table;
  // Without --subzones, zones only.
  EXPECT_TRUE(SubzoneRows(ZoneTable(*vol_, false, false)).empty());
}

TEST_F(ZoneTableTest, SubzoneOfADeletedFileShowsEmpty) {
  Write("/sub-a", 300 << 10);
  Write("/sub-b", 200 << 10);
  ASSERT_TRUE(vol_->Delete("/sub-a").ok());
  // The reset follows the deletion once it is durable: a remount settles it.
  vol_.reset();
  auto vol = zfs::Volume::Mount(devs_, {.placement = std::make_shared<SubzonePolicy>(),
                                        .gc_free_zone_threshold = -1});
  ASSERT_TRUE(vol.ok()) << vol.status();
  vol_ = std::move(*vol);
  const std::string table = ZoneTable(*vol_, false, true);
  uint32_t written = 0;
  for (const SubzoneRow& r : SubzoneRows(table)) {
    if (r.state == "empty") continue;
    ++written;
    EXPECT_EQ(r.valid_kib, 200u) << table;
  }
  EXPECT_EQ(written, 1u) << table;
}

}  // namespace
}  // namespace zonestack::tools
