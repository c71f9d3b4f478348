// Internals of zfs::Volume, shared by its .cc files. Not a public header.
//
// What guards what, and the lock order (take locks in this order only):
//
//   Mover::gc_mu_ | Mover::move_mu_   one GC run | one relocation or migration
//     -> VolumeImpl::mu_              the namespace (files_, names_, dirs_),
//                                     zone accounting (members_' zones, sets,
//                                     pool counts), the metadata log
//       -> FileMeta::mu               one file's extent list (readers share it)
//
//   leaves (nothing is taken while one is held): Mover::wake_mu_,
//   Mover::stop_mu_.
//
// The namespace and zone accounting share mu_ on purpose: one committed
// record changes both (an append adds extents and valid bytes, a delete
// drops names and frees zones), and replay applies them together, so a
// second mutex would only add an order to get wrong. mu_ is never held
// across device I/O that may block, except a durable commit's flush of
// devices holding Flush-only data (the log's ordering needs it). Writers
// append into their leased zone without mu_. The mover's state (threads,
// its serialization, migration counts) has its own locks (mover.h).
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "zfs/format.h"
#include "zfs/host_staging.h"
#include "zfs/metadata_log.h"
#include "zfs/mover.h"
#include "zfs/volume.h"
#include "zfs/write_buffers.h"

namespace zonestack::zfs {

// Zone groups above any policy's: zones not holding file data.
constexpr uint32_t kNoGroup = UINT32_MAX;

// Where a writer's flushed chunks begin that no record describes yet
// (format.h, FlushTrailer): mount walks the zone from here.
struct TailMark {
  uint32_t device = 0;
  uint64_t offset = 0;  // device offset, block-aligned
  bool operator==(const TailMark&) const = default;
};

// A file. `id` never changes; the rest is guarded as marked.
struct FileMeta {
  explicit FileMeta(uint64_t file_id) : id(file_id) {}
  const uint64_t id;

  // Guarded by VolumeImpl::mu_.
  std::vector<std::string> names;
  FileHint hint;
  uint64_t mtime_us = 0;
  bool writer_open = false;
  int readers = 0;        // open ReadableFiles
  bool deleted = false;   // no names left; space freed when readers close
  // The device the policy was last told this file lies on (OnPlaced), or
  // -1 before the first zone.
  int64_t placed_device = -1;
  // The zone this file was last granted (MountOptions::disk_run_zones).
  int64_t tail_device = -1;
  uint32_t tail_zone = 0;
  size_t persisted_extents = 0;     // extents the log knows, the last one
  uint64_t persisted_last_len = 0;  // with this length
  uint32_t persisted_last_crc = 0;  // and the CRC of those bytes
  uint64_t persisted_size = 0;
  // The last record of this file was written by a Flush, or logs its
  // tail mark (LogTailMark), and is not flushed.
  bool flushed_unsynced = false;
  // Created without a durable name (Volume::Create's durable_name): the
  // file's first Sync flushes the log even with nothing new to log.
  bool name_unflushed = false;
  // The tail mark the log holds for this file's writer, if any.
  std::optional<TailMark> tail;

  // Readers hold `mu` shared while they read the device; appends and
  // relocation change the extents holding it exclusively.
  mutable absl::Mutex mu;
  std::vector<Extent> extents ABSL_GUARDED_BY(mu);
  std::vector<uint64_t> ends ABSL_GUARDED_BY(mu);  // file offset after each extent
  // Extent-list swaps by GC and migration. Two moves of one file may run
  // at once, and an unchanged extent list does not prove that what the
  // slower one copied was still there: the other may have moved the data
  // away, had its zone reset and rewritten, and moved it back (ABA).
  uint64_t moves ABSL_GUARDED_BY(mu) = 0;
  // Bytes a host-staging Flush made visible that follow the extents (the
  // writer's buffer, or what mount found staged on a read-only volume).
  std::vector<uint8_t> staged ABSL_GUARDED_BY(mu);
  std::atomic<uint64_t> size{0};  // bytes readers see: the extents', then `staged`

