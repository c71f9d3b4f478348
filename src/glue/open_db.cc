#include "glue/open_db.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "glue/attach_hints.h"
#include "glue/config.h"
#include "glue/gear_driver.h"
#include "rocksdb/comparator.h"
#include "rocksdb/convenience.h"
#include "rocksdb/env.h"
#include "glue/hint_listener.h"
#include "glue/registration.h"
#include "glue/ssd_secondary_cache.h"
#include "glue/status_map.h"
#include "rocksdb/utilities/stackable_db.h"
#include "glue/volume_registry.h"
#include "glue/zs_file_system.h"

namespace zonestack::rocks {
namespace {

// What a DB runs on and with, beyond RocksDB. Destroyed after the DB is
// closed: then no job of this DB session can still be running.
struct DbHolder {
  std::shared_ptr<rocksdb::Env> env;
  DbParts parts;
  std::string db_path;  // of the scheme claim, if parts.scheme

  DbHolder() = default;
  DbHolder(DbHolder&&) = default;
  DbHolder& operator=(DbHolder&&) = delete;
  ~DbHolder() {
    if (parts.listener) parts.listener->DbClosed();
    if (parts.scheme) ReleaseScheme(*parts.volume, db_path);
  }
};

// Base classes are destroyed in reverse order, so StackableDB (which
// deletes the DB, closing it) goes before the Env the DB runs on.
// The gear driver, a member, stops before StackableDB closes the DB.
class OwningDb : private DbHolder, public rocksdb::StackableDB {
 public:
  OwningDb(rocksdb::DB* db, DbHolder holder, std::unique_ptr<GearDriver> driver)
      : DbHolder(std::move(holder)), rocksdb::StackableDB(db), driver_(std::move(driver)) {
    DbHolder::parts.gear_driver = driver_.get();
    if (driver_) driver_->Start(db);
  }
  ~OwningDb() override {
    if (driver_) driver_->Stop();
  }
  rocksdb::Status Close() override {
    if (driver_) driver_->Stop();
    return rocksdb::StackableDB::Close();
  }
  const DbParts& parts() const { return DbHolder::parts; }

