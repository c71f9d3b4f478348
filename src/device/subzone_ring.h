// SubZone Ring (SplitZNS section 4.4.1): a FIFO buffer per chip in the
// controller's DRAM that acknowledges subzone writes and, once the buffer
// is full, programs one unit from each chip's FIFO at once, so subzones
// are written with the parallelism of a wide zone. Each subzone keeps a
// ring array of its buffered units in order; the bytes below its actual
// write pointer are on flash, the rest in the ring (R1-R3).
//
// The ring holds the bytes themselves: the device writes a unit to its
// backing only when the ring drains it, and a read of a subzone above the
// actual write pointer is served from here. The DRAM is capacitor-backed,
// as in the paper: on a power cut the device drains the ring (DrainAll).
//
// A unit is a chip's program unit (one page on each plane). Not
// thread-safe: EmulatedDevice calls it under its lock.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <span>
#include <utility>
#include <vector>

namespace zonestack::device {

class SubzoneRing {
 public:
  // A subzone: (split zone, subzone index).
  using Key = std::pair<uint32_t, uint32_t>;
  // A unit leaving the ring for its chip: subzone `key`'s bytes starting
  // `offset` bytes into the subzone.
  struct Drained {
    Key key;
    int32_t chip = -1;
    uint64_t offset = 0;
    std::vector<uint8_t> data;
  };

  SubzoneRing(uint64_t capacity_bytes, uint32_t chips, uint64_t unit_bytes);

  uint64_t capacity() const { return capacity_; }
  uint64_t used() const { return used_; }
  // W1: whether `len` more bytes need a drain round first.
  bool Full(uint64_t len) const { return used_ + len > capacity_; }

  // W5-W6: buffers `data`, written at `offset` bytes into subzone `key`
  // on `chip` (its write pointer). A unit enters its chip's FIFO once it
  // is complete.
  void Append(Key key, int32_t chip, uint64_t offset, std::span<const uint8_t> data);
  // W2-W4: one complete unit from the head of each chip's FIFO; the
  // subzones' actual write pointers move past them. Empty when no chip
  // has a complete unit.
  std::vector<Drained> DrainRound();
  // Everything buffered, in each subzone's order (a power cut, with the
  // capacitor's energy).
  std::vector<Drained> DrainAll();

  // Bytes of subzone `key` on flash: everything at or past this offset
  // that was written is in the ring.
  uint64_t ActualWritePointer(Key key) const;
  // R2: copies the buffered bytes of subzone `key` that fall in
  // [offset, offset + dst.size()) into dst (at the same relative place);
  // returns how many bytes came from the ring.
  uint64_t Read(Key key, uint64_t offset, std::span<uint8_t> dst) const;

  // The subzone was finished: its last, partial unit is programmed as it
  // is.
  void Seal(Key key);
  // The subzone was reset: its bytes leave the ring without reaching
  // flash.
  void Drop(Key key);

 private:
  struct Unit {
    std::vector<uint8_t> data;
    bool complete = false;
  };
  struct Array {  // a subzone's ring array
    int32_t chip = -1;
    uint64_t actual_wp = 0;
    std::deque<Unit> units;
  };

  const uint64_t capacity_;
  const uint64_t unit_;
  uint64_t used_ = 0;
  std::map<Key, Array> arrays_;
  // Per chip: the subzones whose next complete unit waits, in the order
  // the units were completed.
  std::vector<std::deque<Key>> fifo_;
};

}  // namespace zonestack::device
