#include "zfs/write_buffers.h"

namespace zonestack::zfs {

WriteBufferPool::~WriteBufferPool() {
  absl::MutexLock lock(&mu_);
  for (uint8_t* p : idle_) FreeAligned(p);
}

uint8_t* WriteBufferPool::Take() {
  {
    absl::MutexLock lock(&mu_);
    if (!idle_.empty()) {
      uint8_t* p = idle_.back();
      idle_.pop_back();
      return p;
    }
  }
  return AllocateAligned(kBytes);
}

void WriteBufferPool::Give(uint8_t* buffer) {
  {
    absl::MutexLock lock(&mu_);
    if (idle_.size() < kMaxIdle) {
      idle_.push_back(buffer);
      return;
    }
  }
  FreeAligned(buffer);
}

}  // namespace zonestack::zfs
