// Writers' buffers, kept by the volume between files. A writer's buffer
// holds up to a write batch plus one append, block-aligned so an O_DIRECT
// device writes from it without a bounce copy. Allocated per file, such a
// buffer (grown by doubling) came from fresh pages each time: the kernel
// zeroed them and faulted them in, about twice ZenFS's page-clearing time
// in a profile of db_bench fillrandom (experiments/peer/README.md).
// Reusing them keeps their pages mapped and touched.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace zonestack::zfs {

// Memory a device reads into or writes from without a bounce copy: O_DIRECT
// wants buffers aligned to the logical block size, at most 4 KiB on the
// devices ZbdDevice opens.
inline constexpr size_t kMemoryAlignment = 4096;

inline uint8_t* AllocateAligned(size_t bytes) {
  return static_cast<uint8_t*>(::operator new[](bytes, std::align_val_t{kMemoryAlignment}));
}
inline void FreeAligned(void* p) { ::operator delete[](p, std::align_val_t{kMemoryAlignment}); }

// Buffers of kBytes, block-aligned; thread-safe.
class WriteBufferPool {
 public:
  // Room for a write batch (files.cc, 1 MiB) left in the buffer, one
  // append of RocksDB's largest write buffer (1 MiB) and a block of
  // padding and trailer.
  static constexpr size_t kBytes = (2 << 20) + (64 << 10);
  // Idle buffers kept at most (16 MiB): more than RocksDB's usual count
  // of writers at once (WAL, MANIFEST, flushes and compactions).
  static constexpr size_t kMaxIdle = 8;

  WriteBufferPool() = default;
  WriteBufferPool(const WriteBufferPool&) = delete;
  WriteBufferPool& operator=(const WriteBufferPool&) = delete;
  ~WriteBufferPool();

  // A buffer of kBytes, an idle one if any.
  uint8_t* Take();
  // Gives back a buffer Take returned; kept if fewer than kMaxIdle are.
  void Give(uint8_t* buffer);

 private:
  absl::Mutex mu_;
  std::vector<uint8_t*> idle_ ABSL_GUARDED_BY(mu_);
};

// Block-aligned memory for a std::vector: from `pool` when the vector asks
// for exactly WriteBufferPool::kBytes (a writer reserves that much first),
// otherwise from the heap. The pool must outlive the vector.
template <typename T>
struct BlockAlignedAllocator {
  using value_type = T;
  explicit BlockAlignedAllocator(WriteBufferPool* p = nullptr) : pool(p) {}
  template <typename U>
  explicit BlockAlignedAllocator(const BlockAlignedAllocator<U>& other) : pool(other.pool) {}
  T* allocate(size_t n) {
    if (pool != nullptr && n * sizeof(T) == WriteBufferPool::kBytes) {
      return reinterpret_cast<T*>(pool->Take());
    }
    return reinterpret_cast<T*>(AllocateAligned(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) {
    if (pool != nullptr && n * sizeof(T) == WriteBufferPool::kBytes) {
      pool->Give(reinterpret_cast<uint8_t*>(p));
      return;
    }
    FreeAligned(p);
  }
  // Growth leaves new bytes uninitialized: Append copies over them.
  // (Construction with a value, the padding's, is the default one.)
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  friend bool operator==(const BlockAlignedAllocator& a, const BlockAlignedAllocator& b) {
    return a.pool == b.pool;
  }
  WriteBufferPool* pool;
};

}  // namespace zonestack::zfs
