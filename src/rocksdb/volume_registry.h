// The process-wide table of mounted volumes. Every FileSystem, and every
// reopen of a DB, over the same devices shares one mounted zfs::Volume, so
// memory-backed emulated devices outlive a DB close, and two mounts never
// write the same devices.
//
// Thread-safety: all functions may be called from any thread.
#pragma once

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "rocksdb/config.h"
#include "zfs/volume.h"

namespace zonestack::rocks {

// Returns the volume on config.devices, mounting it if it is not mounted:
// the devices are opened (or reused: an opened device stays open until
// Forget), formatted as config.format says, and mounted with
// config.placement. kIfNeeded formats only when Mount reports NotFound (no
// ZoneStack label) and every sequential zone of every device is empty, so a
// device holding foreign data is never erased. Formatting happens only
// here, never when a mounted volume is reused.
// Errors: FailedPrecondition if the volume is mounted with another
// placement or a device belongs to another mounted volume; otherwise the
// device or zfs error, prefixed with the device list.
absl::StatusOr<std::shared_ptr<zfs::Volume>> AcquireVolume(const ZoneStackConfig& config);

// The mounted volume of `uri` (any form ParseUri accepts); NotFound if none.
absl::StatusOr<std::shared_ptr<zfs::Volume>> FindVolume(const std::string& uri);

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
