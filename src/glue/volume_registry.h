// The process-wide table of mounted volumes. Every FileSystem, and every
// reopen of a DB, over the same devices shares one mounted zfs::Volume, so
// memory-backed emulated devices outlive a DB close, and two mounts never
// write the same devices.
//
// Thread-safety: all functions may be called from any thread.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "policy/scheme.h"
#include "glue/config.h"
#include "zfs/volume.h"

namespace zonestack::rocks {

class SsdSecondaryCache;

// Returns the volume on config.devices, mounting it if it is not mounted:
// the devices are opened (or reused: an opened device stays open until
// Forget), formatted as config.format says, and mounted with the scheme
// config.scheme names (kept, when hinted, for FindScheme). kIfNeeded formats only when Mount reports NotFound (no
// ZoneStack label) and zfs::Volume::Probe finds every device blank, so a
// device holding foreign data, or a member of an existing volume whose
// sibling is missing or blank, is never erased. Formatting happens only
// here, never when a mounted volume is reused.
// Errors: FailedPrecondition if the volume is mounted with another
// placement or scheme (PlacementKey) or a device belongs to another mounted
// volume; otherwise the device, scheme or zfs error, prefixed with the
// device list.
absl::StatusOr<std::shared_ptr<zfs::Volume>> AcquireVolume(const ZoneStackConfig& config);

// The mounted volume of `uri` (any form ParseUri accepts); NotFound if none.
absl::StatusOr<std::shared_ptr<zfs::Volume>> FindVolume(const std::string& uri);

// The scheme `volume` was mounted with; null if it has none or is not a
// mounted volume of the registry.
std::shared_ptr<policy::Scheme> FindScheme(const zfs::Volume& volume);

// The SSD secondary cache of `volume`, created on the first call when its
// scheme caches (Scheme::cache() non-null) and the volume has an SSD; null
// otherwise. One per mount (it owns the volume's cache reclaimer), so
// blocks cached by a DB stay usable when the DB is reopened.
std::shared_ptr<SsdSecondaryCache> AcquireSsdCache(const zfs::Volume& volume);
// The cache AcquireSsdCache made, or null.
std::shared_ptr<SsdSecondaryCache> FindSsdCache(const zfs::Volume& volume);

// The one mounted volume whose scheme is hinted (with `caching`: whose
// scheme caches and which has an SSD cache to offer), for what a program
// names only by a class name (an OPTIONS file's listener, db_bench's
// --secondary_cache_uri). InvalidArgument, naming `who` and the volumes,
// when there is none or more than one.
absl::StatusOr<std::shared_ptr<zfs::Volume>> OnlyHintedVolume(const std::string& who,
                                                              bool caching);

// Which of RocksDB's hints reach a volume's scheme. A HintListener counts
// itself (+1 when made, -1 when destroyed); a block cache given the
// volume's SSD cache marks it in use. No-ops for volumes the registry did
// not mount.
void CountHintListener(const zfs::Volume& volume, int delta);
void NoteSsdCacheInUse(const zfs::Volume& volume);

// What a volume's hinted scheme needs and does not get.
struct MissingHints {
  std::string volume;           // VolumeKey
  std::string scheme;           // its name
  std::string without;          // Scheme::without_hints()
  bool listener = false;        // no HintListener lives for the volume
  bool cache = false;           // the scheme caches, the volume has an SSD, and no
                                // block cache has the volume's SSD cache
};
// The hints the volume's scheme lacks now, at most once per mount: nullopt
// if it lacks none, was reported already, has no hinted scheme, or is not
// the registry's.
std::optional<MissingHints> TakeMissingHints(const zfs::Volume& volume);

// A scheme's LSM view and SSD cache know SSTs by file number, so one DB
// at a time may feed them. Claims `volume`'s scheme for the DB at
// `db_path`: FailedPrecondition if a DB (this one too) has claimed it and
// not released it. OK (and no claim) for a volume without a scheme.
absl::Status ClaimScheme(const zfs::Volume& volume, const std::string& db_path);
// Ends the claim of `db_path`, if it holds one. Only the holder of a
// successful claim may call it.
void ReleaseScheme(const zfs::Volume& volume, const std::string& db_path);

// Unmounts the volume of `uri` as a process exit would: the next
// AcquireVolume mounts it again from its devices, which stay open, so a
// memory-backed device keeps its data. Close every DB on the volume
// first: FailedPrecondition if anything else still holds the volume,
// NotFound if it is not mounted.
absl::Status Unmount(const std::string& uri);

// Unmounts the volume of `uri` if mounted (as Unmount) and closes its
// devices: a memory-backed device loses its data. For test cleanup.
absl::Status Forget(const std::string& uri);

}  // namespace zonestack::rocks