 private:
  std::unique_ptr<GearDriver> driver_;
};

std::string TrimSlashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

bool IsUnknownOption(const rocksdb::Status& s) {
  return s.IsInvalidArgument() && absl::StrContains(s.ToString(), "Could not find option");
}

}  // namespace

std::optional<DbParts> PartsOf(const rocksdb::DB& db) {
  const auto* owning = dynamic_cast<const OwningDb*>(&db);
  if (owning == nullptr) return std::nullopt;
  return owning->parts();
}

absl::Status ApplyRocksDbOptions(const std::map<std::string, std::string>& values,
                                 rocksdb::Options* options) {
  rocksdb::ConfigOptions cfg;
  cfg.ignore_unknown_options = false;
  rocksdb::DBOptions db(*options);
  rocksdb::ColumnFamilyOptions cf(*options);
  // One at a time: RocksDB has no public call taking a map of both kinds,
  // and this way an error names the option at fault.
  for (const auto& [name, value] : values) {
    const std::unordered_map<std::string, std::string> one{{name, value}};
    rocksdb::DBOptions db_next;
    const rocksdb::Status db_status = rocksdb::GetDBOptionsFromMap(cfg, db, one, &db_next);
    if (db_status.ok()) {
      db = db_next;
      continue;
    }
    rocksdb::ColumnFamilyOptions cf_next;
    const rocksdb::Status cf_status =
        rocksdb::GetColumnFamilyOptionsFromMap(cfg, cf, one, &cf_next);
    if (cf_status.ok()) {
      cf = cf_next;
      continue;
    }
    if (IsUnknownOption(db_status) && IsUnknownOption(cf_status)) {
      return absl::InvalidArgumentError(absl::StrCat("unknown RocksDB option '", name, "'"));
    }
    const rocksdb::Status& why = IsUnknownOption(db_status) ? cf_status : db_status;
    return absl::InvalidArgumentError(
        absl::StrCat("RocksDB option '", name, "' = '", value, "': ", why.ToString()));
  }
  *options = rocksdb::Options(db, cf);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<rocksdb::DB>> OpenDb(const std::string& config_path_or_uri,
                                                    const std::string& db_path,
                                                    rocksdb::Options base) {
  if (db_path.empty() || db_path[0] != '/') {
    return absl::InvalidArgumentError(
        absl::StrCat("DB path '", db_path, "' must be an absolute zfs path, like /db"));
  }
  RegisterZoneStack();
  const std::string uri = absl::StartsWith(config_path_or_uri, kUriScheme)
                              ? config_path_or_uri
                              : absl::StrCat(kUriScheme, config_path_or_uri);
  auto config = ParseUri(uri);
  if (!config.ok()) return config.status();
  // Mount here to keep zfs's error codes; the factory below then reuses it.
  auto volume = AcquireVolume(*config);
  if (!volume.ok()) return volume.status();

  rocksdb::Options options = std::move(base);
  options.create_if_missing = true;
  // Compaction reads whole SSTs; 7.8 reads them block by block unless told
  // otherwise, and on a zoned device every small read costs a full access
  // (measured: 3.6 GB of device reads and 3x slower fillrandom on zn540).
  if (options.compaction_readahead_size == 0) options.compaction_readahead_size = 2 << 20;
  if (auto s = ApplyRocksDbOptions(config->rocksdb_options, &options); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(uri, ": ", s.message()));
  }
  rocksdb::ConfigOptions cfg;
  cfg.ignore_unsupported_options = false;  // else an unregistered URI gives a null Env
  if (options.env != nullptr) cfg.env = options.env;
  rocksdb::Env* env = nullptr;
  DbHolder holder;
  holder.parts.volume = *volume;
  if (auto s = rocksdb::Env::CreateFromUri(cfg, "", uri, &env, &holder.env); !s.ok()) {
    return ToAbslStatus(s);
  }
  options.env = env;

  auto fs = std::dynamic_pointer_cast<ZoneStackFileSystem>(env->GetFileSystem());
  if (!fs) return absl::InternalError(absl::StrCat(uri, ": not a ZoneStack file system"));
  if (std::shared_ptr<policy::Scheme> scheme = FindScheme(**volume)) {
    if (auto s = ClaimScheme(**volume, TrimSlashes(db_path)); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(uri, ": ", s.message()));
    }
    holder.db_path = TrimSlashes(db_path);
    holder.parts.scheme = scheme;  // from here on, the holder releases the claim
  }
  auto hints = AttachHints(*config, *volume, std::move(fs), &options);
  if (!hints.ok()) {
    return absl::Status(hints.status().code(), absl::StrCat(uri, ": ", hints.status().message()));
  }
  holder.parts.cache = hints->cache;
  holder.parts.listener = hints->listener;
  // GearDB (docs/geardb.md): the driver picks every compaction.
  std::unique_ptr<GearDriver> driver;
  if (auto gear = holder.parts.scheme ? holder.parts.scheme->gear() : std::nullopt) {
    if (options.comparator != rocksdb::BytewiseComparator()) {
      return absl::InvalidArgumentError(absl::StrCat(
          uri, ": scheme '", holder.parts.scheme->name(),
          "' compares keys bytewise and needs RocksDB's default comparator"));
    }
    driver = std::make_unique<GearDriver>(*volume, *gear);
    options.listeners.push_back(driver->listener());
    options.disable_auto_compactions = true;
    // Window-aligned SSTs (docs/geardb.md, "2. Compaction windows").
    options.sst_partitioner_factory = driver->partitioner_factory();
  }

  rocksdb::DB* db = nullptr;
  if (auto s = rocksdb::DB::Open(options, db_path, &db); !s.ok()) {
    absl::Status status = ToAbslStatus(s);
    return absl::Status(status.code(), absl::StrCat("opening RocksDB at '", db_path, "' on ",
                                                    uri, ": ", status.message()));
  }
  HintListener* listener = holder.parts.listener.get();
  auto owning = std::make_unique<OwningDb>(db, std::move(holder), std::move(driver));
  // The view may lag: a new mount, levels changed while no listener ran
  // (a DB opened by other means), jobs lost in a crash.
  if (listener != nullptr) {
    if (auto s = listener->Resync(owning.get()); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("opening RocksDB at '", db_path, "' on ", uri,
                                                 ": reading table properties: ", s.message()));
    }
  }
  return std::unique_ptr<rocksdb::DB>(std::move(owning));
}

}  // namespace zonestack::rocks
