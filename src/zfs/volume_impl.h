// Internals of zfs::Volume, shared by its .cc files. Not a public header.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "zfs/format.h"
#include "zfs/metadata_log.h"
#include "zfs/volume.h"

namespace zonestack::zfs {

// Zone groups above any policy's: zones not holding file data.
constexpr uint32_t kNoGroup = UINT32_MAX;

// A file. `id` never changes; the rest is guarded as marked.
struct FileMeta {
  explicit FileMeta(uint64_t file_id) : id(file_id) {}
  const uint64_t id;

  // Guarded by VolumeImpl::mu_.
  std::vector<std::string> names;
  policy::FileHint hint;
  uint64_t mtime_us = 0;
  bool writer_open = false;
  int readers = 0;        // open ReadableFiles
  bool deleted = false;   // no names left; space freed when readers close
  size_t persisted_extents = 0;     // extents the log knows, the last one
  uint64_t persisted_last_len = 0;  // with this length
  uint64_t persisted_size = 0;

  // Readers hold `mu` shared while they read the device; appends and
  // relocation change the extents holding it exclusively.
  mutable absl::Mutex mu;
  std::vector<Extent> extents ABSL_GUARDED_BY(mu);
  std::vector<uint64_t> ends ABSL_GUARDED_BY(mu);  // file offset after each extent
  std::atomic<uint64_t> size{0};                    // bytes on the device

  FileRecord ToRecord() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
};

// zfs's view of one zone.
struct ZoneUse {
  ZoneRole role = ZoneRole::kFree;
  uint32_t group = kNoGroup;
  uint64_t written = 0;   // bytes from the zone start to the write pointer
  uint64_t capacity = 0;
  uint64_t valid = 0;     // bytes held by live extents (rounded to blocks)
  bool leased = false;    // a writer is appending to it
  uint64_t last_write_us = 0;  // for cost-benefit GC
  bool full() const { return written >= capacity; }
};

struct Member {
  std::shared_ptr<device::ZonedDevice> dev;
  device::DeviceInfo info;
  bool is_ssd = false;
  uint32_t label_zone = 0;
  uint32_t reserved_active = 0;   // active zones zfs itself keeps (metadata)
  std::vector<ZoneUse> zones;
  std::set<uint32_t> empty;       // data zones with nothing written
  std::set<uint32_t> partial;     // data zones written but not full
  std::set<uint32_t> maybe_dead;  // zones whose valid bytes dropped to 0
  uint32_t data_zones = 0;        // zones usable for data, counted at mount
};

// Where a writer appends: a zone it owns until it releases it.
struct Lease {
  uint32_t device = 0;
  uint32_t zone = 0;
  uint64_t next = 0;  // device offset of the next write
  uint64_t end = 0;   // device offset of the zone's capacity end
  bool valid() const { return end != 0; }
};

class VolumeImpl {
 public:
  VolumeImpl(std::vector<Member> members, const Label& label, const MountOptions& options);
  ~VolumeImpl();

  // --- mount (volume.cc)
  absl::Status Recover(bool read_only) ABSL_LOCKS_EXCLUDED(mu_);
  void StartGc();

  // --- namespace (namespace.cc)
  absl::StatusOr<std::unique_ptr<WritableFile>> Create(const std::string& path,
                                                       const policy::FileHint& hint, bool reopen);
  absl::StatusOr<std::unique_ptr<ReadableFile>> Open(const std::string& path);
  absl::Status Delete(const std::string& path);
  absl::Status Rename(const std::string& from, const std::string& to);
  absl::Status Link(const std::string& from, const std::string& to);
  absl::StatusOr<FileStat> Stat(const std::string& path) const;
  absl::StatusOr<std::vector<std::string>> List(const std::string& dir) const;
  absl::Status CreateDir(const std::string& path);
  absl::Status DeleteDir(const std::string& path);
  absl::Status SetHint(const std::string& path, const policy::FileHint& hint);

