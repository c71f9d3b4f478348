// Cell migration (ZnH2 3.3.1): live extents leave zones of one cell mode
// (SLC) for zones opened in another (QLC) on the same device. zfs gathers
// the candidates, the policy orders them (principle #2: by lifetime, then
// by the zone's reclaim ratio), and each file's chosen extents move with
// MoveExtents (relocation.cc), by Simple Copy when asked (principle #3):
// copy, flush, one record swaps the extent list, and only then are the old
// zones reset when nothing else lives there. Extents are the unit
// (principle #1), not zones.
#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "zfs/volume_impl.h"

namespace zonestack::zfs {

absl::Status VolumeImpl::MigrateCells(const CellMigration& request, CellMigrationStats* stats) {
  if (request.device >= members_.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("device ", request.device, " but the volume has ", members_.size()));
  }
  const Member& m = members_[request.device];
  if (!m.info.SupportsCellMode(request.to_mode) ||
      request.to_mode == m.info.default_cell_mode) {
    return absl::InvalidArgumentError(absl::StrCat(
        m.info.name, " cannot take a migration to ", device::ToString(request.to_mode),
        " zones: not a mode it opens zones in besides its default"));
  }
  struct Candidate {
    std::shared_ptr<FileMeta> file;
    Extent extent;
    double priority;
  };
  std::vector<Candidate> candidates;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [id, f] : files_) {
      // A file being written cannot be moved (MoveExtents refuses it).
      if (f->deleted || f->writer_open) continue;
      absl::ReaderMutexLock fl(&f->mu);
      for (const Extent& x : f->extents) {
        if (x.device != request.device) continue;
        const uint32_t zone = ZoneOf(x);
        const ZoneUse& z = m.zones[zone];
        if (z.role != ZoneRole::kData || z.retired || z.cell_mode == request.to_mode) continue;
        const uint64_t invalid = z.written > z.valid ? z.written - z.valid : 0;
        const ExtentCandidate c{
            .file = &f->hint,
            .device = x.device,
            .zone = zone,
            .bytes = x.length,
            .zone_mode = z.cell_mode,
            .zone_reclaim_ratio = static_cast<double>(invalid) / static_cast<double>(z.capacity)};
        if (auto p = options_.placement->CellMigrationPriority(c)) {
          candidates.push_back({f, x, *p});
        }
      }
    }
  }
  // Highest priority first; ties keep the file and extent order.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.priority > b.priority; });
  // The chosen extents of each file, files in the order of their best one.
  std::vector<std::pair<std::shared_ptr<FileMeta>, std::set<uint64_t>>> chosen;
  uint64_t bytes = 0;
  for (const Candidate& c : candidates) {
    if (bytes >= request.bytes) break;
    bytes += c.extent.length;
    auto it = std::find_if(chosen.begin(), chosen.end(),
                           [&](const auto& e) { return e.first == c.file; });
    if (it == chosen.end()) it = chosen.insert(chosen.end(), {c.file, {}});
    it->second.insert(c.extent.offset);
  }
  const bool by_copy = request.simple_copy && m.info.supports_simple_copy;
  for (const auto& [file, offsets] : chosen) {
    uint64_t moved = 0;
    absl::Status s = MoveExtents(
        file,
        [&](const Extent& x) { return x.device == request.device && offsets.contains(x.offset); },
        request.device,
        {.purpose = Purpose::kMigration,
         .io_class = device::IoClass::kMigration,
         .cell_mode = request.to_mode,
         .simple_copy = by_copy},
        &moved);
    if (s.ok()) {
      stats->extents_moved += offsets.size();
      stats->bytes_moved += moved;
      continue;
    }
    // The file was deleted, reopened or moved meanwhile: the others still go.
    if (absl::IsAborted(s) || absl::IsFailedPrecondition(s)) {
      ++stats->aborted;
      continue;
    }
    if (absl::IsResourceExhausted(s)) {
      ++stats->no_room;
      return absl::OkStatus();
    }
    return s;
  }
  return absl::OkStatus();
}

}  // namespace zonestack::zfs
