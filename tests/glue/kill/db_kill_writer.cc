// The process a kill test kills: opens a DB on a ZoneStack volume and puts
// keys key00000000, key00000001, ... from a start index, without syncing
// the WAL (RocksDB flushes it after each write). After each Put returns OK
// it writes the key's index to stdout as 8 raw bytes, one write(2) each,
// so the killer knows what was acknowledged the moment before the kill.
//
// Usage: db_kill_writer URI START
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "glue/open_db.h"

namespace {

std::string Key(uint64_t i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "key%08llu", static_cast<unsigned long long>(i));
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s URI START\n", argv[0]);
    return 2;
  }
  const uint64_t start = std::strtoull(argv[2], nullptr, 10);
  rocksdb::Options options;
  options.write_buffer_size = 256 << 10;  // flushes and compactions as it runs
  options.target_file_size_base = 256 << 10;
  auto db = zonestack::rocks::OpenDb(argv[1], "/db", options);
  if (!db.ok()) {
    std::fprintf(stderr, "open: %s\n", db.status().ToString().c_str());
    return 1;
  }
  rocksdb::WriteOptions wo;  // sync = false: the WAL is flushed, not synced
  for (uint64_t i = start;; ++i) {
    const rocksdb::Status s = (*db)->Put(wo, Key(i), Key(i) + std::string(200, 'v'));
    if (!s.ok()) {
      std::fprintf(stderr, "put %llu: %s\n", static_cast<unsigned long long>(i),
                   s.ToString().c_str());
      return 1;
    }
    if (write(STDOUT_FILENO, &i, sizeof i) != sizeof i) return 1;
  }
}
