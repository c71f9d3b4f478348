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

}  // namespace

MetadataLog::MetadataLog(device::ZonedDevice* dev, std::vector<uint32_t> zones,
                         const VolumeId& id, size_t active, uint64_t sequence,
                         uint64_t write_offset)
    : dev_(dev), zones_(std::move(zones)), id_(id), active_(active), sequence_(sequence),
      write_offset_(write_offset) {}

absl::Status MetadataLog::Format(device::ZonedDevice* dev, const std::vector<uint32_t>& zones,
                                 const VolumeId& id) {
  for (uint32_t z : zones) {
    if (auto s = dev->ResetZone(z, kMeta); !s.ok()) return s;
  }
  MetadataLog log(dev, zones, id, 0, 1, dev->ZoneStart(zones[0]));
  const uint32_t bs = dev->info().block_size;
  auto header = EncodeLogZoneHeader({id, 1}, bs);
  if (auto s = dev->Write(log.write_offset_, header, kMeta); !s.ok()) return s;
  log.write_offset_ += header.size();
  return log.WriteRecord({RecordType::kSnapshot, {}});
}

absl::StatusOr<MetadataLog::Recovered> MetadataLog::Recover(device::ZonedDevice* dev,
                                                            const std::vector<uint32_t>& zones,
                                                            const VolumeId& id, bool read_only) {
  const uint32_t bs = dev->info().block_size;
  struct Candidate {
    size_t index;
    uint64_t sequence;
  };
  std::vector<Candidate> candidates;
  for (size_t i = 0; i < zones.size(); ++i) {
    auto zi = dev->ReportZone(zones[i]);
    if (!zi.ok()) return zi.status();
    if (zi->write_pointer - zi->start < bs) continue;
    auto block = ReadBytes(dev, zi->start, bs);
    if (!block.ok()) return block.status();
    auto h = DecodeLogZoneHeader(*block);
    if (!h.ok() || h->volume_id != id) continue;
    candidates.push_back({i, h->sequence});
  }
  std::sort(candidates.begin(), candidates.end(),
            [](const Candidate& a, const Candidate& b) { return a.sequence > b.sequence; });
  for (const Candidate& c : candidates) {
    auto zi = dev->ReportZone(zones[c.index]);
    if (!zi.ok()) return zi.status();
    const uint64_t start = zi->start + bs;
    auto bytes = ReadBytes(dev, start, zi->write_pointer - start);
    if (!bytes.ok()) return bytes.status();
    Recovered out;
    size_t pos = 0;
    bool have_snapshot = false;
    while (pos < bytes->size()) {
      auto rec = DecodeRecord(bytes->data() + pos, bytes->size() - pos);
      if (!rec.ok()) {
        out.torn_tail = rec.status().code() == absl::StatusCode::kDataLoss;
        break;
      }
      if (!have_snapshot && rec->first.type != RecordType::kSnapshot) break;
      if (have_snapshot && rec->first.type == RecordType::kSnapshot) {
        out.torn_tail = true;  // a snapshot mid-log is not something we write
        break;
      }
      if (have_snapshot) ++out.records;
      have_snapshot = true;
      for (Op& op : rec->first.ops) out.ops.push_back(std::move(op));
      pos += (rec->second + bs - 1) / bs * bs;
    }
    if (!have_snapshot) continue;  // a roll that crashed before its snapshot
    // New records go after the last valid one. After a torn tail they must
    // not follow the torn bytes, so the zone is finished and the next
    // append rolls to a fresh zone.
    uint64_t next = start + pos;
    // A full zone (a roll that did not complete) takes no more records.
    if ((out.torn_tail && !read_only) || zi->state == device::ZoneState::kFull) {
      next = zi->start + zi->capacity;  // forces a roll
    }
    out.log.reset(new MetadataLog(dev, zones, id, c.index, c.sequence, next));
    if (!read_only && next > zi->write_pointer) {
      // Make the zone full so the torn bytes are never appended after.
      if (auto s = dev->FinishZone(zones[c.index], kMeta); !s.ok()) return s;
    }
    return out;
  }
  return absl::DataLossError(
      absl::StrCat("no metadata zone of volume ", FormatVolumeId(id),
                   " holds a complete snapshot: the metadata is lost or corrupt"));
}

absl::Status MetadataLog::WriteRecord(const Record& r) {
  const uint32_t bs = dev_->info().block_size;
  std::vector<uint8_t> bytes = Padded(EncodeRecord(r), bs);
  auto zi = dev_->ReportZone(zones_[active_]);
  if (!zi.ok()) return zi.status();
  if (write_offset_ + bytes.size() > zi->start + zi->capacity) {
    return absl::ResourceExhaustedError(
        absl::StrCat("metadata record of ", bytes.size(), " bytes does not fit in zone ",
                     zones_[active_]));
  }
  if (auto s = dev_->Write(write_offset_, bytes, kMeta); !s.ok()) return s;
  write_offset_ += bytes.size();
  return dev_->Flush(kMeta);
}

absl::Status MetadataLog::Append(const std::vector<Op>& ops, const SnapshotFn& snapshot) {
  absl::Status s = rolling_ ? absl::ResourceExhaustedError("a roll is unfinished")
                            : WriteRecord({RecordType::kOps, ops});
  if (s.code() != absl::StatusCode::kResourceExhausted) return s;
  if (auto r = Roll(snapshot); !r.ok()) return r;
  return WriteRecord({RecordType::kOps, ops});
}

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
  if (auto s = dev_->ResetZone(zone, kMeta); !s.ok()) return s;
  auto header = EncodeLogZoneHeader({id_, sequence_}, bs);
  if (auto s = dev_->Write(dev_->ZoneStart(zone), header, kMeta); !s.ok()) return s;
  if (auto s = WriteRecord({RecordType::kSnapshot, snapshot()}); !s.ok()) {
    if (s.code() != absl::StatusCode::kResourceExhausted) return s;  // a device error
    return absl::ResourceExhaustedError(absl::StrCat(
        "metadata snapshot does not fit in one metadata zone: ", s.message()));
  }
  rolling_ = false;
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
    if (!rec.ok()) {
      lines.push_back(absl::StrCat("@", start + pos, " end: ", rec.status().message()));
      break;
    }
    lines.push_back(absl::StrCat("@", start + pos, " ",
                                 rec->first.type == RecordType::kSnapshot ? "snapshot" : "record",
                                 " (", rec->first.ops.size(), " ops)"));
    for (const Op& op : rec->first.ops) lines.push_back("  " + DescribeOp(op));
    pos += (rec->second + bs - 1) / bs * bs;
  }
  return lines;
}

}  // namespace zonestack::zfs
