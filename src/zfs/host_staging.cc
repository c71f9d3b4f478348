#include "zfs/host_staging.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "zfs/files.h"
#include "zfs/format.h"
#include "zfs/volume_impl.h"

namespace zonestack::zfs {
namespace {

absl::Status Errno(const std::string& what, const std::string& path) {
  return absl::InternalError(absl::StrCat(what, " ", path, ": ", std::strerror(errno)));
}

}  // namespace

std::string StagingDir(const std::string& root, const std::string& volume_id) {
  return absl::StrCat(root, "/zonestack-", volume_id);
}

std::string StagingPath(const std::string& dir, uint64_t file_id) {
  return absl::StrCat(dir, "/", file_id);
}

absl::StatusOr<StagingFile> StagingFile::Create(std::string path, uint64_t capacity) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 && errno == ENOENT) {
    return absl::NotFoundError(absl::StrCat("no directory for staging file ", path));
  }
  if (fd < 0) return Errno("cannot create staging file", path);
  auto fail = [&](absl::Status s) {
    ::close(fd);
    ::unlink(path.c_str());
    return s;
  };
  // Allocated now: a copy into a mapped page tmpfs cannot back faults the
  // process (SIGBUS) where a write call would have failed.
  if (const int e = ::posix_fallocate(fd, 0, static_cast<off_t>(capacity)); e != 0) {
    errno = e;
    if (e == ENOSPC) {
      return fail(absl::ResourceExhaustedError(absl::StrCat("no room for staging file ", path)));
    }
    return fail(Errno("cannot allocate staging file", path));
  }
  void* map = ::mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) return fail(Errno("cannot map staging file", path));
  auto* bytes = static_cast<uint8_t*>(map);
  std::memcpy(bytes, &kStageFileMagic, 4);
  std::memcpy(bytes + 4, &kStageFileVersion, 4);
  StagingFile f(std::move(path), fd, bytes, capacity);
  f.Commit();
  return f;
}

StagingFile::StagingFile(StagingFile&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      map_(std::exchange(other.map_, nullptr)),
      capacity_(other.capacity_),
      end_(other.end_),
      crc_(other.crc_) {}

StagingFile& StagingFile::operator=(StagingFile&& other) noexcept {
  if (this != &other) {
    Release();
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    map_ = std::exchange(other.map_, nullptr);
    capacity_ = other.capacity_;
    end_ = other.end_;
    crc_ = other.crc_;
  }
  return *this;
}

StagingFile::~StagingFile() { Release(); }

void StagingFile::Release() {
  if (map_ != nullptr) ::munmap(map_, capacity_);
  if (fd_ >= 0) ::close(fd_);
  map_ = nullptr;
  fd_ = -1;
}

void StagingFile::Commit() {
  // The count is stored after the piece it covers and read by nobody
  // else while the process lives: a release store keeps the order.
  std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(map_ + 8))
      .store(end_, std::memory_order_release);
}

bool StagingFile::Fits(uint64_t bytes) const {
  return kStageFileHeaderBytes + end_ + kStageHeaderBytes + bytes <= capacity_;
}

absl::Status StagingFile::Stage(uint64_t file_id, uint64_t offset,
                                std::span<const uint8_t> data) {
  if (!Fits(data.size())) {
    return absl::ResourceExhaustedError(absl::StrCat("staging file ", path_, " is full"));
  }
  uint8_t* piece = map_ + kStageFileHeaderBytes + end_;
  const uint32_t crc = DataCrc(crc_, data.data(), data.size());
  EncodeStageHeader({.length = static_cast<uint32_t>(data.size()),
                     .file_id = file_id,
                     .offset = offset,
                     .crc = crc},
                    piece);
  std::memcpy(piece + kStageHeaderBytes, data.data(), data.size());
  end_ += kStageHeaderBytes + data.size();
  crc_ = crc;
  Commit();
  return absl::OkStatus();
}

void StagingFile::Clear() {
  end_ = 0;
  crc_ = 0;
  Commit();
}

absl::Status StagingFile::Rename(const std::string& path) {
  if (::rename(path_.c_str(), path.c_str()) != 0) return Errno("cannot rename", path_);
  path_ = path;
  return absl::OkStatus();
}

absl::Status StagingFile::Remove() {
  if (fd_ < 0) return absl::OkStatus();
  Release();
  if (::unlink(path_.c_str()) != 0 && errno != ENOENT) return Errno("cannot delete", path_);
  // The volume's directory goes with its last staging file, so a process
  // that exits without unmounting leaves nothing behind.
  ::rmdir(std::filesystem::path(path_).parent_path().c_str());
  return absl::OkStatus();
}

