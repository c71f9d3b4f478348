#include "zfs/metadata_log.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace zonestack::zfs {
namespace {

using device::IoClass;
using device::IoContext;

const IoContext kMeta{IoClass::kMetadata};

absl::StatusOr<std::vector<uint8_t>> ReadBytes(device::ZonedDevice* dev, uint64_t offset,
                                               uint64_t length) {
  std::vector<uint8_t> buf(length);
  if (length == 0) return buf;
  if (auto s = dev->Read(offset, buf, kMeta); !s.ok()) return s;
  return buf;
}

std::vector<uint8_t> Padded(std::vector<uint8_t> bytes, uint32_t block) {
  bytes.resize((bytes.size() + block - 1) / block * block, 0);
  return bytes;
}

// What one metadata zone holds, read from its first record to its write
// pointer.
struct ZoneLog {
  std::vector<Op> ops;
  uint64_t records = 0;        // after the snapshot
  bool have_snapshot = false;
  bool torn_tail = false;
  uint64_t end = 0;            // bytes from the first record to the end of the last valid one
  uint64_t next_index = 0;
  std::string corruption;      // the first corrupt record, described; empty if none
  std::vector<std::string> problems;  // every corrupt stretch (salvage)
};

uint64_t RoundUp(uint64_t n, uint64_t block) { return (n + block - 1) / block * block; }

// The first offset after `pos`, block-aligned, where a record header with a
// valid checksum starts; bytes.size() if none.
size_t NextHeader(const std::vector<uint8_t>& bytes, size_t pos, uint32_t bs) {
  for (size_t q = pos + bs; q < bytes.size(); q += bs) {
    if (HasRecordHeader(bytes.data() + q, bytes.size() - q)) return q;
  }
  return bytes.size();
}

// Replays the records of a zone. `bytes` start at the first record
// (`first` = its device offset) and end at the write pointer; `full` says
// the zone was finished, so zeroes after the last record are its unwritten
// tail rather than written zeroes. A record that fails is:
//  - the torn tail when its header is intact, its body runs past the write
//    pointer, and no valid record follows: its write never completed;
//  - voided when a kVoid record naming it follows (a mount found it torn
//    and wrote the marker so that the log could go on after it);
//  - corrupt otherwise. Without `salvage` replay stops at the first
//    corrupt record; with it, it resumes at the next valid header.
ZoneLog ReplayZone(const std::vector<uint8_t>& bytes, uint64_t first, uint32_t bs, bool full,
                   bool salvage) {
  ZoneLog z;
  size_t pos = 0;
  auto corrupt = [&](size_t at, const std::string& why, size_t resume) {
    const size_t later = [&] {
      size_t n = 0;
      for (size_t q = NextHeader(bytes, at, bs); q < bytes.size(); q = NextHeader(bytes, q, bs)) ++n;
      return n;
    }();
    std::string what = absl::StrCat("record ", z.next_index, " at device offset ", first + at,
                                    ": ", why, "; ", later, " valid record header",
                                    later == 1 ? "" : "s", " follow");
    if (z.corruption.empty()) z.corruption = what;
    z.problems.push_back(std::move(what));
    pos = resume;
  };
  while (pos < bytes.size()) {
    auto rec = DecodeRecord(bytes.data() + pos, bytes.size() - pos);
    if (rec.ok()) {
      const RecordType type = rec->record.type;
      std::string wrong;
      if (rec->index != z.next_index && !(salvage && !z.corruption.empty())) {
        wrong = absl::StrCat("index ", rec->index, " where ", z.next_index, " was expected");
      } else if (type == RecordType::kVoid) {
        wrong = "a torn-record marker with no torn record before it";
      } else if ((type == RecordType::kSnapshot) != (rec->index == 0)) {
        wrong = type == RecordType::kSnapshot ? "a snapshot after the zone's first record"
                                              : "the zone does not start with a snapshot";
      }
      if (!wrong.empty()) {
        corrupt(pos, wrong, NextHeader(bytes, pos, bs));
        if (!salvage) break;
        continue;
      }
      if (type == RecordType::kSnapshot) z.have_snapshot = true; else ++z.records;
      for (Op& op : rec->record.ops) z.ops.push_back(std::move(op));
      z.next_index = rec->index + 1;
      pos += RoundUp(rec->length, bs);
      z.end = pos;
      continue;
    }
    const bool zeroes = rec.status().code() == absl::StatusCode::kNotFound;
    if (zeroes && full &&
        std::all_of(bytes.begin() + static_cast<ptrdiff_t>(pos), bytes.end(),
                    [](uint8_t b) { return b == 0; })) {
      break;  // the unwritten tail of a finished zone
    }
    const size_t next = NextHeader(bytes, pos, bs);
    if (next < bytes.size()) {
      auto marker = DecodeRecord(bytes.data() + next, bytes.size() - next);
      if (marker.ok() && marker->record.type == RecordType::kVoid &&
          marker->record.voided_offset == first + pos && marker->index == z.next_index) {
        z.next_index = marker->index + 1;
        pos = next + RoundUp(marker->length, bs);
        z.end = pos;
        continue;
      }
    } else if (rec.status().code() == absl::StatusCode::kOutOfRange && !full) {
      z.torn_tail = true;
      break;
    }
    corrupt(pos, std::string(rec.status().message()), next);
    if (!salvage) break;
  }
  return z;
}

}  // namespace

