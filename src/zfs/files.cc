// Writable and readable files. A writer buffers until a block fills (or a
// sync pads the tail), appends into a zone it leases, and records each
// write as an extent; a reader finds extents by binary search.
#include "zfs/files.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <new>

#include "absl/strings/str_cat.h"
#include "zfs/host_staging.h"
#include "zfs/volume_impl.h"
#include "zfs/write_buffers.h"

namespace zonestack::zfs {
namespace {

using device::IoClass;
using device::IoContext;

// Writes go to the device in pieces of this size at most, so a large append
// does not hold one zone's worth of data in memory.
constexpr size_t kWriteBatch = 1 << 20;
static_assert(WriteBufferPool::kBytes >= 2 * kWriteBatch,
              "a writer's pooled buffer holds a batch and one large append");

// A writer's staging file (host staging) has this many bytes; a Flush
// whose piece does not fit logs and syncs instead: host memory held per
// file, and the bytes mount appends after a crash, stay bounded.
constexpr uint64_t kStageFileBytes = 4 << 20;

// A growable block-aligned buffer whose contents need not survive growth.
class BlockBuffer {
 public:
  std::span<uint8_t> Get(size_t bytes) {
    if (bytes > capacity_) {
      capacity_ = (bytes + kMemoryAlignment - 1) / kMemoryAlignment * kMemoryAlignment;
      data_.reset(AllocateAligned(capacity_));
    }
    return {data_.get(), bytes};
  }

 private:
  struct Free {
    void operator()(uint8_t* p) const { FreeAligned(p); }
  };
  std::unique_ptr<uint8_t, Free> data_;
  size_t capacity_ = 0;
};

IoContext WriteContext(const FileHint& h) {
  switch (h.kind) {
    case FileKind::kWal: return {IoClass::kWal};
    case FileKind::kSst:
      switch (h.origin) {
        case SstOrigin::kFlush: return {IoClass::kFlush};
        case SstOrigin::kCompaction: return {IoClass::kCompaction};
        case SstOrigin::kUnknown: break;
      }
      return {h.level == 0 ? IoClass::kFlush : IoClass::kCompaction};
    default: return {IoClass::kMetadata};
  }
}

class ZoneWritableFile : public WritableFile {
 public:
  ZoneWritableFile(VolumeImpl* vol, std::shared_ptr<FileMeta> file)
      : vol_(vol),
        file_(std::move(file)),
        buf_(BlockAlignedAllocator<uint8_t>(&vol->write_buffers())) {
    // One buffer from the volume's pool, not a chain of fresh ones as it
    // grows (write_buffers.h).
    buf_.reserve(WriteBufferPool::kBytes);
  }
  ~ZoneWritableFile() override { (void)Close(); }

  absl::Status Append(std::span<const uint8_t> data) override {
    if (closed_) return absl::FailedPreconditionError("append to a closed file");
    // resize and memcpy: with an allocator other than std::allocator,
    // libstdc++'s insert copies byte by byte.
    const size_t old = buf_.size();
    buf_.resize(old + data.size());
    if (!data.empty()) std::memcpy(buf_.data() + old, data.data(), data.size());
    size_ += data.size();
    if (buf_.size() >= kWriteBatch) return WriteOut(/*pad=*/false, OutLimit());
    return absl::OkStatus();
  }

  // A Flush writes its data as a chunk ending in a trailer (format.h,
  // FlushTrailer) after the file's tail mark, and logs at most the mark:
  // mount finds the chunk by walking the zone from the mark (EndChunk).
  // Where no chunk can end (data written before in another zone, or the
  // zone too full) it logs the extents and a mark at the writer's
  // position.
  absl::Status Flush() override {
    if (closed_) return absl::OkStatus();
    switch (vol_->flush_mode()) {
      case FlushMode::kNone: return absl::OkStatus();
      case FlushMode::kHost: return HostFlush();
      case FlushMode::kDevices: break;
    }
    // When the device refuses the chunk, the logged path retries the
    // write and handles a failed zone.
    auto ended = EndChunk(/*sync=*/false);
    if (!ended.ok()) return ended.status();
    if (*ended) return absl::OkStatus();
    return Logged(/*durable=*/false, /*closing=*/false);
  }

