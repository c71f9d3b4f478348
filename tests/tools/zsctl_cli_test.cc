// zsctl as a user runs it on a file-backed volume: -d takes one URI each
// (a path after it is the command's), --volume takes the URIs and config
// files zsbench takes, rm and rmdir delete through the volume, df says
// why "no space" can come while it shows free bytes, and fsck reads file
// data against its checksums and repairs corrupt metadata with --repair.
#include <filesystem>
#include <functional>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "device/zoned_device.h"
#include "policy/scheme_registry.h"
#include "run_tool.h"
#include "zfs/volume.h"

namespace zonestack::tools_test {
namespace {

class ZsctlCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("zsctl_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    uri_ = "emu:zn540?zones=16&scale=1/256&timing=none&file=" + (dir_ / "ssd.img").string();
    // A volume with /db/a, /db/b (300 KiB each) and an empty /db/old.
    std::shared_ptr<device::ZonedDevice> dev;
    {
      auto d = device::OpenDevice(uri_);
      ASSERT_TRUE(d.ok()) << d.status();
      dev = std::move(*d);
    }
    ASSERT_TRUE(zfs::Volume::Format({dev}).ok());
    auto vol = zfs::Volume::Mount({dev});
    ASSERT_TRUE(vol.ok()) << vol.status();
    ASSERT_TRUE((*vol)->CreateDir("/db").ok());
    ASSERT_TRUE((*vol)->CreateDir("/db/old").ok());
    const std::vector<uint8_t> data(300 << 10, 7);
    for (const char* name : {"/db/a", "/db/b"}) {
      auto f = (*vol)->Create(name, {});
      ASSERT_TRUE(f.ok()) << f.status();
      ASSERT_TRUE((*f)->Append(data).ok());
      ASSERT_TRUE((*f)->Close().ok());
    }
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  ToolRun Zsctl(const std::string& args) { return RunTool(ZSCTL_BIN, args); }
  std::string D() const { return "-d " + Quote(uri_); }

  std::filesystem::path dir_;
  std::string uri_;
};

// Every registered scheme, with its summary and each option's default.
TEST_F(ZsctlCliTest, SchemesListsEverySchemeWithItsOptions) {
  const ToolRun r = Zsctl("schemes");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const policy::SchemeSpec& spec : policy::Schemes()) {
    EXPECT_NE(r.out.find(spec.name + "\n  " + spec.summary + "\n"), std::string::npos)
        << spec.name;
  }
  EXPECT_NE(r.out.find("wal_cache_zones          2 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("p+m+c\n  HHZS (Exp#2's name for it)\n    options as for hhzs"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("lifetime\n"), std::string::npos);
}

TEST_F(ZsctlCliTest, PathAfterDeviceIsNotTakenForADevice) {
  const ToolRun r = Zsctl("ls " + D() + " /db");
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("/db/a"), std::string::npos) << Describe(r);
}

TEST_F(ZsctlCliTest, VolumeUriOrConfigFileNamesTheDevices) {
  const ToolRun uri = Zsctl("ls --volume " + Quote("zonestack://" + uri_) + " /db");
  ASSERT_EQ(uri.exit_code, 0) << Describe(uri);
  EXPECT_NE(uri.out.find("/db/b"), std::string::npos) << Describe(uri);

  const std::string config = (dir_ / "volume.json").string();
  std::ofstream(config) << "{\"devices\": [\"" << uri_ << "\"]}\n";
  const ToolRun file = Zsctl("ls --volume " + Quote(config) + " /db");
  ASSERT_EQ(file.exit_code, 0) << Describe(file);
  EXPECT_NE(file.out.find("/db/b"), std::string::npos) << Describe(file);

  const ToolRun both = Zsctl("ls " + D() + " --volume " + Quote(config));
  EXPECT_EQ(both.exit_code, 1) << Describe(both);
  EXPECT_NE(both.err.find("not both"), std::string::npos) << Describe(both);
}

TEST_F(ZsctlCliTest, RmDeletesFilesAndFreesTheirSpace) {
  const ToolRun rm = Zsctl("rm " + D() + " /db/a");
  ASSERT_EQ(rm.exit_code, 0) << Describe(rm);
  const ToolRun ls = Zsctl("ls -r " + D());
  ASSERT_EQ(ls.exit_code, 0) << Describe(ls);
  EXPECT_EQ(ls.out.find("/db/a\n"), std::string::npos) << Describe(ls);
  EXPECT_NE(ls.out.find("/db/b"), std::string::npos) << Describe(ls);
  const ToolRun fsck = Zsctl("fsck " + D());
  EXPECT_EQ(fsck.exit_code, 0) << Describe(fsck);

  // A missing file is an error; the other paths are still deleted.
  const ToolRun missing = Zsctl("rm " + D() + " /db/nope /db/b");
  EXPECT_EQ(missing.exit_code, 1) << Describe(missing);
  EXPECT_NE(missing.err.find("/db/nope"), std::string::npos) << Describe(missing);
  EXPECT_NE(missing.out.find("removed 1 file"), std::string::npos) << Describe(missing);

  // A directory needs -r (or rmdir when empty).
  EXPECT_EQ(Zsctl("rm " + D() + " /db").exit_code, 1);
  const ToolRun rmdir = Zsctl("rmdir " + D() + " /db/old");
  EXPECT_EQ(rmdir.exit_code, 0) << Describe(rmdir);
  const ToolRun all = Zsctl("rm -r " + D() + " /db");
  EXPECT_EQ(all.exit_code, 0) << Describe(all);
  const ToolRun empty = Zsctl("ls -r " + D());
  EXPECT_EQ(empty.out, "") << Describe(empty);
}

// Flips one byte of the image at device offset `at` (after the emulator
// file's header and 16-zone table, docs/format.md).
void FlipByte(const std::filesystem::path& image, uint64_t at) {
  std::fstream f(image, std::ios::in | std::ios::out | std::ios::binary);
  ASSERT_TRUE(f.is_open());
  const std::streamoff pos = static_cast<std::streamoff>(8192 + at);
  f.seekg(pos);
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x20);
  f.seekp(pos);
  f.write(&c, 1);
}

// The volume mounted read-only in this process, for the test to look at
// before a tool runs (the device is closed again on return).
void Inspect(const std::string& uri, const std::function<void(zfs::Volume&)>& fn) {
  auto d = device::OpenDevice(uri);
  ASSERT_TRUE(d.ok()) << d.status();
  auto vol = zfs::Volume::Mount({std::shared_ptr<device::ZonedDevice>(std::move(*d))},
                                {.read_only = true});
  ASSERT_TRUE(vol.ok()) << vol.status();
  fn(**vol);
}

TEST_F(ZsctlCliTest, FsckReadsFileDataAgainstItsChecksums) {
  uint64_t at = 0;
  ASSERT_NO_FATAL_FAILURE(Inspect(uri_, [&](zfs::Volume& v) {
    for (const zfs::FileInfo& f : v.Files()) {
      if (f.names[0] == "/db/b") at = f.extents[0].offset + 1000;
    }
  }));
  ASSERT_NE(at, 0u);
  ASSERT_EQ(Zsctl("fsck " + D()).exit_code, 0);
  ASSERT_NO_FATAL_FAILURE(FlipByte(dir_ / "ssd.img", at));
  const ToolRun fsck = Zsctl("fsck " + D());
  EXPECT_EQ(fsck.exit_code, 2) << Describe(fsck);
  EXPECT_NE(fsck.out.find("/db/b: checksum mismatch"), std::string::npos) << Describe(fsck);
  const ToolRun meta = Zsctl("fsck --metadata-only " + D());
  EXPECT_EQ(meta.exit_code, 0) << Describe(meta);
}

TEST_F(ZsctlCliTest, FsckRefusesCorruptMetadataAndRepairSalvagesIt) {
  uint64_t record = 0;
  ASSERT_NO_FATAL_FAILURE(Inspect(uri_, [&](zfs::Volume& v) {
    auto lines = v.DumpLog();
    ASSERT_TRUE(lines.ok());
    // The second record (the one after the snapshot): records follow it.
    int seen = 0;
    for (const std::string& l : *lines) {
      if (l.starts_with("@") && ++seen == 2) record = std::stoull(l.substr(1));
    }
  }));
  ASSERT_NE(record, 0u);
  ASSERT_NO_FATAL_FAILURE(FlipByte(dir_ / "ssd.img", record + 10));  // its index
  const ToolRun fsck = Zsctl("fsck " + D());
  EXPECT_EQ(fsck.exit_code, 1) << Describe(fsck);
  EXPECT_NE(fsck.err.find("corrupt metadata"), std::string::npos) << Describe(fsck);
  const ToolRun ls_before = Zsctl("ls " + D());
  EXPECT_EQ(ls_before.exit_code, 1) << Describe(ls_before);

  const ToolRun repair = Zsctl("fsck --repair " + D());
  EXPECT_EQ(repair.exit_code, 0) << Describe(repair);
  EXPECT_NE(repair.out.find("found: metadata zone"), std::string::npos) << Describe(repair);
  const ToolRun ls = Zsctl("ls -r " + D());
  ASSERT_EQ(ls.exit_code, 0) << Describe(ls);
  EXPECT_NE(ls.out.find("/db/b"), std::string::npos) << Describe(ls);
  EXPECT_EQ(Zsctl("fsck " + D()).exit_code, 0);
}

TEST_F(ZsctlCliTest, DfSaysWhyNoSpaceCanComeWithFreeBytes) {
  const ToolRun r = Zsctl("df " + D());
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("tails MiB"), std::string::npos) << Describe(r);
  EXPECT_NE(r.out.find("dead MiB"), std::string::npos) << Describe(r);
  EXPECT_NE(r.out.find("\"no space\""), std::string::npos) << Describe(r);
}

// devbench on the simulated clock: every row says what it cost the host
// and how many of its commands ran late (none can on a simulated clock:
// the emulator's own work takes no simulated time).
TEST(ZsctlDevbenchTest, RowsShowHostCpuAndLateCommands) {
  const ToolRun r = RunTool(ZSCTL_BIN, "devbench " +
                                           Quote("emu:zn540?zones=16&scale=1/256&timing=sim") +
                                           " --seconds 0.05");
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("cpu/GBps"), std::string::npos) << Describe(r);
  EXPECT_NE(r.out.find("late"), std::string::npos) << Describe(r);
  const size_t row = r.out.find("seq write 1MiB QD1");
  ASSERT_NE(row, std::string::npos) << Describe(r);
  const std::string line = r.out.substr(row, r.out.find('\n', row) - row);
  // "... ratio cpu/GBps 0/N": no late command.
  EXPECT_NE(line.find(" 0/"), std::string::npos) << line;
}

}  // namespace
}  // namespace zonestack::tools_test
