// zfs: a zoned file system over one or more ZonedDevices. Files are lists
// of extents, an extent lies in one zone of one device; metadata lives in a
// log of checksummed records in metadata zones on the fastest device
// (docs/format.md). Where data goes is asked of a PlacementPolicy.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "device/clock.h"
#include "device/zoned_device.h"
#include "zfs/cache_zones.h"
#include "zfs/metadata_log.h"
#include "zfs/placement.h"

namespace zonestack::zfs {

struct FormatOptions {
  uint32_t metadata_zones = 2;  // on the metadata device; at least 2
};

// What one device carries, as far as formatting it is concerned.
struct MemberProbe {
  enum class Kind {
    kBlank,       // no label, and no sequential zone written
    kLabeled,     // a ZoneStack label (of a volume that may be whole or not)
    kHoldsData,   // written, but without a label that decodes: foreign
                  // data, or a damaged label
    kUnreadable,  // reading it failed
  };
  Kind kind = Kind::kBlank;
  std::string volume_id;  // kLabeled
  uint32_t member_index = 0, member_count = 0;  // kLabeled
  // "device 1 (NAME) carries the label of volume ID, member 1 of 2", or
  // what else was found; for messages.
  std::string description;
};

struct VolumeProbe {
  std::vector<MemberProbe> members;  // one per device, in the order given
  bool AllBlank() const;
  // The description of every member that is not blank, joined.
  std::string DescribeNonBlank() const;
};

enum class FlushMode { kDevices, kHost, kNone };

struct MountOptions {
  std::shared_ptr<PlacementPolicy> placement;  // null = "lifetime"
  // GC starts when a device's empty zones fall to this fraction of its data
  // zones, and frees zones until they are back above it.
  // Negative: no background GC (GC still runs before reporting no space).
  double gc_free_zone_threshold = 0.10;
  bool gc_cost_benefit = false;  // false = greedy (least valid bytes first)
  bool read_only = false;        // for inspection tools: no writes at all
  // On a disk, where every jump costs a seek and a rotation: a file grows
  // into the zone after its last one when that is empty, and a new file
  // starts where this many empty zones lie ahead, clear of the zones other
  // files are growing from. Scaled-down zones (128 KiB for a 256 MiB SMR
  // zone at 1/2048) would otherwise put a seek at every 128 KiB of a
  // compaction's reads. 1: the lowest empty zone. SSD zones ignore it.
  uint32_t disk_run_zones = 4;
  // What WritableFile::Flush does (docs/architecture.md, "Durability
  // contract"); each survives a crash of the process except kNone.
  //  kDevices: writes the buffer to the devices (a padded block), found
  //    again at mount from a record or a chunk trailer.
  //  kHost: copies the bytes past what the log knows into a staging file
  //    under `staging_root` (host_staging.h), as RocksDB's own file system
  //    hands them to the page cache; mount appends them to the file. The
  //    RocksDB glue's default.
  //  kNone: nothing, as in ZenFS. For comparisons only.
  FlushMode flush = FlushMode::kDevices;
  // Where kHost stages (a tmpfs: staging costs a memory copy). Mount looks
  // here for what a crashed process staged, whatever `flush` is.
  std::string staging_root = "/dev/shm";
  // zfs's time: the zone ages cost-benefit GC weighs, how stale the device
  // write counts the policy sees may be, the migration rate limit, the GC
  // and migration threads' periods, and how long a writer waits for an
  // active zone. null = device::RealClock::Default(). Any other clock is
  // taken as simulated (device::ManualClock, for tests): a rate-limited
  // copy pauses in its WaitUntil (a ManualClock moves there at once, no
  // real time passes), while periods and waits end only when something
  // else moves it. Unmount cuts zfs's own waits short. File modification
  // times are dates and stay on the system clock.
  std::shared_ptr<device::Clock> clock;
};

struct FileStat {
  uint64_t size = 0;
  uint64_t mtime_us = 0;  // microseconds since the epoch
  uint32_t links = 1;
  bool is_dir = false;
};

struct ExtentInfo {
  uint32_t device = 0;
  uint32_t zone = 0;
  uint64_t offset = 0;  // on the device
  uint64_t length = 0;  // bytes of file data
};

struct FileInfo {
  uint64_t id = 0;
  std::vector<std::string> names;
  uint64_t size = 0;
  FileHint hint;
  std::vector<ExtentInfo> extents;
};

// kCache: an SSD cache zone (HHZS 3.5), outside the metadata log.
enum class ZoneRole : uint8_t { kFree = 0, kLabel, kMetadata, kData, kCache };

struct ZoneReport {
  uint32_t device = 0;
  device::ZoneInfo zone;
  ZoneRole role = ZoneRole::kFree;
  uint32_t group = 0;        // placement group of a data zone
  bool pool = false;         // a data or cache zone of the WAL/cache pool
  uint64_t valid_bytes = 0;  // bytes of live extents
  uint64_t written_bytes = 0;
};

struct DeviceSpace {
  std::string name;
  uint32_t zones = 0, empty_zones = 0, data_zones = 0;
  uint64_t capacity_bytes = 0;  // of data zones
  uint64_t valid_bytes = 0;     // live file data
  uint64_t written_bytes = 0;   // written into data zones, live or dead
  uint64_t free_bytes = 0;      // writable: empty zones + open zones' tails
};

struct MigrationStats {
  uint64_t files_moved = 0;
  uint64_t bytes_moved = 0;
  uint64_t failures = 0;  // moves that failed or were aborted (file deleted, ...)
  // Of the failures: the file was deleted or rewritten during the copy (a
  // compaction took it), and the destination ran out of empty zones.
  uint64_t aborted = 0;
  uint64_t no_room = 0;
};

// What cell migrations (ZnH2 3.3.1) did since mount.
struct CellMigrationStats {
  uint64_t runs = 0;            // requests carried out
  uint64_t extents_moved = 0;
  // Moved by Simple Copy where the device supports it and the request
  // asks for it, except extents larger than the room left in their
  // destination zone, which go through the host (the device's
  // DeviceStats::copy_bytes tells them apart).
  uint64_t bytes_moved = 0;
  // Requests cut short because no zone of the target mode could be had
  // (the device's QLC limits, or no empty zone).
  uint64_t no_room = 0;
  uint64_t aborted = 0;         // extents whose file changed during the copy
};

struct GcStats {
  uint64_t zones_reclaimed = 0;
  uint64_t bytes_relocated = 0;
  // Why the run stopped before its last victim (no room to move a
  // victim's data into, say); OK when it did not.
  absl::Status stopped;
};

// Every GC run since mount, background and on demand (Mover counts them).
struct GcTotals {
  uint64_t runs = 0;             // runs that looked for victims
  uint64_t zones_reclaimed = 0;
  uint64_t bytes_relocated = 0;
  uint64_t busy_ns = 0;          // time spent in runs, on the volume's clock
  // Of those, the runs a writer that found no zone started itself, and
  // the zones they reclaimed: how often GC's pace fell behind the writes.
  uint64_t writer_runs = 0;
  uint64_t writer_zones_reclaimed = 0;
};

// What Volume::Repair found wrong and what it did about it.
struct RepairReport {
  std::vector<std::string> problems;
  std::vector<std::string> actions;
};

// Thread-safety: a Volume and its file handles may be used from any number
// of threads. A WritableFile must be used by one thread at a time.
class WritableFile {
 public:
  virtual ~WritableFile() = default;
  // Appends to the file. Data is buffered until a block fills, Flush or
  // Sync.
  virtual absl::Status Append(std::span<const uint8_t> data) = 0;
  // Every byte appended before Flush survives a crash of this process once
  // it returns (it is on the devices, which keep it across a host
  // process's death, and the metadata log has either its extents or a
  // mark from which mount finds it), but not a power cut. A partial block
  // is written padded (with a 16-byte trailer, and a block of its own for
  // the trailer when the padding is shorter), so each Flush of a partial
  // block costs a block of space; the next append starts a new extent.
  virtual absl::Status Flush() = 0;
  // Durability: every byte appended before Sync survives a crash or a
  // power cut once it returns, with the file's size and name.
  virtual absl::Status Sync() = 0;
  // Syncs and releases the file's zone. Idempotent.
  virtual absl::Status Close() = 0;
  // Releases the file's zone without a sync (POSIX's close, which RocksDB
  // expects: it syncs before closing wherever it needs the data): what was
  // appended survives a crash of this process, as after Flush, and a
  // power cut only as far as an earlier Sync reached. The new data is
  // flushed before its record is written, unflushed: one device flush,
  // none when nothing is new. Idempotent; a Close after it does nothing.
  virtual absl::Status CloseUnsynced() = 0;
  virtual uint64_t size() const = 0;
};

struct OpenOptions {
  // The file's reads may be served by the host's page cache, at the bytes
  // asked for, on devices that offer one (DeviceInfo::host_cache: a kernel
  // zoned block device). Off: every read goes to the device, whole blocks.
  // RocksDB's files set it unless RocksDB asks for direct reads.
  bool host_cache = false;
};

class ReadableFile {
 public:
  virtual ~ReadableFile() = default;
  // Reads up to dst.size() bytes at `offset`; returns the count, which is
  // short only at the end of the file.
  // `io_class` says what the read is for (statistics, device scheduling).
  virtual absl::StatusOr<size_t> Read(uint64_t offset, std::span<uint8_t> dst,
                                      device::IoClass io_class = device::IoClass::kUserRead) const = 0;
  virtual uint64_t size() const = 0;
};

class Volume {
 public:
  // Writes a new, empty volume over `devices` (erasing them). The metadata
  // goes to the first SSD, or to the first device if none is an SSD.
  static absl::Status Format(const std::vector<std::shared_ptr<device::ZonedDevice>>& devices,
                             const FormatOptions& options = {});

