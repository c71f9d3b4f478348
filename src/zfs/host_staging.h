// Host staging of flushed file tails ("flush": "host"): a writer's Flush
// copies the bytes past what the log knows into a file in host memory
// (tmpfs, /dev/shm by default) instead of writing a padded block to the
// device. The staging file outlives a crash of the process, as the page
// cache does for RocksDB's own file system, and mount appends what it
// holds to the file (docs/architecture.md, "Durability contract").
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace zonestack::zfs {

// The directory of one volume's staging files under `root`.
std::string StagingDir(const std::string& root, const std::string& volume_id);
// The staging file of file `file_id` in `dir`.
std::string StagingPath(const std::string& dir, uint64_t file_id);

// One writer's staging file, mapped shared into the process: a Flush
// copies a piece (format.h, StageHeader) into the mapping and then stores
// the count of whole pieces in the file's header, with no system call.
// The mapping's pages are the tmpfs file's own, so a process killed at any
// point leaves the pieces counted; bytes past the count are a piece it
// died copying, which was never acknowledged. The file's space is
// allocated when it is made, so a full tmpfs refuses Create, never a
// later copy (which would fault the process).
class StagingFile {
 public:
  // A file of `capacity` bytes, header included.
  static absl::StatusOr<StagingFile> Create(std::string path, uint64_t capacity);
  StagingFile(StagingFile&& other) noexcept;
  StagingFile& operator=(StagingFile&& other) noexcept;
  StagingFile(const StagingFile&) = delete;
  StagingFile& operator=(const StagingFile&) = delete;
  ~StagingFile();

  uint64_t capacity() const { return capacity_; }
  // Whether one more piece of `bytes` of data fits.
  bool Fits(uint64_t bytes) const;
  // Appends the file's bytes [offset, offset + data.size());
  // ResourceExhausted when the piece does not fit.
  absl::Status Stage(uint64_t file_id, uint64_t offset, std::span<const uint8_t> data);
  // No piece staged since Create or Clear.
  bool empty() const { return end_ == 0; }
  // The CRC of every piece's data, in order (format.h, StageHeader): the
  // last piece's header holds it.
  uint32_t crc() const { return crc_; }
  // Drops every piece: the log now holds them.
  void Clear();
  // Renames the file to `path` (the staging file of another file id), for
  // a writer that reuses it; the mapping stays. REQUIRES: Clear was
  // called, so a crash at any point leaves no piece under either name.
  absl::Status Rename(const std::string& path);
  // Unmaps, closes and deletes the file, and its directory if now empty.
  absl::Status Remove();

 private:
  StagingFile(std::string path, int fd, uint8_t* map, uint64_t capacity)
      : path_(std::move(path)), fd_(fd), map_(map), capacity_(capacity) {}
  void Release();
  void Commit();  // stores end_ as the count of whole pieces
  std::string path_;
  int fd_ = -1;
  uint8_t* map_ = nullptr;
  uint64_t capacity_ = 0;
  uint64_t end_ = 0;  // bytes of whole pieces after the file's header
  uint32_t crc_ = 0;
};

// What a staging file holds: the file's bytes from `base` on.
struct StagedTail {
  uint64_t file_id = 0;
  uint64_t base = 0;
  std::vector<uint8_t> bytes;
};

// Reads the staging file of `file_id` at `path`: the pieces its header
// counts (bytes past them are a piece whose Flush never returned). A file
// of pieces without that header (written by pwritev before staging files
// were mapped) ends at its size, a short last piece dropped. Any other
// damage is DataLoss naming the file, never guessed around.
absl::StatusOr<StagedTail> ReadStagingFile(const std::string& path, uint64_t file_id);

// The file ids of the staging files in `dir` (none if it does not exist);
// a name that is not a file id is an error.
absl::StatusOr<std::vector<uint64_t>> ListStagingFiles(const std::string& dir);

}  // namespace zonestack::zfs