  FileRecord ToRecord() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
};

// One subzone of a split zone (SplitZNS 4.2): one chip's share of the
// zone, written by one writer at a time, finished when it closes, reset
// when its last live extent dies (subzones.cc).
struct SubzoneUse {
  uint64_t written = 0;   // bytes from the subzone start to its write pointer
  uint64_t valid = 0;     // bytes held by live extents (rounded to blocks)
  bool full = false;      // finished: takes no more writes until reset
  bool leased = false;
  std::string holder;
  uint64_t lease_id = 0;
};

// zfs's view of one zone.
struct ZoneUse {
  ZoneRole role = ZoneRole::kFree;
  uint32_t group = kNoGroup;
  uint64_t written = 0;   // bytes from the zone start to the write pointer
  uint64_t capacity = 0;
  uint64_t valid = 0;     // bytes held by live extents (rounded to blocks)
  bool leased = false;    // a writer is appending to it (cache zone: a write is in flight)
  std::string holder;     // the leasing file's name, for "every active zone is being written"
  // The lease's id: a writer whose id no longer matches lost the zone to a
  // waiter (RevokeIdleLease) and leases another.
  uint64_t lease_id = 0;
  // The file writer holding the lease is between writes, since
  // idle_since_us: a writer left open but silent (an old WAL that RocksDB
  // keeps until its memtables are flushed) must not keep the active zone
  // from writers that need it.
  bool idle = false;
  uint64_t idle_since_us = 0;
  bool pool = false;      // a data zone taken from the device's WAL/cache pool
  // On the volume's clock, for cost-benefit GC; 0 (the oldest) for zones
  // written before the mount.
  uint64_t last_write_us = 0;
  // The device failed the zone (read-only or offline): it is never
  // allocated, written, finished or reset again (zone_retire.cc).
  bool retired = false;
  bool offline = false;  // retired, and its data is gone
  // The cell mode the zone was opened in (HZNS: SLC by default, QLC when
  // opened so); `capacity` follows it.
  device::CellMode cell_mode = device::CellMode::kNone;
  // A split zone's subzones (SplitZNS 4.2); empty for a wide zone. `valid`
  // is then their sum, and `written` their sum while the split zone is
  // open, its capacity once it is finished (its empty subzones take no
  // writes until every subzone is empty and it is merged back).
  std::vector<SubzoneUse> subzones;
  bool split() const { return !subzones.empty(); }
  bool full() const { return written >= capacity; }
};

struct Member {
  std::shared_ptr<device::ZonedDevice> dev;
  device::DeviceInfo info;
  uint32_t label_zone = 0;
  uint32_t reserved_active = 0;   // active zones zfs itself keeps (metadata)
  std::vector<ZoneUse> zones;
  std::set<uint32_t> empty;       // data zones with nothing written
  std::set<uint32_t> partial;     // data zones written but not full
  std::set<uint32_t> maybe_dead;  // zones whose valid bytes (or a subzone's) dropped to 0
  // Split zones open for writes (SplitZNS 4.2): each holds one active zone.
  std::set<uint32_t> split_open;
  // The zone a GC run is emptying: no subzone lease goes into it.
  uint32_t collecting = UINT32_MAX;
  uint32_t data_zones = 0;        // zones usable for data, counted at mount
  // The WAL/cache pool (HHZS 3.2): pool data zones plus cache zones.
  uint32_t pool_zones = 0;
  uint32_t cache_zones = 0;
  uint32_t cache_active = 0;      // cache zones not yet full: active on the device
  // Device write bytes from Stats(), refreshed at most every few ms of the
  // volume's clock: Stats() copies every counter and DeviceViews() runs on
  // each allocation. Stale once the clock reaches bytes_written_until_us.
  mutable uint64_t bytes_written = 0;
  mutable uint64_t bytes_written_until_us = 0;

