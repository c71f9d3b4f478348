// Read Prefetcher (SplitZNS section 4.4.2): a compaction reads each of its
// input subzones sequentially, one chip at a time. Each subzone a
// compaction reads has a read pointer; when a compaction read has to go to
// flash, the device also prereads, on every other chip, the next bytes of
// one subzone that is being compacted (its read pointer past its start)
// into that subzone's small preread buffer, so the chips work in parallel
// and the next compaction read of that subzone is served from the buffer.
//
// The bookkeeping only: the buffer's bytes are the flash's (a subzone does
// not change below its write pointer until it is reset, which Forget
// follows), so the device reads them from its backing and charges the
// preread to the chip. Not thread-safe: EmulatedDevice calls it under its
// lock.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"

namespace zonestack::device {

class ReadPrefetcher {
 public:
  // A subzone: (split zone, subzone index).
  using Key = std::pair<uint32_t, uint32_t>;
  // A preread to issue: `length` bytes at `offset` into subzone `key`.
  struct Preread {
    Key key;
    int32_t chip = -1;
    uint64_t offset = 0;
    uint64_t length = 0;
  };
  // What a compaction read found in the preread buffer: its first `bytes`
  // bytes, ready at `ready_ns`.
  struct Hit {
    uint64_t bytes = 0;
    uint64_t ready_ns = 0;
  };

  // `buffer_bytes`: the preread buffer of each subzone (the paper's four
  // flash pages).
  explicit ReadPrefetcher(uint64_t buffer_bytes) : buffer_(buffer_bytes) {}

  // R3-R4: a compaction read of [offset, offset + length) of subzone `key`
  // on `chip`, offsets in the subzone. Advances the read pointer; returns
  // the part the buffer served, which it gives up.
  Hit Read(Key key, int32_t chip, uint64_t offset, uint64_t length);
  // R5: after a compaction read on `chip` went to flash, one preread on
  // each other chip: a subzone being compacted whose buffer is empty and
  // which has bytes on flash past its read pointer (`on_flash` says how
  // many bytes of a subzone are on flash).
  std::vector<Preread> Choose(int32_t chip, absl::FunctionRef<uint64_t(Key)> on_flash) const;
  // The device issued `p`; its bytes are in the buffer from `ready_ns` on.
  void Issued(const Preread& p, uint64_t ready_ns);
  // The subzone was reset: its read pointer and buffer are gone.
  void Forget(Key key) { subzones_.erase(key); }

 private:
  struct Subzone {
    int32_t chip = -1;
    uint64_t read_pointer = 0;
    uint64_t buffer_from = 0, buffer_to = 0;  // empty when equal
    uint64_t ready_ns = 0;
  };

  const uint64_t buffer_;
  std::map<Key, Subzone> subzones_;  // the subzones compactions have read
};

}  // namespace zonestack::device
