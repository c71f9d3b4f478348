// Sparse-file backing. Layout (docs/format.md): a 4 KiB header, the zone
// table (32 bytes a zone, padded to 4 KiB), then the zones' bytes.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "device/backing.h"

namespace zonestack::device {
namespace {

constexpr char kMagic[8] = {'Z', 'S', 'E', 'M', 'U', 'L', '0', '1'};
// 2: files have their full size from creation, and zone records carry the
// cached write pointer. Version 1 files are upgraded when opened.
constexpr uint32_t kVersion = 2;
constexpr uint64_t kHeaderBytes = 4096;
constexpr uint64_t kZoneRecordBytes = 32;

struct Header {
  char magic[8];
  uint32_t version;
  uint32_t block_size;
  uint64_t zone_size;
  uint64_t zone_capacity;
  uint32_t num_zones;
  uint32_t num_conventional_zones;
  char model[64];
};

struct ZoneRecord {
  uint8_t state;
  uint8_t cell_mode;
  uint8_t type;
  uint8_t pad[5];
  uint64_t write_pointer;  // durable
  uint64_t capacity;
  uint64_t cached_write_pointer;  // version 1 wrote 0 here
};
static_assert(sizeof(ZoneRecord) == kZoneRecordBytes);

absl::Status Errno(const char* what, const std::string& path) {
  return absl::InternalError(absl::StrCat(what, " ", path, ": ", std::strerror(errno)));
}

// "pid N (command line)", or "pid N (exited)" when it is gone.
std::string DescribeProcess(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/cmdline"), std::ios::binary);
  std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in && cmdline.empty()) return absl::StrCat("pid ", pid, " (exited)");
  while (!cmdline.empty() && cmdline.back() == '\0') cmdline.pop_back();
  std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
  if (cmdline.size() > 200) cmdline = cmdline.substr(0, 200) + "...";
  return absl::StrCat("pid ", pid, " (", cmdline, ")", pid == getpid() ? ", this process" : "");
}

// Who holds a flock on the file with inode `ino`: /proc/locks lists flock
// locks with the pid that took them (fcntl OFD locks show -1 there, which
// is why the backing uses flock). Lines look like
//   "1: FLOCK  ADVISORY  WRITE 4242 fe:00:9977886 0 EOF"
// and waiters add a "->" field. Matching the inode alone can only name one
// process too many, never miss the holder.
std::string DescribeFlockHolders(ino_t ino) {
  std::ifstream locks("/proc/locks");
  std::set<pid_t> pids;
  const std::string suffix = absl::StrCat(":", ino);
  for (std::string line; std::getline(locks, line);) {
    std::istringstream fields(line);
    std::string id, kind, mode, access, pid, dev_ino;
    fields >> id >> kind;
    if (kind == "->") continue;  // a waiter, not a holder
    fields >> mode >> access >> pid >> dev_ino;
    if (kind != "FLOCK" || dev_ino.size() <= suffix.size() ||
        dev_ino.compare(dev_ino.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    pids.insert(static_cast<pid_t>(std::atoi(pid.c_str())));
  }
  if (pids.empty()) return "another process (not found in /proc/locks)";
  std::vector<std::string> names;
  for (pid_t p : pids) names.push_back(DescribeProcess(p));
  return absl::StrJoin(names, ", ");
}

class FileBacking : public Backing {
 public:
  FileBacking(int fd, std::string path, uint64_t data_offset)
      : fd_(fd), path_(std::move(path)), data_offset_(data_offset) {}
  // Closing the only descriptor releases the flock.
  ~FileBacking() override { close(fd_); }

  absl::Status Read(uint64_t offset, std::span<uint8_t> dst) override {
    return Pread(dst.data(), dst.size(), data_offset_ + offset);
  }

  absl::Status Write(uint64_t offset, std::span<const uint8_t> src) override {
    return Pwrite(src.data(), src.size(), data_offset_ + offset);
  }

  absl::Status Discard(uint64_t offset, uint64_t length) override {
    if (fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                  static_cast<off_t>(data_offset_ + offset),
                  static_cast<off_t>(length)) != 0) {
      return Errno("punching a hole in", path_);
    }
    return absl::OkStatus();
  }

  // One pwrite of the record: it reaches the page cache, which outlives
  // the process, before the write it records is acknowledged.
  absl::Status SaveZone(const SavedZone& saved) override {
    const ZoneInfo& z = saved.durable;
    ZoneRecord rec{};
    rec.state = static_cast<uint8_t>(z.state);
    rec.cell_mode = static_cast<uint8_t>(z.cell_mode);
    rec.type = static_cast<uint8_t>(z.type);
    rec.write_pointer = z.write_pointer;
    rec.capacity = z.capacity;
    rec.cached_write_pointer = saved.cached_write_pointer;
    return Pwrite(&rec, sizeof rec, kHeaderBytes + uint64_t{z.index} * kZoneRecordBytes);
  }

  std::optional<std::vector<SavedZone>> LoadedZones() const override { return loaded_; }
  bool persistent() const override { return true; }
  void SetLoadedZones(std::vector<SavedZone> zones) { loaded_ = std::move(zones); }

  absl::Status Pread(void* buf, size_t n, uint64_t off) {
    auto* p = static_cast<uint8_t*>(buf);
    while (n > 0) {
      const ssize_t r = pread(fd_, p, n, static_cast<off_t>(off));
      if (r < 0) {
        if (errno == EINTR) continue;
        return Errno("reading", path_);
      }
      if (r == 0) {  // past the end of a sparse file: zeroes
        std::memset(p, 0, n);
        return absl::OkStatus();
      }
      p += r;
      n -= static_cast<size_t>(r);
      off += static_cast<uint64_t>(r);
    }
    return absl::OkStatus();
  }

  absl::Status Pwrite(const void* buf, size_t n, uint64_t off) {
    const auto* p = static_cast<const uint8_t*>(buf);
    while (n > 0) {
      const ssize_t r = pwrite(fd_, p, n, static_cast<off_t>(off));
      if (r < 0) {
        if (errno == EINTR) continue;
        return Errno("writing", path_);
      }
      p += r;
      n -= static_cast<size_t>(r);
      off += static_cast<uint64_t>(r);
    }
    return absl::OkStatus();
  }


 private:
  int fd_;
  std::string path_;
  uint64_t data_offset_;
  std::optional<std::vector<SavedZone>> loaded_;
};

Header WantedHeader(const DeviceInfo& info) {
  Header want{};
  std::memcpy(want.magic, kMagic, sizeof kMagic);
  want.version = kVersion;
  want.block_size = info.block_size;
  want.zone_size = info.zone_size;
  want.zone_capacity = info.zone_capacity;
  want.num_zones = info.num_zones;
  want.num_conventional_zones = info.num_conventional_zones;
  std::strncpy(want.model, info.model.c_str(), sizeof want.model - 1);
  return want;
}

// The header read from the file must be a device of `info`'s geometry.
absl::Status CheckHeader(const std::string& path, const Header& have, const Header& want,
                         const DeviceInfo& info) {
  if (std::memcmp(have.magic, kMagic, sizeof kMagic) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " is not an emulated zoned device file (bad magic)"));
  }
  if (have.version != 1 && have.version != kVersion) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, " is an emulated device file of version ", have.version, "; this build reads 1 and ",
        kVersion));
  }
  if (have.block_size != want.block_size || have.zone_size != want.zone_size ||
      have.zone_capacity != want.zone_capacity || have.num_zones != want.num_zones ||
      have.num_conventional_zones != want.num_conventional_zones) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, " holds a device of ", have.num_zones, " zones of ", have.zone_size,
        " bytes (capacity ", have.zone_capacity, ", ", have.num_conventional_zones,
        " conventional, model '", std::string(have.model, strnlen(have.model, sizeof have.model)),
        "') but the URI asks for ", want.num_zones, " zones of ", want.zone_size,
        " bytes (capacity ", want.zone_capacity, ", ", want.num_conventional_zones,
        " conventional, model '", info.model, "')"));
  }
  return absl::OkStatus();
}