  // --- the data path (files.cc, zones.cc)
  // A zone with room for `file`, from the policy's device order.
  // `only_device` restricts the choice (GC, relocation); `for_gc` may take
  // the last empty zone of a device, which writers leave to GC.
  absl::StatusOr<Lease> AcquireZone(const FileMeta& file,
                                    std::optional<uint32_t> only_device = std::nullopt,
                                    bool for_gc = false) ABSL_LOCKS_EXCLUDED(mu_);
  void ReleaseZone(const Lease& lease) ABSL_LOCKS_EXCLUDED(mu_);
  // Records that `length` bytes were written at `offset` for `file`.
  void AddExtent(FileMeta& file, const Lease& lease, uint64_t offset, uint64_t length)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Makes the file's data and size durable (flushes devices, logs).
  absl::Status SyncFile(FileMeta& file) ABSL_LOCKS_EXCLUDED(mu_);
  void CloseWriter(FileMeta& file) ABSL_LOCKS_EXCLUDED(mu_);
  void CloseReader(FileMeta& file) ABSL_LOCKS_EXCLUDED(mu_);
  device::ZonedDevice* device(uint32_t i) const { return members_[i].dev.get(); }
  uint32_t block_size(uint32_t device) const { return members_[device].info.block_size; }

  // --- GC and relocation (gc.cc)
  absl::Status Relocate(const std::string& path, uint32_t device);
  absl::StatusOr<GcStats> CollectGarbage(bool force);

  // --- inspection (inspect.cc)
  std::vector<DeviceSpace> Space() const;
  std::vector<ZoneReport> Zones() const;
  std::vector<FileInfo> Files() const;
  std::vector<std::string> Check() const;
  absl::StatusOr<std::vector<std::string>> DumpLog() const;

  const Label& label() const { return label_; }
  const std::vector<Member>& members() const { return members_; }

 private:
  friend class Volume;

  // Makes `ops` durable, then applies them. REQUIRES: mu_ held.
  absl::Status Commit(std::vector<Op> ops) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Applies one op to the in-memory state (replay and live commits).
  void Apply(const Op& op) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::vector<Op> Snapshot() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ApplyPutFile(const FileRecord& rec) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ApplyAppend(const FileRecord& rec) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ForgetFile(uint64_t id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
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
  absl::StatusOr<Lease> TryAcquire(const FileMeta& file, std::optional<uint32_t> only_device,
                                   bool for_gc, bool* busy_zones)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Empty zones a device keeps back from writers so GC can always move
  // data somewhere.
  uint32_t GcReserve(uint32_t device) const;
  bool FinishCheapestZone(uint32_t device) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  uint32_t MaxActive(uint32_t device) const;
  std::vector<policy::DeviceView> DeviceViews() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  uint32_t ZoneOf(const Extent& x) const {
    return static_cast<uint32_t>(x.offset / members_[x.device].info.zone_size);
  }
  uint64_t Physical(const Extent& x) const {
    const uint64_t bs = members_[x.device].info.block_size;
    return (x.length + bs - 1) / bs * bs;
  }
  // Appends `x` to `extents`, merging it into the last extent when it
  // continues it in the same zone after a whole number of blocks.
  void AppendExtent(std::vector<Extent>& extents, const Extent& x) const;

  std::shared_ptr<FileMeta> Find(const std::string& path) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool DirExists(const std::string& path) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status CheckWritable() const;

  // GC internals (gc.cc).
  void GcLoop();
  // Copies the extents of `file` that `pick` selects to zones on
  // `to_device`, then swaps the extent list in one record. The copy's I/O
  // counts as `io_class` (GC or migration).
  absl::Status MoveExtents(const std::shared_ptr<FileMeta>& file,
                           const std::function<bool(const Extent&)>& pick, uint32_t to_device,
                           device::IoClass io_class, uint64_t* moved_bytes)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Zones of `device` worth collecting, best first.
  std::vector<uint32_t> GcVictims(uint32_t device) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool BelowGcThreshold(uint32_t device) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Zone accounting is guarded by mu_; dev and info never change.
  std::vector<Member> members_;
  std::vector<std::shared_ptr<device::ZonedDevice>> devices_;
  const Label label_;
  const MountOptions options_;
  bool read_only_ = false;

  mutable absl::Mutex mu_;
  absl::CondVar zone_released_;
  std::unique_ptr<MetadataLog> log_ ABSL_GUARDED_BY(mu_);
  std::map<uint64_t, std::shared_ptr<FileMeta>> files_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, uint64_t> names_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> dirs_ ABSL_GUARDED_BY(mu_);
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  std::vector<Op> pending_ ABSL_GUARDED_BY(mu_);  // zone groups to log next time

  // Serializes GC and relocation runs.
  absl::Mutex gc_mu_;
  std::thread gc_thread_;
  absl::Mutex gc_wake_mu_;
  bool gc_stop_ ABSL_GUARDED_BY(gc_wake_mu_) = false;
  bool gc_wanted_ ABSL_GUARDED_BY(gc_wake_mu_) = false;
};

uint64_t NowMicros();
std::string ParentDir(const std::string& path);

}  // namespace zonestack::zfs
