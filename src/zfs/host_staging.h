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

// One writer's staging file: pieces (format.h, StageHeader) appended one
// write call each, so a process killed in the middle of one leaves a
// short last piece, which was never acknowledged.
class StagingFile {
 public:
  static absl::StatusOr<StagingFile> Create(std::string path);
  StagingFile(StagingFile&& other) noexcept;
  StagingFile& operator=(StagingFile&& other) noexcept;
  StagingFile(const StagingFile&) = delete;
  StagingFile& operator=(const StagingFile&) = delete;
  ~StagingFile();

  // Appends the file's bytes [offset, offset + data.size()).
  absl::Status Stage(uint64_t file_id, uint64_t offset, std::span<const uint8_t> data);
  // Drops every piece: the log now holds them.
  absl::Status Clear();
  // Closes and deletes the file, and its directory if now empty.
  absl::Status Remove();

 private:
  StagingFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_ = -1;
  uint64_t end_ = 0;  // bytes in the file
};

// What a staging file holds: the file's bytes from `base` on.
struct StagedTail {
  uint64_t file_id = 0;
  uint64_t base = 0;
  std::vector<uint8_t> bytes;
};

// Reads the staging file of `file_id` at `path`. A short last piece is
// dropped (the write it came from never returned); any other damage is
// DataLoss naming the file, never guessed around.
absl::StatusOr<StagedTail> ReadStagingFile(const std::string& path, uint64_t file_id);

// The file ids of the staging files in `dir` (none if it does not exist);
// a name that is not a file id is an error.
absl::StatusOr<std::vector<uint64_t>> ListStagingFiles(const std::string& dir);

}  // namespace zonestack::zfs