// Decodes the zone table. A record never saved is an empty zone.
std::vector<SavedZone> DecodeZoneTable(const std::vector<ZoneRecord>& recs,
                                       const DeviceInfo& info) {
  std::vector<SavedZone> zones(info.num_zones);
  for (uint32_t i = 0; i < info.num_zones; ++i) {
    ZoneInfo& z = zones[i].durable;
    const ZoneRecord& r = recs[i];
    z.index = i;
    z.start = uint64_t{i} * info.zone_size;
    z.size = info.zone_size;
    if (r.type == 0) {  // never saved: still empty
      z.type = i < info.num_conventional_zones ? ZoneType::kConventional
                                               : info.sequential_zone_type;
      z.state = z.type == ZoneType::kConventional ? ZoneState::kNotWritePointer
                                                  : ZoneState::kEmpty;
      z.write_pointer = z.start;
      z.cell_mode = info.default_cell_mode;
      z.capacity = z.type == ZoneType::kConventional
                       ? info.zone_size
                       : info.ZoneCapacityFor(info.default_cell_mode);
    } else {
      z.type = static_cast<ZoneType>(r.type);
      z.state = static_cast<ZoneState>(r.state);
      z.cell_mode = static_cast<CellMode>(r.cell_mode);
      z.write_pointer = r.write_pointer;
      z.capacity = r.capacity;
    }
    // The cache never lags the media; version 1 left 0 here.
    zones[i].cached_write_pointer = std::max(r.cached_write_pointer, z.write_pointer);
  }
  return zones;
}

