// The mapping's on-SSD format (docs/zonetier.md, "Mapping format"): two
// checkpoint areas used by alternate generations, then a log of 4 KiB
// blocks, each with its own CRC-32. A log block is rewritten as records
// join it; a device writes a block whole, so a power cut leaves it old or
// new, never torn.
#include "tier/tier_mapping.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace zonestack::tier {
namespace {

constexpr uint32_t kCheckpointMagic = 0x4B43545A;  // "ZTCK"
constexpr uint32_t kLogMagic = 0x474C545A;         // "ZTLG"
constexpr size_t kCheckpointHeader = 80;
constexpr size_t kLogHeader = 32;
constexpr size_t kRecordBytes = 24;
const device::IoContext kMetaCtx{.io_class = device::IoClass::kMetadata};

uint32_t Crc(const uint8_t* p, size_t n) {
  return static_cast<uint32_t>(crc32_z(0, p, n));
}
template <typename T>
void Put(std::vector<uint8_t>& buf, size_t at, T v) {
  std::memcpy(buf.data() + at, &v, sizeof(T));
}
template <typename T>
T Get(const std::vector<uint8_t>& buf, size_t at) {
  T v;
  std::memcpy(&v, buf.data() + at, sizeof(T));
  return v;
}
bool AllZero(const std::vector<uint8_t>& b, size_t n) {
  return std::all_of(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n),
                     [](uint8_t c) { return c == 0; });
}

}  // namespace

absl::Status SsdRead(device::ZonedDevice* ssd, uint64_t offset, std::span<uint8_t> dst,
                     const device::IoContext& ctx) {
  return ForEachPiece(offset, dst.size(), ssd->info().zone_size,
                      [&](uint64_t pos, uint64_t done, uint64_t n) {
                        return ssd->Read(pos, dst.subspan(done, n), ctx);
                      });
}

absl::Status SsdWrite(device::ZonedDevice* ssd, uint64_t offset, std::span<const uint8_t> src,
                      const device::IoContext& ctx) {
  return ForEachPiece(offset, src.size(), ssd->info().zone_size,
                      [&](uint64_t pos, uint64_t done, uint64_t n) {
                        return ssd->Write(pos, src.subspan(done, n), ctx);
                      });
}

uint64_t MappingGeometry::CheckpointBlocks() const {
  const uint64_t bytes = kCheckpointHeader + 16 * num_slots + 8 * cache_blocks;
  return (bytes + block_size - 1) / block_size;
}

TierMapping::TierMapping(device::ZonedDevice* ssd, const MappingGeometry& g)
    : ssd_(ssd), g_(g), extent_slot_(g.num_extents, kNoSlot), slots_(g.num_slots) {}

absl::StatusOr<std::unique_ptr<TierMapping>> TierMapping::Open(device::ZonedDevice* ssd,
                                                               const MappingGeometry& g) {
  if (g.MetadataBytes() > ssd->info().capacity_bytes()) {
    return absl::InvalidArgumentError("tier mapping: the SSD is too small for its metadata");
  }
  std::unique_ptr<TierMapping> m(new TierMapping(ssd, g));
  if (auto s = m->Recover(); !s.ok()) return s;
  return m;
}

uint64_t TierMapping::CheckpointOffset(uint64_t generation) const {
  return (generation % 2) * g_.CheckpointBlocks() * g_.block_size;
}

uint64_t TierMapping::LogOffset(uint64_t seq) const {
  return (2 * g_.CheckpointBlocks() + seq) * g_.block_size;
}

