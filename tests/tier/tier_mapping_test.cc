// The mapping's recovery rules (src/tier/tier_mapping.cc): a newer
// checkpoint that fails its CRC is a torn write (skipped) unless the log
// moved on to its generation, which proves it was durable (DataLoss).
#include "tier/tier_mapping.h"

#include <cstring>

#include <gtest/gtest.h>

#include "../common/status_macros.h"

namespace zonestack::tier {
namespace {

constexpr uint64_t kBlock = 4096;

MappingGeometry Geometry() {
  MappingGeometry g;
  g.extent_bytes = 128 * 1024;
  g.num_extents = 40;
  g.num_slots = 4;
  g.cache_blocks = 1024;
  g.log_blocks = 4;
  return g;
}

std::unique_ptr<device::ZonedDevice> Ssd() {
  auto d = device::OpenDevice("emu:zn540?zones=4&conv=4&scale=1/2048&timing=none");
  EXPECT_TRUE(d.ok()) << d.status();
  return d.ok() ? std::move(*d) : nullptr;
}

// A header of generation `gen` whose CRC cannot match, in area gen % 2.
void WriteTornCheckpoint(device::ZonedDevice& ssd, uint64_t gen) {
  std::vector<uint8_t> b(kBlock, 0xAB);
  const uint32_t magic = 0x4B43545A;
  std::memcpy(b.data(), &magic, 4);
  std::memcpy(b.data() + 8, &gen, 8);
  ASSERT_OK(ssd.Write((gen % 2) * Geometry().CheckpointBlocks() * kBlock, b, {}));
  ASSERT_OK(ssd.Flush({}));
}

TEST(TierMappingTest, ATornNewerCheckpointIsSkipped) {
  auto ssd = Ssd();
  {
    ASSERT_OK_AND_ASSIGN(auto m, TierMapping::Open(ssd.get(), Geometry()));
    m->Place(7, 1, 3 * kBlock);
    m->CacheMap(100, 5);
    ASSERT_OK(m->Commit());
  }
  WriteTornCheckpoint(*ssd, 2);  // the power went while generation 2 was written
  ASSERT_OK_AND_ASSIGN(auto m, TierMapping::Open(ssd.get(), Geometry()));
  EXPECT_TRUE(m->recovery().torn_checkpoint);
  EXPECT_EQ(m->recovery().generation, 1u);
  EXPECT_EQ(m->SlotOf(7), 1u);
  EXPECT_EQ(m->SlotValidEnd(1), 3 * kBlock);
  EXPECT_EQ(m->CacheBlockOf(100), 5u);
}

TEST(TierMappingTest, ACorruptCheckpointTheLogMovedOnFromIsDataLoss) {
  auto ssd = Ssd();
  {
    ASSERT_OK_AND_ASSIGN(auto m, TierMapping::Open(ssd.get(), Geometry()));
    // Enough records to fill the 4-block log: a checkpoint of generation
    // 2, then log records of generation 2.
    for (uint64_t i = 0; i < 800; ++i) m->CacheMap(i, i);
    ASSERT_OK(m->Commit());
    ASSERT_EQ(m->checkpoints(), 2u);
    m->CacheUnmap(3);
    ASSERT_OK(m->Commit());
  }
  WriteTornCheckpoint(*ssd, 2);  // generation 2 was durable: corruption
  auto m = TierMapping::Open(ssd.get(), Geometry());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kDataLoss) << m.status();
}

TEST(TierMappingTest, CheckpointAndLogRebuildTheSameMapping) {
  auto ssd = Ssd();
  {
    ASSERT_OK_AND_ASSIGN(auto m, TierMapping::Open(ssd.get(), Geometry()));
    for (uint64_t i = 0; i < 400; ++i) m->CacheMap(i, i);
    ASSERT_OK(m->Commit());
    for (uint64_t i = 400; i < 800; ++i) m->CacheMap(i, i);
    m->Place(3, 0, kBlock);
    m->Place(9, 2, 2 * kBlock);
    ASSERT_OK(m->Commit());  // past the log's room: a checkpoint
    m->Home(0);
    m->SetValidEnd(2, 5 * kBlock);
    m->CacheUnmap(399);
    ASSERT_OK(m->Commit());  // the log of the new generation
    EXPECT_GE(m->checkpoints(), 2u);
  }
  ASSERT_OK_AND_ASSIGN(auto m, TierMapping::Open(ssd.get(), Geometry()));
  EXPECT_EQ(m->SlotOf(3), kNoSlot);
  EXPECT_EQ(m->SlotOf(9), 2u);
  EXPECT_EQ(m->SlotValidEnd(2), 5 * kBlock);
  EXPECT_EQ(m->CacheBlockOf(399), kNone);
  EXPECT_EQ(m->CacheBlockOf(398), 398u);
  EXPECT_EQ(m->CacheBlockOf(799), 799u);
  EXPECT_EQ(m->recovery().log_records, 3u);
}

}  // namespace
}  // namespace zonestack::tier
