#include "glue/zs_files.h"

#include <algorithm>
#include <span>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "glue/background_job.h"
#include "glue/status_map.h"

namespace zonestack::rocks {

zfs::FileHint HintForPath(const std::string& path) {
  zfs::FileHint hint;
  hint.name = path;
  const size_t slash = path.rfind('/');
  const absl::string_view base =
      absl::string_view(path).substr(slash == std::string::npos ? 0 : slash + 1);
  if (absl::EndsWith(base, ".log")) {
    hint.kind = zfs::FileKind::kWal;
  } else if (absl::EndsWith(base, ".sst")) {
    hint.kind = zfs::FileKind::kSst;
  } else if (absl::StartsWith(base, "MANIFEST-")) {
    hint.kind = zfs::FileKind::kManifest;
  }
  return hint;
}

zfs::Lifetime ToLifetime(rocksdb::Env::WriteLifeTimeHint hint) {
  const int value = static_cast<int>(hint);
  if (value < 0 || value > static_cast<int>(zfs::Lifetime::kExtreme)) {
    return zfs::Lifetime::kNotSet;
  }
  return static_cast<zfs::Lifetime>(value);
}

// ---- SstHints ----

void SstHints::Put(const zfs::FileHint& hint) {
  absl::MutexLock lock(&mu_);
  hints_[hint.name] = hint;
}

void SstHints::PutIfAbsent(const zfs::FileHint& hint) {
  absl::MutexLock lock(&mu_);
  hints_.try_emplace(hint.name, hint);
}

std::optional<zfs::FileHint> SstHints::Get(const std::string& path) const {
  absl::MutexLock lock(&mu_);
  auto it = hints_.find(path);
  if (it == hints_.end()) return std::nullopt;
  return it->second;
}

void SstHints::Erase(const std::string& path) {
  absl::MutexLock lock(&mu_);
  hints_.erase(path);
}

void SstHints::Rename(const std::string& from, const std::string& to) {
  absl::MutexLock lock(&mu_);
  hints_.erase(to);  // replaced by the rename
  auto it = hints_.find(from);
  if (it == hints_.end()) return;
  zfs::FileHint hint = std::move(it->second);
  hints_.erase(it);
  hint.name = to;
  hints_[to] = std::move(hint);
}

void SstHints::RenameDir(const std::string& from, const std::string& to) {
  const std::string prefix = from + "/";
  absl::MutexLock lock(&mu_);
  std::vector<zfs::FileHint> moved;
  for (auto it = hints_.begin(); it != hints_.end();) {
    if (absl::StartsWith(it->first, prefix)) {
      moved.push_back(std::move(it->second));
      hints_.erase(it++);
    } else {
      ++it;
    }
  }
  for (zfs::FileHint& hint : moved) {
    hint.name = to + hint.name.substr(from.size());
    hints_[hint.name] = std::move(hint);
  }
}

// ---- ZsWritableFile ----

ZsWritableFile::ZsWritableFile(std::shared_ptr<zfs::Volume> volume, std::string path,
                               zfs::FileHint hint, std::unique_ptr<zfs::WritableFile> file,
                               const rocksdb::FileOptions& options,
                               std::shared_ptr<SstHints> sst_hints)
    : rocksdb::FSWritableFile(options),
      volume_(std::move(volume)),
      path_(std::move(path)),
      hint_(std::move(hint)),
      file_(std::move(file)),
      sst_hints_(std::move(sst_hints)) {}

ZsWritableFile::~ZsWritableFile() {
  absl::MutexLock lock(&mu_);
  // RocksDB closes its files; this only covers error paths that drop one.
  if (!closed_) file_->CloseUnsynced().IgnoreError();
}

rocksdb::IOStatus ZsWritableFile::Append(const rocksdb::Slice& data,
                                         const rocksdb::IOOptions& /*options*/,
                                         rocksdb::IODebugContext* /*dbg*/) {
  absl::MutexLock lock(&mu_);
  if (closed_) return rocksdb::IOStatus::IOError(path_, "append after close");
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  return ToIOStatus(file_->Append(std::span<const uint8_t>(bytes, data.size())), path_);
}

// RocksDB's contract (and its default file system's): Flush hands the data
// to the OS, so it survives a crash of the process but not of the machine.
// zfs's Flush does the same: by default it stages the bytes in host memory
// ("flush": "host"), or writes them to the devices, a padded block per
// Flush ("flush": "devices"). What RocksDB
// reads back after a crash without having synced it is the WAL (a write
// with sync = false is acknowledged once the WAL is flushed) and the
// MANIFEST; those get it. SSTs are synced before RocksDB uses them, and
// the info LOG is diagnostic: for them Flush does nothing (RocksDB calls
// it for every buffer of an SST and every line of its LOG), and their data
// reaches the devices when a block fills, at Sync and at Close.
rocksdb::IOStatus ZsWritableFile::Flush(const rocksdb::IOOptions& /*options*/,
                                        rocksdb::IODebugContext* /*dbg*/) {
  absl::MutexLock lock(&mu_);
  if (closed_) return rocksdb::IOStatus::OK();
  if (hint_.kind != zfs::FileKind::kWal && hint_.kind != zfs::FileKind::kManifest) {
    return rocksdb::IOStatus::OK();
  }
  return ToIOStatus(file_->Flush(), path_);
}

rocksdb::IOStatus ZsWritableFile::Sync(const rocksdb::IOOptions& /*options*/,
                                       rocksdb::IODebugContext* /*dbg*/) {
  absl::MutexLock lock(&mu_);
  // Close did not sync (POSIX's close), so a Sync after it cannot promise
  // durability; RocksDB never asks for one.
  if (closed_) return rocksdb::IOStatus::IOError(path_, "sync of a closed file");
  return ToIOStatus(file_->Sync(), path_);
}

rocksdb::IOStatus ZsWritableFile::Fsync(const rocksdb::IOOptions& options,
                                        rocksdb::IODebugContext* dbg) {
  return Sync(options, dbg);
}

rocksdb::IOStatus ZsWritableFile::Close(const rocksdb::IOOptions& /*options*/,
                                        rocksdb::IODebugContext* /*dbg*/) {
  absl::MutexLock lock(&mu_);
  if (closed_) return rocksdb::IOStatus::OK();
  closed_ = true;
  // No sync: POSIX's close, on which RocksDB relies for nothing (it syncs
  // an SST, the MANIFEST and a WAL it needs before closing them). A synced
  // Close cost two cache flushes per WAL retired after a memtable flush
  // (which RocksDB deletes next); this one costs the data's only.
  return ToIOStatus(file_->CloseUnsynced(), path_);
}

uint64_t ZsWritableFile::GetFileSize(const rocksdb::IOOptions& /*options*/,
                                     rocksdb::IODebugContext* /*dbg*/) {
  absl::MutexLock lock(&mu_);
  return file_->size();
}

rocksdb::IOStatus ZsWritableFile::Truncate(uint64_t size, const rocksdb::IOOptions& /*options*/,
                                           rocksdb::IODebugContext* /*dbg*/) {
  absl::MutexLock lock(&mu_);
  if (size == file_->size()) return rocksdb::IOStatus::OK();
  return rocksdb::IOStatus::NotSupported(path_, "zoned files cannot be truncated");
}

void ZsWritableFile::SetWriteLifeTimeHint(rocksdb::Env::WriteLifeTimeHint hint) {
  absl::MutexLock lock(&mu_);
  rocksdb::FSWritableFile::SetWriteLifeTimeHint(hint);
  const zfs::Lifetime lifetime = ToLifetime(hint);
  if (lifetime == hint_.lifetime) return;
  hint_.lifetime = lifetime;
  if (sst_hints_) sst_hints_->Put(hint_);
  // The hint carries the SST's level (set at creation), so this keeps it.
  // A hint is advice: placement falls back to the creation-time hint if
  // zfs cannot take it, and RocksDB gives this call no way to fail.
  volume_->SetHint(path_, hint_).IgnoreError();
}

// ---- ZsRandomAccessFile ----

ZsRandomAccessFile::ZsRandomAccessFile(std::shared_ptr<zfs::Volume> volume, std::string path,
                                       std::unique_ptr<zfs::ReadableFile> file,
                                       std::shared_ptr<policy::Scheme> scheme,
                                       size_t direct_alignment)
    : volume_(std::move(volume)),
      path_(std::move(path)),
      file_(std::move(file)),
      scheme_(std::move(scheme)),
      sst_number_(scheme_ ? policy::SstNumber(path_) : -1),
      direct_alignment_(direct_alignment) {}

size_t DirectReadAlignment(const zfs::Volume& volume) {
  size_t alignment = 0;
  for (const auto& device : volume.devices()) {
    alignment = std::max<size_t>(alignment, device->info().block_size);
  }
  return alignment;
}

rocksdb::IOStatus ZsRandomAccessFile::Read(uint64_t offset, size_t n,
                                           const rocksdb::IOOptions& options,
                                           rocksdb::Slice* result, char* scratch,
                                           rocksdb::IODebugContext* /*dbg*/) const {
  // RocksDB 7.8 marks compaction reads with IO_LOW, but with IO_USER
  // while writes stall; the listener's marks on this thread catch those
  // (background_job.h). Everything else serves a user read.
  device::IoClass io_class = device::IoClass::kUserRead;
  switch (CurrentBackgroundJob()) {
    case BackgroundJob::kCompaction: io_class = device::IoClass::kCompaction; break;
    case BackgroundJob::kFlush: io_class = device::IoClass::kFlush; break;
    case BackgroundJob::kNone:
      if (options.rate_limiter_priority == rocksdb::Env::IO_LOW) {
        io_class = device::IoClass::kCompaction;
      }
      break;
  }
  // The per-SST read count behind HHZS's migration priorities (3.4). Table
  // opens on a user thread (footer, index) count too: RocksDB marks them
  // no differently.
  if (sst_number_ >= 0 && io_class == device::IoClass::kUserRead) {
    scheme_->view().RecordRead(static_cast<uint64_t>(sst_number_));
  }
  auto count =
      file_->Read(offset, std::span<uint8_t>(reinterpret_cast<uint8_t*>(scratch), n), io_class);
  if (!count.ok()) {
    *result = rocksdb::Slice();
    return ToIOStatus(count.status(), path_);
  }
  *result = rocksdb::Slice(scratch, *count);
  return rocksdb::IOStatus::OK();
}

// ---- ZsSequentialFile ----

ZsSequentialFile::ZsSequentialFile(std::shared_ptr<zfs::Volume> volume, std::string path,
                                   std::unique_ptr<zfs::ReadableFile> file)
    : volume_(std::move(volume)), path_(std::move(path)), file_(std::move(file)) {}

rocksdb::IOStatus ZsSequentialFile::ReadAt(uint64_t offset, size_t n, rocksdb::Slice* result,
                                           char* scratch) const {
  *result = rocksdb::Slice();
  if (offset >= file_->size() || n == 0) return rocksdb::IOStatus::OK();
  // Sequential reads are recovery: WAL replay and the MANIFEST.
  auto count = file_->Read(offset, std::span<uint8_t>(reinterpret_cast<uint8_t*>(scratch), n),
                           device::IoClass::kMetadata);
  if (!count.ok()) return ToIOStatus(count.status(), path_);
  *result = rocksdb::Slice(scratch, *count);
  return rocksdb::IOStatus::OK();
}

rocksdb::IOStatus ZsSequentialFile::Read(size_t n, const rocksdb::IOOptions& /*options*/,
                                         rocksdb::Slice* result, char* scratch,
                                         rocksdb::IODebugContext* /*dbg*/) {
  rocksdb::IOStatus s = ReadAt(position_, n, result, scratch);
  if (s.ok()) position_ += result->size();
  return s;
}

rocksdb::IOStatus ZsSequentialFile::Skip(uint64_t n) {
  const uint64_t size = file_->size();
  position_ = (position_ >= size || n >= size - position_) ? size : position_ + n;
  return rocksdb::IOStatus::OK();
}

rocksdb::IOStatus ZsSequentialFile::PositionedRead(uint64_t offset, size_t n,
                                                   const rocksdb::IOOptions& /*options*/,
                                                   rocksdb::Slice* result, char* scratch,
                                                   rocksdb::IODebugContext* /*dbg*/) {
  return ReadAt(offset, n, result, scratch);
}

}  // namespace zonestack::rocks