  // A zone's capacity in the mode an implicit open gives it (HZNS: SLC,
  // a quarter of the native capacity).
  uint64_t default_capacity() const { return info.ZoneCapacityFor(info.default_cell_mode); }
  // Whether zones may be opened in a mode other than the default.
  bool mixed_modes() const { return info.supports_slc; }
};

// Where a device's label lies (volume.cc), and "device I (NAME)" for
// messages; Format, Mount and Probe share them.
uint32_t LabelZone(const device::DeviceInfo& info);
std::string DeviceName(const device::ZonedDevice& dev, size_t i);

// Reads every member's label and checks that they form one volume, in
// order, with the recorded geometry; the label is returned in `label`.
absl::StatusOr<std::vector<Member>> CheckMembers(
    const std::vector<std::shared_ptr<device::ZonedDevice>>& devices, Label* label);

// Why a zone is wanted: writers keep the GC and pool reserves and may
// trigger GC; GC may take any empty zone; migration keeps the reserves but
// never triggers GC.
enum class Purpose { kWrite, kGc, kMigration };

// How MoveExtents copies.
struct MoveOptions {
  Purpose purpose = Purpose::kGc;
  device::IoClass io_class = device::IoClass::kGc;
  double bytes_per_sec = 0;    // copy rate limit; 0 = unlimited
  bool notify_placed = false;  // tell the policy the file's new device
  // Copy into zones of this cell mode only (kNone: any), and copy inside
  // the device with Simple Copy when the source is on the same device and
  // the device supports it (relocation.cc).
  device::CellMode cell_mode = device::CellMode::kNone;
  bool simple_copy = false;
};

// Where a writer appends: a zone it owns until it releases it.
struct Lease {
  uint32_t device = 0;
  uint32_t zone = 0;
  uint64_t id = 0;    // ZoneUse::lease_id while the lease holds
  uint64_t next = 0;  // device offset of the next write
  uint64_t end = 0;   // device offset of the zone's capacity end
  int32_t subzone = -1;  // the subzone leased in split zone `zone`; -1: the whole zone
  bool valid() const { return end != 0; }
};

class VolumeImpl {
 public:
  VolumeImpl(std::vector<Member> members, const Label& label, const MountOptions& options);
  ~VolumeImpl();

  // --- mount (volume.cc)
  // With `repair`, salvages a damaged log instead of refusing it
  // (repair.cc) and reports what it found and did.
  absl::Status Recover(bool read_only, RepairReport* repair = nullptr) ABSL_LOCKS_EXCLUDED(mu_);
  // Writes the recovered state as a fresh log (after a repair).
  absl::Status RewriteLog() ABSL_LOCKS_EXCLUDED(mu_);
  Mover& mover() { return mover_; }

  // --- namespace (namespace.cc)
  absl::StatusOr<std::unique_ptr<WritableFile>> Create(const std::string& path,
                                                       const FileHint& hint, bool reopen,
                                                       bool durable_name = true);
  absl::Status SyncNamespace() ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<std::unique_ptr<ReadableFile>> Open(const std::string& path,
                                                     const OpenOptions& options);
  absl::Status Delete(const std::string& path, bool durable = true);
  absl::Status Rename(const std::string& from, const std::string& to);
  absl::Status Link(const std::string& from, const std::string& to);
  // Rename of a directory and everything below it, in one record.
  absl::Status RenameDir(const std::string& from, const std::string& to)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<FileStat> Stat(const std::string& path) const;
  absl::StatusOr<std::vector<std::string>> List(const std::string& dir) const;
  absl::Status CreateDir(const std::string& path);
  absl::Status DeleteDir(const std::string& path);
  absl::Status SetHint(const std::string& path, const FileHint& hint);

