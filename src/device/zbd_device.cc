#include "device/zbd_device.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

#include <libzbd/zbd.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "device/mutex_mode.h"
#include "device/zbd_translate.h"
#include "device/zone_error.h"

namespace zonestack::device {
namespace {

// Largest bounce buffer for callers' buffers that O_DIRECT cannot take.
constexpr uint64_t kBounceBytes = 1 << 20;
// Largest single pread/pwrite: the kernel caps one call near 2 GiB.
constexpr uint64_t kMaxIoBytes = 1 << 30;

uint64_t NowNs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

enum class Driver { kNvme, kNullBlk, kOther };

// Which driver exposes /sys/block/NAME: NVMe namespaces sit under an nvme
// controller in the device tree; null_blk disks are virtual and named nullbN.
Driver DriverOf(const std::string& sysname) {
  char* real = realpath(absl::StrCat("/sys/block/", sysname).c_str(), nullptr);
  const std::string path = real != nullptr ? real : "";
  std::free(real);
  if (path.find("/nvme") != std::string::npos) return Driver::kNvme;
  if (sysname.starts_with("nullb")) return Driver::kNullBlk;
  return Driver::kOther;
}

std::optional<uint64_t> ReadSysfs(const std::string& sysname, const std::string& attr) {
  std::ifstream in(absl::StrCat("/sys/block/", sysname, "/", attr));
  uint64_t v = 0;
  if (!(in >> v)) return std::nullopt;
  return v;
}

// The kernel name of the block device at `path` (symlinks followed).
std::string SysName(const std::string& path) {
  char* real = realpath(path.c_str(), nullptr);
  std::string name = real != nullptr ? real : path;
  std::free(real);
  return name.substr(name.find_last_of('/') + 1);
}

// "pid N (command line)".
std::string DescribeProcess(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/cmdline", std::ios::binary);
  std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!cmdline.empty() && cmdline.back() == '\0') cmdline.pop_back();
  std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
  if (cmdline.size() > 200) cmdline = cmdline.substr(0, 200) + "...";
  return absl::StrCat("pid ", pid, " (", cmdline, ")");
}

// Who may hold the block device `rdev` (named `sysname`) that an O_EXCL
// open found busy: the processes with it open (of those /proc lets this
// user see) and its kernel holders (device-mapper, md). A mounted file
// system shows as neither; the message says so.
std::string DescribeBlockDeviceUsers(dev_t rdev, const std::string& sysname) {
  namespace fs = std::filesystem;
  std::vector<std::string> users;
  std::error_code ec;
  for (const fs::directory_entry& proc : fs::directory_iterator("/proc", ec)) {
    const std::string pid = proc.path().filename();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code fd_ec;
    for (const fs::directory_entry& fd : fs::directory_iterator(proc.path() / "fd", fd_ec)) {
      struct stat st;
      if (stat(fd.path().c_str(), &st) == 0 && S_ISBLK(st.st_mode) && st.st_rdev == rdev) {
        users.push_back(DescribeProcess(pid));
        break;
      }
    }
  }
  for (const fs::directory_entry& h :
       fs::directory_iterator(absl::StrCat("/sys/class/block/", sysname, "/holders"), ec)) {
    users.push_back(absl::StrCat("kernel holder ", h.path().filename().string()));
  }
  if (users.empty()) {
    return "no process this user can inspect; a mounted file system or another user's "
           "process may hold it";
  }
  return absl::StrJoin(users, ", ");
}

struct FreeDeleter {
  void operator()(uint8_t* p) const { std::free(p); }
};
using AlignedBuffer = std::unique_ptr<uint8_t, FreeDeleter>;

// O_DIRECT needs block-aligned memory: a bounce buffer for `bytes` of
// caller data (at most kBounceBytes), or none when `data` is aligned.
AlignedBuffer BounceFor(const void* data, uint64_t bytes, uint32_t block_size) {
  if (reinterpret_cast<uintptr_t>(data) % block_size == 0) return nullptr;
  return AlignedBuffer(static_cast<uint8_t*>(
      std::aligned_alloc(block_size, std::min<uint64_t>(bytes, kBounceBytes))));
}

// The geometry DeviceInfo describes, from a report of every zone: the
// lowest-numbered zones may be conventional, all zones share one size
// (a smaller last "runt" zone is left out), the first sequential zone's
// capacity stands for all (ZoneInfo carries each zone's own).
absl::Status DescribeZones(const std::vector<zbd_zone>& zones, const std::string& path,
                           DeviceInfo* info) {
  uint32_t n = static_cast<uint32_t>(zones.size());
  if (n > 1 && zones.back().len < info->zone_size) --n;  // runt zone
  info->num_zones = n;
  info->num_conventional_zones = 0;
  info->zone_capacity = info->zone_size;
  bool seen_sequential = false;
  for (uint32_t i = 0; i < n; ++i) {
    const zbd_zone& z = zones[i];
    if (z.len != info->zone_size) {
      return absl::InvalidArgumentError(absl::StrCat(
          "zbd device '", path, "': zone ", i, " is ", z.len, " bytes, not the zone size ",
          info->zone_size));
    }
    if (z.type == ZBD_ZONE_TYPE_CNV) {
      if (seen_sequential) {
        return absl::InvalidArgumentError(absl::StrCat(
            "zbd device '", path, "': conventional zone ", i,
            " follows sequential zones; only leading conventional zones are supported"));
      }
      ++info->num_conventional_zones;
    } else if (!seen_sequential) {
      seen_sequential = true;
      info->zone_capacity = z.capacity;
      info->sequential_zone_type = z.type == ZBD_ZONE_TYPE_SWP
                                       ? ZoneType::kSequentialWritePreferred
                                       : ZoneType::kSequentialWriteRequired;
    }
  }
  if (info->zone_capacity % info->block_size != 0 || info->zone_size % info->block_size != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "zbd device '", path, "': zone size ", info->zone_size, " or capacity ",
        info->zone_capacity, " is not a multiple of the block size ", info->block_size));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<ZbdDevice>> ZbdDevice::Open(const std::string& path) {
  const std::string what = absl::StrCat("zbd device '", path, "'");
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return absl::ErrnoToStatus(errno, what);
  if (!S_ISBLK(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is not a block device"));
  }
  zbd_set_log_level(ZBD_LOG_NONE);  // errors are reported as statuses
  if (zbd_device_is_zoned(path.c_str()) != 1) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is not a zoned block device"));
  }
  zbd_info zi;
  errno = 0;
  // O_EXCL: no file system or other exclusive opener may share the device.
  // The claim lasts until zbd_close, when the device object is destroyed.
  const int fd = zbd_open(path.c_str(), O_RDWR | O_DIRECT | O_EXCL | O_CLOEXEC, &zi);
  if (fd < 0 && errno == EBUSY) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, " is in use (an exclusive open found it busy): held by ",
        DescribeBlockDeviceUsers(st.st_rdev, SysName(path)), "; a device has one user at a time"));
  }
  if (fd < 0) return absl::ErrnoToStatus(errno != 0 ? errno : EIO, absl::StrCat("opening ", what));
  auto fail = [fd](absl::Status s) {
    zbd_close(fd);
    return s;
  };

  const std::string sysname = SysName(path);
  const Driver driver = DriverOf(sysname);
  DeviceInfo info;
  info.name = path;
  std::string vendor(zi.vendor_id, strnlen(zi.vendor_id, sizeof(zi.vendor_id)));
  info.model = absl::StrCat(driver == Driver::kNvme      ? "NVMe ZNS"
                            : driver == Driver::kNullBlk ? "null_blk"
                                                         : "ZBC/ZAC",
                            " ", absl::StripAsciiWhitespace(vendor));
  info.protocol = driver == Driver::kNvme ? Protocol::kZns : Protocol::kZbc;
  info.block_size = std::max(zi.pblock_size, zi.lblock_size);
  info.zone_size = zi.zone_size;
  // libzbd reports an unknown limit as -1; treat it as no limit.
  info.max_open_zones = zi.max_nr_open_zones == ~0u ? 0 : zi.max_nr_open_zones;
  info.max_active_zones = zi.max_nr_active_zones == ~0u ? 0 : zi.max_nr_active_zones;
  info.max_append_bytes = ReadSysfs(sysname, "queue/zone_append_max_bytes").value_or(0);
  info.reads_beyond_wp_allowed = driver != Driver::kOther || zi.model == ZBD_DM_HOST_AWARE;
  info.cross_zone_reads_allowed = true;

  std::vector<zbd_zone> zones(zi.nr_zones);
  unsigned int nr = zi.nr_zones;
  if (int r = zbd_report_zones(fd, 0, 0, ZBD_RO_ALL, zones.data(), &nr); r != 0) {
    return fail(absl::ErrnoToStatus(r < 0 && r != -1 ? -r : EIO,
                                    absl::StrCat("reporting the zones of ", what)));
  }
  zones.resize(nr);
  if (zones.empty()) return fail(absl::InvalidArgumentError(absl::StrCat(what, " has no zones")));
  if (auto s = DescribeZones(zones, path, &info); !s.ok()) return fail(s);
  // Reads RocksDB does not ask to be direct go through the page cache, as
  // RocksDB's own file system and ZenFS read. A second, non-exclusive
  // descriptor without O_DIRECT: the exclusive claim above stays the only
  // one. The cache stays coherent with the O_DIRECT writes (the kernel
  // drops cached pages a direct write covers) and with zone resets (the
  // reset ioctl drops the zone's pages). Only where reads beyond the write
  // pointer succeed: the kernel's readahead reads past it.
  int cached_fd = -1;
  if (info.reads_beyond_wp_allowed) {
    cached_fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (cached_fd < 0) {
      return fail(absl::ErrnoToStatus(errno, absl::StrCat("opening ", what, " for cached reads")));
    }
    info.host_cache = true;
  }
  return std::unique_ptr<ZbdDevice>(new ZbdDevice(fd, cached_fd, std::move(info)));
}