// Takes the file's flock, or names who holds it.
absl::Status Lock(int fd, const std::string& path) {
  if (flock(fd, LOCK_EX | LOCK_NB) == 0) return absl::OkStatus();
  if (errno != EWOULDBLOCK) return Errno("locking", path);
  struct stat st;
  if (fstat(fd, &st) != 0) return Errno("examining", path);
  return absl::FailedPreconditionError(absl::StrCat(
      "emulated device file ", path, " is in use: held by ", DescribeFlockHolders(st.st_ino),
      "; a device has one user at a time"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Backing>> OpenFileBacking(const std::string& path,
                                                         const DeviceInfo& info) {
  const uint64_t table = (uint64_t{info.num_zones} * kZoneRecordBytes + 4095) / 4096 * 4096;
  const uint64_t data_offset = kHeaderBytes + table;
  const uint64_t file_bytes = data_offset + uint64_t{info.num_zones} * info.zone_size;
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("opening", path);
  auto backing = std::make_unique<FileBacking>(fd, path, data_offset);
  if (auto s = Lock(fd, path); !s.ok()) return s;
  struct stat st;
  if (fstat(fd, &st) != 0) return Errno("examining", path);
  const uint64_t size = static_cast<uint64_t>(st.st_size);

  const Header want = WantedHeader(info);
  if (size == 0) {
    // A new device. The file gets its full (sparse) size first, so that a
    // shorter file is always a damaged one; never-saved zone records read
    // as zeroes, which DecodeZoneTable takes as empty zones.
    if (ftruncate(fd, static_cast<off_t>(file_bytes)) != 0) return Errno("sizing", path);
    if (auto s = backing->Pwrite(&want, sizeof want, 0); !s.ok()) return s;
    return std::unique_ptr<Backing>(std::move(backing));
  }
  Header have{};
  if (auto s = backing->Pread(&have, sizeof have, 0); !s.ok()) return s;
  if (auto s = CheckHeader(path, have, want, info); !s.ok()) return s;
  // Version 1 grew the file as it was written: it is whole if its header is.
  const uint64_t needed = have.version == 1 ? sizeof(Header) : file_bytes;
  if (size < needed) {
    return absl::DataLossError(absl::StrCat(
        path, " is ", size, " bytes but a device of ", info.num_zones, " zones of ",
        info.zone_size, " bytes needs ", needed,
        ": the file was truncated or damaged; restore it, or delete it for a new, empty device"));
  }
  if (have.version == 1) {
    if (size < file_bytes && ftruncate(fd, static_cast<off_t>(file_bytes)) != 0) {
      return Errno("sizing", path);
    }
    if (auto s = backing->Pwrite(&want, sizeof want, 0); !s.ok()) return s;
  }
  std::vector<ZoneRecord> recs(info.num_zones);
  if (auto s = backing->Pread(recs.data(), recs.size() * sizeof(ZoneRecord), kHeaderBytes);
      !s.ok()) {
    return s;
  }
  backing->SetLoadedZones(DecodeZoneTable(recs, info));
  return std::unique_ptr<Backing>(std::move(backing));
}

}  // namespace zonestack::device
