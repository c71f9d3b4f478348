#include "zfs/format.h"

#include <xxhash.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace zonestack::zfs {
namespace {

constexpr char kLabelMagic[8] = {'Z', 'S', 'V', 'O', 'L', 'U', 'M', '1'};
constexpr char kLogMagic[8] = {'Z', 'S', 'M', 'E', 'T', 'A', 'L', '1'};
// 2: records carry a magic, an index and a header checksum.
constexpr uint32_t kFormatVersion = 2;
constexpr uint32_t kRecordMagic = 0x4352535a;  // "ZSRC"
// Bounds that keep a corrupt length from allocating the world.
constexpr uint32_t kMaxCount = 1u << 24;

// Little-endian (host order on every platform we build for) encoder.
class Encoder {
 public:
  void U8(uint8_t v) { out_.push_back(v); }
  void U32(uint32_t v) { Raw(&v, sizeof v); }
  void U64(uint64_t v) { Raw(&v, sizeof v); }
  void Str(const std::string& s) {
    U32(static_cast<uint32_t>(s.size()));
    Raw(s.data(), s.size());
  }
  void Raw(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    out_.insert(out_.end(), b, b + n);
  }
  std::vector<uint8_t>& out() { return out_; }

 private:
  std::vector<uint8_t> out_;
};

class Decoder {
 public:
  Decoder(const uint8_t* p, size_t n) : p_(p), end_(p + n) {}
  bool ok() const { return ok_; }
  uint8_t U8() {
    uint8_t v = 0;
    Raw(&v, 1);
    return v;
  }
  uint32_t U32() {
    uint32_t v = 0;
    Raw(&v, sizeof v);
    return v;
  }
  uint64_t U64() {
    uint64_t v = 0;
    Raw(&v, sizeof v);
    return v;
  }
  std::string Str() {
    const uint32_t n = U32();
    if (!ok_ || n > static_cast<size_t>(end_ - p_)) {
      ok_ = false;
      return {};
    }
    std::string s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }
  uint32_t Count() {
    const uint32_t n = U32();
    if (n > kMaxCount) ok_ = false;
    return ok_ ? n : 0;
  }
  void Raw(void* dst, size_t n) {
    if (!ok_ || n > static_cast<size_t>(end_ - p_)) {
      ok_ = false;
      std::memset(dst, 0, n);
      return;
    }
    std::memcpy(dst, p_, n);
    p_ += n;
  }
  bool AtEnd() const { return p_ == end_; }
  void Fail() { ok_ = false; }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  bool ok_ = true;
};

uint32_t Checksum(const uint8_t* p, size_t n) { return XXH32(p, n, 0x5a53); }

// A block: magic, payload length, payload, checksum over all of it.
std::vector<uint8_t> SealBlock(const char (&magic)[8], Encoder& payload, uint32_t block_size) {
  Encoder e;
  e.Raw(magic, 8);
  e.U32(kFormatVersion);
  e.U32(static_cast<uint32_t>(payload.out().size()));
  e.Raw(payload.out().data(), payload.out().size());
  e.U32(Checksum(e.out().data(), e.out().size()));
  std::vector<uint8_t> block = std::move(e.out());
  block.resize((block.size() + block_size - 1) / block_size * block_size, 0);
  return block;
}

absl::StatusOr<Decoder> OpenBlock(const char (&magic)[8], const std::vector<uint8_t>& block,
                                  const char* what) {
  if (block.size() < 20 || std::memcmp(block.data(), magic, 8) != 0) {
    return absl::NotFoundError(absl::StrCat("no ZoneStack ", what, " (bad magic)"));
  }
  Decoder d(block.data() + 8, block.size() - 8);
  const uint32_t version = d.U32();
  const uint32_t len = d.U32();
  if (version != kFormatVersion) {
    return absl::FailedPreconditionError(
        absl::StrCat(what, " has format version ", version, ", this build reads ", kFormatVersion));
  }
  if (len > block.size() - 20) return absl::DataLossError(absl::StrCat("corrupt ", what));
  uint32_t stored;
  std::memcpy(&stored, block.data() + 16 + len, 4);
  if (stored != Checksum(block.data(), 16 + len)) {
    return absl::DataLossError(absl::StrCat(what, " checksum mismatch"));
  }
  return Decoder(block.data() + 16, len);
}

void EncodeFile(Encoder& e, const FileRecord& f) {
  e.U64(f.id);
  e.U32(static_cast<uint32_t>(f.names.size()));
  for (const std::string& n : f.names) e.Str(n);
  e.U64(f.size);
  e.U64(f.mtime_us);
  e.U8(static_cast<uint8_t>(f.kind));
  e.U8(static_cast<uint8_t>(f.lifetime));
  e.U32(static_cast<uint32_t>(f.level));
  e.U32(static_cast<uint32_t>(f.extents.size()));
  for (const Extent& x : f.extents) {
    e.U32(x.device);
    e.U64(x.offset);
    e.U64(x.length);
    e.U32(x.crc);
  }
}

FileRecord DecodeFile(Decoder& d) {
  FileRecord f;
  f.id = d.U64();
  for (uint32_t i = 0, n = d.Count(); i < n && d.ok(); ++i) f.names.push_back(d.Str());
  f.size = d.U64();
  f.mtime_us = d.U64();
  // Enum bytes are checked, not cast blindly: a value this build does not
  // know is a malformed record.
  const uint8_t kind = d.U8();
  const uint8_t lifetime = d.U8();
  if (kind > static_cast<uint8_t>(FileKind::kOther) ||
      lifetime > static_cast<uint8_t>(Lifetime::kExtreme)) {
    d.Fail();
  }
  f.kind = static_cast<FileKind>(kind);
  f.lifetime = static_cast<Lifetime>(lifetime);
  f.level = static_cast<int32_t>(d.U32());
  for (uint32_t i = 0, n = d.Count(); i < n && d.ok(); ++i) {
    Extent x;
    x.device = d.U32();
    x.offset = d.U64();
    x.length = d.U64();
    x.crc = d.U32();
    f.extents.push_back(x);
  }
  return f;
}

void EncodeOp(Encoder& e, const Op& op) {
  e.U8(static_cast<uint8_t>(op.type));
  switch (op.type) {
    case OpType::kPutFile:
    case OpType::kAppendFile:
      EncodeFile(e, op.file);
      break;
    case OpType::kDeleteFile:
      e.U64(op.id);
      break;
    case OpType::kPutDir:
    case OpType::kDeleteDir:
      e.Str(op.path);
      break;
    case OpType::kSetZoneGroup:
    case OpType::kSetPoolZoneGroup:
      e.U32(op.device);
      e.U32(op.zone);
      e.U32(op.group);
      break;
    case OpType::kSetTail:
      e.U64(op.id);
      e.U32(op.device);
      e.U64(op.offset);
      break;
    case OpType::kClearTail:
      e.U64(op.id);
      break;
    case OpType::kSplitZone:
      e.U32(op.device);
      e.U32(op.zone);
      break;
  }
}

absl::StatusOr<Op> DecodeOp(Decoder& d) {
  Op op;
  op.type = static_cast<OpType>(d.U8());
  switch (op.type) {
    case OpType::kPutFile:
    case OpType::kAppendFile:
      op.file = DecodeFile(d);
      break;
    case OpType::kDeleteFile:
      op.id = d.U64();
      break;
    case OpType::kPutDir:
    case OpType::kDeleteDir:
      op.path = d.Str();
      break;
    case OpType::kSetZoneGroup:
    case OpType::kSetPoolZoneGroup:
      op.device = d.U32();
      op.zone = d.U32();
      op.group = d.U32();
      break;
    case OpType::kSetTail:
      op.id = d.U64();
      op.device = d.U32();
      op.offset = d.U64();
      break;
    case OpType::kClearTail:
      op.id = d.U64();
      break;
    case OpType::kSplitZone:
      op.device = d.U32();
      op.zone = d.U32();
      break;
    default:
      return absl::DataLossError("unknown operation in record");
  }
  return op;
}

}  // namespace

