#include "zfs/write_buffers.h"

#include <new>

namespace zonestack::zfs {
namespace {

void Free(uint8_t* p) { ::operator delete[](p, std::align_val_t{kMemoryAlignment}); }

}  // namespace

WriteBufferPool::~WriteBufferPool() {
  absl::MutexLock lock(&mu_);
  for (uint8_t* p : idle_) Free(p);
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
  return static_cast<uint8_t*>(::operator new[](kBytes, std::align_val_t{kMemoryAlignment}));
}

void WriteBufferPool::Give(uint8_t* buffer) {
  {
    absl::MutexLock lock(&mu_);
    if (idle_.size() < kMaxIdle) {
      idle_.push_back(buffer);
      return;
    }
  }
  Free(buffer);
}

}  // namespace zonestack::zfs