  // A Sync ends a chunk as a Flush does (or finds a Flush's chunks ended)
  // and flushes once (SyncChunk): the trailer proves the chunk at mount,
  // so its data need not be durable before a record names it. Otherwise
  // the data is flushed, then logged.
  absl::Status Sync() override {
    if (closed_) return absl::OkStatus();
    if (chunk_synced_ == size_) return absl::OkStatus();  // durable already
    auto ended = EndChunk(/*sync=*/true);
    if (!ended.ok()) return ended.status();
    if (*ended || ChunksEnded()) {
      if (auto s = vol_->SyncChunk(*file_, lease_.device); !s.ok()) return s;
      chunk_synced_ = size_;
    } else if (auto s = Logged(/*durable=*/true, /*closing=*/false); !s.ok()) {
      return s;
    }
    return ClearStage();
  }

  absl::Status Close() override { return Finish(/*sync=*/true); }
  absl::Status CloseUnsynced() override { return Finish(/*sync=*/false); }

  uint64_t size() const override { return size_; }

 private:
  // Close with or without a sync. Without, the data is written and its
  // devices flushed, then the record logged unflushed: a crash of the
  // process leaves both in place (the staging file is no longer needed),
  // and a power cut may take the record but never leaves it without its
  // data, whatever order a device's cache writes its zones back in.
  absl::Status Finish(bool sync) {
    if (closed_) return absl::OkStatus();
    absl::Status s = Logged(/*durable=*/sync, /*closing=*/true,
                            /*data_durable=*/chunk_synced_ == size_, /*flush_data=*/true);
    // The log holds it all now; after a failed sync the staging file keeps
    // what only it holds, for the next mount.
    if (s.ok() && stage_) vol_->RecycleStagingFile(std::move(*stage_));
    stage_.reset();
    if (lease_.valid()) vol_->ReleaseZone(lease_);
    lease_ = {};
    vol_->CloseWriter(*file_);
    closed_ = true;
    // The buffer goes back to the pool now: RocksDB may keep a closed
    // file's object (an old WAL's) for a while.
    decltype(buf_)(buf_.get_allocator()).swap(buf_);
    return s;
  }

  // A Flush with host staging: the bytes since the last one go to the
  // staging file and become visible to readers; nothing reaches the
  // device. All of them are in the buffer (OutLimit) unless a large append
  // wrote some out; then, or when the staging file is full, the data is
  // logged and synced instead.
  absl::Status HostFlush() {
    const uint64_t on_device = size_ - buf_.size();
    if (flushed_ == size_) return absl::OkStatus();
    if (flushed_ < on_device || (stage_ && !stage_->Fits(size_ - flushed_))) return Sync();
    const auto fresh = std::span<const uint8_t>(buf_).subspan(flushed_ - on_device);
    if (!vol_->staging_dir().empty()) {
      if (auto s = Stage(fresh); !s.ok()) {
        // The host cannot stage (its tmpfs is full, the directory gone):
        // the devices take the data instead. What the staging file holds
        // lies below what Sync logs, and the next staging Flush truncates
        // it.
        stage_.reset();
        return Sync();
      }
    }
    vol_->PublishStaged(*file_, fresh);
    flushed_ = size_;
    return absl::OkStatus();
  }

  absl::Status Stage(std::span<const uint8_t> fresh) {
    if (!stage_) {
      auto f = vol_->CreateStagingFile(file_->id, kStageFileBytes);
      if (!f.ok()) return f.status();
      stage_ = std::move(*f);
    }
    const bool first = stage_->empty();
    if (auto s = stage_->Stage(file_->id, flushed_, fresh); !s.ok()) return s;
    if (first) crc_marks_ = {{flushed_, 0}};
    crc_marks_.push_back({flushed_ + fresh.size(), stage_->crc()});
    return absl::OkStatus();
  }

