// RocksDB's file objects over zfs files. Each holds the Volume, so a file
// RocksDB keeps open (e.g. in its table cache) keeps the volume mounted.
#pragma once

#include <memory>
#include <string>

#include "policy/placement.h"
#include "rocksdb/file_system.h"
#include "zfs/volume.h"

namespace zonestack::rocks {

// The hint a file gets at creation, from its RocksDB file name: *.log is a
// WAL, *.sst an SST, MANIFEST-* the manifest, anything else (LOG, OPTIONS,
// CURRENT, IDENTITY, *.dbtmp, blob files) kOther. Lifetime and level are
// not known yet; the lifetime comes later via SetWriteLifeTimeHint.
policy::FileHint HintForPath(const std::string& path);

// Maps RocksDB's write-lifetime hint; the values are Linux's, as ours.
policy::Lifetime ToLifetime(rocksdb::Env::WriteLifeTimeHint hint);

// Appends go straight to zfs, which buffers until a block fills or Sync,
// so Flush has nothing to do. Used by one thread at a time (RocksDB's
// contract for FSWritableFile).
class ZsWritableFile : public rocksdb::FSWritableFile {
 public:
  ZsWritableFile(std::shared_ptr<zfs::Volume> volume, std::string path,
                 policy::FileHint hint, std::unique_ptr<zfs::WritableFile> file,
                 const rocksdb::FileOptions& options);
  ~ZsWritableFile() override;  // closes the file if RocksDB did not

  using rocksdb::FSWritableFile::Append;  // the DataVerificationInfo overload
  rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                           rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus Flush(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus Sync(const rocksdb::IOOptions& options,
                         rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus Close(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* dbg) override;
  uint64_t GetFileSize(const rocksdb::IOOptions& options,
                       rocksdb::IODebugContext* dbg) override;
  // RocksDB tells the lifetime only after creating the file (before the
  // first Append); it is passed on to zfs with Volume::SetHint.
  void SetWriteLifeTimeHint(rocksdb::Env::WriteLifeTimeHint hint) override;
  bool use_direct_io() const override { return false; }

 private:
  std::shared_ptr<zfs::Volume> volume_;
  const std::string path_;
  policy::FileHint hint_;
  std::unique_ptr<zfs::WritableFile> file_;
  bool closed_ = false;
};

// May be read by many threads at once (zfs::ReadableFile::Read is const).
class ZsRandomAccessFile : public rocksdb::FSRandomAccessFile {
 public:
  ZsRandomAccessFile(std::shared_ptr<zfs::Volume> volume, std::string path,
                     std::unique_ptr<zfs::ReadableFile> file);
  // Short only at the end of the file; `scratch` holds n bytes.
  rocksdb::IOStatus Read(uint64_t offset, size_t n, const rocksdb::IOOptions& options,
                         rocksdb::Slice* result, char* scratch,
                         rocksdb::IODebugContext* dbg) const override;
  bool use_direct_io() const override { return false; }

 private:
  std::shared_ptr<zfs::Volume> volume_;
  const std::string path_;
  std::unique_ptr<zfs::ReadableFile> file_;
};

// Keeps a read position; Read at the end returns an empty slice.
class ZsSequentialFile : public rocksdb::FSSequentialFile {
 public:
  ZsSequentialFile(std::shared_ptr<zfs::Volume> volume, std::string path,
                   std::unique_ptr<zfs::ReadableFile> file);
  rocksdb::IOStatus Read(size_t n, const rocksdb::IOOptions& options, rocksdb::Slice* result,
                         char* scratch, rocksdb::IODebugContext* dbg) override;
  // Skipping past the end leaves the position at the end.
  rocksdb::IOStatus Skip(uint64_t n) override;
  rocksdb::IOStatus PositionedRead(uint64_t offset, size_t n, const rocksdb::IOOptions& options,
                                   rocksdb::Slice* result, char* scratch,
                                   rocksdb::IODebugContext* dbg) override;
  bool use_direct_io() const override { return false; }

 private:
  rocksdb::IOStatus ReadAt(uint64_t offset, size_t n, rocksdb::Slice* result,
                           char* scratch) const;

  std::shared_ptr<zfs::Volume> volume_;
  const std::string path_;
  std::unique_ptr<zfs::ReadableFile> file_;
  uint64_t position_ = 0;
};

// zfs syncs a file's metadata (its name included) with the file itself, so
// a directory has nothing of its own to sync.
class ZsDirectory : public rocksdb::FSDirectory {
 public:
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions& /*options*/,
                          rocksdb::IODebugContext* /*dbg*/) override {
    return rocksdb::IOStatus::OK();
  }
  rocksdb::IOStatus Close(const rocksdb::IOOptions& /*options*/,
                          rocksdb::IODebugContext* /*dbg*/) override {
    return rocksdb::IOStatus::OK();
  }
};

}  // namespace zonestack::rocks