  // Reads what each device carries (its label, or whether it holds data)
  // and changes nothing. A caller that formats only blank devices (format
  // "if-needed") asks this first: a device with a label, or with data, is
  // a volume or someone's data, even when Mount fails on another member.
  // Conventional zones other than the label zone are not examined. Never
  // fails: a device that cannot be read is kUnreadable.
  static VolumeProbe Probe(const std::vector<std::shared_ptr<device::ZonedDevice>>& devices);

  // Mounts the volume on `devices`, given in the order they were formatted.
  // Fails with a message naming the device for an unformatted or foreign
  // device, a missing or misplaced member, or corrupt metadata.
  static absl::StatusOr<std::unique_ptr<Volume>> Mount(
      std::vector<std::shared_ptr<device::ZonedDevice>> devices,
      const MountOptions& options = {});

  // Salvages a volume whose metadata Mount refuses as corrupt: replays
  // every record that can be read, forgets files whose extents are not
  // intact, keeps data zones no file accounts for as files in /lost+found
  // (never resetting them), and writes a fresh metadata log. Every file
  // whose extents are intact survives. On a healthy volume it changes
  // nothing but the log's zone (a fresh snapshot).
  static absl::StatusOr<RepairReport> Repair(
      std::vector<std::shared_ptr<device::ZonedDevice>> devices,
      const MountOptions& options = {});

