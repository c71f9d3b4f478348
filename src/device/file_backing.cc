// Sparse-file backing. Layout (docs/format.md): a 4 KiB header, the zone
// table (32 bytes a zone, padded to 4 KiB), then the zones' bytes.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "device/backing.h"

namespace zonestack::device {
namespace {

constexpr char kMagic[8] = {'Z', 'S', 'E', 'M', 'U', 'L', '0', '1'};
constexpr uint32_t kVersion = 1;
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
  uint64_t write_pointer;
  uint64_t capacity;
  uint64_t reserved;
};
static_assert(sizeof(ZoneRecord) == kZoneRecordBytes);

absl::Status Errno(const char* what, const std::string& path) {
  return absl::InternalError(absl::StrCat(what, " ", path, ": ", std::strerror(errno)));
}

class FileBacking : public Backing {
 public:
  FileBacking(int fd, std::string path, uint64_t data_offset,
              std::optional<std::vector<ZoneInfo>> loaded)
      : fd_(fd), path_(std::move(path)), data_offset_(data_offset),
        loaded_(std::move(loaded)) {}
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

  absl::Status SaveZone(const ZoneInfo& z) override {
    ZoneRecord rec{};
    rec.state = static_cast<uint8_t>(z.state);
    rec.cell_mode = static_cast<uint8_t>(z.cell_mode);
    rec.type = static_cast<uint8_t>(z.type);
    rec.write_pointer = z.write_pointer;
    rec.capacity = z.capacity;
    return Pwrite(&rec, sizeof rec, kHeaderBytes + uint64_t{z.index} * kZoneRecordBytes);
  }

  std::optional<std::vector<ZoneInfo>> LoadedZones() const override { return loaded_; }

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
  std::optional<std::vector<ZoneInfo>> loaded_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Backing>> OpenFileBacking(const std::string& path,
                                                         const DeviceInfo& info) {
  const uint64_t table = (uint64_t{info.num_zones} * kZoneRecordBytes + 4095) / 4096 * 4096;
  const uint64_t data_offset = kHeaderBytes + table;
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("opening", path);
  Header want{};
  std::memcpy(want.magic, kMagic, sizeof kMagic);
  want.version = kVersion;
  want.block_size = info.block_size;
  want.zone_size = info.zone_size;
  want.zone_capacity = info.zone_capacity;
  want.num_zones = info.num_zones;
  want.num_conventional_zones = info.num_conventional_zones;
  std::strncpy(want.model, info.model.c_str(), sizeof want.model - 1);

  auto backing = std::make_unique<FileBacking>(fd, path, data_offset, std::nullopt);
  Header have{};
  if (lseek(fd, 0, SEEK_END) == 0) {
    // A new device: header, then an all-empty zone table (zeroes would read
    // as state 0, so write real records).
    if (auto s = backing->Pwrite(&want, sizeof want, 0); !s.ok()) return s;
    return std::unique_ptr<Backing>(std::move(backing));
  }
  if (auto s = backing->Pread(&have, sizeof have, 0); !s.ok()) return s;
  if (std::memcmp(have.magic, kMagic, sizeof kMagic) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " is not an emulated zoned device file (bad magic)"));
  }
  if (have.version != kVersion || have.block_size != want.block_size ||
      have.zone_size != want.zone_size || have.zone_capacity != want.zone_capacity ||
      have.num_zones != want.num_zones ||
      have.num_conventional_zones != want.num_conventional_zones) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, " holds a device of ", have.num_zones, " zones of ", have.zone_size,
        " bytes (capacity ", have.zone_capacity, ", ", have.num_conventional_zones,
        " conventional, model '", std::string(have.model, strnlen(have.model, sizeof have.model)),
        "') but the URI asks for ", want.num_zones, " zones of ", want.zone_size,
        " bytes (capacity ", want.zone_capacity, ", ", want.num_conventional_zones,
        " conventional, model '", info.model, "')"));
  }
  std::vector<ZoneRecord> recs(info.num_zones);
  if (auto s = backing->Pread(recs.data(), recs.size() * sizeof(ZoneRecord), kHeaderBytes);
      !s.ok()) {
    return s;
  }
  std::vector<ZoneInfo> zones(info.num_zones);
  for (uint32_t i = 0; i < info.num_zones; ++i) {
    ZoneInfo& z = zones[i];
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
      continue;
    }
    z.type = static_cast<ZoneType>(r.type);
    z.state = static_cast<ZoneState>(r.state);
    z.cell_mode = static_cast<CellMode>(r.cell_mode);
    z.write_pointer = r.write_pointer;
    z.capacity = r.capacity;
  }
  return std::unique_ptr<Backing>(
      std::make_unique<FileBacking>(dup(fd), path, data_offset, std::move(zones)));
}

}  // namespace zonestack::device
