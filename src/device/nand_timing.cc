#include "device/nand_timing.h"

#include <cmath>

namespace zonestack::device {
namespace {

uint64_t TransferNs(uint64_t bytes, double bytes_per_s) {
  return static_cast<uint64_t>(std::llround(static_cast<double>(bytes) * 1e9 /
                                            bytes_per_s));
}

}  // namespace

NandTiming::NandTiming(const NandParams& params, uint64_t zone_size)
    : params_(params),
      zone_size_(zone_size),
      dies_(params.geometry.num_dies()),
      channels_(params.geometry.channels) {
  if (params.read_scheduler) {
    die_queues_.resize(dies_.size());
    channel_queues_.resize(channels_.size());
  }
}

bool NandTiming::Urgent(const TimedRequest& r) const {
  return params_.read_scheduler && r.op == IoOp::kRead && r.chip >= 0 && !r.internal &&
         r.io_class == IoClass::kUserRead;
}

uint64_t NandTiming::Reserve(Timeline& t, Queue* q, uint64_t now, uint64_t earliest,
                             uint64_t duration, bool urgent) {
  if (!params_.read_scheduler) return t.Reserve(earliest, duration);
  // Only what ended before the request arrived is history: a request's
  // later units reserve ahead of `now`, and a query arriving meanwhile
  // must still find them.
  while (!q->ops.empty() && q->ops.front().second <= now) q->ops.pop_front();
  uint64_t start;
  if (!urgent) {
    start = t.Reserve(earliest, duration);
  } else {
    start = std::max(earliest, q->query_avail_ns);
    for (const auto& [from, to] : q->ops) {
      if (from <= earliest && earliest < to) start = std::max(start, to);  // in progress
    }
    t.avail_ns = std::max(t.avail_ns, start) + duration;
    t.busy_ns += duration;
    q->query_avail_ns = start + duration;
  }
  q->ops.push_back({start, start + duration});
  return start;
}

const CellLatency& NandTiming::Latency(CellMode mode) const {
  switch (mode) {
    case CellMode::kSlc: return params_.slc;
    case CellMode::kQlc: return params_.qlc;
    default: return params_.tlc;
  }
}

uint32_t NandTiming::DiesPerZone() const {
  const NandGeometry& g = params_.geometry;
  return g.dies_per_zone == 0 ? g.num_dies() : g.dies_per_zone;
}

uint32_t NandTiming::DieOf(uint32_t zone, uint64_t offset_in_zone) const {
  const NandGeometry& g = params_.geometry;
  const uint32_t dpz = DiesPerZone();
  const uint64_t unit = offset_in_zone / g.unit_bytes();
  const uint64_t first = static_cast<uint64_t>(zone) * dpz;
  // Channel-first striping: consecutive units go to consecutive channels.
  const uint64_t slot = (first + unit % dpz) % g.num_dies();
  const uint32_t channel = static_cast<uint32_t>(slot % g.channels);
  const uint32_t way = static_cast<uint32_t>(slot / g.channels);
  return way * g.channels + channel;
}

uint32_t NandTiming::PageType(const CellLatency& lat,
                              uint64_t offset_in_zone) const {
  const uint64_t page_on_die =
      offset_in_zone / params_.geometry.unit_bytes() / DiesPerZone();
  return static_cast<uint32_t>(page_on_die % lat.page_types);
}

uint64_t NandTiming::Schedule(const TimedRequest& r, uint64_t submit_ns) {
  const uint64_t start = submit_ns + params_.command_ns;
  if (r.buffered) return ScheduleBuffered(r, start);
  switch (r.op) {
    case IoOp::kRead: return ScheduleRead(r, start);
    case IoOp::kWrite: return ScheduleWrite(r, start);
    case IoOp::kReset: return ScheduleErase(r, start);
    default: return start;
  }
}

uint64_t NandTiming::ScheduleBuffered(const TimedRequest& r, uint64_t start) {
  if (r.internal) return start;
  const bool read = r.op == IoOp::kRead;
  Timeline& link = read ? host_read_ : host_write_;
  const uint64_t ns =
      TransferNs(r.length, read ? params_.host_read_bytes_per_s : params_.host_write_bytes_per_s);
  return link.Reserve(start, ns) + ns;
}

uint32_t NandTiming::DieFor(const TimedRequest& r, uint32_t zone, uint64_t in_zone) const {
  return r.chip >= 0 ? static_cast<uint32_t>(r.chip) : DieOf(zone, in_zone);
}

uint32_t NandTiming::PageTypeFor(const TimedRequest& r, const CellLatency& lat,
                                 uint64_t in_zone) const {
  // A subzone's units all go to its one die, in order.
  if (r.chip >= 0) {
    return static_cast<uint32_t>(in_zone / params_.geometry.unit_bytes() % lat.page_types);
  }
  return PageType(lat, in_zone);
}

uint64_t NandTiming::ScheduleRead(const TimedRequest& r, uint64_t start) {
  const NandGeometry& g = params_.geometry;
  const CellLatency& lat = Latency(r.cell_mode);
  uint64_t done = start;
  uint64_t pos = r.offset, end = r.offset + r.length;
  while (pos < end) {
    const uint32_t zone = static_cast<uint32_t>(pos / zone_size_);
    const uint64_t in_zone = pos % zone_size_;
    const uint64_t unit_end = (in_zone / g.unit_bytes() + 1) * g.unit_bytes();
    const uint64_t bytes = std::min(end - pos, unit_end - in_zone);
    const uint32_t die = DieFor(r, zone, in_zone);
    const uint32_t type = PageTypeFor(r, lat, in_zone);
    if (r.cell_mode == CellMode::kQlc) ++qlc_page_reads_[type];
    // Sense the pages into the die's registers, move them over the channel,
    // then over the host link.
    const bool urgent = Urgent(r);
    const uint32_t channel = die % g.channels;
    Queue* die_q = params_.read_scheduler ? &die_queues_[die] : nullptr;
    Queue* ch_q = params_.read_scheduler ? &channel_queues_[channel] : nullptr;
    const uint64_t sensed =
        Reserve(dies_[die], die_q, start, start, lat.read_ns[type], urgent) + lat.read_ns[type];
    const uint64_t xfer = TransferNs(bytes, params_.channel_bytes_per_s);
    uint64_t t = Reserve(channels_[channel], ch_q, start, sensed, xfer, urgent) + xfer;
    if (!r.internal) {
      const uint64_t link = TransferNs(bytes, params_.host_read_bytes_per_s);
      t = Reserve(host_read_, params_.read_scheduler ? &link_queue_ : nullptr, start, t, link,
                  urgent) +
          link;
    }
    done = std::max(done, t);
    pos += bytes;
  }
  return done;
}

uint64_t NandTiming::ScheduleWrite(const TimedRequest& r, uint64_t start) {
  const NandGeometry& g = params_.geometry;
  const CellLatency& lat = Latency(r.cell_mode);
  uint64_t done = start;
  uint64_t pos = r.offset, end = r.offset + r.length;
  while (pos < end) {
    const uint32_t zone = static_cast<uint32_t>(pos / zone_size_);
    const uint64_t in_zone = pos % zone_size_;
    const uint64_t unit_end = (in_zone / g.unit_bytes() + 1) * g.unit_bytes();
    const uint64_t bytes = std::min(end - pos, unit_end - in_zone);
    const uint32_t die = DieFor(r, zone, in_zone);
    uint64_t t = start;
    if (!r.internal) {
      const uint64_t link = TransferNs(bytes, params_.host_write_bytes_per_s);
      t = host_write_.Reserve(t, link) + link;
    }
    const uint32_t channel = die % g.channels;
    const uint64_t xfer = TransferNs(bytes, params_.channel_bytes_per_s);
    t = Reserve(channels_[channel], params_.read_scheduler ? &channel_queues_[channel] : nullptr,
                start, t, xfer, false) +
        xfer;
    if (in_zone + bytes == unit_end) {
      // The unit is complete: the die programs it once its previous program
      // is done, and only then has the buffer room for this data.
      const uint64_t prog = lat.program_ns[PageTypeFor(r, lat, in_zone)];
      t = Reserve(dies_[die], params_.read_scheduler ? &die_queues_[die] : nullptr, start, t,
                  prog, false);
    }
    done = std::max(done, t);
    pos += bytes;
  }
  return done;
}

uint64_t NandTiming::ScheduleErase(const TimedRequest& r, uint64_t start) {
  const NandGeometry& g = params_.geometry;
  const CellLatency& lat = Latency(r.cell_mode);
  const uint32_t dpz = DiesPerZone();
  if (r.length == 0) return start;
  // The written units went round-robin over the zone's dies; each die erases
  // the blocks holding its own units (die i got one more than the others
  // when i < units % dpz). A multi-plane erase takes one block per plane.
  const uint64_t units = (r.length + g.unit_bytes() - 1) / g.unit_bytes();
  const uint64_t native_bits = static_cast<uint64_t>(params_.native_cell_mode);
  const uint64_t mode_bits =
      r.cell_mode == CellMode::kNone ? native_bits : static_cast<uint64_t>(r.cell_mode);
  const uint64_t units_per_block =
      std::max<uint64_t>(1, g.block_bytes / g.page_bytes * mode_bits / native_bits);
  if (r.chip >= 0) {
    // A subzone reset erases the blocks of its one chip (section 4.2).
    const uint64_t blocks = (units + units_per_block - 1) / units_per_block;
    erases_ += blocks;
    const uint32_t die = static_cast<uint32_t>(r.chip);
    return Reserve(dies_[die], params_.read_scheduler ? &die_queues_[die] : nullptr, start,
                   start, blocks * lat.erase_ns, false) +
           blocks * lat.erase_ns;
  }
  const uint32_t used_dies = static_cast<uint32_t>(std::min<uint64_t>(dpz, units));
  uint64_t done = start;
  for (uint32_t i = 0; i < used_dies; ++i) {
    const uint64_t die_units = units / dpz + (i < units % dpz ? 1 : 0);
    const uint64_t blocks = (die_units + units_per_block - 1) / units_per_block;
    const uint32_t die = DieOf(r.zone, uint64_t{i} * g.unit_bytes());
    const uint64_t t = Reserve(dies_[die], params_.read_scheduler ? &die_queues_[die] : nullptr,
                               start, start, blocks * lat.erase_ns, false) +
                       blocks * lat.erase_ns;
    done = std::max(done, t);
    erases_ += blocks;
  }
  return done;
}

void NandTiming::ExportStats(DeviceStats* stats) const {
  for (size_t i = 0; i < dies_.size(); ++i) {
    stats->busy_ns["die" + std::to_string(i)] = dies_[i].busy_ns;
  }
  for (size_t i = 0; i < channels_.size(); ++i) {
    stats->busy_ns["channel" + std::to_string(i)] = channels_[i].busy_ns;
  }
  stats->busy_ns["link_read"] = host_read_.busy_ns;
  stats->busy_ns["link_write"] = host_write_.busy_ns;
  stats->erases += erases_;
  for (size_t i = 0; i < qlc_page_reads_.size(); ++i) stats->qlc_page_reads[i] += qlc_page_reads_[i];
}

}  // namespace zonestack::device