  // After a sync: the log holds everything, staged or not.
  absl::Status ClearStage() {
    flushed_ = size_;
    if (stage_) stage_->Clear();
    crc_marks_.clear();
    return absl::OkStatus();
  }

  // The CRC of the `n` bytes of the buffer from `pos`, the file's bytes
  // from `at`. Where they begin at a CRC mark (a staged piece's end, or
  // where the last write-out ended), from the marks: only the bytes after
  // the last mark before their end are read, so host staging checksums a
  // byte once, not when staged and again as an extent. A mark is left
  // where they end.
  uint32_t ExtentCrc(uint64_t at, size_t pos, size_t n) {
    while (!crc_marks_.empty() && crc_marks_.front().offset < at) crc_marks_.pop_front();
    if (crc_marks_.empty() || crc_marks_.front().offset != at) {
      return DataCrc(0, buf_.data() + pos, n);
    }
    const uint64_t end = at + n;
    const uint32_t crc_at = crc_marks_.front().crc;
    while (crc_marks_.size() > 1 && crc_marks_[1].offset <= end) crc_marks_.pop_front();
    CrcMark& last = crc_marks_.front();  // the last at or before `end`
    if (last.offset != end) {
      last = {end, DataCrc(last.crc, buf_.data() + pos + (last.offset - at),
                           static_cast<size_t>(end - last.offset))};
    }
    return TailCrc(last.crc, crc_at, n);
  }

  // How much of the buffer Append may write to the device: with host
  // staging, not the bytes after the last Flush, so that the next Flush
  // still finds them in the buffer; everything when there is nothing
  // flushed in it.
  size_t OutLimit() const {
    const uint64_t on_device = size_ - buf_.size();
    if (vol_->flush_mode() != FlushMode::kHost || flushed_ <= on_device) return buf_.size();
    return static_cast<size_t>(flushed_ - on_device);
  }

  // Writes the whole blocks of the first `limit` bytes of the buffer (all
  // by default), and with `pad` the partial tail too, padded with zeroes
  // (the next write then starts a new extent).
  absl::Status WriteOut(bool pad, size_t limit = SIZE_MAX) {
    // Bytes of buf_ written so far; dropped once at the end, so a large
    // buffer is not shifted after every batch.
    size_t done = 0;
    absl::Status s = WriteOutFrom(pad, std::min(limit, buf_.size()), &done);
    buf_.erase(buf_.begin(), buf_.begin() + static_cast<ptrdiff_t>(std::min(done, buf_.size())));
    return s;
  }

  absl::Status WriteOutFrom(bool pad, size_t limit, size_t* done) {
    while (*done < limit) {
      if (!HasRoom()) {
        if (auto s = LeaseZone(); !s.ok()) return s;
        if (!unlogged_) BeginChunk();
      }
      const uint64_t bs = vol_->block_size(lease_.device);
      const uint64_t left = limit - *done;
      uint64_t n = std::min<uint64_t>({left, lease_.end - lease_.next, kWriteBatch});
      if (n % bs != 0 && n == left && !pad) n = n / bs * bs;
      if (n == 0) return absl::OkStatus();
      // Only the tail, on a sync, is short of a block: pad it with zeroes.
      const uint64_t physical = (n + bs - 1) / bs * bs;
      const uint64_t at = size_ - buf_.size() + *done;  // before the padding
      if (!vol_->BeginWrite(lease_)) {
        lease_ = {};  // taken back while this writer was idle: lease another
        continue;
      }
      if (physical != n) buf_.resize(buf_.size() + (physical - n), 0);
      if (auto s = vol_->device(lease_.device)->Write(
              lease_.next, std::span(buf_).subspan(*done, physical), WriteContext(file_->hint));
          !s.ok()) {
        if (physical != n) buf_.resize(buf_.size() - (physical - n));
        chunk_.reset();
        // A zone that went read-only or offline is retired, and the data,
        // still in buf_, goes to another zone; other errors are returned.
        if (auto retry = vol_->WriteFailed(*file_, &lease_, s); !retry.ok()) return retry;
        continue;
      }
      const uint32_t crc = ExtentCrc(at, *done, static_cast<size_t>(n));
      vol_->AddExtent(*file_, lease_, lease_.next, n, crc, lease_.next + physical);
      if (physical != n) {
        chunk_.reset();  // padding without a trailer ends the chunk
      } else if (chunk_) {
        chunk_crc_ = CombineCrc(chunk_crc_, crc, n);
      }
      unlogged_ = true;
      lease_.next += physical;
      *done += physical;
    }
    return absl::OkStatus();
  }