  // Unmounts: syncs metadata. Every file handle (writable or readable)
  // must be destroyed first; writable files should be closed.
  ~Volume();

  // Paths are absolute ("/db/000012.sst"); "." and ".." are not resolved.
  // The new name is durable on return, or with `durable_name` false
  // written to the log but made durable only by the next durable change
  // (the file's first Sync, SyncNamespace, any other file's Sync or name
  // change): the contract of a POSIX file system, where a new file
  // survives a power cut once the directory is synced, and RocksDB's. A
  // power cut before then loses the new file, nothing else. Replacing an
  // existing file is always durable (its zones may be reset at once).
  absl::StatusOr<std::unique_ptr<WritableFile>> Create(const std::string& path,
                                                       const FileHint& hint,
                                                       bool durable_name = true);
  // Makes every name created or deleted so far durable (RocksDB's
  // FSDirectory::Fsync): flushes the log when a create with `durable_name`
  // false or a delete with `durable` false is not yet durable, and nothing
  // otherwise. Records that need no flush to keep
  // their promise (a hint, a Close after a Sync) may stay unflushed.
  absl::Status SyncNamespace();
  // Reopens an existing file for appending (RocksDB's ReopenWritableFile).
  absl::StatusOr<std::unique_ptr<WritableFile>> Reopen(const std::string& path);
  absl::StatusOr<std::unique_ptr<ReadableFile>> Open(const std::string& path,
                                                     const OpenOptions& options = {}) const;
  // Removes the name; the file's data goes when its last name and handle
  // do. Durable on return, or with `durable` false written to the log but
  // made durable only by the next durable change (SyncNamespace, a Sync,
  // a durable name change): POSIX's unlink, durable once the directory is
  // synced, and RocksDB's contract. A power cut before then brings the
  // file back whole: no zone holding its data is reset until the delete
  // is durable.
  absl::Status Delete(const std::string& path, bool durable = true);
  // Atomic: `to` is replaced if it exists, in one metadata record. Fails
  // if `to` is a directory. A directory `from` moves with everything
  // below it, also in one record (as rename(2)): `to` must not exist, or
  // be an empty directory, and must not lie below `from`.
  absl::Status Rename(const std::string& from, const std::string& to);
  absl::Status Link(const std::string& from, const std::string& to);
  absl::StatusOr<FileStat> Stat(const std::string& path) const;
  // Names (not paths) of the files and directories directly in `dir`.
  absl::StatusOr<std::vector<std::string>> List(const std::string& dir) const;
  absl::Status CreateDir(const std::string& path);
  absl::Status DeleteDir(const std::string& path);
  // Updates a file's hint, e.g. when the LSM level becomes known later.
  // Logged but not flushed: a hint guides placement only, and the next
  // durable change carries it.
  absl::Status SetHint(const std::string& path, const FileHint& hint);