namespace {

// The pieces in bytes [pos, end) of a staging file; a short last piece
// ends them when `short_last_ok` (an unmapped file's interrupted write).
// With `running_crc` each piece's CRC covers every piece's data up to its
// end (version 2), otherwise its own.
absl::Status ReadPieces(const std::vector<uint8_t>& bytes, size_t pos, size_t end,
                        bool short_last_ok, bool running_crc, const std::string& path,
                        StagedTail* tail) {
  uint64_t next = 0;
  uint32_t crc = 0;
  bool first = true;
  auto damaged = [&](const std::string& why) {
    return absl::DataLossError(absl::StrCat("staging file ", path, " is damaged at byte ", pos,
                                            ": ", why,
                                            "; deleting it gives up the data it staged"));
  };
  while (pos < end) {
    if (end - pos < kStageHeaderBytes) {
      if (short_last_ok) break;
      return damaged("a piece cut short");
    }
    const std::optional<StageHeader> h = DecodeStageHeader(bytes.data() + pos);
    if (!h) return damaged("bad piece header");
    if (h->file_id != tail->file_id) return damaged(absl::StrCat("a piece of file ", h->file_id));
    if (first) {
      tail->base = next = h->offset;
      first = false;
    } else if (h->offset != next) {
      return damaged(absl::StrCat("a piece at file offset ", h->offset, ", expected ", next));
    }
    const size_t data = pos + kStageHeaderBytes;
    if (end - data < h->length) {
      if (short_last_ok) break;  // the write the process died in
      return damaged("a piece cut short");
    }
    if (DataCrc(running_crc ? crc : 0, bytes.data() + data, h->length) != h->crc) {
      return damaged("bad data CRC");
    }
    crc = h->crc;
    tail->bytes.insert(tail->bytes.end(), bytes.begin() + static_cast<ptrdiff_t>(data),
                       bytes.begin() + static_cast<ptrdiff_t>(data + h->length));
    next += h->length;
    pos = data + h->length;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<StagedTail> ReadStagingFile(const std::string& path, uint64_t file_id) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Errno("cannot open staging file", path);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  if (in.bad()) return Errno("cannot read staging file", path);
  StagedTail tail{.file_id = file_id};
  uint32_t magic = 0;
  if (bytes.size() >= 4) std::memcpy(&magic, bytes.data(), 4);
  if (magic != kStageFileMagic) {
    // Made but not yet headed (all zeroes) when the process died: nothing
    // staged. Otherwise an unmapped staging file's pieces.
    if (std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; })) return tail;
    auto s = ReadPieces(bytes, 0, bytes.size(), /*short_last_ok=*/true,
                        /*running_crc=*/false, path, &tail);
    if (!s.ok()) return s;
    return tail;
  }
  uint32_t version = 0;
  uint64_t count = 0;
  if (bytes.size() >= kStageFileHeaderBytes) {
    std::memcpy(&version, bytes.data() + 4, 4);
    std::memcpy(&count, bytes.data() + 8, 8);
  }
  if (bytes.size() < kStageFileHeaderBytes ||
      (version != kStageFileVersion && version != kStageFileVersionPieceCrc) ||
      count > bytes.size() - kStageFileHeaderBytes) {
    return absl::DataLossError(absl::StrCat(
        "staging file ", path, " has a bad header (version ", version, ", ", count,
        " bytes of pieces in a file of ", bytes.size(),
        "); deleting it gives up the data it staged"));
  }
  auto s = ReadPieces(bytes, kStageFileHeaderBytes, kStageFileHeaderBytes + count,
                      /*short_last_ok=*/false, /*running_crc=*/version == kStageFileVersion,
                      path, &tail);
  if (!s.ok()) return s;
  return tail;
}

absl::StatusOr<std::vector<uint64_t>> ListStagingFiles(const std::string& dir) {
  std::vector<uint64_t> ids;
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return ids;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    uint64_t id = 0;
    const std::string name = entry.path().filename().string();
    if (!absl::SimpleAtoi(name, &id)) {
      return absl::FailedPreconditionError(
          absl::StrCat("staging directory ", dir, " holds ", name, ", not a staging file"));
    }
    ids.push_back(id);
  }
  if (ec) return absl::InternalError(absl::StrCat("cannot list ", dir, ": ", ec.message()));
  return ids;
}

}  // namespace zonestack::zfs

// ---------------------------------------------------------------- VolumeImpl

