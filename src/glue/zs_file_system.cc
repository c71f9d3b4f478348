#include "glue/zs_file_system.h"

#include <set>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "glue/background_job.h"
#include "glue/status_map.h"
#include "glue/zs_files.h"

namespace zonestack::rocks {
namespace {

using rocksdb::IOStatus;

// RocksDB joins names with '/', so "/db/" + "/x" style doubles occur;
// zfs resolves neither those nor a trailing '/'.
std::string Normalize(const std::string& path) {
  std::string out;
  out.reserve(path.size());
  for (char c : path) {
    if (c == '/' && !out.empty() && out.back() == '/') continue;
    out.push_back(c);
  }
  if (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

// RocksDB reads through the page cache unless it asks for direct reads,
// as on its own file system; zfs does so where the device is a kernel one.
zfs::OpenOptions ReadOpenOptions(const rocksdb::FileOptions& options) {
  return {.host_cache = !options.use_direct_reads};
}

// Locks of all volumes in the process; a volume outlives its locks because
// each lock's holder (a DB) keeps the file system, and so the volume, alive.
struct LockTable {
  absl::Mutex mu;
  std::set<std::pair<const zfs::Volume*, std::string>> held ABSL_GUARDED_BY(mu);
};

LockTable& Locks() {
  static LockTable* table = new LockTable;  // never destroyed: DBs may close late
  return *table;
}

class ZsFileLock : public rocksdb::FileLock {
 public:
  ZsFileLock(const zfs::Volume* volume, std::string path)
      : key(volume, std::move(path)) {}
  const std::pair<const zfs::Volume*, std::string> key;
};

}  // namespace

ZoneStackFileSystem::ZoneStackFileSystem(std::shared_ptr<zfs::Volume> volume, std::string id,
                                         std::shared_ptr<policy::Scheme> scheme)
    : volume_(std::move(volume)),
      id_(std::move(id)),
      scheme_(std::move(scheme)),
      sst_hints_(scheme_ ? std::make_shared<SstHints>() : nullptr),
      hints_warning_(scheme_ ? std::make_shared<HintsWarning>() : nullptr) {}

absl::Status ZoneStackFileSystem::SetSstLevel(const std::string& path_in, int level) {
  if (!sst_hints_) {
    return absl::FailedPreconditionError("SST levels are kept only on a volume with a scheme");
  }
  const std::string path = Normalize(path_in);
  std::optional<zfs::FileHint> hint = sst_hints_->Get(path);
  if (!hint) {
    // Written before this file system existed (an earlier DB session):
    // learn the hints zfs keeps, once for all such files.
    for (const zfs::FileInfo& f : volume_->Files()) {
      if (f.hint.kind != zfs::FileKind::kSst) continue;
      for (const std::string& name : f.names) {
        zfs::FileHint h = f.hint;
        h.name = name;
        sst_hints_->PutIfAbsent(h);
      }
    }
    hint = sst_hints_->Get(path);
    if (!hint) return absl::NotFoundError(absl::StrCat("no SST '", path, "' in zfs"));
  }
  if (hint->level == level) return absl::OkStatus();
  hint->level = level;
  if (auto s = volume_->SetHint(path, *hint); !s.ok()) return s;
  sst_hints_->Put(*hint);
  return absl::OkStatus();
}

IOStatus ZoneStackFileSystem::NewSequentialFile(
    const std::string& fname, const FileOptions& options,
    std::unique_ptr<rocksdb::FSSequentialFile>* result, Dbg* /*dbg*/) {
  const std::string path = Normalize(fname);
  auto file = volume_->Open(path, ReadOpenOptions(options));
  if (!file.ok()) return ToIOStatus(file.status(), path);
  *result = std::make_unique<ZsSequentialFile>(volume_, path, std::move(*file));
  return IOStatus::OK();
}

IOStatus ZoneStackFileSystem::NewLogger(const std::string& fname, const IOOptions& options,
                                        std::shared_ptr<rocksdb::Logger>* result, Dbg* dbg) {
  IOStatus s = FileSystem::NewLogger(fname, options, result, dbg);
  if (s.ok() && hints_warning_) hints_warning_->SetInfoLog(*result);
  return s;
}

IOStatus ZoneStackFileSystem::NewRandomAccessFile(
    const std::string& fname, const FileOptions& options,
    std::unique_ptr<rocksdb::FSRandomAccessFile>* result, Dbg* /*dbg*/) {
  const std::string path = Normalize(fname);
  if (hints_warning_ && policy::SstNumber(path) >= 0) hints_warning_->SstOpened(*volume_);
  auto file = volume_->Open(path, ReadOpenOptions(options));
  if (!file.ok()) return ToIOStatus(file.status(), path);
  *result = std::make_unique<ZsRandomAccessFile>(
      volume_, path, std::move(*file), scheme_,
      options.use_direct_reads ? DirectReadAlignment(*volume_) : 0);
  return IOStatus::OK();
}

IOStatus ZoneStackFileSystem::OpenWritable(const std::string& fname, const FileOptions& options,
                                           std::unique_ptr<rocksdb::FSWritableFile>* result,
                                           bool reopen) {
  const std::string path = Normalize(fname);
  zfs::FileHint hint = HintForPath(path);
  hint.temperature = static_cast<uint8_t>(options.temperature);
  if (hint.kind == zfs::FileKind::kSst) {
    // The listener marked this thread when its flush or compaction began.
    switch (CurrentBackgroundJob()) {
      case BackgroundJob::kFlush: hint.origin = zfs::SstOrigin::kFlush; break;
      case BackgroundJob::kCompaction: hint.origin = zfs::SstOrigin::kCompaction; break;
      case BackgroundJob::kNone: break;
    }
    // The listener's OnTableFileCreationStarted for this file ran on this
    // thread just before (docs/rocksdb.md section 1).
    const int64_t number = policy::SstNumber(path);
    if (hints_warning_ && number >= 0) hints_warning_->SstOpened(*volume_);
    if (scheme_ && number >= 0) {
      if (auto level = scheme_->view().PendingLevel(static_cast<uint64_t>(number))) {
        hint.level = *level;
      }
    }
  }
  absl::StatusOr<std::unique_ptr<zfs::WritableFile>> file =
      absl::NotFoundError("not opened");
  if (reopen) file = volume_->Reopen(path);
  if (!reopen || file.status().code() == absl::StatusCode::kNotFound) {
    // A new file's name is durable at its first Sync or RocksDB's next
    // FSDirectory::Fsync (ZsDirectory), as on a POSIX file system, rather
    // than at creation: a cache flush saved per file.
    file = volume_->Create(path, hint, /*durable_name=*/false);
    if (file.status().code() == absl::StatusCode::kAlreadyExists) {
      // RocksDB's contract: a new writable file replaces an old one.
      if (auto s = volume_->Delete(path); !s.ok()) return ToIOStatus(s, path);
      file = volume_->Create(path, hint, /*durable_name=*/false);
    }
  }
  if (!file.ok()) return ToIOStatus(file.status(), path);
  std::shared_ptr<SstHints> sst_hints;
  if (sst_hints_ && hint.kind == zfs::FileKind::kSst) {
    sst_hints = sst_hints_;
    if (!reopen) sst_hints->Put(hint);
  }
  *result = std::make_unique<ZsWritableFile>(volume_, path, std::move(hint), std::move(*file),
                                             options, std::move(sst_hints));
  return IOStatus::OK();
}

IOStatus ZoneStackFileSystem::NewWritableFile(const std::string& fname,
                                              const FileOptions& options,
                                              std::unique_ptr<rocksdb::FSWritableFile>* result,
                                              Dbg* /*dbg*/) {
  return OpenWritable(fname, options, result, /*reopen=*/false);
}

IOStatus ZoneStackFileSystem::ReopenWritableFile(
    const std::string& fname, const FileOptions& options,
    std::unique_ptr<rocksdb::FSWritableFile>* result, Dbg* /*dbg*/) {
  return OpenWritable(fname, options, result, /*reopen=*/true);
}

IOStatus ZoneStackFileSystem::ReuseWritableFile(
    const std::string& fname, const std::string& old_fname, const FileOptions& options,
    std::unique_ptr<rocksdb::FSWritableFile>* result, Dbg* dbg) {
  const std::string old_path = Normalize(old_fname);
  if (auto s = volume_->Delete(old_path, /*durable=*/false); !s.ok()) {
    return ToIOStatus(s, old_path);
  }
  return NewWritableFile(fname, options, result, dbg);
}

IOStatus ZoneStackFileSystem::NewDirectory(const std::string& name, const IOOptions& options,
                                           std::unique_ptr<rocksdb::FSDirectory>* result,
                                           Dbg* dbg) {
  bool is_dir = false;
  if (IOStatus s = IsDirectory(name, options, &is_dir, dbg); !s.ok()) return s;
  if (!is_dir) return IOStatus::IOError(Normalize(name), "not a directory");
  *result = std::make_unique<ZsDirectory>(volume_);
  return IOStatus::OK();
}

IOStatus ZoneStackFileSystem::FileExists(const std::string& fname, const IOOptions& /*options*/,
                                         Dbg* /*dbg*/) {
  const std::string path = Normalize(fname);
  return ToIOStatusForLookup(volume_->Stat(path).status(), path);
}

IOStatus ZoneStackFileSystem::GetChildren(const std::string& dir, const IOOptions& /*options*/,
                                          std::vector<std::string>* result, Dbg* /*dbg*/) {
  const std::string path = Normalize(dir);
  auto names = volume_->List(path);
  if (!names.ok()) return ToIOStatusForLookup(names.status(), path);
  *result = std::move(*names);
  return IOStatus::OK();
}

IOStatus ZoneStackFileSystem::DeleteFile(const std::string& fname, const IOOptions& /*options*/,
                                         Dbg* /*dbg*/) {
  const std::string path = Normalize(fname);
  if (sst_hints_) sst_hints_->Erase(path);
  // Durable at RocksDB's next FSDirectory::Fsync or any durable change, as
  // unlink(2) on a POSIX file system: a cache flush saved per delete (zfs
  // resets no zone of the file before the delete is durable). A delete a
  // power cut takes back leaves an obsolete file, which RocksDB deletes
  // again when it opens the DB.
  return ToIOStatus(volume_->Delete(path, /*durable=*/false), path);
}

IOStatus ZoneStackFileSystem::Truncate(const std::string& fname, size_t /*size*/,
                                       const IOOptions& /*options*/, Dbg* /*dbg*/) {
  return IOStatus::NotSupported(Normalize(fname), "zoned files cannot be truncated");
}

IOStatus ZoneStackFileSystem::CreateDir(const std::string& dirname,
                                        const IOOptions& /*options*/, Dbg* /*dbg*/) {
  const std::string path = Normalize(dirname);
  // zfs's CreateDir is "mkdir -p"; RocksDB's contract is mkdir's.
  if (volume_->Stat(path).ok()) return IOStatus::IOError(path, "exists");
  return ToIOStatus(volume_->CreateDir(path), path);
}

IOStatus ZoneStackFileSystem::CreateDirIfMissing(const std::string& dirname,
                                                 const IOOptions& /*options*/, Dbg* /*dbg*/) {
  const std::string path = Normalize(dirname);
  auto stat = volume_->Stat(path);
  if (stat.ok()) {
    return stat->is_dir ? IOStatus::OK() : IOStatus::IOError(path, "exists, not a directory");
  }
  if (stat.status().code() != absl::StatusCode::kNotFound) {
    return ToIOStatus(stat.status(), path);
  }
  return ToIOStatus(volume_->CreateDir(path), path);  // creates missing parents too
}

IOStatus ZoneStackFileSystem::DeleteDir(const std::string& dirname,
                                        const IOOptions& /*options*/, Dbg* /*dbg*/) {
  const std::string path = Normalize(dirname);
  return ToIOStatus(volume_->DeleteDir(path), path);
}

IOStatus ZoneStackFileSystem::GetFileSize(const std::string& fname,
                                          const IOOptions& /*options*/, uint64_t* file_size,
                                          Dbg* /*dbg*/) {
  const std::string path = Normalize(fname);
  auto stat = volume_->Stat(path);
  if (!stat.ok()) return ToIOStatus(stat.status(), path);
  *file_size = stat->size;
  return IOStatus::OK();
}

IOStatus ZoneStackFileSystem::GetFileModificationTime(const std::string& fname,
                                                      const IOOptions& /*options*/,
                                                      uint64_t* file_mtime, Dbg* /*dbg*/) {
  const std::string path = Normalize(fname);
  auto stat = volume_->Stat(path);
  if (!stat.ok()) return ToIOStatus(stat.status(), path);
  *file_mtime = stat->mtime_us / 1'000'000;
  return IOStatus::OK();
}

IOStatus ZoneStackFileSystem::RenameFile(const std::string& src, const std::string& target,
                                         const IOOptions& /*options*/, Dbg* /*dbg*/) {
  const std::string from = Normalize(src);
  const std::string to = Normalize(target);
  const auto stat = volume_->Stat(from);
  const bool is_dir = stat.ok() && stat->is_dir;
  absl::Status s = volume_->Rename(from, to);
  if (s.ok() && sst_hints_) {
    if (is_dir) {
      sst_hints_->RenameDir(from, to);
    } else {
      sst_hints_->Rename(from, to);
    }
  }
  return ToIOStatus(s, from);
}

IOStatus ZoneStackFileSystem::LinkFile(const std::string& src, const std::string& target,
                                       const IOOptions& /*options*/, Dbg* /*dbg*/) {
  const std::string from = Normalize(src);
  return ToIOStatus(volume_->Link(from, Normalize(target)), from);
}

IOStatus ZoneStackFileSystem::NumFileLinks(const std::string& fname,
                                           const IOOptions& /*options*/, uint64_t* count,
                                           Dbg* /*dbg*/) {
  const std::string path = Normalize(fname);
  auto stat = volume_->Stat(path);
  if (!stat.ok()) return ToIOStatus(stat.status(), path);
  *count = stat->links;
  return IOStatus::OK();
}

IOStatus ZoneStackFileSystem::AreFilesSame(const std::string& first, const std::string& second,
                                           const IOOptions& /*options*/, bool* res,
                                           Dbg* /*dbg*/) {
  const std::string a = Normalize(first), b = Normalize(second);
  auto sa = volume_->Stat(a);
  if (!sa.ok()) return ToIOStatus(sa.status(), a);
  auto sb = volume_->Stat(b);
  if (!sb.ok()) return ToIOStatus(sb.status(), b);
  *res = (a == b);
  if (*res || sa->links == 1 || sb->links == 1) return IOStatus::OK();
  // Two names of one file only through hard links; rare, so a scan will do.
  for (const zfs::FileInfo& f : volume_->Files()) {
    bool has_a = false, has_b = false;
    for (const std::string& n : f.names) {
      has_a |= (n == a);
      has_b |= (n == b);
    }
    if (has_a || has_b) {
      *res = has_a && has_b;
      break;
    }
  }
  return IOStatus::OK();
}

IOStatus ZoneStackFileSystem::LockFile(const std::string& fname, const IOOptions& /*options*/,
                                       rocksdb::FileLock** lock, Dbg* /*dbg*/) {
  *lock = nullptr;
  auto held = std::make_unique<ZsFileLock>(volume_.get(), Normalize(fname));
  LockTable& table = Locks();
  absl::MutexLock guard(&table.mu);
  if (!table.held.insert(held->key).second) {
    return IOStatus::IOError(held->key.second, "lock held");
  }
  *lock = held.release();
  return IOStatus::OK();
}

IOStatus ZoneStackFileSystem::UnlockFile(rocksdb::FileLock* lock, const IOOptions& /*options*/,
                                         Dbg* /*dbg*/) {
  std::unique_ptr<ZsFileLock> held(static_cast<ZsFileLock*>(lock));
  LockTable& table = Locks();
  absl::MutexLock guard(&table.mu);
  if (table.held.erase(held->key) == 0) {
    return IOStatus::IOError(held->key.second, "unlock of a lock not held");
  }
  return IOStatus::OK();
}

IOStatus ZoneStackFileSystem::GetTestDirectory(const IOOptions& options, std::string* path,
                                               Dbg* dbg) {
  *path = "/zonestack-test";
  return CreateDirIfMissing(*path, options, dbg);
}

IOStatus ZoneStackFileSystem::GetAbsolutePath(const std::string& db_path,
                                              const IOOptions& /*options*/,
                                              std::string* output_path, Dbg* /*dbg*/) {
  if (db_path.empty() || db_path[0] != '/') {
    return IOStatus::InvalidArgument(
        absl::StrCat("'", db_path, "': ZoneStack paths must be absolute"));
  }
  *output_path = Normalize(db_path);
  return IOStatus::OK();
}

IOStatus ZoneStackFileSystem::IsDirectory(const std::string& path_in,
                                          const IOOptions& /*options*/, bool* is_dir,
                                          Dbg* /*dbg*/) {
  const std::string path = Normalize(path_in);
  if (path == "/") {  // the root exists in every volume
    *is_dir = true;
    return IOStatus::OK();
  }
  auto stat = volume_->Stat(path);
  if (!stat.ok()) return ToIOStatus(stat.status(), path);
  *is_dir = stat->is_dir;
  return IOStatus::OK();
}

IOStatus ZoneStackFileSystem::GetFreeSpace(const std::string& /*path*/,
                                           const IOOptions& /*options*/, uint64_t* diskfree,
                                           Dbg* /*dbg*/) {
  uint64_t free_bytes = 0;
  for (const zfs::DeviceSpace& d : volume_->Space()) free_bytes += d.free_bytes;
  *diskfree = free_bytes;
  return IOStatus::OK();
}

}  // namespace zonestack::rocks
