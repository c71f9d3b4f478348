// Mount's walk of writers' flushed tails. A Flush in the zone of its
// file's tail mark logs nothing: it ends a chunk with a trailer
// (format.h, FlushTrailer), and this walk finds the chunks again.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "zfs/volume_impl.h"

namespace zonestack::zfs {
namespace {

// Bytes read from the device at a time.
constexpr uint64_t kWalkWindow = 1 << 20;

std::string FileName(const FileMeta& f) {
  return f.names.empty() ? absl::StrCat("file ", f.id) : f.names[0];
}

}  // namespace

absl::StatusOr<std::vector<Op>> VolumeImpl::RecoverTails(RepairReport* repair) {
  std::vector<Op> ops;
  for (const auto& [id, f] : files_) {
    if (!f->tail) continue;
    const TailMark mark = *f->tail;
    f->tail.reset();
    ops.push_back({.type = OpType::kClearTail, .id = id});
    auto fail = [&](const std::string& what) -> absl::Status {
      const std::string msg = absl::StrCat("flushed tail of ", FileName(*f), " at device ",
                                           mark.device, " offset ", mark.offset, ": ", what);
      if (!repair) return absl::DataLossError(msg);
      repair->problems.push_back(msg + " (the walk stopped there)");
      return absl::OkStatus();
    };
    if (mark.device >= members_.size() ||
        mark.offset / members_[mark.device].info.zone_size >= members_[mark.device].zones.size()) {
      if (auto s = fail("outside the volume"); !s.ok()) return s;
      continue;
    }
    const Member& m = members_[mark.device];
    const uint64_t bs = m.info.block_size;
    // The zone's write pointer, or in a split zone the subzone's.
    const uint64_t wp = RegionAt(mark.device, mark.offset).write_pointer;

    // The chunk being walked starts at `start`; `crc` covers [start, block)
    // and `prev_crc` [start, block - bs), with `prev` the block before, for
    // a chunk whose data ends within the last 16 bytes of a block (its
    // trailer then has a block of its own).
    std::vector<Extent> found;
    uint64_t start = mark.offset;
    uint32_t crc = 0, prev_crc = 0;
    std::vector<uint8_t> window, prev(bs);
    bool stop = false;
    for (uint64_t pos = start; !stop && pos + bs <= wp;) {
      window.resize(std::min<uint64_t>(kWalkWindow, (wp - pos) / bs * bs));
      if (auto s = m.dev->Read(pos, window, {device::IoClass::kMetadata}); !s.ok()) return s;
      for (uint64_t at = 0; at < window.size(); at += bs, pos += bs) {
        const uint8_t* block = window.data() + at;
        const uint64_t end = pos + bs;
        auto t = DecodeTrailer(block + bs - kTrailerBytes, f->id, start);
        if (t && (t->length + kTrailerBytes + bs - 1) / bs * bs == end - start) {
          const uint64_t data_end = start + t->length;
          const uint32_t c =
              data_end >= pos
                  ? CombineCrc(crc, DataCrc(0, block, data_end - pos), data_end - pos)
                  : CombineCrc(prev_crc, DataCrc(0, prev.data(), data_end - (pos - bs)),
                               data_end - (pos - bs));
          if (c != t->crc) {
            if (auto s = fail(absl::StrCat("the chunk at offset ", start,
                                           " does not match its CRC"));
                !s.ok()) {
              return s;
            }
            stop = true;
            break;
          }
          if (t->length > 0) found.push_back({mark.device, start, t->length, t->crc});
          start = end;
          crc = prev_crc = 0;
          continue;
        }
        prev_crc = crc;
        crc = CombineCrc(crc, DataCrc(0, block, bs), bs);
        std::copy(block, block + bs, prev.begin());
      }
    }
    // Blocks after the last trailer were never flushed: not acknowledged.
    if (found.empty()) continue;
    absl::MutexLock fl(&f->mu);
    for (const Extent& x : found) AppendExtent(f->extents, x);
    f->ends.clear();
    uint64_t size = 0;
    for (const Extent& x : f->extents) f->ends.push_back(size += x.length);
    f->size = size;
    f->persisted_extents = f->extents.size();
    f->persisted_last_len = f->extents.back().length;
    f->persisted_last_crc = f->extents.back().crc;
    f->persisted_size = size;
    FileRecord rec;
    rec.id = id;
    rec.size = size;
    rec.mtime_us = f->mtime_us;
    rec.kind = f->hint.kind;
    rec.lifetime = f->hint.lifetime;
    rec.level = f->hint.level;
    rec.extents = std::move(found);
    ops.insert(ops.end() - 1, {.type = OpType::kAppendFile, .file = std::move(rec)});
  }
  return ops;
}

}  // namespace zonestack::zfs
