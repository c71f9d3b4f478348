// Helpers for the RocksDB end-to-end tests: opening a DB with column
// families on a "zonestack://" URI through RocksDB's own URI loading.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "device/emulated_device.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/options.h"
#include "glue/volume_registry.h"

namespace zonestack::rocks {

// A DB and what keeps it alive. Destroy before unmounting the volume.
struct TestDb {
  std::shared_ptr<rocksdb::Env> env_guard;
  std::vector<rocksdb::ColumnFamilyHandle*> cfs;
  std::unique_ptr<rocksdb::DB> db;

  ~TestDb() { Close(); }
  // Closes the DB and lets go of the volume; returns the DB's close status
  // (after a power cut it may fail).
  rocksdb::Status Close() {
    rocksdb::Status s;
    if (db) {
      for (auto* cf : cfs) (void)db->DestroyColumnFamilyHandle(cf);
      cfs.clear();
      s = db->Close();
      db.reset();
    }
    env_guard.reset();
    return s;
  }
};

// Small memtables and levels so a few thousand writes flush and compact.
inline rocksdb::Options SmallOptions() {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.create_missing_column_families = true;
  o.write_buffer_size = 64 << 10;
  o.target_file_size_base = 64 << 10;
  o.max_bytes_for_level_base = 256 << 10;
  o.level0_file_num_compaction_trigger = 2;
  o.max_background_jobs = 2;
  return o;
}

// Opens `path` on `uri` with the column families `cf_names` (the default
// one is added first) through Env::CreateFromUri, as any RocksDB program
// taking an fs_uri would.
inline rocksdb::Status OpenTestDb(const std::string& uri, const std::string& path,
                                  const std::vector<std::string>& cf_names,
                                  rocksdb::Options options, TestDb* out) {
  rocksdb::Env* env = nullptr;
  rocksdb::ConfigOptions config;
  rocksdb::Status s = rocksdb::Env::CreateFromUri(config, "", uri, &env, &out->env_guard);
  if (!s.ok()) return s;
  options.env = env;
  std::vector<rocksdb::ColumnFamilyDescriptor> descs = {
      {rocksdb::kDefaultColumnFamilyName, options}};
  for (const std::string& n : cf_names) descs.push_back({n, options});
  rocksdb::DB* raw = nullptr;
  s = rocksdb::DB::Open(options, path, descs, &out->cfs, &raw);
  out->db.reset(raw);
  return s;
}

// The emulated devices of the volume mounted for `uri`.
inline std::vector<device::EmulatedDevice*> EmulatedDevices(const std::string& uri) {
  std::vector<device::EmulatedDevice*> out;
  auto vol = FindVolume(uri);
  if (!vol.ok()) return out;
  for (const auto& d : (*vol)->devices()) {
    if (auto* e = dynamic_cast<device::EmulatedDevice*>(d.get())) out.push_back(e);
  }
  return out;
}

}  // namespace zonestack::rocks
