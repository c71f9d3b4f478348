// RocksDB's file objects over zfs files. Each holds the Volume, so a file
// RocksDB keeps open (e.g. in its table cache) keeps the volume mounted.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "zfs/placement.h"
#include "policy/scheme.h"
#include "glue/status_map.h"
#include "rocksdb/file_system.h"
#include "zfs/volume.h"

namespace zonestack::rocks {

// The hint a file gets at creation, from its RocksDB file name: *.log is a
// WAL, *.sst an SST, MANIFEST-* the manifest, anything else (LOG, OPTIONS,
// CURRENT, IDENTITY, *.dbtmp, blob files) kOther. Lifetime and level are
// not known yet; the lifetime comes later via SetWriteLifeTimeHint.
zfs::FileHint HintForPath(const std::string& path);

// Maps RocksDB's write-lifetime hint; the values are Linux's, as ours.
zfs::Lifetime ToLifetime(rocksdb::Env::WriteLifeTimeHint hint);

// The hints of SSTs by zfs path, as last given to zfs, so that a level
// RocksDB changes without writing a file (a trivial move) can be passed on
// with Volume::SetHint, which replaces the lifetime too. Thread-safe.
class SstHints {
 public:
  void Put(const zfs::FileHint& hint);
  // Adds `hint` unless its path has one already.
  void PutIfAbsent(const zfs::FileHint& hint);
  std::optional<zfs::FileHint> Get(const std::string& path) const;
  void Erase(const std::string& path);
  void Rename(const std::string& from, const std::string& to);
  // Every path below directory `from` moves below `to`.
  void RenameDir(const std::string& from, const std::string& to);

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, zfs::FileHint> hints_ ABSL_GUARDED_BY(mu_);
};

// Appends go straight to zfs, which buffers until a block fills; Sync is
// zfs's (survives a power cut), and so is Flush for the WAL and MANIFEST
// (survives a crash of the process; zs_files.cc says why only those).
// RocksDB uses a writable file from one thread at a time, except that
// DB::SyncWAL (and FlushWAL(true)) syncs a WAL from its caller's thread
// while the write thread appends, which it allows only for files whose
// IsSyncThreadSafe() says so: every call holds the file's mutex.
class ZsWritableFile : public rocksdb::FSWritableFile {
 public:
  // `sst_hints`, if not null, learns the hint of an SST whenever it changes.
  ZsWritableFile(std::shared_ptr<zfs::Volume> volume, std::string path,
                 zfs::FileHint hint, std::unique_ptr<zfs::WritableFile> file,
                 const rocksdb::FileOptions& options,
                 std::shared_ptr<SstHints> sst_hints = nullptr);
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
  // OK to the file's own size, NotSupported below it: zoned files are
  // append-only. RocksDB's default says OK and truncates nothing, which
  // would loop DeleteScheduler's chunked deletion (bytes_max_delete_chunk)
  // forever; NotSupported makes it delete the file whole.
  rocksdb::IOStatus Truncate(uint64_t size, const rocksdb::IOOptions& options,
                             rocksdb::IODebugContext* dbg) override;
  // RocksDB tells the lifetime only after creating the file (before the
  // first Append); it is passed on to zfs with Volume::SetHint.
  void SetWriteLifeTimeHint(rocksdb::Env::WriteLifeTimeHint hint) override;
  bool use_direct_io() const override { return false; }
  bool IsSyncThreadSafe() const override { return true; }

 private:
  std::shared_ptr<zfs::Volume> volume_;
  const std::string path_;
  absl::Mutex mu_;  // zfs's writer is not thread-safe; Sync may race Append
  zfs::FileHint hint_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<zfs::WritableFile> file_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<SstHints> sst_hints_;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

// May be read by many threads at once (zfs::ReadableFile::Read is const).
//
// Opened for direct reads (RocksDB's use_direct_reads), the file says
// use_direct_io(): RocksDB then reads whole aligned blocks into aligned
// buffers of its own and keeps them as the block's memory, so zfs reads
// from the device straight into RocksDB's buffer, with no copy on either
// side, wherever the file's extent lies block-aligned on the device (an
// extent after a Sync that ended short of a block does not; zfs then reads
// its covering blocks and copies, as for any unaligned read).
class ZsRandomAccessFile : public rocksdb::FSRandomAccessFile {
 public:
  // With a `scheme`, each user read of an SST (not a compaction read) is
  // counted in the scheme's LSM view (HHZS 3.4's read rate).
  // `direct_alignment` is 0 for a file read through the page cache, else
  // the block size direct reads are aligned to (DirectReadAlignment).
  ZsRandomAccessFile(std::shared_ptr<zfs::Volume> volume, std::string path,
                     std::unique_ptr<zfs::ReadableFile> file,
                     std::shared_ptr<policy::Scheme> scheme = nullptr,
                     size_t direct_alignment = 0);
  // Short only at the end of the file; `scratch` holds n bytes.
  rocksdb::IOStatus Read(uint64_t offset, size_t n, const rocksdb::IOOptions& options,
                         rocksdb::Slice* result, char* scratch,
                         rocksdb::IODebugContext* dbg) const override;
  bool use_direct_io() const override { return direct_alignment_ > 0; }
  size_t GetRequiredBufferAlignment() const override {
    return direct_alignment_ > 0 ? direct_alignment_ : rocksdb::kDefaultPageSize;
  }

 private:
  std::shared_ptr<zfs::Volume> volume_;
  const std::string path_;
  std::unique_ptr<zfs::ReadableFile> file_;
  std::shared_ptr<policy::Scheme> scheme_;  // null: reads are not counted
  const int64_t sst_number_;                // -1 if not an SST
  const size_t direct_alignment_;
};

// The alignment of direct reads on `volume`: the largest block size of its
// devices, so an aligned read is aligned on whichever device holds the
// extent (a file may move between devices).
size_t DirectReadAlignment(const zfs::Volume& volume);

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

// Fsync makes every name change logged so far durable: new files' names
// are logged without a flush (zs_file_system.cc, OpenWritable).
class ZsDirectory : public rocksdb::FSDirectory {
 public:
  explicit ZsDirectory(std::shared_ptr<zfs::Volume> volume) : volume_(std::move(volume)) {}
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions& /*options*/,
                          rocksdb::IODebugContext* /*dbg*/) override {
    return ToIOStatus(volume_->SyncNamespace(), "directory sync");
  }
  rocksdb::IOStatus Close(const rocksdb::IOOptions& /*options*/,
                          rocksdb::IODebugContext* /*dbg*/) override {
    return rocksdb::IOStatus::OK();
  }

 private:
  std::shared_ptr<zfs::Volume> volume_;
};

}  // namespace zonestack::rocks
