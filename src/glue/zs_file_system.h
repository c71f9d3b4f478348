// ZoneStackFileSystem: RocksDB's FileSystem over one mounted zfs::Volume.
// Paths are absolute zfs paths ("/db/000012.sst"); RocksDB's files all
// live in zfs, the info LOG included (written through NewWritableFile by
// RocksDB's default FileSystem::NewLogger).
//
// Thread-safety: every method may be called from any thread, as RocksDB
// requires; zfs::Volume is thread-safe and the lock table has its own mutex.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "policy/scheme.h"
#include "rocksdb/file_system.h"
#include "glue/missing_hints.h"
#include "glue/zs_files.h"
#include "zfs/volume.h"

namespace zonestack::rocks {

class ZoneStackFileSystem : public rocksdb::FileSystem {
 public:
  // `id` is the URI the file system was made from, for Customizable::GetId.
  // With a `scheme` (the volume's, see FindScheme), SSTs are created with
  // the level the scheme's LSM view expects (from the hint listener's
  // callbacks, which run on the creating thread just before), and user
  // reads of SSTs are counted in the view.
  explicit ZoneStackFileSystem(std::shared_ptr<zfs::Volume> volume, std::string id = {},
                               std::shared_ptr<policy::Scheme> scheme = nullptr);

  static const char* kClassName() { return "ZoneStackFileSystem"; }
  const char* Name() const override { return kClassName(); }
  std::string GetId() const override { return id_.empty() ? Name() : id_; }

  const std::shared_ptr<zfs::Volume>& volume() const { return volume_; }
  const std::shared_ptr<policy::Scheme>& scheme() const { return scheme_; }

  // Persists a new LSM level of the SST at `path` in zfs, keeping the rest
  // of its hint: for level changes RocksDB makes without writing a file (a
  // trivial move). Needs a scheme (FailedPrecondition otherwise); NotFound
  // if zfs has no such file.
  absl::Status SetSstLevel(const std::string& path, int level);

  using IOOptions = rocksdb::IOOptions;
  using IOStatus = rocksdb::IOStatus;
  using FileOptions = rocksdb::FileOptions;
  using Dbg = rocksdb::IODebugContext;

  IOStatus NewSequentialFile(const std::string& fname, const FileOptions& options,
                             std::unique_ptr<rocksdb::FSSequentialFile>* result,
                             Dbg* dbg) override;
  IOStatus NewRandomAccessFile(const std::string& fname, const FileOptions& options,
                               std::unique_ptr<rocksdb::FSRandomAccessFile>* result,
                               Dbg* dbg) override;
  // Replaces an existing file of that name. The file's kind comes from its
  // name (HintForPath), its temperature from `options`, an SST's level
  // from the scheme's view; its lifetime arrives later through the file.
  IOStatus NewWritableFile(const std::string& fname, const FileOptions& options,
                           std::unique_ptr<rocksdb::FSWritableFile>* result,
                           Dbg* dbg) override;
  // Appends to an existing file, or creates it.
  IOStatus ReopenWritableFile(const std::string& fname, const FileOptions& options,
                              std::unique_ptr<rocksdb::FSWritableFile>* result,
                              Dbg* dbg) override;
  // Deletes old_fname and creates fname (as ZenFS): a zoned file cannot be
  // overwritten in place, so WAL recycling brings no gain.
  IOStatus ReuseWritableFile(const std::string& fname, const std::string& old_fname,
                             const FileOptions& options,
                             std::unique_ptr<rocksdb::FSWritableFile>* result,
                             Dbg* dbg) override;
  IOStatus NewDirectory(const std::string& name, const IOOptions& options,
                        std::unique_ptr<rocksdb::FSDirectory>* result, Dbg* dbg) override;