  // --- the data path (files.cc, zones.cc)
  // A zone with room for `file`, from the policy's device order.
  // `only_device` restricts the choice (GC, relocation); see Purpose.
  // A writer's first zone on a device is reported to the policy.
  // `mode` other than kNone: only a zone of that cell mode will do (cell
  // migration); otherwise the policy's PlacementDecision::cell_mode says
  // how a new zone is opened.
  absl::StatusOr<Lease> AcquireZone(FileMeta& file,
                                    std::optional<uint32_t> only_device = std::nullopt,
                                    Purpose purpose = Purpose::kWrite,
                                    device::CellMode mode = device::CellMode::kNone)
      ABSL_LOCKS_EXCLUDED(mu_);
  void ReleaseZone(const Lease& lease) ABSL_LOCKS_EXCLUDED(mu_);
  // A file writer calls BeginWrite before each device write of its lease:
  // false when a waiter took the zone back while the writer was idle (the
  // writer then leases another zone). EndWrite (or AddExtent) ends the
  // write: the zone's write pointer is at `next` (the device offset after
  // the write, padding and trailer included; unchanged after a failed
  // write), and the writer is idle again.
  bool BeginWrite(const Lease& lease) ABSL_LOCKS_EXCLUDED(mu_);
  void EndWrite(const Lease& lease, uint64_t next) ABSL_LOCKS_EXCLUDED(mu_);
  // Records that `length` bytes were written at `offset` for `file`, and
  // ends the write as EndWrite(lease, next) does.
  void AddExtent(FileMeta& file, const Lease& lease, uint64_t offset, uint64_t length,
                 uint32_t crc, uint64_t next) ABSL_LOCKS_EXCLUDED(mu_);
  // Makes the file's data and size durable (flushes devices, logs).
  // With `durable` false (a Flush), the data and record only reach the
  // devices: they survive a process crash, not a power cut. The record
  // leaves `tail` as the file's tail mark (nullopt: none, the writer is
  // closing); `tail` must be the writer's next write position, after
  // every extent the record logs. `data_durable`: the new extents are
  // durable already, as chunks a Sync ended (SyncChunk); the record then
  // needs no flush, since mount finds them from the durable tail mark.
  // `flush_data` (for `durable` false): the new extents' devices are
  // flushed before the record is written, so that the record, unflushed,
  // can never reach the media without its data (a device's cache may
  // write the log's zone back before a data zone).
  absl::Status SyncFile(FileMeta& file, bool durable, std::optional<TailMark> tail,
                        bool data_durable = false, bool flush_data = false)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Logs `mark` as the file's tail mark, unflushed, before the writer
  // ends a chunk there that the log does not name yet: the extents before
  // it are logged, the chunk's data are not (mount walks them).
  absl::Status LogTailMark(FileMeta& file, TailMark mark) ABSL_LOCKS_EXCLUDED(mu_);
  // Makes a chunk the writer just ended on `device` durable, with the
  // file's tail mark and name: one cache flush when the log shares the
  // device. The chunk's trailer, not the order of flushes, proves its data
  // at mount, so data and log need no flush of their own in between.
  absl::Status SyncChunk(FileMeta& file, uint32_t device) ABSL_LOCKS_EXCLUDED(mu_);
  void CloseWriter(FileMeta& file) ABSL_LOCKS_EXCLUDED(mu_);
  void CloseReader(FileMeta& file) ABSL_LOCKS_EXCLUDED(mu_);
  device::ZonedDevice* device(uint32_t i) const { return members_[i].dev.get(); }
  uint32_t block_size(uint32_t device) const { return members_[device].info.block_size; }
  FlushMode flush_mode() const { return options_.flush; }
  // Where host-staging Flushes stage; empty when they stage in memory only
  // (no member outlives the process, or read-only).
  const std::string& staging_dir() const { return staging_dir_; }
  // Writers' buffers, reused between files.
  WriteBufferPool& write_buffers() { return write_buffers_; }
  // Makes `bytes`, the file's next ones after the extents and what is
  // staged, visible to readers (a host-staging Flush).
  void PublishStaged(FileMeta& file, std::span<const uint8_t> bytes) ABSL_LOCKS_EXCLUDED(mu_);
  // At mount: appends what crashed writers staged (host_staging.cc); on a
  // read-only volume readers see it instead.
  absl::Status ApplyStaged() ABSL_LOCKS_EXCLUDED(mu_);
  // The staging file of `file_id` in staging_dir(), which it creates (mode
  // 0700) when missing.
  // Reuses an idle one (RecycleStagingFile) of that capacity if any.
  absl::StatusOr<StagingFile> CreateStagingFile(uint64_t file_id, uint64_t capacity)
      ABSL_LOCKS_EXCLUDED(staging_mu_);
  // A closed writer's staging file, its pieces in the log now: cleared and
  // kept for the next writer (at most kIdleStagingFiles), else removed.
  void RecycleStagingFile(StagingFile file) ABSL_LOCKS_EXCLUDED(staging_mu_);