  // Writes the buffer (the tail padded) and logs its extents with the
  // writer's position as the file's tail mark (none when closing).
  absl::Status Logged(bool durable, bool closing, bool data_durable = false,
                      bool flush_data = false) {
    chunk_.reset();
    if (auto s = WriteOut(/*pad=*/true); !s.ok()) return s;
    std::optional<TailMark> tail;
    if (!closing && lease_.valid()) tail = TailMark{lease_.device, lease_.next};
    if (auto s = vol_->SyncFile(*file_, durable, tail, data_durable, flush_data); !s.ok()) {
      return s;
    }
    chunk_ = tail;
    chunk_logged_ = true;
    chunk_crc_ = 0;
    unlogged_ = false;
    return absl::OkStatus();
  }

  // Whether the writer holds a zone with room left.
  bool HasRoom() const { return lease_.valid() && lease_.next < lease_.end; }

  // Releases the writer's zone, if any, and leases another.
  absl::Status LeaseZone() {
    if (lease_.valid()) vol_->ReleaseZone(lease_);
    lease_ = {};
    chunk_.reset();  // the mark is in the zone left behind
    auto lease = vol_->AcquireZone(*file_);
    if (!lease.ok()) return lease.status();
    lease_ = *lease;
    return absl::OkStatus();
  }

  // Begins a chunk at the writer's position that the log does not name
  // yet: only when the log holds every byte written before, since the
  // mark EndChunk logs replaces the one the walk would start from.
  void BeginChunk() {
    chunk_ = TailMark{lease_.device, lease_.next};
    chunk_logged_ = false;
    chunk_crc_ = 0;
  }

  // Ends the chunk with the buffer (WriteChunk), leasing a zone and
  // beginning a chunk first if the writer has none and may, and logging
  // the chunk's mark (unflushed) if the log does not name it. False when
  // no chunk ends here (the caller logs the data instead, which retries a
  // write the device refused); an error when no zone could be leased or
  // the mark not logged, which logging would meet again. A Sync (`sync`)
  // ends a chunk only where its trailer fits in the padding of the last
  // block: a Sync of whole blocks logs instead, costing a flush, not a
  // block and the extents' adjacency (a disk reads adjacent ones in one
  // request).
  absl::StatusOr<bool> EndChunk(bool sync) {
    if (buf_.empty() && (!chunk_ || lease_.next == chunk_->offset)) return false;  // nothing new
    if (!chunk_) {
      if (unlogged_) return false;
      if (!HasRoom()) {
        if (auto s = LeaseZone(); !s.ok()) return s;
      }
      BeginChunk();
    }
    if (sync) {
      const uint64_t bs = vol_->block_size(lease_.device);
      if (buf_.size() % bs == 0 || bs - buf_.size() % bs < kTrailerBytes) return false;
    }
    if (!ChunkFits()) return false;
    if (!chunk_logged_) {
      if (auto s = vol_->LogTailMark(*file_, *chunk_); !s.ok()) return s;
      chunk_logged_ = true;
    }
    return WriteChunk();
  }

  // Whether all written since the last record ends in chunks reachable
  // from the logged mark, with nothing after them (a Flush's).
  bool ChunksEnded() const {
    return chunk_ && chunk_logged_ && unlogged_ && lease_.valid() && buf_.empty() &&
           lease_.next == chunk_->offset;
  }

