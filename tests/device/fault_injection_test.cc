#include "device/fault_injection.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "device/emulated_device.h"
#include "device_test_util.h"

namespace zonestack::device {
namespace {

using testing_util::Contains;
using testing_util::Pattern;

// zn540 at 1/256: zones of 4411392 bytes, no conventional zones.
constexpr char kUri[] = "emu:zn540?zones=8&scale=1/256&timing=none";
constexpr IoContext kCtx{};

std::unique_ptr<FaultInjectingDevice> Wrap(std::vector<FaultSpec> faults,
                                           const std::string& uri = kUri) {
  auto dev = OpenDevice(uri);
  EXPECT_TRUE(dev.ok()) << dev.status();
  return std::make_unique<FaultInjectingDevice>(std::shared_ptr<ZonedDevice>(std::move(*dev)),
                                                std::move(faults));
}

ZoneState StateOf(const ZonedDevice& dev, uint32_t zone) {
  auto z = dev.ReportZone(zone);
  EXPECT_TRUE(z.ok()) << z.status();
  return z.ok() ? z->state : ZoneState::kEmpty;
}

TEST(FaultParseTest, ReadsEveryOption) {
  auto f = ParseFaults("read_error@zone:3,after:100+offline@zone:2-5,on:any,prob:0.5,seed:7,count:0");
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_EQ(f->size(), 2u);
  EXPECT_EQ((*f)[0].kind, FaultKind::kReadError);
  EXPECT_EQ((*f)[0].first_zone, 3u);
  EXPECT_EQ((*f)[0].last_zone, 3u);
  EXPECT_EQ((*f)[0].after, 100u);
  EXPECT_EQ((*f)[0].count, 1u);
  EXPECT_EQ((*f)[1].kind, FaultKind::kOffline);
  EXPECT_EQ((*f)[1].first_zone, 2u);
  EXPECT_EQ((*f)[1].last_zone, 5u);
  EXPECT_EQ((*f)[1].on, FaultOn::kAny);
  EXPECT_DOUBLE_EQ((*f)[1].probability, 0.5);
  EXPECT_EQ((*f)[1].seed, 7u);
  EXPECT_EQ((*f)[1].count, 0u);
}

TEST(FaultParseTest, NoneArmsNothing) {
  auto f = ParseFaults("none");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(f->empty());
}

TEST(FaultParseTest, RejectsWhatItCannotRead) {
  for (const char* bad : {"", "melt", "read_error@zone:x", "read_error@zone:5-2",
                          "write_error@prob:2", "read_error@on:write", "offline@on:sometimes",
                          "read_only@colour:red", "read_error@after:-1", "none+offline"}) {
    auto f = ParseFaults(bad);
    EXPECT_TRUE(absl::IsInvalidArgument(f.status())) << bad << ": " << f.status();
  }
}

TEST(FaultInjectionTest, ReadErrorAtTheNthReadOfItsZone) {
  auto dev = Wrap({{.kind = FaultKind::kReadError, .first_zone = 1, .last_zone = 1, .after = 2}});
  const uint64_t z1 = dev->ZoneStart(1);
  const auto data = Pattern(8192, 1);
  ASSERT_OK(dev->Write(z1, data, kCtx));
  ASSERT_OK(dev->Write(0, data, kCtx));
  std::vector<uint8_t> buf(4096);
  EXPECT_OK(dev->Read(z1, buf, kCtx));
  EXPECT_OK(dev->Read(0, buf, kCtx));  // another zone: not counted
  EXPECT_OK(dev->Read(z1, buf, kCtx));
  absl::Status s = dev->Read(z1, buf, kCtx);
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  EXPECT_TRUE(Contains(s, "injected")) << s;
  EXPECT_EQ(dev->injected(), 1u);
  // Fired once (count 1): the zone reads again, with its data.
  ASSERT_OK(dev->Read(z1, buf, kCtx));
  EXPECT_EQ(buf, std::vector<uint8_t>(data.begin(), data.begin() + 4096));
}

TEST(FaultInjectionTest, WriteErrorWritesNothing) {
  auto dev = Wrap({{.kind = FaultKind::kWriteError, .after = 1}});
  const auto data = Pattern(4096, 2);
  ASSERT_OK(dev->Write(0, data, kCtx));
  absl::Status s = dev->Write(4096, data, kCtx);
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  EXPECT_TRUE(Contains(s, "injected")) << s;
  auto z = dev->ReportZone(0);
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ(z->write_pointer, 4096u);
  // Appends count as writes too; the fault has fired its one time.
  auto at = dev->Append(0, data, kCtx);
  ASSERT_TRUE(at.ok()) << at.status();
  EXPECT_EQ(*at, 4096u);
}

TEST(FaultInjectionTest, RandomFaultsFollowTheSeed) {
  auto run = [](uint64_t seed) {
    auto dev = Wrap({{.kind = FaultKind::kReadError, .probability = 0.3, .seed = seed, .count = 0}});
    EXPECT_OK(dev->Write(0, Pattern(4096, 3), kCtx));
    std::vector<uint8_t> buf(4096);
    std::vector<bool> failed;
    for (int i = 0; i < 200; ++i) failed.push_back(!dev->Read(0, buf, kCtx).ok());
    return failed;
  };
  const std::vector<bool> a = run(5), b = run(5), c = run(6);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  const auto fails = std::count(a.begin(), a.end(), true);
  EXPECT_GT(fails, 30);
  EXPECT_LT(fails, 90);
}

// The zone-state checks run over the emulator (which keeps the state) and
// over a device that is not an emulator (the decorator keeps it).
class ZoneFaultTest : public testing::TestWithParam<bool> {
 protected:
  std::unique_ptr<FaultInjectingDevice> Make(std::vector<FaultSpec> faults) {
    if (!GetParam()) return Wrap(std::move(faults));
    // An outer decorator over an inner one: the outer sees no emulator.
    auto inner = Wrap({});
    return std::make_unique<FaultInjectingDevice>(std::shared_ptr<ZonedDevice>(std::move(inner)),
                                                  std::move(faults));
  }
};

TEST_P(ZoneFaultTest, ReadOnlyAtAChosenWriteIsReportedAndEnforced) {
  auto dev = Make({{.kind = FaultKind::kReadOnly, .first_zone = 2, .last_zone = 2, .after = 1}});
  const uint64_t z2 = dev->ZoneStart(2);
  const auto data = Pattern(8192, 4);
  ASSERT_OK(dev->Write(z2, std::span(data).first(4096), kCtx));
  EXPECT_EQ(StateOf(*dev, 2), ZoneState::kImplicitlyOpened);
  // The second write to zone 2 is the one the zone fails at.
  EXPECT_ZONE_ERROR(dev->Write(z2 + 4096, std::span(data).subspan(4096), kCtx),
                    ZoneError::kReadOnly);
  EXPECT_EQ(StateOf(*dev, 2), ZoneState::kReadOnly);
  EXPECT_ZONE_ERROR(dev->Append(2, data, kCtx), ZoneError::kReadOnly);
  EXPECT_ZONE_ERROR(dev->ResetZone(2, kCtx), ZoneError::kInvalidTransition);
  EXPECT_ZONE_ERROR(dev->FinishZone(2, kCtx), ZoneError::kInvalidTransition);
  // What was written stays readable.
  std::vector<uint8_t> buf(4096);
  ASSERT_OK(dev->Read(z2, buf, kCtx));
  EXPECT_EQ(buf, std::vector<uint8_t>(data.begin(), data.begin() + 4096));
  // Other zones are untouched.
  EXPECT_OK(dev->Write(dev->ZoneStart(3), std::span(data).first(4096), kCtx));
}

TEST_P(ZoneFaultTest, OfflineFailsEveryAccess) {
  auto dev = Make({{.kind = FaultKind::kOffline, .first_zone = 1, .last_zone = 1, .on = FaultOn::kRead}});
  const uint64_t z1 = dev->ZoneStart(1);
  ASSERT_OK(dev->Write(z1, Pattern(4096, 5), kCtx));
  std::vector<uint8_t> buf(4096);
  EXPECT_ZONE_ERROR(dev->Read(z1, buf, kCtx), ZoneError::kOffline);
  EXPECT_EQ(StateOf(*dev, 1), ZoneState::kOffline);
  EXPECT_ZONE_ERROR(dev->Read(z1, buf, kCtx), ZoneError::kOffline);
  EXPECT_ZONE_ERROR(dev->Write(z1 + 4096, Pattern(4096, 5), kCtx), ZoneError::kOffline);
  EXPECT_ZONE_ERROR(dev->ResetZone(1, kCtx), ZoneError::kInvalidTransition);
}

TEST_P(ZoneFaultTest, ZonesFailOnRequest) {
  auto dev = Make({});
  dev->SetZoneReadOnly(4);
  dev->SetZoneOffline(5);
  EXPECT_EQ(StateOf(*dev, 4), ZoneState::kReadOnly);
  EXPECT_EQ(StateOf(*dev, 5), ZoneState::kOffline);
  dev->SetZoneReadOnly(5);  // offline is final
  EXPECT_EQ(StateOf(*dev, 5), ZoneState::kOffline);
  EXPECT_ZONE_ERROR(dev->Write(dev->ZoneStart(4), Pattern(4096, 6), kCtx), ZoneError::kReadOnly);
}

INSTANTIATE_TEST_SUITE_P(OverEmulatorOrOther, ZoneFaultTest, testing::Bool());

TEST(FaultUriTest, FaultParameterWrapsTheDevice) {
  auto dev = OpenDevice(std::string(kUri) + "&fault=write_error@zone:1");
  ASSERT_TRUE(dev.ok()) << dev.status();
  auto* f = dynamic_cast<FaultInjectingDevice*>(dev->get());
  ASSERT_NE(f, nullptr);
  EXPECT_NE(dynamic_cast<EmulatedDevice*>(f->inner()), nullptr);
  EXPECT_EQ((*dev)->info().num_zones, 8u);
  EXPECT_TRUE(absl::IsUnavailable((*dev)->Write((*dev)->ZoneStart(1), Pattern(4096, 7), kCtx)));
  // The parameter may come first, and a URI without it opens a plain device.
  auto first = OpenDevice("emu:zn540?fault=offline@zone:3&zones=8&scale=1/256&timing=none");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_NE(dynamic_cast<FaultInjectingDevice*>(first->get()), nullptr);
  auto plain = OpenDevice(kUri);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(dynamic_cast<FaultInjectingDevice*>(plain->get()), nullptr);
}

TEST(FaultUriTest, BadFaultsAndBadDevicesAreNamed) {
  auto bad = OpenDevice(std::string(kUri) + "&fault=read_error@zone:q");
  EXPECT_TRUE(absl::IsInvalidArgument(bad.status()));
  EXPECT_TRUE(Contains(bad.status(), "zone:q")) << bad.status();
  auto twice = OpenDevice(std::string(kUri) + "&fault=read_error&fault=write_error");
  EXPECT_TRUE(absl::IsInvalidArgument(twice.status())) << twice.status();
  auto no_preset = OpenDevice("emu:nosuch?fault=read_error");
  EXPECT_TRUE(absl::IsInvalidArgument(no_preset.status()));
  EXPECT_TRUE(Contains(no_preset.status(), "nosuch")) << no_preset.status();
}

TEST(FaultUriTest, FileBackedZoneStateSurvivesReopen) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "zs_fault_injection_test.img").string();
  std::filesystem::remove(path);
  const std::string uri = std::string(kUri) + "&file=" + path;
  {
    auto dev = OpenDevice(uri + "&fault=read_only@zone:2");
    ASSERT_TRUE(dev.ok()) << dev.status();
    EXPECT_ZONE_ERROR((*dev)->Write((*dev)->ZoneStart(2), Pattern(4096, 8), kCtx),
                      ZoneError::kReadOnly);
  }
  auto again = OpenDevice(uri);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(StateOf(**again, 2), ZoneState::kReadOnly);
  again->reset();
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace zonestack::device