  // --- for the mover: GC (gc.cc), relocation and migration (relocation.cc)
  // Whether any device is below its GC threshold.
  bool NeedsGc() const ABSL_LOCKS_EXCLUDED(mu_);
  // One GC pass over `device` (below its threshold, or any unless
  // `trigger` is kThreshold); `stats->stopped` says why it ended early.
  // REQUIRES: the caller serializes GC runs (Mover::CollectGarbage).
  void CollectDevice(uint32_t device, GcTrigger trigger, GcStats* stats)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Moves `path`'s data off other devices to `device` (MoveExtents);
  // `*moved` counts the bytes copied.
  absl::Status MoveFile(const std::string& path, uint32_t device, double bytes_per_sec,
                        uint64_t* moved) ABSL_LOCKS_EXCLUDED(mu_);
  // One cell migration (ZnH2 3.3.1, cell_migration.cc): the live extents
  // of closed files in zones of `request.device` not in `request.to_mode`,
  // in the policy's order of CellMigrationPriority, about `request.bytes`
  // of them, moved into zones opened in `request.to_mode`. Counts into
  // `*stats`. REQUIRES: the caller serializes moves (Mover::move_mu_).
  absl::Status MigrateCells(const CellMigration& request, CellMigrationStats* stats)
      ABSL_LOCKS_EXCLUDED(mu_);
  std::vector<DeviceView> CurrentDeviceViews() const ABSL_LOCKS_EXCLUDED(mu_);
  PlacementPolicy& placement() const { return *options_.placement; }
  // FailedPrecondition on a read-only mount.
  absl::Status CheckWritable() const;
  device::Clock& clock() const { return *clock_; }
  // Whether the clock is the real one (its time passes while a thread waits).
  bool real_clock() const { return real_clock_; }
  // Waits with `mu` held until `cond` holds or the clock reaches
  // `deadline_ns`; returns whether `cond` holds.
  bool AwaitUntil(absl::Mutex& mu, const absl::Condition& cond, uint64_t deadline_ns) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);

  // --- SSD cache zones (cache_zones.cc)
  absl::StatusOr<CacheZone> AcquireCacheZone(uint32_t device) ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status CacheWrite(const CacheZone& zone, uint64_t offset, std::span<const uint8_t> data)
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status CacheRead(const CacheZone& zone, uint64_t offset, std::span<uint8_t> dst) const
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status ReleaseCacheZone(const CacheZone& zone) ABSL_LOCKS_EXCLUDED(mu_);
  void SetCacheReclaimer(std::function<bool()> reclaim_one) ABSL_LOCKS_EXCLUDED(mu_);

