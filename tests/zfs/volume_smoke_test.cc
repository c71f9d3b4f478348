#include <gtest/gtest.h>

#include "device/emulated_device.h"
#include "zfs/volume.h"

namespace zonestack::zfs {
namespace {

std::shared_ptr<device::ZonedDevice> Dev(const std::string& uri) {
  auto d = device::OpenDevice(uri);
  EXPECT_TRUE(d.ok()) << d.status();
  return std::shared_ptr<device::ZonedDevice>(std::move(*d));
}

std::vector<uint8_t> Bytes(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 7);
  return v;
}

TEST(VolumeSmokeTest, WriteSyncRemountRead) {
  auto dev = Dev("emu:zn540?zones=16&scale=1/256&timing=none");
  ASSERT_TRUE(Volume::Format({dev}).ok());
  const auto data = Bytes(300000, 3);
  {
    auto vol = Volume::Mount({dev});
    ASSERT_TRUE(vol.ok()) << vol.status();
    ASSERT_TRUE((*vol)->CreateDir("/db").ok());
    auto f = (*vol)->Create("/db/a.sst", {.kind = FileKind::kSst});
    ASSERT_TRUE(f.ok()) << f.status();
    ASSERT_TRUE((*f)->Append(data).ok());
    ASSERT_TRUE((*f)->Close().ok());
    EXPECT_TRUE((*vol)->Check().empty());
  }
  auto vol = Volume::Mount({dev});
  ASSERT_TRUE(vol.ok()) << vol.status();
  auto r = (*vol)->Open("/db/a.sst");
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<uint8_t> got(data.size());
  auto n = (*r)->Read(0, got);
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, data.size());
  EXPECT_EQ(got, data);
  auto ls = (*vol)->List("/db");
  ASSERT_TRUE(ls.ok());
  EXPECT_EQ(*ls, std::vector<std::string>{"a.sst"});
  for (const auto& p : (*vol)->Check()) ADD_FAILURE() << p;
}

}  // namespace
}  // namespace zonestack::zfs
