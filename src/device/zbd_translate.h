// What the Linux zoned block layer reports, in the device layer's terms:
// zone descriptors from libzbd become ZoneInfo, and the errno of a failed
// command becomes the typed zone error the emulator would return. Pure
// functions, so the mapping is tested without a zoned device.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <libzbd/zbd.h>

#include "absl/status/status.h"
#include "device/zone.h"

namespace zonestack::device {

// A zone descriptor as ZoneInfo. The kernel's write pointer is not valid
// for full, read-only and offline zones (ZNS and ZBC leave it undefined;
// Linux reports start + zone size for full NVMe zones and null_blk reports
// ~0 for read-only ones), so those get the meaning ZoneInfo gives it:
// start + capacity for a full zone; for read-only and offline zones the
// reported value when it lies in the zone, else start + capacity for a
// read-only zone (its data stays readable, extent it is unknown) and the
// start for an offline one (nothing is readable); the start for
// conventional zones, as the emulator reports them.
ZoneInfo ZoneFromReport(const zbd_zone& z, uint64_t zone_size);

// The commands whose failures are translated.
enum class ZbdCommand { kRead, kWrite, kOpen, kClose, kFinish, kReset, kFlush };
const char* ToString(ZbdCommand c);

// The status for `cmd` having failed with `err` (an errno value) on a
// request of `len` bytes at `offset` (zone management: the zone start and
// size). `zone` is the zone's state reported right after the failure, if
// the report succeeded; `reads_beyond_wp_allowed` is the device's.
//
// Linux passes two zone conditions through as their own errno values
// (NVMe 0x1BE and ZBC's insufficient zone resources to -ETOOMANYREFS,
// 0x1BD to -EOVERFLOW) and turns every other zone error into -EIO, so an
// -EIO is told apart by the state the zone is in: full, read-only,
// offline, a write not at the write pointer or past the capacity, a zone
// action the state does not allow. Any other failure is the errno's
// canonical status (absl::ErrnoToStatus) and carries no zone error.
// `where` names the device and request.
absl::Status ZbdCommandError(ZbdCommand cmd, int err, const std::optional<ZoneInfo>& zone,
                             uint64_t offset, uint64_t len, bool reads_beyond_wp_allowed,
                             const std::string& where);

}  // namespace zonestack::device
