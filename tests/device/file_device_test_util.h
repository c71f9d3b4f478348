// A fixture for tests of file-backed emulated devices: a fresh directory,
// the URI of a small device in it, and helpers to write, read and inspect
// zones, and to run part of a test in a child process.
#pragma once

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "device/emulated_device.h"
#include "device/zoned_device.h"
#include "device_test_util.h"

namespace zonestack::device::testing_util {

class FileDeviceTest : public testing::Test {
 protected:
  static constexpr uint64_t kBlock = 4096;

  void SetUp() override {
    std::string tmpl = testing::TempDir() + "zonestack_filedev.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr) << tmpl;
    dir_ = tmpl;
  }
  void TearDown() override {
    dev_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::string Path(const std::string& name = "dev.img") const { return dir_ + "/" + name; }
  // zn540 at 1/256: 8 zones of 8 MiB holding 4411392 bytes; zones 0 and 1
  // conventional.
  std::string FileUri() const {
    return "emu:zn540?zones=8&scale=1/256&timing=none&conv=2&file=" + Path();
  }

  // Destroys the current device (a clean shutdown), then opens FileUri().
  void Open() {
    dev_.reset();
    auto dev = OpenDevice(FileUri());
    ASSERT_TRUE(dev.ok()) << dev.status();
    dev_ = std::move(*dev);
    emu_ = dynamic_cast<EmulatedDevice*>(dev_.get());
    ASSERT_NE(emu_, nullptr);
  }

  ZoneInfo Report(uint32_t zone) {
    auto z = dev_->ReportZone(zone);
    EXPECT_TRUE(z.ok()) << z.status();
    return z.ok() ? *z : ZoneInfo{};
  }
  uint64_t Written(uint32_t zone) { return Report(zone).write_pointer - dev_->ZoneStart(zone); }
  std::vector<uint8_t> ReadBytes(uint64_t offset, uint64_t len) {
    std::vector<uint8_t> buf(len);
    const absl::Status s = dev_->Read(offset, buf, IoContext{});
    EXPECT_TRUE(s.ok()) << s;
    return buf;
  }

  // Runs `body` in a forked child that opens FileUri() itself and then
  // ends with _exit, as a crashed process would: no destructor, no flush.
  // `body` returns the child's exit code (0 = all steps worked).
  // Returns the child's wait status.
  int RunInChild(const std::function<int(ZonedDevice&, EmulatedDevice&)>& body) {
    const pid_t pid = fork();
    if (pid == 0) {
      auto dev = OpenDevice(FileUri());
      if (!dev.ok()) _exit(100);
      auto* emu = dynamic_cast<EmulatedDevice*>(dev->get());
      if (emu == nullptr) _exit(101);
      _exit(body(**dev, *emu));
    }
    int status = -1;
    EXPECT_GT(pid, 0);
    if (pid > 0) {
      EXPECT_EQ(waitpid(pid, &status, 0), pid);
    }
    return status;
  }

  std::unique_ptr<ZonedDevice> dev_;
  EmulatedDevice* emu_ = nullptr;

 private:
  std::string dir_;
};

}  // namespace zonestack::device::testing_util
