// The public interface (include/zonestack/zonestack.h) over the glue, with
// RocksDB's Status in place of absl's so a program needs only RocksDB's
// headers.
#include "zonestack/zonestack.h"

#include "glue/attach_hints.h"
#include "glue/open_db.h"
#include "glue/registration.h"
#include "glue/status_map.h"

namespace zonestack {

void RegisterZoneStack() { rocks::RegisterZoneStack(); }

rocksdb::Status OpenDb(const std::string& uri, const std::string& db_path,
                       const rocksdb::Options& base, std::unique_ptr<rocksdb::DB>* db) {
  auto opened = rocks::OpenDb(uri, db_path, base);
  if (!opened.ok()) return rocks::ToIOStatus(opened.status());
  *db = std::move(*opened);
  return rocksdb::Status::OK();
}

rocksdb::Status AttachHints(rocksdb::Options* options, const std::string& uri) {
  auto parts = rocks::AttachHints(options, uri);
  if (!parts.ok()) return rocks::ToIOStatus(parts.status());
  return rocksdb::Status::OK();
}

}  // namespace zonestack