absl::Status TierMapping::Apply(const Record& r) {
  auto bad = [&](const char* what) {
    return absl::DataLossError(absl::StrCat("tier mapping: record type ", r.type, " ", what));
  };
  switch (r.type) {
    case kPlace: {
      if (r.a >= g_.num_slots || r.b >= g_.num_extents || r.c > g_.extent_bytes) {
        return bad("names a slot, extent or length out of range");
      }
      if (slots_[r.a].extent != kNone || extent_slot_[r.b] != kNoSlot) {
        return bad("places an extent twice or into a used slot");
      }
      slots_[r.a] = Slot{r.b, r.c};
      extent_slot_[r.b] = r.a;
      // The cache's copies of the extent's blocks were merged into the slot.
      const uint64_t per = g_.extent_bytes / g_.block_size;
      std::erase_if(cache_, [&](const auto& kv) { return kv.first / per == r.b; });
      return absl::OkStatus();
    }
    case kHome:
      if (r.a >= g_.num_slots || slots_[r.a].extent == kNone) return bad("frees a free slot");
      extent_slot_[slots_[r.a].extent] = kNoSlot;
      slots_[r.a] = Slot{};
      return absl::OkStatus();
    case kValidEnd:
      if (r.a >= g_.num_slots || r.c > g_.extent_bytes) return bad("is out of range");
      slots_[r.a].valid_end = r.c;
      return absl::OkStatus();
    case kMap:
      if (r.b >= g_.num_extents * (g_.extent_bytes / g_.block_size) || r.c >= g_.cache_blocks) {
        return bad("maps a block out of range");
      }
      cache_[r.b] = r.c;
      return absl::OkStatus();
    case kUnmap:
      cache_.erase(r.b);
      return absl::OkStatus();
  }
  return bad("is unknown");
}

void TierMapping::Queue(const Record& r) {
  // Live mutations come from the tier's own consistent state.
  (void)Apply(r);
  queued_.push_back(r);
}

void TierMapping::Place(uint64_t extent, uint32_t slot, uint64_t valid_end) {
  Queue(Record{kPlace, slot, extent, valid_end});
}
void TierMapping::Home(uint32_t slot) { Queue(Record{kHome, slot, 0, 0}); }
void TierMapping::SetValidEnd(uint32_t slot, uint64_t valid_end) {
  Queue(Record{kValidEnd, slot, 0, valid_end});
}
void TierMapping::CacheMap(uint64_t lblock, uint64_t cblock) {
  Queue(Record{kMap, 0, lblock, cblock});
}
void TierMapping::CacheUnmap(uint64_t lblock) { Queue(Record{kUnmap, 0, lblock, 0}); }

absl::Status TierMapping::WriteCheckpoint(uint64_t generation) {
  std::vector<uint8_t> buf(g_.CheckpointBlocks() * g_.block_size, 0);
  Put<uint32_t>(buf, 0, kCheckpointMagic);
  Put<uint64_t>(buf, 8, generation);
  const uint64_t body = 16 * g_.num_slots + 8 * g_.cache_blocks;
  Put<uint64_t>(buf, 16, body);
  const uint64_t geo[6] = {g_.block_size, g_.extent_bytes, g_.num_extents,
                           g_.num_slots,  g_.cache_blocks, g_.log_blocks};
  for (int i = 0; i < 6; ++i) Put<uint64_t>(buf, 24 + 8 * i, geo[i]);
  size_t at = kCheckpointHeader;
  for (const Slot& s : slots_) {
    Put<uint64_t>(buf, at, s.extent);
    Put<uint64_t>(buf, at + 8, s.valid_end);
    at += 16;
  }
  std::vector<uint64_t> owner(g_.cache_blocks, kNone);
  for (const auto& [lblock, cblock] : cache_) owner[cblock] = lblock;
  for (uint64_t o : owner) {
    Put<uint64_t>(buf, at, o);
    at += 8;
  }
  Put<uint32_t>(buf, 4, Crc(buf.data() + 8, kCheckpointHeader - 8 + body));
  if (auto s = SsdWrite(ssd_, CheckpointOffset(generation), buf, kMetaCtx); !s.ok()) return s;
  // The checkpoint is durable before the log restarts over the old one's
  // records: until then the older checkpoint and its log stand.
  if (auto s = ssd_->Flush(kMetaCtx); !s.ok()) return s;
  generation_ = generation;
  log_seq_ = 0;
  block_records_.clear();
  queued_.clear();
  ++checkpoints_;
  return absl::OkStatus();
}

