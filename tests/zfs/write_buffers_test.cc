// Writers' buffers: block-aligned, reused between files, at most kMaxIdle
// kept, and a vector that outgrows its pooled buffer gives it back.
#include "zfs/write_buffers.h"

#include <cstdint>
#include <set>
#include <vector>

#include <gtest/gtest.h>

namespace zonestack::zfs {
namespace {

using Buffer = std::vector<uint8_t, BlockAlignedAllocator<uint8_t>>;

TEST(WriteBuffersTest, BuffersAreBlockAligned) {
  WriteBufferPool pool;
  uint8_t* p = pool.Take();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kMemoryAlignment, 0u);
  pool.Give(p);
  Buffer heap{BlockAlignedAllocator<uint8_t>(&pool)};
  heap.resize(100);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(heap.data()) % kMemoryAlignment, 0u);
}

TEST(WriteBuffersTest, AGivenBufferIsTakenAgain) {
  WriteBufferPool pool;
  uint8_t* p = pool.Take();
  pool.Give(p);
  EXPECT_EQ(pool.Take(), p);
  pool.Give(p);
}

TEST(WriteBuffersTest, AtMostMaxIdleAreKept) {
  WriteBufferPool pool;
  std::vector<uint8_t*> taken;
  for (size_t i = 0; i < WriteBufferPool::kMaxIdle + 2; ++i) taken.push_back(pool.Take());
  for (uint8_t* p : taken) pool.Give(p);
  // The pool kept the first kMaxIdle given back and freed the rest.
  std::set<uint8_t*> again;
  for (size_t i = 0; i < WriteBufferPool::kMaxIdle; ++i) again.insert(pool.Take());
  EXPECT_EQ(again, std::set<uint8_t*>(taken.begin(), taken.begin() + WriteBufferPool::kMaxIdle));
  for (uint8_t* p : again) pool.Give(p);
}

TEST(WriteBuffersTest, AReservingVectorUsesThePool) {
  WriteBufferPool pool;
  uint8_t* first = nullptr;
  {
    Buffer buf{BlockAlignedAllocator<uint8_t>(&pool)};
    buf.reserve(WriteBufferPool::kBytes);
    first = buf.data();
  }
  Buffer buf{BlockAlignedAllocator<uint8_t>(&pool)};
  buf.reserve(WriteBufferPool::kBytes);
  EXPECT_EQ(buf.data(), first);
}

TEST(WriteBuffersTest, OutgrowingThePooledBufferGivesItBack) {
  WriteBufferPool pool;
  Buffer buf{BlockAlignedAllocator<uint8_t>(&pool)};
  buf.reserve(WriteBufferPool::kBytes);
  uint8_t* pooled = buf.data();
  buf.resize(WriteBufferPool::kBytes + 1, 7);
  EXPECT_NE(buf.data(), pooled);
  EXPECT_EQ(buf.back(), 7);
  EXPECT_EQ(pool.Take(), pooled);
  pool.Give(pooled);
}

}  // namespace
}  // namespace zonestack::zfs