MetadataLog::MetadataLog(device::ZonedDevice* dev, std::vector<uint32_t> zones,
                         const VolumeId& id, size_t active, uint64_t sequence,
                         uint64_t write_offset, uint64_t next_index)
    : dev_(dev), zones_(std::move(zones)), id_(id), active_(active), sequence_(sequence),
      write_offset_(write_offset), next_index_(next_index) {}

absl::Status MetadataLog::Format(device::ZonedDevice* dev, const std::vector<uint32_t>& zones,
                                 const VolumeId& id) {
  for (uint32_t z : zones) {
    if (auto s = dev->ResetZone(z, kMeta); !s.ok()) return s;
  }
  MetadataLog log(dev, zones, id, 0, 1, dev->ZoneStart(zones[0]), 0);
  const uint32_t bs = dev->info().block_size;
  auto header = EncodeLogZoneHeader({id, 1}, bs);
  if (auto s = dev->Write(log.write_offset_, header, kMeta); !s.ok()) return s;
  log.write_offset_ += header.size();
  return log.WriteRecord({RecordType::kSnapshot, {}});
}

absl::StatusOr<MetadataLog::Recovered> MetadataLog::Recover(device::ZonedDevice* dev,
                                                            const std::vector<uint32_t>& zones,
                                                            const VolumeId& id,
                                                            const RecoverOptions& options) {
  const uint32_t bs = dev->info().block_size;
  struct Candidate {
    size_t index;
    uint64_t sequence;
  };
  std::vector<Candidate> candidates;
  std::vector<std::string> problems;
  for (size_t i = 0; i < zones.size(); ++i) {
    auto zi = dev->ReportZone(zones[i]);
    if (!zi.ok()) return zi.status();
    if (zi->write_pointer - zi->start < bs && zi->state != device::ZoneState::kFull) continue;
    auto block = ReadBytes(dev, zi->start, bs);
    if (!block.ok()) return block.status();
    auto h = DecodeLogZoneHeader(*block);
    // A roll writes a zone's header in one block right after resetting it,
    // so a metadata zone with anything written holds a valid header of this
    // volume, or it was damaged after the fact.
    std::string bad;
    if (!h.ok()) {
      bad = std::string(h.status().message());
    } else if (h->volume_id != id) {
      bad = absl::StrCat("its header names volume ", FormatVolumeId(h->volume_id));
    }
    if (!bad.empty()) {
      if (zi->state == device::ZoneState::kFull &&
          std::all_of(block->begin(), block->end(), [](uint8_t b) { return b == 0; })) {
        continue;  // finished while empty: a roll that never wrote its header
      }
      std::string what = absl::StrCat("metadata zone ", zones[i], ": ", bad);
      if (!options.salvage) {
        return absl::DataLossError(absl::StrCat(
            "volume ", FormatVolumeId(id), " has corrupt metadata: ", what,
            ". Nothing was changed; `zsctl fsck --repair` salvages what can be read"));
      }
      problems.push_back(std::move(what));
      continue;
    }
    candidates.push_back({i, h->sequence});
  }
  std::sort(candidates.begin(), candidates.end(),
            [](const Candidate& a, const Candidate& b) { return a.sequence > b.sequence; });
  for (const Candidate& c : candidates) {
    auto zi = dev->ReportZone(zones[c.index]);
    if (!zi.ok()) return zi.status();
    const bool full = zi->state == device::ZoneState::kFull;
    const uint64_t start = zi->start + bs;
    const uint64_t written_end = full ? zi->start + zi->capacity : zi->write_pointer;
    auto bytes = ReadBytes(dev, start, written_end - start);
    if (!bytes.ok()) return bytes.status();
    ZoneLog z = ReplayZone(*bytes, start, bs, full, options.salvage);
    if (!z.corruption.empty() && !options.salvage) {
      return absl::DataLossError(absl::StrCat(
          "volume ", FormatVolumeId(id), " has corrupt metadata in zone ", zones[c.index],
          " (log sequence ", c.sequence, "): ", z.corruption,
          ". Nothing was changed; `zsctl fsck --repair` salvages what can be read"));
    }
    for (std::string& p : z.problems) {
      problems.push_back(absl::StrCat("metadata zone ", zones[c.index], ": ", std::move(p)));
    }
    if (!z.have_snapshot) continue;  // a roll that crashed before its snapshot
    Recovered out;
    out.ops = std::move(z.ops);
    out.records = z.records;
    out.torn_tail = z.torn_tail;
    out.problems = std::move(problems);
    uint64_t next = start + z.end;
    // A full zone (a roll that did not complete) takes no more records, nor
    // one whose replay skipped corrupt records: the next append rolls.
    if (full || !z.corruption.empty()) next = zi->start + zi->capacity;
    out.log.reset(new MetadataLog(dev, zones, id, c.index, c.sequence, next, z.next_index));
    if (z.torn_tail && !options.read_only) {
      // New records go after the torn bytes, behind a marker that says the
      // torn record was never acknowledged.
      out.log->write_offset_ = zi->write_pointer;
      Record marker{.type = RecordType::kVoid, .voided_offset = start + z.end};
      if (auto s = out.log->WriteRecord(marker); !s.ok()) {
        if (s.code() != absl::StatusCode::kResourceExhausted) return s;
        out.log->write_offset_ = zi->start + zi->capacity;  // no room: the next append rolls
      }
    }
    return out;
  }
  return absl::DataLossError(
      absl::StrCat("no metadata zone of volume ", FormatVolumeId(id),
                   " holds a complete snapshot: the metadata is lost or corrupt"));
}