namespace {
constexpr uint32_t kTrailerMagic = 0x4c54535a;  // "ZSTL"

uint32_t TrailerCheck(const uint8_t* first12, uint64_t file_id, uint64_t chunk_offset) {
  uint8_t b[28];
  std::memcpy(b, &file_id, 8);
  std::memcpy(b + 8, &chunk_offset, 8);
  std::memcpy(b + 16, first12, 12);
  return Checksum(b, sizeof b);
}
}  // namespace

void EncodeTrailer(const FlushTrailer& t, uint64_t file_id, uint64_t chunk_offset,
                   uint8_t* out) {
  std::memcpy(out, &kTrailerMagic, 4);
  std::memcpy(out + 4, &t.length, 4);
  std::memcpy(out + 8, &t.crc, 4);
  const uint32_t check = TrailerCheck(out, file_id, chunk_offset);
  std::memcpy(out + 12, &check, 4);
}

std::optional<FlushTrailer> DecodeTrailer(const uint8_t* bytes, uint64_t file_id,
                                          uint64_t chunk_offset) {
  uint32_t magic = 0, check = 0;
  std::memcpy(&magic, bytes, 4);
  std::memcpy(&check, bytes + 12, 4);
  if (magic != kTrailerMagic || check != TrailerCheck(bytes, file_id, chunk_offset)) {
    return std::nullopt;
  }
  FlushTrailer t;
  std::memcpy(&t.length, bytes + 4, 4);
  std::memcpy(&t.crc, bytes + 8, 4);
  return t;
}

