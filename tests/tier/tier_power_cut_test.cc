// The block tier's mapping through power cuts (docs/zonetier.md, "Crash
// consistency"): a cut at any device command, during foreground writes,
// evictions, promotions, demotions or checkpoints, loses nothing a Flush
// acknowledged, and every block reads as a value once written to it.
// Corrupt metadata is refused as DataLoss, never guessed around.
#include <cstring>
#include <map>
#include <random>
#include <set>

#include "tier_test_util.h"

namespace zonestack::tier::testing {
namespace {

// A block's bytes name the write that put them there: seed and block.
std::vector<uint8_t> BlockData(uint64_t lblock, uint32_t seed) {
  std::vector<uint8_t> v(kBlock, static_cast<uint8_t>(seed * 31 + lblock * 17 + 1));
  std::memcpy(v.data(), &seed, sizeof(seed));
  std::memcpy(v.data() + 8, &lblock, sizeof(lblock));
  return v;
}

// The seed a block holds (0: never written), or -1 for bytes no write made.
int64_t SeedOf(uint64_t lblock, const uint8_t* p) {
  if (std::all_of(p, p + kBlock, [](uint8_t c) { return c == 0; })) return 0;
  uint32_t seed;
  std::memcpy(&seed, p, sizeof(seed));
  const std::vector<uint8_t> want = BlockData(lblock, seed);
  return std::memcmp(want.data(), p, kBlock) == 0 ? seed : -1;
}

struct Model {
  std::map<uint64_t, uint32_t> durable;               // block -> seed a Flush acknowledged
  std::map<uint64_t, std::set<uint32_t>> since_flush;  // written after the last Flush
};

// A returned Flush acknowledges each block's newest write (seeds grow).
bool Flush(Rig& r, Model& m) {
  if (!r.tier->Flush().ok()) return false;
  for (auto& [b, seeds] : m.since_flush) m.durable[b] = *seeds.rbegin();
  m.since_flush.clear();
  return true;
}

// A skewed mix: hot zones overwritten (NSWs), appends at write pointers,
// gaps ahead of them, reads (they drive placement too), flushes.
void RunWorkload(Rig& r, Model& m, uint32_t seed_base, uint32_t ops) {
  std::mt19937 rng(seed_base);
  std::map<uint32_t, uint64_t> append_at;  // zone -> next block to append
  for (uint32_t i = 0; i < ops; ++i) {
    const uint32_t dice = rng() % 100;
    if (dice < 8) {
      if (!Flush(r, m)) return;
      continue;
    }
    const uint32_t zone = dice < 60 ? 1 + rng() % 4 : 5 + rng() % 30;
    uint64_t block;
    const uint32_t len = 1 + rng() % 4;
    if (dice % 3 == 0) {
      block = zone * kZoneBlocks + append_at[zone] + (rng() % 4 == 0 ? rng() % 3 : 0);
    } else {
      block = zone * kZoneBlocks + rng() % (kZoneBlocks - len);
    }
    if (block + len > (zone + 1) * kZoneBlocks) block = (zone + 1) * kZoneBlocks - len;
    if (dice >= 85) {
      std::vector<uint8_t> buf(len * kBlock);
      if (!r.tier->Read(block * kBlock, buf).ok()) return;
      continue;
    }
    const uint32_t seed = seed_base * 10000 + i + 1;
    std::vector<uint8_t> buf;
    for (uint32_t k = 0; k < len; ++k) {
      auto b = BlockData(block + k, seed);
      buf.insert(buf.end(), b.begin(), b.end());
    }
    for (uint32_t k = 0; k < len; ++k) m.since_flush[block + k].insert(seed);
    if (!r.tier->Write(block * kBlock, buf).ok()) return;
    append_at[zone] = std::max(append_at[zone], block - zone * kZoneBlocks + len);
    if (dice < 12 && !Flush(r, m)) return;
  }
}

void CheckAfterCut(Rig& r, const Model& m) {
  ASSERT_OK(r.Reopen());
  std::vector<uint8_t> all(r.tier->capacity());
  ASSERT_OK(r.tier->Read(0, all));
  for (uint64_t b = 0; b < all.size() / kBlock; ++b) {
    const int64_t got = SeedOf(b, all.data() + b * kBlock);
    ASSERT_GE(got, 0) << "block " << b << " holds bytes no write put there";
    auto d = m.durable.find(b);
    const int64_t want = d == m.durable.end() ? 0 : d->second;
    if (got == want) continue;
    auto s = m.since_flush.find(b);
    const bool unacked = s != m.since_flush.end() && s->second.contains(static_cast<uint32_t>(got));
    EXPECT_TRUE(unacked) << "block " << b << " lost its acknowledged write " << want
                         << " (reads " << got << ")";
  }
}

class TierPowerCutTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TierPowerCutTest, NothingAcknowledgedIsLostAtACutAnywhere) {
  for (uint64_t cut : {40u, 150u, 333u, 700u, 1200u}) {
    for (bool on_ssd : {true, false}) {
      SCOPED_TRACE(::testing::Message() << "cut after " << cut << " commands on the "
                                        << (on_ssd ? "SSD" : "drive"));
      TierOptions base;
      base.period_requests = 25;
      base.log_blocks = 4;  // checkpoints on the way too
      Rig r = MakeRig(GetParam(), base);
      ASSERT_NE(r.tier, nullptr);
      Model m;
      // Some acknowledged history first, then the cut somewhere in more.
      RunWorkload(r, m, static_cast<uint32_t>(cut), 150);
      ASSERT_TRUE(Flush(r, m));
      device::EmulatedDevice* victim = on_ssd ? r.ssd_emu() : r.drive_emu();
      device::EmulatedDevice* other = on_ssd ? r.drive_emu() : r.ssd_emu();
      victim->PowerOffAfter(cut);
      RunWorkload(r, m, static_cast<uint32_t>(cut) + 1, 1000);
      // Power goes from the whole machine at once.
      if (!victim->powered_off()) victim->PowerOff();
      other->PowerCut();
      victim->PowerOn();
      CheckAfterCut(r, m);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Schemes, TierPowerCutTest,
                         ::testing::Values("HA-256-CFC", "HA-256-LRU", "DM-64-LRU"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

// The workload reaches every move the mapping records, so the cuts above
// land in them.
TEST(TierPowerCutCoverageTest, TheWorkloadPromotesDemotesEvictsAndCheckpoints) {
  TierOptions base;
  base.period_requests = 25;
  base.log_blocks = 4;
  Rig r = MakeRig("HA-256-CFC", base);
  Model m;
  RunWorkload(r, m, 7, 1000);
  const TierStats st = r.tier->Stats();
  EXPECT_GT(st.promotions, 0u);
  EXPECT_GT(st.demotions, 0u);
  EXPECT_GT(st.evictions, 0u);
  EXPECT_GT(st.cache_admissions, 0u);
}

// A cut right after an internal move, before any later Flush: the move
// made acknowledged data the drive's to keep, so the drive must hold it
// durably before the mapping says so.
void CutBoth(Rig& r) {
  r.ssd_emu()->PowerCut();
  r.drive_emu()->PowerCut();
}

TEST(TierPowerCutMoveTest, ADemotionSurvivesACutRightAfterIt) {
  TierOptions base;
  base.period_requests = 0;
  base.ssd_tier_bytes = kZone;  // one slot
  base.placement.decay = 0;
  Rig r = MakeRig("HA-256-CFC", base);
  ASSERT_OK(r.Write(5 * kZone, 2 * kBlock, 1));
  ASSERT_OK(r.Write(5 * kZone, kBlock, 2));  // cached: makes zone 5 critical
  ASSERT_OK(r.tier->Flush());
  ASSERT_OK(r.tier->RunPeriod());
  ASSERT_NE(r.tier->SlotOf(5), kNoSlot);
  for (int i = 0; i < 10; ++i) r.Read(6 * kZone, kBlock);
  ASSERT_OK(r.tier->RunPeriod());  // zone 5 goes home
  ASSERT_EQ(r.tier->SlotOf(5), kNoSlot);
  CutBoth(r);
  ASSERT_OK(r.Reopen());
  EXPECT_EQ(r.tier->SlotOf(5), kNoSlot);
  EXPECT_EQ(r.Read(5 * kZone, kBlock), Fill(kBlock, 2));
  const std::vector<uint8_t> first = Fill(2 * kBlock, 1);
  EXPECT_EQ(r.Read(5 * kZone + kBlock, kBlock),
            std::vector<uint8_t>(first.begin() + kBlock, first.end()));
}

TEST(TierPowerCutMoveTest, AnEvictionSurvivesACutRightAfterIt) {
  TierOptions base;
  base.period_requests = 0;
  Rig r = MakeRig("HA-256-LRU", base);  // caches every write
  ASSERT_OK(r.Write(7 * kZone, 32 * kBlock, 1));  // fills the cache
  ASSERT_OK(r.tier->Flush());
  ASSERT_EQ(r.tier->cached_blocks(), 32u);
  ASSERT_OK(r.Write(8 * kZone, kBlock, 2));  // evicts zone 7's blocks in place
  ASSERT_LT(r.tier->cached_blocks(), 32u);
  CutBoth(r);
  ASSERT_OK(r.Reopen());
  EXPECT_EQ(r.Read(7 * kZone, 32 * kBlock), Fill(32 * kBlock, 1));
}

// Flipped bits in the log or a checkpoint: DataLoss naming where.
TEST(TierCorruptionTest, ACorruptLogBlockIsDataLoss) {
  Rig r = MakeRig("HA-256-CFC");
  ASSERT_OK(r.Write(2 * kZone, 2 * kBlock, 1));
  ASSERT_OK(r.Write(2 * kZone, kBlock, 2));  // behind the pointer: cached, a log record
  ASSERT_OK(r.tier->Flush());
  r.tier.reset();
  // Geometry of the rig: one checkpoint block per area, so log block 0
  // is the SSD's third block.
  std::vector<uint8_t> b(kBlock);
  ASSERT_OK(r.ssd->Read(2 * kBlock, b, {}));
  b[40] ^= 0x10;
  ASSERT_OK(r.ssd->Write(2 * kBlock, b, {}));
  ASSERT_OK(r.ssd->Flush({}));
  const absl::Status s = r.Reopen();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_NE(s.message().find("log block 0"), std::string::npos) << s;
}

TEST(TierCorruptionTest, ACorruptCheckpointIsDataLoss) {
  Rig r = MakeRig("HA-256-CFC");
  ASSERT_OK(r.tier->Flush());
  r.tier.reset();
  std::vector<uint8_t> b(kBlock);
  ASSERT_OK(r.ssd->Read(kBlock, b, {}));  // generation 1 lives in area 1
  b[100] ^= 0x01;
  ASSERT_OK(r.ssd->Write(kBlock, b, {}));
  ASSERT_OK(r.ssd->Flush({}));
  EXPECT_EQ(r.Reopen().code(), absl::StatusCode::kDataLoss);
}

TEST(TierCorruptionTest, AnotherGeometryIsRefused) {
  Rig r = MakeRig("HA-256-CFC");
  r.options.cache_bytes = 16 * kBlock;
  EXPECT_EQ(r.Reopen().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace zonestack::tier::testing
