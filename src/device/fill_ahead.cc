#include "device/fill_ahead.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace zonestack::device {

bool FillAhead::PopulateWrite(uint8_t* p, uint64_t len) {
  // madvise takes whole pages; the mappings this serves are page-aligned
  // and page-granular, so widening the range stays inside them.
  static const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t start = reinterpret_cast<uintptr_t>(p) & ~(page - 1);
  const uint64_t end = (reinterpret_cast<uintptr_t>(p) + len + page - 1) & ~(page - 1);
  while (madvise(reinterpret_cast<void*>(start), end - start, MADV_POPULATE_WRITE) != 0) {
    // EINVAL: a kernel older than 5.14; ENOMEM: no memory to populate with.
    if (errno != EINTR && errno != EAGAIN) return false;
  }
  return true;
}

FillAhead::FillAhead(uint64_t ahead, Populate populate)
    : ahead_(ahead), populate_(std::move(populate)), thread_([this] { Run(); }) {}

FillAhead::~FillAhead() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
    work_.Signal();
  }
  thread_.join();
}

void FillAhead::Advance(uint8_t* base, uint64_t size, uint64_t written) {
  absl::MutexLock lock(&mu_);
  Region& r = regions_[base];
  r.size = size;
  // A region may be written again from its start (a zone's memory is
  // reused after a reset); its resident bytes stay resident.
  r.written = written;
  r.want = std::max(r.want, std::min(size, r.written + ahead_));
  if (!waiting_ || r.failed || r.done >= r.want) return;
  // Waking the thread for every small write would cost more than the
  // faults it saves: it is woken once half the window is used up, or for
  // the last bytes of a region.
  if (r.want - r.done >= ahead_ / 2 || r.want == size) work_.Signal();
}

void FillAhead::WaitIdle() {
  absl::MutexLock lock(&mu_);
  // Work too small to wake the thread for (Advance) is done now.
  if (waiting_ && PendingLocked()) work_.Signal();
  while (!stop_ && (busy_ || PendingLocked())) idle_.Wait(&mu_);
}

uint64_t FillAhead::populated_bytes() const {
  absl::MutexLock lock(&mu_);
  return populated_;
}

bool FillAhead::PendingLocked() const {
  for (const auto& [base, r] : regions_) {
    if (!r.failed && r.done < r.want) return true;
  }
  return false;
}

std::map<uint8_t*, FillAhead::Region>::iterator FillAhead::MostUrgentLocked() {
  auto best = regions_.end();
  uint64_t best_slack = 0;
  for (auto it = regions_.begin(); it != regions_.end(); ++it) {
    const Region& r = it->second;
    if (r.failed || r.done >= r.want) continue;
    const uint64_t slack = r.done - std::min(r.done, r.written);
    if (best == regions_.end() || slack < best_slack) {
      best = it;
      best_slack = slack;
    }
  }
  return best;
}

void FillAhead::Run() {
  mu_.Lock();
  while (true) {
    auto it = MostUrgentLocked();
    while (!stop_ && it == regions_.end()) {
      idle_.SignalAll();
      waiting_ = true;
      work_.Wait(&mu_);
      waiting_ = false;
      it = MostUrgentLocked();
    }
    if (stop_) break;
    uint8_t* const base = it->first;
    // Bytes below the writer's position are resident already (it wrote
    // them): a writer that overtook the thread is not followed but
    // passed, so the two never fault the same pages.
    const uint64_t from = std::max(it->second.done, it->second.written);
    const uint64_t to = std::min(it->second.want, from + kStep);
    if (from >= to) {  // the writer is past everything asked for
      it->second.done = it->second.want;
      continue;
    }
    // The fault work runs without the lock, so Advance (called under the
    // device lock) never waits for it. Regions are never removed, so
    // `base` stays valid; its memory is the caller's to keep mapped.
    busy_ = true;
    mu_.Unlock();
    const bool ok = populate_(base + from, to - from);
    mu_.Lock();
    busy_ = false;
    Region& r = regions_[base];
    if (ok) {
      r.done = std::max(r.done, to);
      populated_ += to - from;
    } else {
      r.failed = true;
    }
  }
  idle_.SignalAll();
  mu_.Unlock();
}

}  // namespace zonestack::device
