// The NBD export's request logic (src/tools/zstier_nbd/tier_export.h):
// byte-granular requests over a tier of 4 KiB blocks, against a byte model.
#include "tools/zstier_nbd/tier_export.h"

#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "../common/status_macros.h"

namespace zonestack::tier {
namespace {

constexpr uint64_t kBlock = 4096;
constexpr uint64_t kZone = 128 * 1024;

ExportConfig SmallConfig(const std::string& drive_params = "") {
  ExportConfig c;
  c.drive_uri = "emu:st8000as0022?zones=40&scale=1/2048&mc=262144&timing=none" + drive_params;
  c.ssd_uri = "emu:zn540?zones=4&conv=4&scale=1/2048&timing=none";
  c.ssd_tier_bytes = 4 * kZone;
  c.cache_bytes = 32 * kBlock;
  c.period_requests = 50;  // promotions and demotions during the test
  return c;
}

std::vector<uint8_t> Bytes(uint64_t len, std::mt19937_64& rng) {
  std::vector<uint8_t> v(len);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

std::unique_ptr<TierExport> OpenConnected(const ExportConfig& c) {
  auto e = TierExport::Open(c);
  EXPECT_TRUE(e.ok()) << e.status();
  if (!e.ok()) return nullptr;
  EXPECT_OK((*e)->Connect());
  return std::move(*e);
}

// Random unaligned writes (inside one block, across block and zone
// boundaries, aligned at one end only) and reads, checked byte for byte
// against a model; then the same after the tier is closed and recovered.
TEST(TierExportTest, UnalignedRequestsKeepTheBytesAroundThem) {
  auto e = OpenConnected(SmallConfig());
  ASSERT_NE(e, nullptr);
  ASSERT_EQ(e->size(), 40 * kZone);
  // Three zones, the middle one's boundaries inside the range.
  const uint64_t base = 5 * kZone, span = 3 * kZone;
  std::vector<uint8_t> model(span, 0);
  std::mt19937_64 rng(7);
  auto first = Bytes(span, rng);
  ASSERT_OK(e->Write(base, first, false));
  model = first;
  for (int i = 0; i < 400; ++i) {
    const uint64_t len = 1 + rng() % (i % 3 == 0 ? 3 * kBlock : 700);
    uint64_t off = rng() % (span - len);
    if (i % 7 == 0) off = off / kBlock * kBlock;  // aligned start, ragged end
    if (i % 11 == 0) off = (off + len) / kBlock * kBlock - len;  // ragged start, aligned end
    if (i % 2 == 0) {
      auto data = Bytes(len, rng);
      ASSERT_OK(e->Write(base + off, data, i % 5 == 0));
      std::copy(data.begin(), data.end(), model.begin() + static_cast<int64_t>(off));
    } else {
      std::vector<uint8_t> got(len);
      ASSERT_OK(e->Read(base + off, got));
      ASSERT_TRUE(std::equal(got.begin(), got.end(), model.begin() + static_cast<int64_t>(off)))
          << "read " << i << " of " << len << " bytes at " << off;
    }
  }
  EXPECT_GT(e->tier()->Stats().periods, 0u);
  ASSERT_OK(e->Disconnect());
  ASSERT_OK(e->Connect());
  std::vector<uint8_t> all(span);
  ASSERT_OK(e->Read(base, all));
  EXPECT_TRUE(all == model);
  // Bytes outside the range the workload touched stay zero.
  std::vector<uint8_t> before(kBlock + 5);
  ASSERT_OK(e->Read(base - before.size(), before));
  EXPECT_EQ(std::count(before.begin(), before.end(), 0), static_cast<int64_t>(before.size()));
}

// Disconnect flushes: a power cut after it loses nothing, where one with
// a client connected is refused.
TEST(TierExportTest, WritesSurviveAPowerCutAfterTheClientLeaves) {
  auto e = OpenConnected(SmallConfig());
  ASSERT_NE(e, nullptr);
  std::mt19937_64 rng(3);
  auto data = Bytes(3 * kZone + 1234, rng);
  ASSERT_OK(e->Write(kZone + 99, data, false));
  EXPECT_EQ(e->PowerCut().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_OK(e->Disconnect());
  ASSERT_OK(e->PowerCut());
  ASSERT_OK(e->Connect());
  std::vector<uint8_t> got(data.size());
  ASSERT_OK(e->Read(kZone + 99, got));
  EXPECT_TRUE(got == data);
}

TEST(TierExportTest, OutOfRangeAndUnconnectedRequestsFail) {
  auto e = OpenConnected(SmallConfig());
  ASSERT_NE(e, nullptr);
  std::vector<uint8_t> buf(kBlock);
  EXPECT_FALSE(e->Read(e->size() - 10, buf).ok());
  EXPECT_FALSE(e->Write(e->size() - 10, buf, false).ok());
  EXPECT_OK(e->Read(e->size() - kBlock, buf));
  EXPECT_EQ(e->Connect().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_OK(e->Disconnect());
  EXPECT_FALSE(e->Read(0, buf).ok());
  EXPECT_FALSE(e->Flush().ok());
}

// An unaligned write whose read of the block around it fails must fail,
// not write the block with zeros around the new bytes.
TEST(TierExportTest, AFailedReadFailsTheReadModifyWrite) {
  auto e = OpenConnected(SmallConfig("&fault=read_error@count:0"));
  ASSERT_NE(e, nullptr);
  std::vector<uint8_t> small(100, 0xab);
  const uint64_t off = 7 * kZone + 10;  // a drive extent: its reads fail
  EXPECT_FALSE(e->Write(off, small, false).ok());
  EXPECT_FALSE(e->Read(off, small).ok());
  // An aligned write needs no read and succeeds.
  std::vector<uint8_t> block(kBlock, 0xcd);
  EXPECT_OK(e->Write(7 * kZone, block, true));
}

TEST(TierExportTest, AFileBackedSsdNeedsAFileBackedDrive) {
  ExportConfig c = SmallConfig();
  c.ssd_uri += "&file=/nonexistent/ssd.img";
  auto e = TierExport::Open(c);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(TierExportTest, UnknownSchemeFails) {
  ExportConfig c = SmallConfig();
  c.scheme = "HA-1-XYZ";
  EXPECT_FALSE(TierExport::Open(c).ok());
}

}  // namespace
}  // namespace zonestack::tier