absl::Status MetadataLog::WriteRecord(const Record& r, bool durable) {
  const uint32_t bs = dev_->info().block_size;
  std::vector<uint8_t> bytes = Padded(EncodeRecord(r, next_index_), bs);
  auto zi = dev_->ReportZone(zones_[active_]);
  if (!zi.ok()) return zi.status();
  if (write_offset_ + bytes.size() > zi->start + zi->capacity ||
      zi->state == device::ZoneState::kFull) {
    return absl::ResourceExhaustedError(
        absl::StrCat("metadata record of ", bytes.size(), " bytes does not fit in zone ",
                     zones_[active_]));
  }
  if (auto s = dev_->Write(write_offset_, bytes, kMeta); !s.ok()) return s;
  write_offset_ += bytes.size();
  ++next_index_;
  ++totals_.records;
  totals_.bytes += bytes.size();
  if (r.type == RecordType::kSnapshot) totals_.snapshot_bytes += bytes.size();
  if (!durable) return absl::OkStatus();
  ++totals_.flushes;
  return dev_->Flush(kMeta);
}

absl::Status MetadataLog::Append(const std::vector<Op>& ops, const SnapshotFn& snapshot,
                                 bool durable) {
  absl::Status s = rolling_ ? absl::ResourceExhaustedError("a roll is unfinished")
                            : WriteRecord({RecordType::kOps, ops}, durable);
  if (s.code() != absl::StatusCode::kResourceExhausted) return s;
  if (auto r = Roll(snapshot); !r.ok()) return r;
  return WriteRecord({RecordType::kOps, ops}, durable);
}