absl::Status TierMapping::WriteLogBlock() {
  std::vector<uint8_t> buf(g_.block_size, 0);
  Put<uint32_t>(buf, 0, kLogMagic);
  Put<uint64_t>(buf, 8, generation_);
  Put<uint64_t>(buf, 16, log_seq_);
  Put<uint32_t>(buf, 24, static_cast<uint32_t>(block_records_.size()));
  size_t at = kLogHeader;
  for (const Record& r : block_records_) {
    Put<uint8_t>(buf, at, r.type);
    Put<uint32_t>(buf, at + 4, r.a);
    Put<uint64_t>(buf, at + 8, r.b);
    Put<uint64_t>(buf, at + 16, r.c);
    at += kRecordBytes;
  }
  Put<uint32_t>(buf, 4, Crc(buf.data() + 8, buf.size() - 8));
  return SsdWrite(ssd_, LogOffset(log_seq_), buf, kMetaCtx);
}

absl::Status TierMapping::Persist() {
  if (queued_.empty()) return absl::OkStatus();
  const uint64_t per_block = (g_.block_size - kLogHeader) / kRecordBytes;
  const uint64_t room = (g_.log_blocks - log_seq_) * per_block - block_records_.size();
  // A full log: the checkpoint holds every queued mutation already.
  if (queued_.size() > room) return WriteCheckpoint(generation_ + 1);
  for (const Record& r : queued_) {
    block_records_.push_back(r);
    if (block_records_.size() == per_block) {
      if (auto s = WriteLogBlock(); !s.ok()) return s;
      ++log_seq_;
      block_records_.clear();
    }
  }
  records_logged_ += queued_.size();
  queued_.clear();
  if (!block_records_.empty()) return WriteLogBlock();
  return absl::OkStatus();
}

absl::Status TierMapping::Commit() {
  if (auto s = Persist(); !s.ok()) return s;
  return ssd_->Flush(kMetaCtx);
}

absl::Status TierMapping::Format() {
  recovery_.formatted = true;
  return WriteCheckpoint(1);
}

bool TierMapping::SameGeometry(const std::vector<uint8_t>& header) const {
  const uint64_t geo[6] = {g_.block_size, g_.extent_bytes, g_.num_extents,
                           g_.num_slots,  g_.cache_blocks, g_.log_blocks};
  for (int i = 0; i < 6; ++i) {
    if (Get<uint64_t>(header, 24 + 8 * i) != geo[i]) return false;
  }
  return true;
}