namespace zonestack::zfs {

absl::Status VolumeImpl::ApplyStaged() {
  const std::string dir = StagingDir(options_.staging_root, FormatVolumeId(label_.volume_id));
  auto ids = ListStagingFiles(dir);
  if (!ids.ok()) return ids.status();
  for (uint64_t id : *ids) {
    const std::string path = StagingPath(dir, id);
    std::shared_ptr<FileMeta> f;
    std::string name;
    {
      absl::MutexLock lock(&mu_);
      if (auto it = files_.find(id); it != files_.end() && !it->second->deleted) {
        f = it->second;
        name = f->names.empty() ? absl::StrCat("#", id) : f->names[0];
      }
    }
    auto tail = ReadStagingFile(path, id);
    if (!tail.ok()) return tail.status();
    if (f) {
      const uint64_t size = f->size.load();
      const uint64_t end = tail->base + tail->bytes.size();
      // Staging starts where the log held everything, synced: a file that
      // ends before that lost synced bytes.
      if (tail->base > size) {
        return absl::DataLossError(absl::StrCat(
            "file ", name, " ends at byte ", size, " but was synced to byte ", tail->base,
            " (its staging file ", path, " starts there)"));
      }
      if (end > size) {
        const auto missing = std::span<const uint8_t>(tail->bytes).subspan(size - tail->base);
        if (read_only_) {
          PublishStaged(*f, missing);
          continue;
        }
        {
          absl::MutexLock lock(&mu_);
          f->writer_open = true;
        }
        std::unique_ptr<WritableFile> w = NewWritableFile(this, f);
        absl::Status s = w->Append(missing);
        if (absl::Status c = w->Close(); s.ok()) s = c;
        if (!s.ok()) {
          return absl::Status(s.code(), absl::StrCat("appending what ", path, " staged to ", name,
                                                     ": ", s.message()));
        }
      }
    }
    // Only a file deleted before the crash leaves staged bytes nobody
    // wants; the rest are in the log now.
    if (!read_only_ && ::unlink(path.c_str()) != 0 && errno != ENOENT) {
      return Errno("cannot delete", path);
    }
  }
  if (read_only_ || options_.flush != FlushMode::kHost) return absl::OkStatus();
  bool outlives = false;
  for (const Member& m : members_) outlives = outlives || m.info.outlives_process;
  if (!outlives) return absl::OkStatus();  // a crash loses the volume too
  // The directory is made by the first Flush that stages, so a
  // volume that never stages leaves nothing behind; a root that cannot
  // take it is refused now rather than at a Flush.
  if (::access(options_.staging_root.c_str(), W_OK | X_OK) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot stage Flushes in ", options_.staging_root, " (\"flush\": \"host\"): ",
        std::strerror(errno), "; set \"staging_root\" to a writable directory on a tmpfs"));
  }
  staging_dir_ = dir;
  return absl::OkStatus();
}

absl::StatusOr<StagingFile> VolumeImpl::CreateStagingFile(uint64_t file_id, uint64_t capacity) {
  // A closed writer's, renamed: its pages are allocated already, where a
  // new file's fallocate would have the kernel zero every one.
  while (true) {
    std::optional<StagingFile> idle;
    {
      absl::MutexLock lock(&staging_mu_);
      if (idle_staging_.empty()) break;
      idle.emplace(std::move(idle_staging_.back()));
      idle_staging_.pop_back();
    }
    if (idle->capacity() == capacity && idle->Rename(StagingPath(staging_dir_, file_id)).ok()) {
      return std::move(*idle);
    }
    (void)idle->Remove();
  }
  // Another writer's Remove may take the directory away between the two
  // calls (it removes it when empty): then make it again.
  for (int attempt = 0;; ++attempt) {
    // Private to the user the volume's process runs as: it holds file data.
    if (::mkdir(staging_dir_.c_str(), 0700) != 0 && errno != EEXIST) {
      return Errno("cannot create staging directory", staging_dir_);
    }
    auto f = StagingFile::Create(StagingPath(staging_dir_, file_id), capacity);
    if (f.ok() || attempt == 3 || !absl::IsNotFound(f.status())) return f;
  }
}

void VolumeImpl::RecycleStagingFile(StagingFile file) {
  file.Clear();
  {
    absl::MutexLock lock(&staging_mu_);
    if (idle_staging_.size() < kIdleStagingFiles) {
      idle_staging_.push_back(std::move(file));
      return;
    }
  }
  (void)file.Remove();
}

void VolumeImpl::RemoveIdleStagingFiles() {
  absl::MutexLock lock(&staging_mu_);
  for (StagingFile& f : idle_staging_) (void)f.Remove();
  idle_staging_.clear();
}

}  // namespace zonestack::zfs
