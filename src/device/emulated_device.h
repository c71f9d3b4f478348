// An emulated zoned device: the zone state machine, a data backing with a
// volatile write cache, and a timing model, behind ZonedDevice.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/synchronization/mutex.h"
#include "device/backing.h"
#include "device/clock.h"
#include "device/media_cache.h"
#include "device/read_prefetcher.h"
#include "device/slc_cache.h"
#include "device/subzone_ring.h"
#include "device/subzone_table.h"
#include "device/timing_model.h"
#include "device/zone_state_machine.h"
#include "device/zoned_device.h"

namespace zonestack::device {

struct EmulatorOptions {
  DeviceInfo info;
  std::unique_ptr<TimingModel> timing;  // null = instant
  std::unique_ptr<Backing> backing;     // null = memory
  // With no backing: all the memory taken and made resident at Create
  // (NewReservedMemoryBacking, the URI's memory=reserve) instead of as
  // zones are first written. Refused beside a backing.
  bool reserve_memory = false;
  std::shared_ptr<Clock> clock;         // null = RealClock::Default()
  // A device-managed hybrid ("DM Hybrid", ZnH2 2.3): the host sees
  // native-mode zones and the firmware keeps a hidden SLC cache
  // (slc_cache.h). Needs a native mode with more bits than SLC.
  bool hidden_slc_cache = false;
  // When the timed device has been idle this long, the firmware migrates
  // SLC zones to the native mode until the SLC data is at most
  // `slc_idle_target` percent of the cap. 0: only when a write finds the
  // cache full (ZnH2's emulated DM Hybrid).
  uint64_t slc_idle_ns = 0;
  uint32_t slc_idle_target = 50;
  // SplitZNS (docs/emulator.md, "Split zones"), for a device whose info
  // supports subzones: the SubZone Ring's size in bytes (0: no ring), and
  // a chip's program unit, the ring's unit.
  uint64_t subzone_ring_bytes = 0;
  uint64_t program_unit_bytes = 0;
  // The Read Prefetcher's buffer per subzone (read_prefetcher.h); 0: off.
  uint64_t prefetch_bytes = 0;
  // Host-aware SMR (docs/emulator.md, "Host-aware SMR"): required, with
  // bytes > 0, by a device whose sequential zones are sequential write
  // preferred (`info` describes the drive's own zones, also in
  // device-managed mode); refused by any other.
  MediaCacheOptions media_cache;
};

class EmulatedDevice : public ZonedDevice {
 public:
  // Validates the geometry; restores the zone table a file backing kept.
  static absl::StatusOr<std::unique_ptr<EmulatedDevice>> Create(EmulatorOptions options);
  // A clean shutdown: flushes the write cache.
  ~EmulatedDevice() override;

  const DeviceInfo& info() const override { return info_; }
  absl::StatusOr<std::vector<ZoneInfo>> ReportZones(uint32_t first,
                                                    uint32_t count) const override;
  absl::Status Read(uint64_t offset, std::span<uint8_t> dst,
                    const IoContext& ctx) override;
  absl::Status Write(uint64_t offset, std::span<const uint8_t> src,
                     const IoContext& ctx) override;
  absl::StatusOr<uint64_t> Append(uint32_t zone, std::span<const uint8_t> src,
                                  const IoContext& ctx) override;
  using ZonedDevice::OpenZone;
  absl::Status OpenZone(uint32_t zone, CellMode mode, const IoContext& ctx) override;
  absl::Status CloseZone(uint32_t zone, const IoContext& ctx) override;
  absl::Status FinishZone(uint32_t zone, const IoContext& ctx) override;
  absl::Status ResetZone(uint32_t zone, const IoContext& ctx) override;
  absl::Status Flush(const IoContext& ctx) override;
  absl::StatusOr<uint64_t> SimpleCopy(std::span<const CopyRange> sources,
                                      uint32_t dst_zone, const IoContext& ctx) override;
  absl::Status SplitZone(uint32_t zone, const IoContext& ctx) override;
  absl::Status MergeZone(uint32_t zone, const IoContext& ctx) override;
  absl::StatusOr<std::vector<SubzoneInfo>> ReportSubzones(uint32_t zone) const override;
  absl::StatusOr<uint64_t> AppendSubzone(uint32_t zone, uint32_t subzone,
                                         std::span<const uint8_t> src,
                                         const IoContext& ctx) override;
  absl::Status FinishSubzone(uint32_t zone, uint32_t subzone, const IoContext& ctx) override;
  absl::Status ResetSubzone(uint32_t zone, uint32_t subzone, const IoContext& ctx) override;
  DeviceStats Stats() const override;