ZbdDevice::ZbdDevice(int fd, int cached_fd, DeviceInfo info)
    : fd_(fd), cached_fd_(cached_fd), info_(std::move(info)), opened_at_ns_(NowNs()) {
  ReleaseBuildsSkipDeadlockDetection();
}

ZbdDevice::~ZbdDevice() {
  // A clean shutdown makes every acknowledged write durable, as the
  // emulator's destructor does.
  (void)fdatasync(fd_);
  if (cached_fd_ >= 0) close(cached_fd_);
  zbd_close(fd_);
}

absl::StatusOr<std::vector<ZoneInfo>> ZbdDevice::ReportZones(uint32_t first,
                                                             uint32_t count) const {
  if (first >= info_.num_zones) {
    return MakeZoneError(ZoneError::kOutOfRange,
                         absl::StrCat("zone ", first, " of ", info_.num_zones));
  }
  const uint32_t n = static_cast<uint32_t>(
      std::min<uint64_t>(info_.num_zones, uint64_t{first} + count) - first);
  std::vector<zbd_zone> zones(n);
  unsigned int nr = n;
  const int r = zbd_report_zones(fd_, static_cast<off_t>(ZoneStart(first)),
                                 static_cast<off_t>(uint64_t{n} * info_.zone_size), ZBD_RO_ALL,
                                 zones.data(), &nr);
  if (r != 0) {
    return absl::ErrnoToStatus(r < 0 && r != -1 ? -r : EIO,
                               absl::StrCat(info_.name, ": report of zones ", first, "+", n));
  }
  if (nr != n) {
    return absl::InternalError(
        absl::StrCat(info_.name, ": asked for ", n, " zones at ", first, ", got ", nr));
  }
  std::vector<ZoneInfo> out;
  out.reserve(n);
  for (const zbd_zone& z : zones) out.push_back(ZoneFromReport(z, info_.zone_size));
  return out;
}