absl::Status TierMapping::Recover() {
  const uint64_t ck_bytes = g_.CheckpointBlocks() * g_.block_size;
  struct Area {
    std::vector<uint8_t> buf;
    bool blank = false, valid = false;
    uint64_t generation = 0;
  } area[2];
  for (int i = 0; i < 2; ++i) {
    Area& a = area[i];
    a.buf.assign(ck_bytes, 0);
    if (auto s = SsdRead(ssd_, i * ck_bytes, a.buf, kMetaCtx); !s.ok()) return s;
    a.blank = AllZero(a.buf, g_.block_size);
    if (a.blank || Get<uint32_t>(a.buf, 0) != kCheckpointMagic) continue;
    a.generation = Get<uint64_t>(a.buf, 8);
    const uint64_t body = Get<uint64_t>(a.buf, 16);
    a.valid = body <= ck_bytes - kCheckpointHeader &&
              Get<uint32_t>(a.buf, 4) == Crc(a.buf.data() + 8, kCheckpointHeader - 8 + body);
    // A sound checkpoint of another shape: the caller's options are wrong,
    // not the SSD.
    if (a.valid && !SameGeometry(a.buf)) {
      return absl::InvalidArgumentError(
          "tier mapping: the SSD holds a tier formatted with another geometry (extent size, "
          "slots, cache or log size); open it with the options it was made with");
    }
  }
  std::vector<uint8_t> block(g_.block_size);
  auto read_log = [&](uint64_t seq) { return SsdRead(ssd_, LogOffset(seq), block, kMetaCtx); };
  if (auto s = read_log(0); !s.ok()) return s;
  const bool log_has_magic = Get<uint32_t>(block, 0) == kLogMagic;
  const uint64_t log0_gen = Get<uint64_t>(block, 8);
  const bool log0_valid = log_has_magic && Get<uint32_t>(block, 4) == Crc(block.data() + 8,
                                                                          block.size() - 8);
  if (area[0].blank && area[1].blank) {
    if (log_has_magic) {
      return absl::DataLossError("tier mapping: both checkpoints are blank but the log is not");
    }
    return Format();
  }
  int best = -1;
  for (int i = 0; i < 2; ++i) {
    if (area[i].valid && (best < 0 || area[i].generation > area[best].generation)) best = i;
  }
  if (best < 0) {
    return absl::DataLossError(absl::StrCat(
        "tier mapping: no checkpoint passes its CRC (areas at SSD offsets 0 and ", ck_bytes, ")"));
  }
  for (int i = 0; i < 2; ++i) {
    const Area& a = area[i];
    if (a.valid || a.blank || a.generation <= area[best].generation) continue;
    // A newer checkpoint that fails its CRC: torn if the log never moved on
    // to its generation (it was not flushed when the power went), corrupt
    // if the log did.
    if (log0_valid && log0_gen == a.generation) {
      return absl::DataLossError(absl::StrCat(
          "tier mapping: checkpoint generation ", a.generation, " at SSD offset ",
          i * ck_bytes, " fails its CRC after it was made durable"));
    }
    recovery_.torn_checkpoint = true;
  }
  const Area& a = area[best];
  generation_ = a.generation;
  recovery_.generation = a.generation;
  size_t at = kCheckpointHeader;
  for (uint32_t s = 0; s < g_.num_slots; ++s, at += 16) {
    const uint64_t extent = Get<uint64_t>(a.buf, at);
    if (extent == kNone) continue;
    if (auto st = Apply(Record{kPlace, s, extent, Get<uint64_t>(a.buf, at + 8)}); !st.ok()) {
      return st;
    }
  }
  for (uint64_t c = 0; c < g_.cache_blocks; ++c, at += 8) {
    const uint64_t lblock = Get<uint64_t>(a.buf, at);
    if (lblock == kNone) continue;
    if (auto st = Apply(Record{kMap, 0, lblock, c}); !st.ok()) return st;
  }
  // The log of this generation, up to its first block of another one.
  for (uint64_t seq = 0; seq < g_.log_blocks; ++seq) {
    if (auto s = read_log(seq); !s.ok()) return s;
    if (Get<uint32_t>(block, 0) != kLogMagic || Get<uint64_t>(block, 8) != generation_ ||
        Get<uint64_t>(block, 16) != seq) {
      break;
    }
    if (Get<uint32_t>(block, 4) != Crc(block.data() + 8, block.size() - 8)) {
      return absl::DataLossError(absl::StrCat("tier mapping: log block ", seq, " (SSD offset ",
                                              LogOffset(seq), ") fails its CRC"));
    }
    const uint32_t count = Get<uint32_t>(block, 24);
    if (count > (g_.block_size - kLogHeader) / kRecordBytes) {
      return absl::DataLossError(absl::StrCat("tier mapping: log block ", seq,
                                              " claims ", count, " records"));
    }
    block_records_.clear();
    for (uint32_t i = 0; i < count; ++i) {
      const size_t p = kLogHeader + i * kRecordBytes;
      Record r{Get<uint8_t>(block, p), Get<uint32_t>(block, p + 4), Get<uint64_t>(block, p + 8),
               Get<uint64_t>(block, p + 16)};
      if (auto st = Apply(r); !st.ok()) {
        return absl::DataLossError(absl::StrCat(st.message(), " (log block ", seq, ")"));
      }
      block_records_.push_back(r);
      ++recovery_.log_records;
    }
    log_seq_ = seq;
    // A full block is done: the next record starts the next block.
    if (count == (g_.block_size - kLogHeader) / kRecordBytes) {
      log_seq_ = seq + 1;
      block_records_.clear();
    }
  }
  return absl::OkStatus();
}

}  // namespace zonestack::tier