  // Whether the buffer, with its trailer, can end the chunk in the leased
  // zone.
  bool ChunkFits() const {
    if (!chunk_ || !lease_.valid()) return false;
    const uint64_t bs = vol_->block_size(lease_.device);
    const uint64_t length = lease_.next - chunk_->offset + buf_.size();
    const uint64_t physical = (buf_.size() + kTrailerBytes + bs - 1) / bs * bs;
    return length <= UINT32_MAX && lease_.next + physical <= lease_.end;
  }

  // Ends the chunk: the buffer, zero padding and the trailer in one write.
  // False, with the chunk dropped (chunk_ cleared) and the buffer kept,
  // when the zone was taken back or failed and was retired (the caller
  // logs the buffer into another zone); a device error that retiring does
  // not answer reaches the caller.
  absl::StatusOr<bool> WriteChunk() {
    const size_t n = buf_.size();
    const uint64_t length = lease_.next - chunk_->offset + n;
    if (length == 0) return true;
    const uint64_t bs = vol_->block_size(lease_.device);
    const uint64_t physical = (n + kTrailerBytes + bs - 1) / bs * bs;
    const uint32_t crc = ExtentCrc(size_ - n, 0, n);
    if (!vol_->BeginWrite(lease_)) {
      lease_ = {};  // taken back while this writer was idle: the caller logs
      chunk_.reset();
      return false;
    }
    buf_.resize(physical, 0);
    EncodeTrailer({static_cast<uint32_t>(length), CombineCrc(chunk_crc_, crc, n)}, file_->id,
                  chunk_->offset, buf_.data() + physical - kTrailerBytes);
    if (auto s = vol_->device(lease_.device)->Write(lease_.next, buf_, WriteContext(file_->hint));
        !s.ok()) {
      buf_.resize(n);
      chunk_.reset();
      if (auto retry = vol_->WriteFailed(*file_, &lease_, s); !retry.ok()) return retry;
      return false;
    }
    if (n > 0) {
      vol_->AddExtent(*file_, lease_, lease_.next, n, crc, lease_.next + physical);
    } else {
      vol_->EndWrite(lease_, lease_.next + physical);  // a trailer alone
    }
    lease_.next += physical;
    buf_.clear();
    unlogged_ = true;
    chunk_ = TailMark{lease_.device, lease_.next};
    chunk_crc_ = 0;
    return true;
  }

  VolumeImpl* vol_;
  std::shared_ptr<FileMeta> file_;
  std::vector<uint8_t, BlockAlignedAllocator<uint8_t>> buf_;
  Lease lease_;
  // Where the chunk the next Flush or Sync ends begins, when the log's
  // tail mark for this file (or, with chunk_logged_ false, the mark
  // EndChunk will log) lies in the leased zone and only chunk data (whole
  // blocks, then the buffer) lies between; CRC of that data so far.
  std::optional<TailMark> chunk_;
  bool chunk_logged_ = false;
  uint32_t chunk_crc_ = 0;
  // Data was written to the device since the last record: a new chunk may
  // not begin (BeginChunk), as its mark would hide that data from mount.
  bool unlogged_ = false;
  // The file's size when a Sync last ended a chunk (durable with no
  // record of its extents: a Close need not flush its own).
  std::optional<uint64_t> chunk_synced_;
  uint64_t size_ = file_->size.load();
  // Host staging: the file's bytes readers see and a crash keeps.
  uint64_t flushed_ = size_;
  std::optional<StagingFile> stage_;
  // The staging file's running CRC (format.h, StageHeader) at file
  // offsets in the buffer, oldest first: at each piece's end and where the
  // last write-out ended (ExtentCrc).
  struct CrcMark {
    uint64_t offset;
    uint32_t crc;
  };
  std::deque<CrcMark> crc_marks_;
  bool closed_ = false;
};

class ZoneReadableFile : public ReadableFile {
 public:
  ZoneReadableFile(VolumeImpl* vol, std::shared_ptr<FileMeta> file, const OpenOptions& options)
      : vol_(vol), file_(std::move(file)), host_cache_(options.host_cache) {}
  ~ZoneReadableFile() override { vol_->CloseReader(*file_); }