absl::Status ZbdDevice::CheckRange(const char* what, uint64_t offset, uint64_t len,
                                   uint32_t granularity) const {
  if (len == 0) return MakeZoneError(ZoneError::kInvalidArgument, absl::StrCat("empty ", what));
  if (offset % granularity != 0 || len % granularity != 0) {
    return MakeZoneError(ZoneError::kUnaligned,
                         absl::StrCat(what, " of ", len, " bytes at ", offset, ", block size ",
                                      info_.block_size));
  }
  const uint64_t end = info_.capacity_bytes();
  if (offset >= end || len > end - offset) {
    return MakeZoneError(ZoneError::kOutOfRange, absl::StrCat(what, " of ", len, " bytes at ",
                                                              offset, " beyond device end ", end));
  }
  return absl::OkStatus();
}

absl::Status ZbdDevice::CommandError(ZbdCommand cmd, int err, uint64_t offset,
                                     uint64_t len) const {
  std::optional<ZoneInfo> zone;
  if (offset < info_.capacity_bytes()) {
    if (auto z = ReportZone(ZoneOf(offset)); z.ok()) zone = *z;
  }
  return ZbdCommandError(cmd, err, zone, offset, len, info_.reads_beyond_wp_allowed,
                         absl::StrCat(info_.name, ": ", ToString(cmd), " of ", len,
                                      " bytes at ", offset));
}