namespace {
constexpr uint32_t kStageMagic = 0x4753535a;  // "ZSSG"
}  // namespace

void EncodeStageHeader(const StageHeader& h, uint8_t* out) {
  std::memcpy(out, &kStageMagic, 4);
  std::memcpy(out + 4, &h.length, 4);
  std::memcpy(out + 8, &h.file_id, 8);
  std::memcpy(out + 16, &h.offset, 8);
  std::memcpy(out + 24, &h.crc, 4);
  const uint32_t check = Checksum(out, 28);
  std::memcpy(out + 28, &check, 4);
}

std::optional<StageHeader> DecodeStageHeader(const uint8_t* bytes) {
  uint32_t magic = 0, check = 0;
  std::memcpy(&magic, bytes, 4);
  std::memcpy(&check, bytes + 28, 4);
  if (magic != kStageMagic || check != Checksum(bytes, 28)) return std::nullopt;
  StageHeader h;
  std::memcpy(&h.length, bytes + 4, 4);
  std::memcpy(&h.file_id, bytes + 8, 8);
  std::memcpy(&h.offset, bytes + 16, 8);
  std::memcpy(&h.crc, bytes + 24, 4);
  return h;
}

uint32_t CombineCrc(uint32_t crc_a, uint32_t crc_b, uint64_t len_b) {
  return static_cast<uint32_t>(crc32_combine64(crc_a, crc_b, static_cast<z_off64_t>(len_b)));
}

// zlib's combine is A's CRC shifted by len_b bytes, XOR B's: shifting A's
// alone and XOR-ing it off leaves B's.
uint32_t TailCrc(uint32_t crc_ab, uint32_t crc_a, uint64_t len_b) {
  return crc_ab ^ CombineCrc(crc_a, 0, len_b);
}

std::string FormatVolumeId(const VolumeId& id) {
  std::string s;
  for (size_t i = 0; i < id.size(); ++i) {
    absl::StrAppend(&s, absl::Hex(id[i], absl::kZeroPad2));
    if (i == 3 || i == 5 || i == 7 || i == 9) s += '-';
  }
  return s;
}

std::vector<uint8_t> EncodeLabel(const Label& l, uint32_t block_size) {
  Encoder e;
  e.Raw(l.volume_id.data(), l.volume_id.size());
  e.U32(l.member_index);
  e.U32(l.meta_device);
  e.U32(static_cast<uint32_t>(l.meta_zones.size()));
  for (uint32_t z : l.meta_zones) e.U32(z);
  e.U32(static_cast<uint32_t>(l.members.size()));
  for (const MemberGeometry& m : l.members) {
    e.U64(m.zone_size);
    e.U32(m.num_zones);
    e.U32(m.block_size);
  }
  return SealBlock(kLabelMagic, e, block_size);
}

absl::StatusOr<Label> DecodeLabel(const std::vector<uint8_t>& block) {
  auto d = OpenBlock(kLabelMagic, block, "volume label");
  if (!d.ok()) return d.status();
  Label l;
  d->Raw(l.volume_id.data(), l.volume_id.size());
  l.member_index = d->U32();
  l.meta_device = d->U32();
  for (uint32_t i = 0, n = d->Count(); i < n && d->ok(); ++i) l.meta_zones.push_back(d->U32());
  for (uint32_t i = 0, n = d->Count(); i < n && d->ok(); ++i) {
    MemberGeometry m;
    m.zone_size = d->U64();
    m.num_zones = d->U32();
    m.block_size = d->U32();
    l.members.push_back(m);
  }
  if (!d->ok()) return absl::DataLossError("corrupt volume label");
  return l;
}

std::vector<uint8_t> EncodeLogZoneHeader(const LogZoneHeader& h, uint32_t block_size) {
  Encoder e;
  e.Raw(h.volume_id.data(), h.volume_id.size());
  e.U64(h.sequence);
  return SealBlock(kLogMagic, e, block_size);
}

absl::StatusOr<LogZoneHeader> DecodeLogZoneHeader(const std::vector<uint8_t>& block) {
  auto d = OpenBlock(kLogMagic, block, "metadata zone header");
  if (!d.ok()) return d.status();
  LogZoneHeader h;
  d->Raw(h.volume_id.data(), h.volume_id.size());
  h.sequence = d->U64();
  if (!d->ok()) return absl::DataLossError("corrupt metadata zone header");
  return h;
}

