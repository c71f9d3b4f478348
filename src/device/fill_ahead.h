// A thread that makes memory resident just ahead of where it is about to be
// written, so the kernel's first-touch page faults happen on this thread
// and not inside a timed command, under the device lock, where they would
// slow the modeled device down (docs/emulator.md, "Keeping pace").
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace zonestack::device {

class FillAhead {
 public:
  // Makes [p, p + len) resident and writable; false when the kernel
  // refused, and then the region is given up (its writes fault as before).
  using Populate = std::function<bool(uint8_t* p, uint64_t len)>;
  // madvise(MADV_POPULATE_WRITE): faults the pages in as a write would,
  // without touching their contents, so it is safe beside a writer.
  static bool PopulateWrite(uint8_t* p, uint64_t len);

  // Keeps `ahead` bytes resident past each region's write position.
  explicit FillAhead(uint64_t ahead, Populate populate = PopulateWrite);
  // Stops the thread: a populate under way finishes, pending work is
  // dropped.
  ~FillAhead();
  FillAhead(const FillAhead&) = delete;
  FillAhead& operator=(const FillAhead&) = delete;

  // The region [base, base + size) has been written up to `written` (which
  // may go back to 0 when the region is reused): its bytes up to
  // `written + ahead` are to be made resident. The region's
  // memory must stay mapped while this object lives. Cheap enough to call
  // under a device lock on every write: a mutex, and a wake-up only when
  // half the window has been used up.
  void Advance(uint8_t* base, uint64_t size, uint64_t written) ABSL_LOCKS_EXCLUDED(mu_);
  // Returns once everything asked for so far is resident (or given up).
  void WaitIdle() ABSL_LOCKS_EXCLUDED(mu_);
  // Bytes made resident so far.
  uint64_t populated_bytes() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Region {
    uint64_t size = 0;
    uint64_t written = 0;  // the writer's position
    uint64_t want = 0;     // resident up to here is asked for
    uint64_t done = 0;     // resident up to here
    bool failed = false;   // the kernel refused: no more attempts
  };
  // Populated per step, so that regions written side by side take turns
  // and a stop is noticed soon.
  static constexpr uint64_t kStep = 1 << 20;

  void Run();
  // The region whose writer is closest to catching up with its resident
  // bytes, or end() when nothing is pending.
  std::map<uint8_t*, Region>::iterator MostUrgentLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool PendingLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const uint64_t ahead_;
  const Populate populate_;
  mutable absl::Mutex mu_;
  absl::CondVar work_;  // signaled when there is work or a stop
  absl::CondVar idle_;  // signaled when the thread finds nothing to do
  std::map<uint8_t*, Region> regions_ ABSL_GUARDED_BY(mu_);
  bool waiting_ ABSL_GUARDED_BY(mu_) = false;  // the thread sleeps on work_
  bool busy_ ABSL_GUARDED_BY(mu_) = false;     // a populate runs outside mu_
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t populated_ ABSL_GUARDED_BY(mu_) = 0;
  std::thread thread_;  // last: starts once everything above is built
};

}  // namespace zonestack::device
