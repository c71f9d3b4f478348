// FillAhead: pages ahead of a write position become resident on the
// thread, never beyond what was asked, and the thread stops cleanly.
// Residency is read with mincore after WaitIdle, so nothing depends on
// how fast the thread runs.
#include "device/fill_ahead.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace zonestack::device {
namespace {

constexpr uint64_t MiB = 1 << 20;

// An anonymous mapping without huge pages, as the memory backing makes.
class Mapping {
 public:
  explicit Mapping(uint64_t size) : size_(size) {
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) {
      madvise(p, size, MADV_NOHUGEPAGE);
      data_ = static_cast<uint8_t*>(p);
    }
  }
  ~Mapping() {
    if (data_) munmap(data_, size_);
  }
  uint8_t* data() const { return data_; }

  // Bytes of [from, to) whose pages are resident.
  uint64_t ResidentBytes(uint64_t from, uint64_t to) const {
    const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> vec((to - from + page - 1) / page);
    if (mincore(data_ + from, to - from, vec.data()) != 0) return 0;
    uint64_t n = 0;
    for (unsigned char v : vec) n += (v & 1) ? page : 0;
    return n;
  }

 private:
  uint64_t size_;
  uint8_t* data_ = nullptr;
};

TEST(FillAheadTest, PagesAheadOfTheWritePositionBecomeResident) {
  Mapping m(16 * MiB);
  ASSERT_NE(m.data(), nullptr);
  ASSERT_EQ(m.ResidentBytes(0, 16 * MiB), 0u);
  FillAhead fill(4 * MiB);
  fill.Advance(m.data(), 16 * MiB, 1 * MiB);
  fill.WaitIdle();
  // The writer's next 4 MiB are resident; what it wrote is its own.
  EXPECT_EQ(m.ResidentBytes(1 * MiB, 5 * MiB), 4 * MiB);
  EXPECT_EQ(fill.populated_bytes(), 4 * MiB);
  // The window follows the writer, and skips what the writer passed.
  fill.Advance(m.data(), 16 * MiB, 9 * MiB);
  fill.WaitIdle();
  EXPECT_EQ(m.ResidentBytes(9 * MiB, 13 * MiB), 4 * MiB);
  EXPECT_EQ(m.ResidentBytes(5 * MiB, 9 * MiB), 0u);
  EXPECT_EQ(fill.populated_bytes(), 8 * MiB);
}

TEST(FillAheadTest, StopsAtTheRegionEnd) {
  Mapping m(4 * MiB);
  ASSERT_NE(m.data(), nullptr);
  FillAhead fill(8 * MiB);
  fill.Advance(m.data(), 2 * MiB, 0);  // a region smaller than the window
  fill.WaitIdle();
  EXPECT_EQ(m.ResidentBytes(0, 2 * MiB), 2 * MiB);
  EXPECT_EQ(m.ResidentBytes(2 * MiB, 4 * MiB), 0u);
  EXPECT_EQ(fill.populated_bytes(), 2 * MiB);
}

// A populate that only records what it was asked.
struct Recorder {
  std::mutex mu;
  std::vector<std::pair<uint8_t*, uint64_t>> calls;
  FillAhead::Populate Fn(bool ok = true) {
    return [this, ok](uint8_t* p, uint64_t len) {
      std::lock_guard<std::mutex> lock(mu);
      calls.emplace_back(p, len);
      return ok;
    };
  }
};

TEST(FillAheadTest, AReusedRegionIsNotPopulatedAgain) {
  Recorder rec;
  uint8_t* const base = reinterpret_cast<uint8_t*>(uintptr_t{1} << 40);  // never touched
  FillAhead fill(4 * MiB, rec.Fn());
  fill.Advance(base, 8 * MiB, 0);
  fill.WaitIdle();
  fill.Advance(base, 8 * MiB, 4 * MiB);
  fill.WaitIdle();
  EXPECT_EQ(fill.populated_bytes(), 8 * MiB);
  // Written again from its start (a zone reset): already resident.
  fill.Advance(base, 8 * MiB, 0);
  fill.Advance(base, 8 * MiB, 1 * MiB);
  fill.WaitIdle();
  EXPECT_EQ(fill.populated_bytes(), 8 * MiB);
  // Steps of at most 1 MiB, contiguous from the region's start.
  uint64_t next = 0;
  for (const auto& [p, len] : rec.calls) {
    EXPECT_EQ(p, base + next);
    EXPECT_LE(len, 1 * MiB);
    next += len;
  }
  EXPECT_EQ(next, 8 * MiB);
}

TEST(FillAheadTest, ARefusedRegionIsGivenUp) {
  Recorder rec;
  uint8_t* const base = reinterpret_cast<uint8_t*>(uintptr_t{1} << 40);
  FillAhead fill(4 * MiB, rec.Fn(/*ok=*/false));
  fill.Advance(base, 16 * MiB, 0);
  fill.WaitIdle();
  fill.Advance(base, 16 * MiB, 8 * MiB);
  fill.WaitIdle();
  EXPECT_EQ(fill.populated_bytes(), 0u);
  EXPECT_EQ(rec.calls.size(), 1u);
}

TEST(FillAheadTest, DestroyingWithWorkPendingStopsTheThread) {
  Recorder rec;
  uint8_t* const base = reinterpret_cast<uint8_t*>(uintptr_t{1} << 40);
  {
    FillAhead fill(uint64_t{1} << 30, rec.Fn());
    fill.Advance(base, uint64_t{1} << 30, 0);  // 1024 steps to go
  }  // joins; must not hang or touch `rec` afterwards
  std::lock_guard<std::mutex> lock(rec.mu);
  EXPECT_LE(rec.calls.size(), 1024u);
}

}  // namespace
}  // namespace zonestack::device