std::vector<uint8_t> EncodeRecord(const Record& r, uint64_t index) {
  Encoder body;
  body.U8(static_cast<uint8_t>(r.type));
  if (r.type == RecordType::kVoid) {
    body.U64(r.voided_offset);
  } else {
    body.U32(static_cast<uint32_t>(r.ops.size()));
    for (const Op& op : r.ops) EncodeOp(body, op);
  }
  Encoder e;
  e.U32(kRecordMagic);
  e.U32(static_cast<uint32_t>(body.out().size()));
  e.U64(index);
  e.U32(Checksum(body.out().data(), body.out().size()));
  e.U32(Checksum(e.out().data(), e.out().size()));
  e.Raw(body.out().data(), body.out().size());
  return std::move(e.out());
}

bool HasRecordHeader(const uint8_t* bytes, size_t size) {
  if (size < kRecordHeaderBytes) return false;
  uint32_t magic, sum;
  std::memcpy(&magic, bytes, 4);
  std::memcpy(&sum, bytes + 20, 4);
  return magic == kRecordMagic && sum == Checksum(bytes, 20);
}

absl::StatusOr<DecodedRecord> DecodeRecord(const uint8_t* bytes, size_t size) {
  if (size < kRecordHeaderBytes) return absl::DataLossError("log ends inside a record header");
  if (std::all_of(bytes, bytes + kRecordHeaderBytes, [](uint8_t b) { return b == 0; })) {
    return absl::NotFoundError("no record (zeroes)");
  }
  if (!HasRecordHeader(bytes, size)) {
    return absl::DataLossError("record header checksum mismatch");
  }
  uint32_t len, body_sum;
  DecodedRecord out;
  std::memcpy(&len, bytes + 4, 4);
  std::memcpy(&out.index, bytes + 8, 8);
  std::memcpy(&body_sum, bytes + 16, 4);
  if (len > size - kRecordHeaderBytes) {
    return absl::OutOfRangeError(absl::StrCat("record of ", len, " bytes runs past the ",
                                              size - kRecordHeaderBytes, " bytes written"));
  }
  const uint8_t* body = bytes + kRecordHeaderBytes;
  if (Checksum(body, len) != body_sum) return absl::DataLossError("record body checksum mismatch");
  Decoder d(body, len);
  Record& r = out.record;
  r.type = static_cast<RecordType>(d.U8());
  if (r.type == RecordType::kVoid) {
    r.voided_offset = d.U64();
  } else if (r.type == RecordType::kSnapshot || r.type == RecordType::kOps) {
    for (uint32_t i = 0, n = d.Count(); i < n && d.ok(); ++i) {
      auto op = DecodeOp(d);
      if (!op.ok()) return op.status();
      r.ops.push_back(std::move(*op));
    }
  } else {
    return absl::DataLossError("unknown record type");
  }
  if (!d.ok() || !d.AtEnd()) return absl::DataLossError("malformed record");
  out.length = kRecordHeaderBytes + len;
  return out;
}

std::string DescribeOp(const Op& op) {
  auto extents = [](const FileRecord& f) {
    std::vector<std::string> parts;
    for (const Extent& x : f.extents) {
      parts.push_back(absl::StrCat("d", x.device, "@", x.offset, "+", x.length));
    }
    return absl::StrJoin(parts, ",");
  };
  switch (op.type) {
    case OpType::kPutFile:
      return absl::StrCat("put-file id=", op.file.id, " names=", absl::StrJoin(op.file.names, "|"),
                          " size=", op.file.size, " level=", op.file.level, " extents=[",
                          extents(op.file), "]");
    case OpType::kAppendFile:
      return absl::StrCat("append-file id=", op.file.id, " size=", op.file.size, " extents+=[",
                          extents(op.file), "]");
    case OpType::kDeleteFile:
      return absl::StrCat("delete-file id=", op.id);
    case OpType::kPutDir:
      return absl::StrCat("put-dir ", op.path);
    case OpType::kDeleteDir:
      return absl::StrCat("delete-dir ", op.path);
    case OpType::kSetZoneGroup:
      return absl::StrCat("zone-group device=", op.device, " zone=", op.zone, " group=", op.group);
    case OpType::kSetPoolZoneGroup:
      return absl::StrCat("pool-zone-group device=", op.device, " zone=", op.zone,
                          " group=", op.group);
    case OpType::kSetTail:
      return absl::StrCat("set-tail id=", op.id, " device=", op.device, " offset=", op.offset);
    case OpType::kClearTail:
      return absl::StrCat("clear-tail id=", op.id);
    case OpType::kSplitZone:
      return absl::StrCat("split-zone device=", op.device, " zone=", op.zone);
  }
  return "?";
}

}  // namespace zonestack::zfs