  // Simulated power loss: every write not made durable by Flush (or by
  // finishing its zone) is gone, open zones come back closed, and the
  // device keeps working, as after a power cycle (PowerOff then PowerOn).
  void PowerCut();
  // Power loss that lasts: as PowerCut, but the device then fails every
  // command (kUnavailable) until PowerOn, as a real device without power
  // does. A test simulating a host crash cuts the power with this, then
  // tears the host's objects down: whatever they still try to write (a
  // destructor's sync, an unmount's flush) cannot reach the media.
  void PowerOff();
  // Loses power just before the (commands + 1)-th next state-changing
  // command (write, append, zone management, flush, copy), which fails:
  // a deterministic crash in the middle of a multi-step operation.
  void PowerOffAfter(uint64_t commands);
  // Powers the device back on; the state is what PowerOff left.
  void PowerOn();
  bool powered_off() const;
  // Media failures only a device can declare.
  void SetZoneReadOnly(uint32_t zone);
  void SetZoneOffline(uint32_t zone);

  Clock* clock() const { return clock_.get(); }
  // The media cache's size in bytes; 0 on a device without one. A drive
  // does not report it to the host; tests and tools ask the emulator.
  uint64_t media_cache_bytes() const { return mc_.bytes; }

 private:
  explicit EmulatedDevice(EmulatorOptions options);
  // The envelope of every command: the submit time, the device lock, the
  // power check, `body` (which does the work and describes it for the
  // timing model), then the wait for the modeled completion outside the
  // lock.
  absl::Status RunCommand(bool mutating,
                          absl::FunctionRef<absl::StatusOr<TimedRequest>()> body);
  // Reserves the model's time for `r` and returns when it completes.
  uint64_t ScheduleLocked(const TimedRequest& r, uint64_t submit_ns)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Counts a late command (DeviceStats::late_commands) if the work done
  // under the lock for it ended after `done_ns`, its modeled completion.
  void CountLatenessLocked(uint64_t done_ns) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void WaitFor(uint64_t done_ns);
  absl::Status ReadLocked(uint64_t offset, std::span<uint8_t> dst)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status WriteLocked(uint64_t offset, std::span<const uint8_t> src,
                           const IoContext& ctx) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Subzones (subzone_ops.cc). A write inside split zone `zone`; the
  // checks shared by the subzone commands (`what` names the command); the
  // merge of a split zone whose subzones are empty; the timing of a read
  // of a subzone, whose bytes may lie in the SubZone Ring.
  absl::Status WriteSubzoneLocked(uint32_t zone, uint64_t offset, std::span<const uint8_t> src,
                                  const IoContext& ctx) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status CheckSubzoneLocked(uint32_t zone, uint32_t subzone, const char* what) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<TimedRequest> MergeLocked(uint32_t zone, const IoContext& ctx)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<TimedRequest> SubzoneReadLocked(uint64_t offset, uint64_t length,
                                                 const IoContext& ctx)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // SubZone Ring: drain rounds until `len` more bytes fit (W1-W4), each
  // unit written to the backing and programmed on its chip; the bytes the
  // ring holds laid over a read of the backing; and the capacitor's drain
  // at a power cut.
  absl::Status MakeRoomInRingLocked(uint64_t len, IoClass io_class)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ReadRingLocked(uint64_t offset, std::span<uint8_t> dst) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Bytes of a subzone on its chip: below the ring's actual write pointer.
  uint64_t OnFlashLocked(uint32_t zone, uint32_t sub) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Read Prefetcher (R5): a preread on every chip other than `chip`.
  void PrefetchLocked(int32_t chip) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void PowerCutSubzonesLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool IsSplitLocked(uint32_t zone) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return subzones_ && subzones_->IsSplit(zone);
  }
  // Host-aware SMR (host_aware_ops.cc): the checks on a media cache's
  // configuration; what the host sees (a device-managed SMR drive shows
  // its whole space as conventional zones, whatever its own zones are).
  static absl::Status ValidateHostAware(const EmulatorOptions& o);
  static DeviceInfo HostView(const EmulatorOptions& o);
  // A non-sequential write journaled
  // in the media cache; the timing of a read's blocks found there (returns
  // whether the cache held every one); the zone as the host sees it (all
  // conventional on a device-managed drive); and the refusal of zone
  // management on a device-managed drive.
  absl::StatusOr<TimedRequest> WriteNswLocked(uint64_t offset, std::span<const uint8_t> src,
                                              const IoContext& ctx)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool ScheduleMediaCacheReadLocked(uint64_t offset, uint64_t length, const IoContext& ctx)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  ZoneInfo HostZoneLocked(uint32_t zone) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status CheckHostManagesZones(uint32_t zone, const char* action) const;
  // Media cache cleaning (media_cache_cleaning.cc): cleaning until
  // `target` log bytes remain, from `at_ns` on; the cleaning steps (and
  // the idle trigger) due before a command submitted at `now_ns`; the
  // read-modify-write of one zone from `at_ns` (its data lands when
  // FinishCleanStepLocked runs); room for an NSW of `length` bytes, made
  // before the write lands; a reset dropping `zone`'s cached blocks; and
  // what a power cut does to a cleaning under way.
  void StartCleaningLocked(uint64_t at_ns, uint64_t target) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void AdvanceCleaningLocked(uint64_t now_ns) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void BeginCleanStepLocked(uint32_t zone, uint64_t at_ns) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status FinishCleanStepLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status MakeRoomInMediaCacheLocked(uint64_t length) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DropCachedZoneLocked(uint32_t zone) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void PowerCutMediaCacheLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Records `zone`'s durable state and cached write pointer in the backing.
  absl::Status SaveZoneRecord(uint32_t zone) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Brings back the zones a file backing saved (Create).
  absl::Status RestoreLocked(const std::vector<SavedZone>& saved)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status FlushLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void PowerCutLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Fails while the power is off. `mutating` commands count down a
  // PowerOffAfter budget and cut the power when it runs out.
  absl::Status CheckPowerLocked(bool mutating) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status PoweredOffError() const;
  // The cell mode the NAND of `zone` is programmed in: the zone's own, or
  // where the hidden SLC cache put its data.
  CellMode MediaModeLocked(uint32_t zone) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Hidden SLC cache: where a write of `length` bytes to `zone` lands,
  // after the migrations it needs first; a migration of `zone`'s data to
  // the native mode from `at_ns` on (returns its completion); and the
  // migrations an idle device runs before a command submitted at
  // `submit_ns`.
  CellMode PlaceWriteLocked(uint32_t zone, uint64_t length) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  uint64_t MigrateZoneLocked(uint32_t zone, uint64_t at_ns) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void IdleMigrateLocked(uint64_t submit_ns) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const DeviceInfo info_;
  const std::shared_ptr<Clock> clock_;
  const uint64_t opened_at_ns_;
  mutable absl::Mutex mu_;
  ZoneStateMachine zones_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<TimingModel> timing_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Backing> backing_ ABSL_GUARDED_BY(mu_);
  // The volatile write cache. Sequential zones need only their durable
  // write pointers (in zones_); conventional zones keep unflushed blocks
  // here, keyed by offset, until Flush writes them to the backing. These
  // blocks live in process memory: unlike sequential zones' cached writes,
  // they do not survive the process (docs/emulator.md).
  std::map<uint64_t, std::vector<uint8_t>> unflushed_blocks_ ABSL_GUARDED_BY(mu_);
  std::set<uint32_t> dirty_zones_ ABSL_GUARDED_BY(mu_);
  DeviceStats stats_ ABSL_GUARDED_BY(mu_);
  uint64_t last_completion_ns_ ABSL_GUARDED_BY(mu_) = 0;
  bool powered_off_ ABSL_GUARDED_BY(mu_) = false;
  // The hidden SLC cache of a DM Hybrid device; null otherwise.
  std::unique_ptr<SlcCache> slc_cache_ ABSL_GUARDED_BY(mu_);
  const uint64_t slc_idle_ns_;
  const uint32_t slc_idle_target_;
  // Submit time of the command being run, for the migrations it causes.
  uint64_t command_submit_ns_ ABSL_GUARDED_BY(mu_) = 0;
  // Split zones' subzones (null on a device without subzones) and the
  // SubZone Ring (null when off).
  std::unique_ptr<SubzoneTable> subzones_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<SubzoneRing> ring_ ABSL_GUARDED_BY(mu_);
  // The Read Prefetcher (null when off) and its buffer size.
  std::unique_ptr<ReadPrefetcher> prefetcher_ ABSL_GUARDED_BY(mu_);
  const uint64_t prefetch_bytes_;
  // The command being run completes no earlier than this: work it set off
  // inside the device (a ring drain) that it must wait for.
  uint64_t command_floor_ns_ ABSL_GUARDED_BY(mu_) = 0;
  // Host-aware SMR: the media cache (null on other devices) and how it is
  // cleaned; whether a cleaning run is on, when its next zone may start
  // and the log bytes it stops at; the zone whose read-modify-write the
  // head is in the middle of (its blocks are out of the cache but not yet
  // in the zone: a power cut puts them back).
  std::unique_ptr<MediaCache> media_cache_ ABSL_GUARDED_BY(mu_);
  const MediaCacheOptions mc_;
  bool cleaning_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t clean_next_ns_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t clean_target_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  struct CleanStep {
    MediaCache::ZoneBlocks taken;
    uint64_t done_ns = 0;
  };
  std::optional<CleanStep> clean_step_ ABSL_GUARDED_BY(mu_);
  // Mutating commands left before PowerOffAfter cuts the power; -1 = never.
  int64_t commands_until_power_off_ ABSL_GUARDED_BY(mu_) = -1;
};

}  // namespace zonestack::device