absl::Status MetadataLog::Rewrite(const SnapshotFn& snapshot) { return Roll(snapshot); }

absl::Status MetadataLog::Roll(const SnapshotFn& snapshot) {
  if (!rolling_) {
    // Finish the old zone first: it stays readable, as the newest complete
    // log should the roll not complete, but gives back its active zone,
    // which the new zone needs when data holds all the others.
    if (auto s = dev_->FinishZone(zones_[active_], kMeta); !s.ok()) return s;
    previous_ = active_;
    active_ = (active_ + 1) % zones_.size();
    ++sequence_;
    rolling_ = true;
  }
  // Until the new zone holds its snapshot, every append restarts it here:
  // records after a header without a snapshot would be lost at mount.
  const uint32_t zone = zones_[active_];
  const uint32_t bs = dev_->info().block_size;
  write_offset_ = dev_->ZoneStart(zone) + bs;
  next_index_ = 0;
  if (auto s = dev_->ResetZone(zone, kMeta); !s.ok()) return s;
  auto header = EncodeLogZoneHeader({id_, sequence_}, bs);
  if (auto s = dev_->Write(dev_->ZoneStart(zone), header, kMeta); !s.ok()) return s;
  totals_.bytes += header.size();
  auto state = snapshot();
  if (!state.ok()) return state.status();
  if (auto s = WriteRecord({RecordType::kSnapshot, std::move(*state)}); !s.ok()) {
    if (s.code() != absl::StatusCode::kResourceExhausted) return s;  // a device error
    return absl::ResourceExhaustedError(absl::StrCat(
        "metadata snapshot does not fit in one metadata zone: ", s.message()));
  }
  rolling_ = false;
  ++totals_.rolls;
  // Only once the new snapshot is durable may the old zone go.
  return dev_->ResetZone(zones_[previous_], kMeta);
}

absl::StatusOr<std::vector<std::string>> MetadataLog::Dump() const {
  const uint32_t bs = dev_->info().block_size;
  const uint64_t start = dev_->ZoneStart(zones_[active_]) + bs;
  auto bytes = ReadBytes(dev_, start, write_offset_ - start);
  if (!bytes.ok()) return bytes.status();
  std::vector<std::string> lines;
  lines.push_back(absl::StrCat("metadata zone ", zones_[active_], " sequence ", sequence_));
  size_t pos = 0;
  while (pos < bytes->size()) {
    auto rec = DecodeRecord(bytes->data() + pos, bytes->size() - pos);
    if (!rec.ok() && rec.status().code() == absl::StatusCode::kNotFound) break;
    if (!rec.ok()) {
      lines.push_back(absl::StrCat("@", start + pos, " unreadable: ", rec.status().message()));
      const size_t next = NextHeader(*bytes, pos, bs);
      pos = next;
      continue;
    }
    const char* type = rec->record.type == RecordType::kSnapshot ? "snapshot"
                       : rec->record.type == RecordType::kVoid   ? "torn-record marker"
                                                                  : "record";
    lines.push_back(absl::StrCat("@", start + pos, " #", rec->index, " ", type, " (",
                                 rec->record.ops.size(), " ops)"));
    for (const Op& op : rec->record.ops) lines.push_back("  " + DescribeOp(op));
    pos += RoundUp(rec->length, bs);
  }
  return lines;
}

}  // namespace zonestack::zfs
