// A user's program on an installed libzonestack.so: opens a DB once through
// RocksDB's own URI loading and once through zonestack::OpenDb, on the
// volume its only argument names. Prints "ok" and exits 0 when both work.
#include <cstdio>
#include <memory>
#include <string>

#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "zonestack/zonestack.h"

static int Fail(const char* what, const rocksdb::Status& s) {
  std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string uri = argv[1];
  zonestack::RegisterZoneStack();  // a symbol of the library, for --as-needed linkers

  rocksdb::Env* env = nullptr;
  std::shared_ptr<rocksdb::Env> guard;
  rocksdb::ConfigOptions config;
  config.ignore_unsupported_options = false;
  rocksdb::Status s = rocksdb::Env::CreateFromUri(config, "", uri, &env, &guard);
  if (!s.ok()) return Fail("Env::CreateFromUri", s);
  rocksdb::Options options;
  options.create_if_missing = true;
  options.env = env;
  rocksdb::DB* raw = nullptr;
  if (s = rocksdb::DB::Open(options, "/a", &raw); !s.ok()) return Fail("DB::Open", s);
  std::unique_ptr<rocksdb::DB> a(raw);
  if (s = a->Put({}, "k", "v"); !s.ok()) return Fail("Put", s);

  std::unique_ptr<rocksdb::DB> b;
  if (s = zonestack::OpenDb(uri, "/b", rocksdb::Options(), &b); !s.ok()) return Fail("OpenDb", s);
  std::string value;
  if (s = b->Put({}, "k", "w"); !s.ok()) return Fail("Put", s);
  if (s = a->Get({}, "k", &value); !s.ok() || value != "v") return Fail("Get", s);
  std::printf("ok\n");
  return 0;
}