  IOStatus FileExists(const std::string& fname, const IOOptions& options, Dbg* dbg) override;
  IOStatus GetChildren(const std::string& dir, const IOOptions& options,
                       std::vector<std::string>* result, Dbg* dbg) override;
  IOStatus DeleteFile(const std::string& fname, const IOOptions& options, Dbg* dbg) override;
  // Zoned files are append-only.
  IOStatus Truncate(const std::string& fname, size_t size, const IOOptions& options,
                    Dbg* dbg) override;
  IOStatus CreateDir(const std::string& dirname, const IOOptions& options, Dbg* dbg) override;
  // Creates missing parents too: a fresh volume holds only "/", and tools
  // pass nested DB paths.
  IOStatus CreateDirIfMissing(const std::string& dirname, const IOOptions& options,
                              Dbg* dbg) override;
  IOStatus DeleteDir(const std::string& dirname, const IOOptions& options, Dbg* dbg) override;
  IOStatus GetFileSize(const std::string& fname, const IOOptions& options, uint64_t* file_size,
                       Dbg* dbg) override;
  // In seconds since the epoch, as POSIX's st_mtime.
  IOStatus GetFileModificationTime(const std::string& fname, const IOOptions& options,
                                   uint64_t* file_mtime, Dbg* dbg) override;
  // Renames a file, or a directory with everything below it (a
  // checkpoint publishes its ".checkpointN.tmp" directory so); atomic.
  IOStatus RenameFile(const std::string& src, const std::string& target,
                      const IOOptions& options, Dbg* dbg) override;
  IOStatus LinkFile(const std::string& src, const std::string& target,
                    const IOOptions& options, Dbg* dbg) override;
  IOStatus NumFileLinks(const std::string& fname, const IOOptions& options, uint64_t* count,
                        Dbg* dbg) override;
  IOStatus AreFilesSame(const std::string& first, const std::string& second,
                        const IOOptions& options, bool* res, Dbg* dbg) override;

  // An in-process lock table keyed by (volume, path): zfs has no lock
  // files, and one process owns a mounted volume. A second lock of the
  // same path fails with IOError "lock held" (as POSIX's flock failure).
  IOStatus LockFile(const std::string& fname, const IOOptions& options,
                    rocksdb::FileLock** lock, Dbg* dbg) override;
  IOStatus UnlockFile(rocksdb::FileLock* lock, const IOOptions& options, Dbg* dbg) override;

  // "/zonestack-test", created if missing.
  IOStatus GetTestDirectory(const IOOptions& options, std::string* path, Dbg* dbg) override;
  // zfs paths are absolute already; a relative path is InvalidArgument.
  IOStatus GetAbsolutePath(const std::string& db_path, const IOOptions& options,
                           std::string* output_path, Dbg* dbg) override;
  IOStatus IsDirectory(const std::string& path, const IOOptions& options, bool* is_dir,
                       Dbg* dbg) override;
  // Writable bytes left on all devices of the volume (whatever `path`).
  IOStatus GetFreeSpace(const std::string& path, const IOOptions& options, uint64_t* diskfree,
                        Dbg* dbg) override;
  // RocksDB's own logger over NewWritableFile; on a volume with a hinted
  // scheme, remembered so the missing-hints warning reaches the DB's LOG.
  IOStatus NewLogger(const std::string& fname, const IOOptions& options,
                     std::shared_ptr<rocksdb::Logger>* result, Dbg* dbg) override;

 private:
  IOStatus OpenWritable(const std::string& fname, const FileOptions& options,
                        std::unique_ptr<rocksdb::FSWritableFile>* result, bool reopen);

  const std::shared_ptr<zfs::Volume> volume_;
  const std::string id_;
  const std::shared_ptr<policy::Scheme> scheme_;
  const std::shared_ptr<SstHints> sst_hints_;  // null without a scheme
  // Says when the scheme gets no hints (missing_hints.h); null without a scheme.
  const std::shared_ptr<HintsWarning> hints_warning_;
};

}  // namespace zonestack::rocks
