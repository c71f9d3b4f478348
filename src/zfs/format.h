// zfs on-disk format (docs/format.md): the device label, the metadata log
// zone header, log records and the operations they carry.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "zfs/placement.h"

namespace zonestack::zfs {

using VolumeId = std::array<uint8_t, 16>;
std::string FormatVolumeId(const VolumeId& id);

// One extent: `length` bytes of file data at `offset` on `device`. It
// occupies length rounded up to the block size; it never spans zones.
// `crc` is the CRC-32 (zlib's) of its `length` data bytes: fsck and moves
// (GC, migration) check it, so corrupt data is reported, never copied on.
struct Extent {
  uint32_t device = 0;
  uint64_t offset = 0;
  uint64_t length = 0;
  uint32_t crc = 0;
  bool operator==(const Extent&) const = default;
};

// CRC-32 of `n` bytes, continuing `crc` (0 to start): zlib's `crc32`, the
// on-disk format's data checksum, computed by the faster of two
// implementations on this CPU (data_crc.cc).
uint32_t DataCrc(uint32_t crc, const uint8_t* bytes, size_t n);
// The two: ISA-L's (carry-less multiplies) and zlib's (tables).
enum class DataCrcImplementation { kIsal, kZlib };
// DataCrc by the given implementation (tests hold both to zlib's values).
uint32_t DataCrcWith(DataCrcImplementation impl, uint32_t crc, const uint8_t* bytes, size_t n);
// The CRC of A followed by B from those of A and B (crc_b over len_b bytes).
uint32_t CombineCrc(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);
// The CRC of B from those of A followed by B, and of A.
uint32_t TailCrc(uint32_t crc_ab, uint32_t crc_a, uint64_t len_b);

// Geometry of one member device, recorded so a mount can tell a missing or
// swapped member from a foreign device.
struct MemberGeometry {
  uint64_t zone_size = 0;
  uint32_t num_zones = 0;
  uint32_t block_size = 0;
  bool operator==(const MemberGeometry&) const = default;
};

// Written in one block at the start of each member's label zone.
struct Label {
  VolumeId volume_id{};
  uint32_t member_index = 0;
  uint32_t meta_device = 0;
  std::vector<uint32_t> meta_zones;   // on the metadata device
  std::vector<MemberGeometry> members;
};

// The first block of each metadata zone.
struct LogZoneHeader {
  VolumeId volume_id{};
  uint64_t sequence = 0;  // grows with each roll; the newest zone wins
};

enum class OpType : uint8_t {
  kPutFile = 1,     // a whole file record (create, rename, relocation)
  kAppendFile = 2,  // new size and mtime, extents appended since last time
  kDeleteFile = 3,
  kPutDir = 4,
  kDeleteDir = 5,
  kSetZoneGroup = 6,  // a data zone was given to a placement group
  // The same for a zone taken from its device's WAL/cache pool (HHZS 3.2),
  // so mount counts the pool's zones again.
  kSetPoolZoneGroup = 7,
  // A writer's flushed tail (see FlushTrailer): data it flushed in zone
  // `device`:`offset`'s zone from `offset` on is found at mount by walking
  // the zone, not from records. The last kSetTail of a file wins.
  kSetTail = 8,
  kClearTail = 9,  // the writer closed: nothing to walk
  // Zone `device`:`zone` was split into subzones (SplitZNS 4.2). The device
  // keeps the split itself; the op lets mount check that every extent in a
  // subzone lies in a zone zfs split, and makes builds without subzones
  // refuse the volume ("unknown operation in record").
  kSplitZone = 10,
};

struct FileRecord {
  uint64_t id = 0;
  std::vector<std::string> names;  // paths; more than one with hard links
  uint64_t size = 0;
  uint64_t mtime_us = 0;
  FileKind kind = FileKind::kOther;
  Lifetime lifetime = Lifetime::kNotSet;
  int32_t level = -1;
  std::vector<Extent> extents;
};

struct Op {
  OpType type = OpType::kPutFile;
  FileRecord file;   // kPutFile, kAppendFile (id, size, mtime, extents)
  uint64_t id = 0;   // kDeleteFile
  std::string path;  // kPutDir, kDeleteDir
  uint32_t device = 0, zone = 0, group = 0;  // kSetZoneGroup, kSetPoolZoneGroup (kSplitZone: no group)
  // kSetTail: file `id`, device `device`, device offset `offset`.
  // kClearTail: file `id`.
  uint64_t offset = 0;
};

// The op that gives data zone `zone` of `device` to `group`.
inline Op ZoneGroupOp(uint32_t device, uint32_t zone, uint32_t group, bool pool) {
  return {.type = pool ? OpType::kSetPoolZoneGroup : OpType::kSetZoneGroup,
          .device = device, .zone = zone, .group = group};
}

// A flushed chunk of a file's tail: its data from the chunk start (the
// file's tail mark, or the end of the chunk before) on, zero padding, and
// in the last 16 bytes of the block it ends in this trailer:
//   u32 magic, u32 data length, u32 CRC-32 of the data (as extents),
//   u32 XXH32 of the file id (u64), the chunk's device offset (u64) and
//   the 12 bytes before it.
// Binding the check to the file and position means that neither another
// file's chunk nor stale bytes at another offset pass as this chunk.
// The chunk's last block is the first that leaves 16 bytes after the data.
constexpr size_t kTrailerBytes = 16;
struct FlushTrailer {
  uint32_t length = 0;
  uint32_t crc = 0;
};
void EncodeTrailer(const FlushTrailer& t, uint64_t file_id, uint64_t chunk_offset,
                   uint8_t* out /* kTrailerBytes */);
// The trailer in `bytes` (kTrailerBytes), if it is one for this file and
// chunk offset.
std::optional<FlushTrailer> DecodeTrailer(const uint8_t* bytes, uint64_t file_id,
                                          uint64_t chunk_offset);

// A staging file ("flush": "host", host_staging.h) begins with this
// 16-byte header:
//   u32 magic, u32 version (2), u64 bytes of whole pieces that follow it
// The count is stored once a piece is whole: bytes past it are a piece
// whose Flush never returned.
constexpr size_t kStageFileHeaderBytes = 16;
constexpr uint32_t kStageFileMagic = 0x4653535a;  // "ZSSF"
constexpr uint32_t kStageFileVersion = 2;
// Version 1's pieces carry the CRC of their own data; mount still reads it.
constexpr uint32_t kStageFileVersionPieceCrc = 1;

// A piece of a file staged in host memory by a Flush: this 32-byte
// header, then `length` bytes of the file from byte `offset` on:
//   u32 magic, u32 length, u64 file id, u64 file offset, u32 CRC-32 (as
//   extents), u32 XXH32 of the 28 bytes before it.
// In a version 2 file the CRC runs over the staged bytes from the first
// piece's offset to this piece's end, so the writer derives its extents'
// CRCs from these instead of reading the bytes again (files.cc,
// ExtentCrc); in a version 1 file and one without a file header, it is
// the piece's own data's.
constexpr size_t kStageHeaderBytes = 32;
struct StageHeader {
  uint32_t length = 0;
  uint64_t file_id = 0;
  uint64_t offset = 0;
  uint32_t crc = 0;
};
void EncodeStageHeader(const StageHeader& h, uint8_t* out /* kStageHeaderBytes */);
// The header in `bytes` (kStageHeaderBytes), if its magic and check hold.
std::optional<StageHeader> DecodeStageHeader(const uint8_t* bytes);

// kVoid marks the record before it as torn (its write never completed, so
// it was never acknowledged): written at mount after a torn tail, so that
// records can follow it and a later mount still tells the torn record from
// a corrupt one (see DecodeRecord).
enum class RecordType : uint8_t { kSnapshot = 1, kOps = 2, kVoid = 3 };

struct Record {
  RecordType type = RecordType::kOps;
  std::vector<Op> ops;           // kSnapshot, kOps
  uint64_t voided_offset = 0;    // kVoid: device offset of the torn record
};

// Block-aligned encodings; decoders reject anything malformed.
std::vector<uint8_t> EncodeLabel(const Label& label, uint32_t block_size);
absl::StatusOr<Label> DecodeLabel(const std::vector<uint8_t>& block);
std::vector<uint8_t> EncodeLogZoneHeader(const LogZoneHeader& h, uint32_t block_size);
absl::StatusOr<LogZoneHeader> DecodeLogZoneHeader(const std::vector<uint8_t>& block);

// A record is a header, the body, and zero padding to the block size (added
// by the writer):
//   u32 magic, u32 body length, u64 index (0 = the zone's snapshot, then
//   one more per record), u32 XXH32 of the body, u32 XXH32 of the 20 header
//   bytes before it.
// The header has its own checksum so that a record whose body was cut short
// by a torn write (valid header, length past the write pointer) can be told
// from one whose bytes changed after they were written (corruption).
std::vector<uint8_t> EncodeRecord(const Record& record, uint64_t index);
constexpr size_t kRecordHeaderBytes = 24;

struct DecodedRecord {
  Record record;
  uint64_t index = 0;
  size_t length = 0;  // header and body, without padding
};
// Decodes the record at the start of `bytes`, which end at the zone's write
// pointer:
//  - NotFound: the header is all zeroes (nothing was written here);
//  - OutOfRange: a valid header whose body runs past `size` (a torn write);
//  - DataLoss: anything else that is not a whole, valid record.
absl::StatusOr<DecodedRecord> DecodeRecord(const uint8_t* bytes, size_t size);
// Whether `bytes` starts with a record header whose own checksum holds.
bool HasRecordHeader(const uint8_t* bytes, size_t size);

std::string DescribeOp(const Op& op);

}  // namespace zonestack::zfs