  absl::StatusOr<size_t> Read(uint64_t offset, std::span<uint8_t> dst,
                              IoClass io_class) const override {
    auto n = ReadExtents(offset, dst, io_class);
    // Outside the file's lock: naming the file takes the volume's.
    if (!n.ok()) return vol_->ReadFailed(*file_, n.status());
    return n;
  }

  uint64_t size() const override { return file_->size.load(); }

 private:
  absl::StatusOr<size_t> ReadExtents(uint64_t offset, std::span<uint8_t> dst,
                                     IoClass io_class) const {
    absl::ReaderMutexLock fl(&file_->mu);
    const uint64_t on_device = file_->ends.empty() ? 0 : file_->ends.back();
    const uint64_t size = on_device + file_->staged.size();
    if (offset >= size) return 0;
    const size_t want = static_cast<size_t>(std::min<uint64_t>(dst.size(), size - offset));
    // What a host-staging Flush made visible and the device does not hold.
    if (offset + want > on_device) {
      const uint64_t from = std::max(offset, on_device);
      std::memcpy(dst.data() + (from - offset), file_->staged.data() + (from - on_device),
                  static_cast<size_t>(offset + want - from));
      if (offset >= on_device) return want;
    }
    const size_t from_device =
        static_cast<size_t>(std::min<uint64_t>(want, on_device - offset));
    size_t done = 0;
    size_t i = std::upper_bound(file_->ends.begin(), file_->ends.end(), offset) -
               file_->ends.begin();
    while (done < from_device) {
      const Extent& x = file_->extents[i];
      const uint64_t ext_start = file_->ends[i] - x.length;
      const uint64_t in_ext = offset + done - ext_start;
      uint64_t n = std::min<uint64_t>(from_device - done, x.length - in_ext);
      // Extents that follow each other on the device (a file's run of
      // zones on a disk) are read in one request where reads may cross
      // zones: on a disk each request pays a seek and a rotation.
      for (++i; done + n < from_device && i < file_->extents.size() &&
                Adjacent(file_->extents[i - 1], file_->extents[i]);
           ++i) {
        n += std::min<uint64_t>(from_device - done - n, file_->extents[i].length);
      }
      if (auto s = ReadDevice(x.device, x.offset + in_ext,
                              dst.subspan(done, static_cast<size_t>(n)), io_class);
          !s.ok()) {
        return s;
      }
      done += static_cast<size_t>(n);
    }
    return want;
  }

  bool Adjacent(const Extent& a, const Extent& b) const {
    return a.device == b.device && b.offset == a.offset + a.length &&
           vol_->device(a.device)->info().cross_zone_reads_allowed;
  }

  // Through the host's page cache, the bytes asked for; otherwise device
  // reads are block-aligned: read the covering blocks when the request is
  // not.
  absl::Status ReadDevice(uint32_t device, uint64_t offset, std::span<uint8_t> dst,
                          IoClass io_class) const {
    device::ZonedDevice* dev = vol_->device(device);
    if (host_cache_ && dev->info().host_cache) {
      return dev->Read(offset, dst, IoContext{io_class, /*host_cache=*/true});
    }
    const uint64_t bs = vol_->block_size(device);
    const uint64_t start = offset / bs * bs;
    const uint64_t end = (offset + dst.size() + bs - 1) / bs * bs;
    const IoContext ctx{io_class};
    if (start == offset && end == offset + dst.size()) return dev->Read(offset, dst, ctx);
    // Most RocksDB reads are unaligned block reads: one block-aligned
    // buffer per thread, so a device that needs aligned memory (O_DIRECT)
    // reads into it without a bounce copy of its own.
    thread_local BlockBuffer tmp;
    const std::span<uint8_t> covering = tmp.Get(end - start);
    if (auto s = dev->Read(start, covering, ctx); !s.ok()) return s;
    std::memcpy(dst.data(), covering.data() + (offset - start), dst.size());
    return absl::OkStatus();
  }