absl::Status ZbdDevice::ReadFrom(int fd, uint32_t alignment, uint64_t offset,
                                 std::span<uint8_t> dst) {
  const AlignedBuffer bounce = BounceFor(dst.data(), dst.size(), alignment);
  const bool aligned = bounce == nullptr;
  uint64_t done = 0;
  while (done < dst.size()) {
    const uint64_t n = std::min<uint64_t>(dst.size() - done, aligned ? kMaxIoBytes : kBounceBytes);
    uint8_t* p = aligned ? dst.data() + done : bounce.get();
    const ssize_t r = pread(fd, p, n, static_cast<off_t>(offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return CommandError(ZbdCommand::kRead, errno, offset + done, n);
    if (r == 0) {
      return absl::DataLossError(
          absl::StrCat(info_.name, ": read at ", offset + done, " returned no data"));
    }
    if (!aligned) std::memcpy(dst.data() + done, p, static_cast<size_t>(r));
    done += static_cast<uint64_t>(r);
  }
  return absl::OkStatus();
}

absl::Status ZbdDevice::WriteDirect(uint64_t offset, std::span<const uint8_t> src) {
  const AlignedBuffer bounce = BounceFor(src.data(), src.size(), info_.block_size);
  const bool aligned = bounce == nullptr;
  uint64_t done = 0;
  while (done < src.size()) {
    const uint64_t n = std::min<uint64_t>(src.size() - done, aligned ? kMaxIoBytes : kBounceBytes);
    const uint8_t* p = src.data() + done;
    if (!aligned) {
      std::memcpy(bounce.get(), p, n);
      p = bounce.get();
    }
    const ssize_t r = pwrite(fd_, p, n, static_cast<off_t>(offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return CommandError(ZbdCommand::kWrite, errno, offset + done, n);
    if (r == 0) {
      return absl::DataLossError(
          absl::StrCat(info_.name, ": write at ", offset + done, " wrote nothing"));
    }
    done += static_cast<uint64_t>(r);
  }
  return absl::OkStatus();
}

void ZbdDevice::Count(const IoContext& ctx, bool write, uint64_t bytes) {
  absl::MutexLock lock(&stats_mu_);
  IoCounters& c = stats_.by_class[static_cast<int>(ctx.io_class)];
  if (write) {
    ++c.write_ops;
    c.write_bytes += bytes;
  } else {
    ++c.read_ops;
    c.read_bytes += bytes;
  }
}

absl::Status ZbdDevice::Read(uint64_t offset, std::span<uint8_t> dst, const IoContext& ctx) {
  // Through the page cache: any bytes, from the buffered descriptor.
  const bool cached = ctx.host_cache && info_.host_cache;
  const uint32_t granularity = cached ? 1 : info_.block_size;
  if (auto s = CheckRange("read", offset, dst.size(), granularity); !s.ok()) return s;
  if (auto s = ReadFrom(cached ? cached_fd_ : fd_, granularity, offset, dst); !s.ok()) return s;
  Count(ctx, /*write=*/false, dst.size());
  return absl::OkStatus();
}

absl::Status ZbdDevice::Write(uint64_t offset, std::span<const uint8_t> src,
                              const IoContext& ctx) {
  if (auto s = CheckRange("write", offset, src.size(), info_.block_size); !s.ok()) return s;
  const uint32_t zone = ZoneOf(offset);
  if (offset + src.size() > ZoneStart(zone) + info_.zone_size) {
    return MakeZoneError(ZoneError::kBoundary,
                         absl::StrCat("write of ", src.size(), " bytes at ", offset,
                                      " crosses from zone ", zone, " into zone ", zone + 1));
  }
  if (auto s = WriteDirect(offset, src); !s.ok()) return s;
  Count(ctx, /*write=*/true, src.size());
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> ZbdDevice::Append(uint32_t zone, std::span<const uint8_t> src,
                                           const IoContext& ctx) {
  const std::string where = absl::StrCat(info_.name, ": append to zone ", zone);
  if (zone >= info_.num_zones) {
    return MakeZoneError(ZoneError::kOutOfRange, absl::StrCat(where, " of ", info_.num_zones));
  }
  if (zone < info_.num_conventional_zones ||
      info_.sequential_zone_type != ZoneType::kSequentialWriteRequired) {
    return MakeZoneError(ZoneError::kInvalidArgument,
                         absl::StrCat(where, ": not a sequential-write-required zone"));
  }
  if (info_.max_append_bytes != 0 && src.size() > info_.max_append_bytes) {
    return MakeZoneError(ZoneError::kInvalidArgument,
                         absl::StrCat(where, ": ", src.size(), " bytes exceed the limit of ",
                                      info_.max_append_bytes));
  }
  absl::MutexLock lock(&append_mu_[zone % append_mu_.size()]);
  auto z = ReportZone(zone);
  if (!z.ok()) return z.status();
  if (auto s = CheckZoneTakesWrites(*z, where); !s.ok()) return s;
  if (auto s = Write(z->write_pointer, src, ctx); !s.ok()) return s;
  return z->write_pointer;
}

absl::Status ZbdDevice::ZoneAction(ZbdCommand cmd, uint32_t zone) {
  if (zone >= info_.num_zones) {
    return MakeZoneError(ZoneError::kOutOfRange, absl::StrCat(info_.name, ": ", ToString(cmd),
                                                              " ", zone, " of ", info_.num_zones));
  }
  zbd_zone_op op = ZBD_OP_RESET;
  switch (cmd) {
    case ZbdCommand::kOpen: op = ZBD_OP_OPEN; break;
    case ZbdCommand::kClose: op = ZBD_OP_CLOSE; break;
    case ZbdCommand::kFinish: op = ZBD_OP_FINISH; break;
    default: break;
  }
  errno = 0;
  if (zbd_zones_operation(fd_, op, static_cast<off_t>(ZoneStart(zone)),
                          static_cast<off_t>(info_.zone_size)) != 0) {
    const int err = errno != 0 ? errno : EIO;
    return CommandError(cmd, err, ZoneStart(zone), info_.zone_size);
  }
  absl::MutexLock lock(&stats_mu_);
  if (cmd == ZbdCommand::kReset) ++stats_.zone_resets;
  if (cmd == ZbdCommand::kFinish) ++stats_.zone_finishes;
  return absl::OkStatus();
}

absl::Status ZbdDevice::OpenZone(uint32_t zone, CellMode mode, const IoContext&) {
  if (mode != CellMode::kNone && zone < info_.num_zones) {
    return MakeZoneError(ZoneError::kUnsupported,
                         absl::StrCat(info_.name, " cannot open zones in ", ToString(mode)));
  }
  return ZoneAction(ZbdCommand::kOpen, zone);
}

absl::Status ZbdDevice::CloseZone(uint32_t zone, const IoContext&) {
  return ZoneAction(ZbdCommand::kClose, zone);
}

absl::Status ZbdDevice::FinishZone(uint32_t zone, const IoContext&) {
  return ZoneAction(ZbdCommand::kFinish, zone);
}

absl::Status ZbdDevice::ResetZone(uint32_t zone, const IoContext&) {
  return ZoneAction(ZbdCommand::kReset, zone);
}

absl::Status ZbdDevice::Flush(const IoContext&) {
  if (fdatasync(fd_) != 0) {
    return ZbdCommandError(ZbdCommand::kFlush, errno, std::nullopt, 0, 0,
                           info_.reads_beyond_wp_allowed, absl::StrCat(info_.name, ": flush"));
  }
  absl::MutexLock lock(&stats_mu_);
  ++stats_.flushes;
  return absl::OkStatus();
}

DeviceStats ZbdDevice::Stats() const {
  absl::MutexLock lock(&stats_mu_);
  DeviceStats s = stats_;
  s.elapsed_ns = NowNs() - opened_at_ns_;
  return s;
}

}  // namespace zonestack::device
