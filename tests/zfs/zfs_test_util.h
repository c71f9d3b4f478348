// Helpers shared by the zfs tests: emulated devices, data patterns that can
// be checked at any offset, whole-file write and read, readers checking
// files while they are moved, the fsck check, and simulated crashes
// (EmulatedDevice::PowerOff, then teardown, then PowerOn).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "../common/status_macros.h"
#include "../common/test_threads.h"
#include "device/emulated_device.h"
#include "test_clock.h"
#include "zfs/volume.h"

namespace zonestack::zfs::testing_util {

using Devices = std::vector<std::shared_ptr<device::ZonedDevice>>;

// zn540 at 1/256: 8 MiB zones of 4411392 bytes, 14 active zones.
inline std::string ZnsUri(uint32_t zones, const std::string& extra = "") {
  return absl::StrCat("emu:zn540?zones=", zones, "&scale=1/256&timing=none", extra);
}
// st14000nm0007 at 1/256: 1 MiB zones, ZBC (no reads past the write
// pointer), the first 1% conventional.
inline std::string SmrUri(uint32_t zones, const std::string& extra = "") {
  return absl::StrCat("emu:st14000nm0007?zones=", zones, "&scale=1/256&timing=none", extra);
}

inline std::shared_ptr<device::ZonedDevice> OpenDev(const std::string& uri) {
  auto d = device::OpenDevice(uri);
  EXPECT_TRUE(d.ok()) << d.status();
  if (!d.ok()) return nullptr;
  return std::shared_ptr<device::ZonedDevice>(std::move(*d));
}

inline device::EmulatedDevice* Emu(const std::shared_ptr<device::ZonedDevice>& d) {
  return dynamic_cast<device::EmulatedDevice*>(d.get());
}

// Byte `offset` of the stream named `seed`: any range can be checked
// without keeping the data.
inline uint64_t PatternWord(uint64_t seed, uint64_t word) {
  uint64_t z = seed * 0x9e3779b97f4a7c15ULL + word + 1;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
inline uint8_t PatternByte(uint64_t seed, uint64_t offset) {
  return static_cast<uint8_t>(PatternWord(seed, offset >> 3) >> (8 * (offset & 7)));
}
inline std::vector<uint8_t> Pattern(uint64_t seed, uint64_t offset, uint64_t len) {
  std::vector<uint8_t> v(len);
  uint64_t i = 0;
  for (; i < len && ((offset + i) & 7) != 0; ++i) v[i] = PatternByte(seed, offset + i);
  for (; i + 8 <= len; i += 8) {
    const uint64_t w = PatternWord(seed, (offset + i) >> 3);
    std::memcpy(v.data() + i, &w, 8);  // little-endian, as PatternByte
  }
  for (; i < len; ++i) v[i] = PatternByte(seed, offset + i);
  return v;
}
inline std::vector<uint8_t> Pattern(uint64_t seed, uint64_t len) { return Pattern(seed, 0, len); }
// Whether `data` is bytes [offset, offset + data.size()) of stream `seed`.
inline bool MatchesPattern(uint64_t seed, uint64_t offset, std::span<const uint8_t> data) {
  return std::vector<uint8_t>(data.begin(), data.end()) == Pattern(seed, offset, data.size());
}

// Writes `data` as a new file in appends of `chunk` bytes, then closes it.
inline absl::Status WriteFile(Volume& vol, const std::string& path,
                              std::span<const uint8_t> data, const FileHint& hint = {},
                              size_t chunk = 64 << 10) {
  auto f = vol.Create(path, hint);
  if (!f.ok()) return f.status();
  for (size_t pos = 0; pos < data.size(); pos += chunk) {
    if (auto s = (*f)->Append(data.subspan(pos, std::min(chunk, data.size() - pos))); !s.ok()) {
      return s;
    }
  }
  return (*f)->Close();
}

inline absl::StatusOr<std::vector<uint8_t>> ReadFile(const Volume& vol, const std::string& path) {
  auto r = vol.Open(path);
  if (!r.ok()) return r.status();
  std::vector<uint8_t> out((*r)->size());
  auto n = (*r)->Read(0, out);
  if (!n.ok()) return n.status();
  if (*n != out.size()) {
    return absl::DataLossError(absl::StrCat(path, ": read ", *n, " of ", out.size(), " bytes"));
  }
  return out;
}

// Reads random ranges of files on a thread of its own until it is
// destroyed, checking every byte against the file's pattern: a reader of
// files that GC, relocation or migration move meanwhile. A read that fails
// or returns other bytes is a test failure and ends the thread.
class PatternReader {
 public:
  // Reads `file`, which holds `seed`'s pattern, through that one handle.
  PatternReader(const ReadableFile& file, uint64_t seed)
      : thread_([this, &file, seed](std::stop_token stop) {
          std::mt19937_64 rng(seed);
          while (!stop.stop_requested() && ReadOnce(file, seed, "the file", rng)) {
          }
        }) {}
  // Reads files of `vol`, opening each anew: `pick` names the next (none
  // yet: nullopt), whose pattern is seeded by the hash of its path. A file
  // deleted meanwhile is skipped.
  PatternReader(const Volume& vol,
                std::function<std::optional<std::string>(std::mt19937_64&)> pick,
                uint64_t rng_seed)
      : thread_([this, &vol, pick = std::move(pick), rng_seed](std::stop_token stop) {
          std::mt19937_64 rng(rng_seed);
          while (!stop.stop_requested()) {
            const std::optional<std::string> path = pick(rng);
            if (!path) {
              std::this_thread::yield();
              continue;
            }
            auto r = vol.Open(*path);
            if (!r.ok()) continue;
            if (!ReadOnce(**r, std::hash<std::string>()(*path), *path, rng)) return;
          }
        }) {}

  int reads() const { return reads_.load(); }
  bool failed() const { return failed_.load(); }
  // Waits until it has read `n` times in all; false if it failed first (or
  // after the hang guard).
  bool WaitForReads(int n) const {
    return testing_common::WaitFor([&] { return failed() || reads() >= n; }) && !failed();
  }

 private:
  bool ReadOnce(const ReadableFile& file, uint64_t seed, const std::string& name,
                std::mt19937_64& rng) {
    const uint64_t size = file.size();
    if (size == 0) return true;
    const uint64_t off = rng() % size;
    std::vector<uint8_t> buf(std::min<uint64_t>(size - off, 1 + rng() % 300000));
    auto n = file.Read(off, buf);
    if (!n.ok() || *n != buf.size() || !MatchesPattern(seed, off, buf)) {
      ADD_FAILURE() << name << " @" << off << ": "
                    << (n.ok() ? absl::StrCat(*n, " bytes, not those written")
                               : n.status().ToString());
      failed_ = true;
      return false;
    }
    ++reads_;
    return true;
  }

  std::atomic<int> reads_{0};
  std::atomic<bool> failed_{false};
  testing_common::TestThread thread_;  // last: stopped before the rest goes
};

// Every file in `files` (path -> size) has its size and the pattern seeded
// by the hash of its path.
template <typename Files>
void ExpectFilesIntact(const Volume& vol, const Files& files) {
  for (const auto& [path, size] : files) {
    auto got = ReadFile(vol, path);
    ASSERT_TRUE(got.ok()) << path << ": " << got.status();
    EXPECT_EQ(got->size(), size) << path;
    EXPECT_TRUE(MatchesPattern(std::hash<std::string>()(path), 0, *got)) << path;
  }
}

// The devices holding the extents of the file named `path`.
inline std::set<uint32_t> DevicesOf(const Volume& vol, const std::string& path) {
  std::set<uint32_t> out;
  for (const FileInfo& f : vol.Files()) {
    if (f.names[0] != path) continue;
    for (const ExtentInfo& x : f.extents) out.insert(x.device);
  }
  return out;
}

// Fails the test with every problem fsck finds, in the metadata and in
// the file data (every extent read against its checksum).
inline void ExpectConsistent(const Volume& vol, const std::string& when = "") {
  for (const std::string& p : vol.Check()) ADD_FAILURE() << "fsck" << when << ": " << p;
  for (const std::string& p : vol.CheckData()) ADD_FAILURE() << "fsck data" << when << ": " << p;
}

// Moves `clock` on until the GC thread has moved every file out of zone
// `zone` (on any device); false after the hang guard.
inline bool WaitUntilEmptied(TestClock& clock, const Volume& vol, uint32_t zone) {
  return AdvanceUntil(clock, 1'000'000'000, [&] {
    for (const FileInfo& f : vol.Files()) {
      for (const ExtentInfo& x : f.extents) {
        if (x.zone == zone) return false;
      }
    }
    return true;
  });
}

// `path` holds exactly bytes [0, size) of the pattern seeded `seed`, and
// the volume passes fsck.
inline void ExpectFileHolds(const Volume& vol, const std::string& path, uint64_t seed,
                            uint64_t size, const std::string& when = "") {
  auto got = ReadFile(vol, path);
  ASSERT_TRUE(got.ok()) << path << when << ": " << got.status();
  EXPECT_EQ(got->size(), size) << path << when;
  EXPECT_TRUE(MatchesPattern(seed, 0, *got)) << path << when;
  ExpectConsistent(vol, when);
}

// Append sizes for the Flush crash tests: some leave fewer than 16 bytes
// of their last block, some end exactly on a block, some are larger than
// a write batch (whole blocks written before the Flush).
inline const std::vector<uint64_t> kFlushSizes = {100,      4090, 4096, 12280, 1,
                                                  3 << 20,  777,  4081, 8192,  5000};

// With no file open, the bytes zfs counts as live are exactly those of the
// files' extents: a leak here is space that is never reset.
inline void ExpectNoLeakedSpace(const Volume& vol) {
  std::vector<uint64_t> want(vol.devices().size());
  for (const FileInfo& f : vol.Files()) {
    for (const ExtentInfo& x : f.extents) {
      const uint64_t bs = vol.devices()[x.device]->info().block_size;
      want[x.device] += (x.length + bs - 1) / bs * bs;
    }
  }
  const std::vector<DeviceSpace> space = vol.Space();
  for (size_t d = 0; d < want.size(); ++d) {
    EXPECT_EQ(space[d].valid_bytes, want[d]) << "live bytes on device " << d;
  }
}

inline uint64_t ZoneResets(const Volume& vol, uint32_t device = 0) {
  return vol.devices()[device]->Stats().zone_resets;
}

// A crash: the power goes first, so nothing the host tears down afterwards
// (open files' closes, the unmount's flush) reaches the media; then the
// power comes back. `files` and `vol` are destroyed.
template <typename... Handles>
void Crash(const Devices& devices, std::unique_ptr<Volume>& vol, Handles&... handles) {
  for (const auto& d : devices) Emu(d)->PowerOff();
  (handles.clear(), ...);
  vol.reset();
  for (const auto& d : devices) Emu(d)->PowerOn();
}

// A volume over `devs_`, formatted fresh, and remountable.
class VolumeTest : public testing::Test {
 protected:
  void FormatAndMount(Devices devs, MountOptions options = {}) {
    devs_ = std::move(devs);
    options_ = std::move(options);
    for (const auto& d : devs_) ASSERT_NE(d, nullptr);
    ASSERT_OK(Volume::Format(devs_));
    Mount();
  }
  void Mount() {
    auto v = Volume::Mount(devs_, options_);
    ASSERT_TRUE(v.ok()) << v.status();
    vol_ = std::move(*v);
  }
  // A clean unmount and mount again.
  void Remount() {
    vol_.reset();
    Mount();
  }

  Devices devs_;
  MountOptions options_;
  std::unique_ptr<Volume> vol_;
};

}  // namespace zonestack::zfs::testing_util