  // --- zones the device failed (zone_retire.cc)
  // After a write of `file` at `*lease` failed with `error`: when the zone
  // went read-only or offline it is retired and `*lease` cleared, and OK
  // means the data may be written elsewhere; an offline zone that held
  // earlier data of `file` is an error naming it. Any other failure is
  // returned, naming the file, with the lease kept.
  absl::Status WriteFailed(FileMeta& file, Lease* lease, const absl::Status& error)
      ABSL_LOCKS_EXCLUDED(mu_);
  // The error for a failed read of `file`: names the file, and when a zone
  // of it is offline, says that its data there is lost.
  absl::Status ReadFailed(const FileMeta& file, const absl::Status& error)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Moves live data out of retired read-only zones (files open for writing
  // wait); first, with `report_zones`, retires every zone the devices
  // report read-only or offline, whether or not a command failed on it.
  void HandleFailedZones(bool report_zones) ABSL_LOCKS_EXCLUDED(mu_);

  // --- inspection (inspect.cc)
  std::vector<DeviceSpace> Space() const;
  std::vector<ZoneReport> Zones() const;
  std::vector<FileInfo> Files() const;
  std::vector<std::string> Check() const;
  std::vector<std::string> CheckData() const;
  // The CRC-32 of `length` bytes at `offset` on `device`, read in pieces.
  absl::StatusOr<uint32_t> ReadCrc(uint32_t device, uint64_t offset, uint64_t length) const;
  absl::StatusOr<std::vector<std::string>> DumpLog() const;
  MetadataLogTotals LogTotals() const;

  const Label& label() const { return label_; }
  const std::vector<Member>& members() const { return members_; }
  // Now on the volume's clock (MountOptions::clock).
  uint64_t NowUs() const { return clock_->NowNs() / 1000; }

 private:
  friend class Volume;

  // Makes `ops` durable, then applies them. REQUIRES: mu_ held.
  // Without `durable`, the record reaches the device but is not flushed.
  absl::Status Commit(std::vector<Op> ops, bool durable = true)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Flushes the devices holding data that only a Flush's record describes,
  // so that no flushed record ever describes data a power cut can take.
  // `except`: a device whose flush the caller makes next.
  absl::Status FlushPendingDevices(std::optional<uint32_t> except = std::nullopt)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Makes every record written so far durable: the pending devices, then
  // the metadata device.
  absl::Status FlushLog() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The log is durable up to its last record: deferred names and deletes
  // with it.
  void LogDurable() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether a zone whose data was released may be reset now: flushes the
  // log first when a delete that released data is not yet durable (false
  // when that flush fails). A power cut that took the delete would bring
  // the file back with its zone gone.
  bool ReleasesDurable() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Applies one op to the in-memory state (replay and live commits).
  void Apply(const Op& op) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::vector<Op> Snapshot() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ApplyPutFile(const FileRecord& rec) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ApplyAppend(const FileRecord& rec) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Mount (tail_recovery.cc): for each file with a tail mark, walks its
  // zone from the mark to the write pointer and appends every flushed
  // chunk whose trailer and CRC hold (format.h, FlushTrailer). Returns
  // the ops that log what it found and clear the marks; a chunk whose
  // trailer holds but whose data does not is DataLoss (with `repair`,
  // the walk stops there and says so).
  absl::StatusOr<std::vector<Op>> RecoverTails(RepairReport* repair)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ForgetFile(uint64_t id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Repair (repair.cc): forgets files whose extents lie outside the volume
  // or past their zone's write pointer, and recreates the directories the
  // remaining files are in; keeps each written data zone that no file
  // accounts for as a file in /lost+found.
  void DropBrokenFiles(RepairReport* report) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void PreserveUnaccountedZones(RepairReport* report) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The same for each written subzone of split zone `zone` with no live
  // extent: a file /lost+found/deviceD-zoneZ-subzoneS each.
  void PreserveUnaccountedSubzones(uint32_t device, uint32_t zone, RepairReport* report)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Removes the names of `f` that map to it from names_.
  void DropNames(const FileMeta& f) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // After `f` lost `name` durably: forget the name, and the file when no
  // name is left; its space goes once no handle uses it.
  void DroppedName(const std::shared_ptr<FileMeta>& f, const std::string& name)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Zone accounting (zones.cc).
  void AddValid(const Extent& x) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ReleaseExtents(const std::vector<Extent>& extents) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Resets zones that hold nothing live any more. Only after the ops that
  // killed their data are durable.
  void ResetDeadZones() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // One allocation attempt. Adds to `*busy_devices` each device where only
  // the active-zone budget is in the way, and sets `*reclaim` (returning an
  // error) when a pool allocation should first have the cache give back a
  // zone.
  absl::StatusOr<Lease> TryAcquire(FileMeta& file, std::optional<uint32_t> only_device,
                                   Purpose purpose, device::CellMode mode, bool reclaim_tried,
                                   std::vector<uint32_t>* busy_devices, bool* reclaim)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Opens the empty zone `zone` of `device` for a new lease in `mode`
  // (kNone or the default: left to the first write's implicit open), and
  // sets its cell mode and capacity. False when the device refused.
  bool OpenInMode(uint32_t device, uint32_t zone, device::CellMode mode)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Zones of `device` zfs holds active in `mode`.
  uint32_t ActiveZonesIn(uint32_t device, device::CellMode mode) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The empty zone a new zone of `file` on `device` comes from (see
  // MountOptions::disk_run_zones). `device` has an empty zone.
  uint32_t PickEmptyZone(uint32_t device, const FileMeta& file) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Empty zones a device keeps back from writers so GC can always move
  // data somewhere.
  uint32_t GcReserve(uint32_t device) const;
  // Empty zones general allocations leave for the pool: the policy's pool
  // size minus the pool zones in use.
  uint32_t PoolReserve(uint32_t device, const std::vector<DeviceView>& views) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool FinishCheapestZone(uint32_t device) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Takes back the zone of the file writer on `device` idle the longest,
  // if idle since `idle_before_us` or earlier; false if none is.
  bool RevokeIdleLease(uint32_t device, uint64_t idle_before_us)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // EndWrite under mu_.
  void EndWriteLocked(const Lease& lease, uint64_t next) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A lease ends (released or revoked): the zone is empty, partial or full.
  void Unlease(uint32_t device, uint32_t zone) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  uint32_t MaxActive(uint32_t device) const;
  // Zones of `device` zfs holds active: data zones written or leased but
  // not full, and cache zones not yet full.
  uint32_t ActiveZones(uint32_t device) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Makes room under the active limit of `device` for one more zone by
  // finishing partly written zones; false if every active zone is busy.
  bool RoomForActiveZone(uint32_t device) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The zone now holds nothing (reset, or leased and never written): it
  // becomes a free empty zone, and leaves the pool if it was in it.
  void ZoneEmptied(uint32_t device, uint32_t zone) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Subzones (SplitZNS 4.2-4.3, subzones.cc).
  // A subzone of `device` for `file`: an empty one of the open split zone
  // with the most subzones in use (the paper's greedy subzone allocator),
  // else one of a zone split now. nullopt when neither can be had.
  std::optional<Lease> LeaseSubzone(FileMeta& file, uint32_t device, uint32_t group,
                                    Purpose purpose, const std::vector<DeviceView>& views)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A subzone lease ends: a written subzone is finished (one file per
  // subzone), and a split zone with no empty subzone left is finished.
  void UnleaseSubzone(uint32_t device, uint32_t zone, uint32_t subzone)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Resets the dead subzones of split zone `zone` and merges it back into
  // an empty wide zone once every subzone is empty. False when a device
  // command failed (the zone is looked at again later).
  bool ResetDeadSubzones(uint32_t device, uint32_t zone) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Mount: the subzones of each zone the device reports split.
  absl::Status LoadSubzones(uint32_t device) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Mount, read-write: finishes written subzones left unfinished (their
  // writer is gone) and split zones with no empty subzone left.
  absl::Status FinishOrphanSubzones(uint32_t device) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Finishes open split zone `zone`: it frees its active zone, and its
  // empty subzones take no writes until it is merged.
  bool FinishSplitZone(uint32_t device, uint32_t zone) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Empty subzones of the split zones of `device`, open or finished.
  uint32_t FreeSubzones(uint32_t device) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether GC emptying split zone `zone` gives a zone back: its live
  // subzones fit in the empty subzones of the other split zones. Otherwise
  // its SSTs would take a newly split zone, and GC would move them all
  // and free nothing.
  bool SplitVictimFrees(uint32_t device, uint32_t zone) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Another file than `file` holds a zone or subzone lease (is writing).
  bool OtherWriterLeases(const FileMeta& file) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The greedy subzone allocator (SplitZNS 4.3): among the open (or the
  // finished) split zones with a subzone a new writer may take, the one
  // with the most subzones in use; UINT32_MAX if none.
  uint32_t MostUsedSplitZone(uint32_t device, bool open) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Opens the finished split zone a new subzone writer should take, or
  // UINT32_MAX.
  uint32_t ReopenSplitZone(uint32_t device) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Tells the policy that `file` lies on `device` if it did not already know.
  void NotifyPlaced(FileMeta& file, uint32_t device) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether `zone` names a cache zone zfs handed out and still holds.
  absl::Status CheckCacheZone(const CacheZone& zone) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::vector<DeviceView> DeviceViews() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  uint32_t ZoneOf(const Extent& x) const {
    return static_cast<uint32_t>(x.offset / members_[x.device].info.zone_size);
  }
  // On a device with subzones, the subzone slot `offset` lies in (the
  // subzone it would be in if its zone were split; -1 on other devices).
  // Arithmetic only, so callers without mu_ may use it.
  int32_t SubzoneSlot(uint32_t device, uint64_t offset) const {
    const device::DeviceInfo& info = members_[device].info;
    if (!info.supports_subzones) return -1;
    return static_cast<int32_t>(offset % info.zone_size / info.subzone_size());
  }
  // Where the zone, or in a split zone the subzone, holding device offset
  // `offset` starts, and the device offset of its write pointer as zfs
  // counts it (writes land there and extents end at or below it).
  struct Region {
    uint64_t start = 0;
    uint64_t write_pointer = 0;
  };
  Region RegionAt(uint32_t device, uint64_t offset) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  uint64_t Physical(const Extent& x) const {
    const uint64_t bs = members_[x.device].info.block_size;
    return (x.length + bs - 1) / bs * bs;
  }
  // Appends `x` to `extents`, merging it into the last extent when it
  // continues it in the same zone after a whole number of blocks.
  void AppendExtent(std::vector<Extent>& extents, const Extent& x) const;

  std::shared_ptr<FileMeta> Find(const std::string& path) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool DirExists(const std::string& path) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // GC internals (gc.cc).
  // Copies the extents of `file` that `pick` selects to zones on
  // `to_device`, then swaps the extent list in one record (relocation.cc).
  // Aborted if the file is deleted or changes meanwhile, or the volume is
  // unmounting.
  absl::Status MoveExtents(const std::shared_ptr<FileMeta>& file,
                           const std::function<bool(const Extent&)>& pick, uint32_t to_device,
                           const MoveOptions& options, uint64_t* moved_bytes)
      ABSL_LOCKS_EXCLUDED(mu_);
  // How long a wait for the clock to reach `deadline_ns` may block before
  // it looks at the clock again (zero once it has). A simulated clock
  // moves only when something else moves it, so it is looked at often.
  absl::Duration TimeUntil(uint64_t deadline_ns) const;
  // Zones of `device` worth collecting, best first (least live data first
  // for kWriterOutOfRoom, see GcTrigger); split zones only when not
  // kThreshold.
  std::vector<uint32_t> GcVictims(uint32_t device, GcTrigger trigger) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool BelowGcThreshold(uint32_t device) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Zone retirement internals (zone_retire.cc).
  // Retires `zone` if the device reports it read-only or offline; true if
  // it is retired.
  bool RetireIfFailed(uint32_t device, uint32_t zone) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RetireZone(uint32_t device, uint32_t zone, bool offline)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Moves the live extents out of the read-only zone `zone`.
  void EvacuateZone(uint32_t device, uint32_t zone) ABSL_LOCKS_EXCLUDED(mu_);

  // Zone accounting is guarded by mu_; dev and info never change.
  std::vector<Member> members_;
  std::vector<std::shared_ptr<device::ZonedDevice>> devices_;
  const Label label_;
  const MountOptions options_;
  // options_.clock, or the real clock; real_clock_: its time passes while
  // a thread waits.
  const std::shared_ptr<device::Clock> clock_;
  const bool real_clock_;
  bool read_only_ = false;
  std::string staging_dir_;  // see staging_dir(); set by Recover
  WriteBufferPool write_buffers_;
  // Cleared staging files of closed writers (RecycleStagingFile): a crash
  // leaves them counting no piece, and mount deletes them.
  static constexpr size_t kIdleStagingFiles = 2;
  absl::Mutex staging_mu_;
  std::vector<StagingFile> idle_staging_ ABSL_GUARDED_BY(staging_mu_);
  void RemoveIdleStagingFiles() ABSL_LOCKS_EXCLUDED(staging_mu_);

  mutable absl::Mutex mu_;
  absl::CondVar zone_released_;
  // Zones emptied since mount, and its value when a writer last waited
  // for room in vain (AcquireZone): equal, the volume is known full.
  uint64_t zones_emptied_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t full_at_emptied_ ABSL_GUARDED_BY(mu_) = UINT64_MAX;
  std::unique_ptr<MetadataLog> log_ ABSL_GUARDED_BY(mu_);
  std::map<uint64_t, std::shared_ptr<FileMeta>> files_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, uint64_t> names_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> dirs_ ABSL_GUARDED_BY(mu_);
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  uint64_t next_lease_id_ ABSL_GUARDED_BY(mu_) = 1;
  std::vector<Op> pending_ ABSL_GUARDED_BY(mu_);  // zone groups and splits to log next time
  // Zones the log says were split (kSplitZone), per device: an extent in a
  // subzone of any other zone is corruption.
  std::vector<std::set<uint32_t>> split_logged_ ABSL_GUARDED_BY(mu_);
  // Per member: data written by a Flush and not flushed since.
  std::vector<bool> flush_pending_ ABSL_GUARDED_BY(mu_);
  // Files created with a deferred name (FileMeta::name_unflushed) since
  // the log was last flushed: what SyncNamespace has to make durable.
  std::vector<std::shared_ptr<FileMeta>> deferred_names_ ABSL_GUARDED_BY(mu_);
  // A delete with `durable` false has been logged since the log was last
  // flushed: SyncNamespace flushes it, and no zone is reset before it is.
  bool deletes_unflushed_ ABSL_GUARDED_BY(mu_) = false;
  std::function<bool()> cache_reclaimer_ ABSL_GUARDED_BY(mu_);

  // Last: stopped (its threads joined) before anything above goes.
  Mover mover_;
};

// The system clock, in microseconds since the epoch, for modification
// times, never the volume's clock: an mtime is a date, kept in the log
// across mounts and reboots and read by RocksDB as seconds since the epoch
// (GetFileModificationTime), where a monotonic or simulated clock's time
// would mean nothing.
uint64_t SystemMicros();
std::string ParentDir(const std::string& path);

}  // namespace zonestack::zfs