  VolumeImpl* vol_;
  std::shared_ptr<FileMeta> file_;
  const bool host_cache_;
};

}  // namespace

std::unique_ptr<WritableFile> NewWritableFile(VolumeImpl* volume, std::shared_ptr<FileMeta> file) {
  return std::make_unique<ZoneWritableFile>(volume, std::move(file));
}

std::unique_ptr<ReadableFile> NewReadableFile(VolumeImpl* volume, std::shared_ptr<FileMeta> file,
                                              const OpenOptions& options) {
  return std::make_unique<ZoneReadableFile>(volume, std::move(file), options);
}

// ---------------------------------------------------------------- VolumeImpl

void VolumeImpl::AddExtent(FileMeta& file, const Lease& lease, uint64_t offset,
                           uint64_t length, uint32_t crc, uint64_t next) {
  absl::MutexLock lock(&mu_);
  const Extent x{lease.device, offset, length, crc};
  AddValid(x);
  members_[lease.device].zones[lease.zone].last_write_us = NowUs();
  EndWriteLocked(lease, next);
  absl::MutexLock fl(&file.mu);
  AppendExtent(file.extents, x);
  if (file.ends.size() == file.extents.size()) {
    file.ends.back() += length;  // merged into the last extent
  } else {
    file.ends.push_back((file.ends.empty() ? 0 : file.ends.back()) + length);
  }
  // Staged bytes now on the device (a Flush's, then a write-out's).
  file.staged.erase(file.staged.begin(),
                    file.staged.begin() + static_cast<ptrdiff_t>(
                                              std::min<uint64_t>(length, file.staged.size())));
  file.size = file.ends.back() + file.staged.size();
}

void VolumeImpl::PublishStaged(FileMeta& file, std::span<const uint8_t> bytes) {
  absl::MutexLock fl(&file.mu);
  file.staged.insert(file.staged.end(), bytes.begin(), bytes.end());
  file.size = (file.ends.empty() ? 0 : file.ends.back()) + file.staged.size();
}

absl::Status VolumeImpl::SyncFile(FileMeta& file, bool durable, std::optional<TailMark> tail,
                                  bool data_durable, bool flush_data) {
  flush_data = flush_data || durable;
  // Data first: every device holding unsynced extents is flushed before the
  // record that makes them part of the file (unless they are durable).
  std::vector<Extent> fresh;
  bool flush = durable;  // whether the record is flushed
  {
    absl::MutexLock lock(&mu_);
    absl::ReaderMutexLock fl(&file.mu);
    if (file.extents.size() == file.persisted_extents &&
        (file.extents.empty() || file.extents.back().length == file.persisted_last_len) &&
        file.tail == tail) {
      // Nothing new to log; a Sync after a Flush makes the Flush's record
      // and data durable.
      if (!durable || !(file.flushed_unsynced || file.name_unflushed)) return absl::OkStatus();
      if (auto s = FlushLog(); !s.ok()) return s;
      file.flushed_unsynced = false;
      file.name_unflushed = false;
      return absl::OkStatus();
    }
    if (file.persisted_extents > 0) {
      const Extent& last = file.extents[file.persisted_extents - 1];
      if (last.length > file.persisted_last_len) {
        const uint64_t tail = last.length - file.persisted_last_len;
        fresh.push_back({last.device, last.offset + file.persisted_last_len, tail,
                         TailCrc(last.crc, file.persisted_last_crc, tail)});
      }
    }
    fresh.insert(fresh.end(), file.extents.begin() + file.persisted_extents, file.extents.end());
    // With nothing new, no Flush's record unsynced and the name durable,
    // the file is durable already and the record changes only the tail
    // mark (a Close after a Sync): it need not be flushed. A power cut
    // that takes it leaves the mark, which mount clears, finding no chunk
    // after it.
    flush = durable &&
            ((!fresh.empty() && !data_durable) || file.flushed_unsynced || file.name_unflushed);
  }
  std::set<uint32_t> devices;
  for (const Extent& x : fresh) devices.insert(x.device);
  // A Flush's record is not flushed, but it may become durable with a
  // later record's flush; its data must be durable before that happens
  // (Commit flushes the devices marked here first).
  if (flush_data && !data_durable) {
    for (uint32_t d : devices) {
      if (auto s = members_[d].dev->Flush({IoClass::kWal}); !s.ok()) return s;
    }
  }
  // Only this file's writer appends to it, and relocation skips files open
  // for writing, so the extents are as they were above.
  absl::MutexLock lock(&mu_);
  if (file.deleted) return absl::OkStatus();
  FileRecord rec;
  {
    absl::ReaderMutexLock fl(&file.mu);
    rec.size = file.ends.empty() ? 0 : file.ends.back();
  }
  rec.id = file.id;
  rec.mtime_us = SystemMicros();
  rec.kind = file.hint.kind;
  rec.lifetime = file.hint.lifetime;
  rec.level = file.hint.level;
  rec.extents = std::move(fresh);
  if (!flush_data && !data_durable) {
    for (uint32_t d : devices) flush_pending_[d] = true;
  }
  std::vector<Op> ops{{.type = OpType::kAppendFile, .file = rec}};
  if (tail && tail != file.tail) {
    ops.push_back({.type = OpType::kSetTail, .id = file.id, .device = tail->device,
                   .offset = tail->offset});
  } else if (!tail && file.tail) {
    ops.push_back({.type = OpType::kClearTail, .id = file.id});
  }
  if (auto s = Commit(std::move(ops), flush); !s.ok()) return s;
  file.tail = tail;
  file.flushed_unsynced = !durable;
  if (flush) file.name_unflushed = false;
  file.mtime_us = rec.mtime_us;
  absl::ReaderMutexLock fl(&file.mu);
  file.persisted_extents = file.extents.size();
  file.persisted_last_len = file.extents.empty() ? 0 : file.extents.back().length;
  file.persisted_last_crc = file.extents.empty() ? 0 : file.extents.back().crc;
  file.persisted_size = rec.size;
  return absl::OkStatus();
}

absl::Status VolumeImpl::LogTailMark(FileMeta& file, TailMark mark) {
  absl::MutexLock lock(&mu_);
  if (file.deleted) return absl::OkStatus();
  if (auto s = Commit({{.type = OpType::kSetTail, .id = file.id, .device = mark.device,
                        .offset = mark.offset}},
                      /*flush=*/false);
      !s.ok()) {
    return s;
  }
  file.tail = mark;
  file.flushed_unsynced = true;
  return absl::OkStatus();
}

absl::Status VolumeImpl::SyncChunk(FileMeta& file, uint32_t device) {
  {
    absl::MutexLock lock(&mu_);
    if (file.flushed_unsynced || file.name_unflushed) {
      // The mark or the name still needs the log flushed; that flush is
      // the chunk's too when the log lives on its device.
      if (device != label_.meta_device) {
        if (auto s = members_[device].dev->Flush({IoClass::kWal}); !s.ok()) return s;
      }
      if (auto s = FlushLog(); !s.ok()) return s;
      file.flushed_unsynced = false;
      file.name_unflushed = false;
      return absl::OkStatus();
    }
  }
  return members_[device].dev->Flush({IoClass::kWal});
}

void VolumeImpl::CloseWriter(FileMeta& file) {
  absl::MutexLock lock(&mu_);
  file.writer_open = false;
  if (file.deleted && file.readers == 0) {
    absl::ReaderMutexLock fl(&file.mu);
    ReleaseExtents(file.extents);
    ResetDeadZones();
  }
}

void VolumeImpl::CloseReader(FileMeta& file) {
  absl::MutexLock lock(&mu_);
  --file.readers;
  if (file.deleted && file.readers == 0 && !file.writer_open) {
    absl::ReaderMutexLock fl(&file.mu);
    ReleaseExtents(file.extents);
    ResetDeadZones();
  }
}

}  // namespace zonestack::zfs