  // Moves a live file's data to `device` while readers keep reading: copy,
  // then one metadata record swaps the extent list. Migrate without a rate
  // limit (and counted in migration_stats()).
  absl::Status Relocate(const std::string& path, uint32_t device);
  // Runs GC on every device below the free-zone threshold (or on all when
  // `force`), and returns what it did.
  // FailedPrecondition when the policy allows no GC (allows_gc()).
  absl::StatusOr<GcStats> CollectGarbage(bool force = false);
  // True while some device is below its free-zone threshold: the GC
  // thread's next run would collect (never with a policy that allows no GC).
  bool NeedsGc() const;
  GcTotals gc_totals() const;
  // Relocate, copying at most `bytes_per_sec` (0 = unlimited) in chunks of
  // at most 2 MiB; the copy counts as migration I/O and respects the GC and
  // pool reserves of `device`. Aborted when the file is deleted or changes
  // during the copy, FailedPrecondition when it is open for writing.
  // Relocations and migrations run one at a time; GC runs beside them.
  // When MountOptions::placement asks for it (MigrationRate() > 0), a
  // background thread runs the policy's NextMigration() requests this way.
  absl::Status Migrate(const std::string& path, uint32_t device, double bytes_per_sec);
  // Counts every Migrate and Relocate since mount.
  MigrationStats migration_stats() const;
  // Moves live data between cell modes of one device as `request` says
  // (PlacementPolicy::CellMigration; the policy orders the extents), the
  // way Migrate moves files: copy, flush, then one record per file swaps
  // its extents, and only then may the old zones be reset. Runs one at a
  // time with Migrate and Relocate. When the policy asks for it
  // (CellMigrationPeriodNs() > 0), a background thread runs its
  // NextCellMigration() requests this way.
  absl::Status MigrateCells(const CellMigration& request);
  CellMigrationStats cell_migration_stats() const;

  // SSD cache zones (HHZS 3.5) from the policy's WAL/cache pool, for a
  // block cache above zfs (cache_zones.h).
  CacheZones& cache_zones();

  // Inspection, for zsctl and tests.
  std::string volume_id() const;
  uint32_t metadata_device() const;
  std::vector<DeviceSpace> Space() const;
  std::vector<ZoneReport> Zones() const;
  std::vector<FileInfo> Files() const;
  // Checks the metadata against the zones; returns every inconsistency
  // found (empty = consistent).
  std::vector<std::string> Check() const;
  // Reads every byte of every file and checks it against its extents'
  // checksums; returns each extent that cannot be read or does not match.
  std::vector<std::string> CheckData() const;
  // The metadata log, one line per record, oldest first.
  absl::StatusOr<std::vector<std::string>> DumpLog() const;
  // What the metadata log wrote since mount.
  MetadataLogTotals metadata_log_totals() const;
  const std::vector<std::shared_ptr<device::ZonedDevice>>& devices() const;

 private:
  explicit Volume(std::unique_ptr<VolumeImpl> impl);
  std::unique_ptr<VolumeImpl> impl_;
  CacheZones cache_zones_;
};

}  // namespace zonestack::zfs
