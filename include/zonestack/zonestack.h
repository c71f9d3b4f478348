// ZoneStack's public interface for RocksDB programs, in libzonestack.so.
//
// Loading the library registers the "zonestack://" file system with
// RocksDB, so a program that already takes a file system URI needs no code
// at all (LD_PRELOAD=libzonestack.so, then --fs_uri=zonestack://...). A
// program linking the library calls these; they need only RocksDB's headers.
//
// URIs (README, "Use it from any RocksDB program"):
//   zonestack:///path/volume.json       a volume config file; works in every
//                                       tool, including those that parse the
//                                       URI as an option string (ldb)
//   zonestack://DEVURI[;DEVURI...]      device URIs, default scheme
#pragma once

#include <memory>
#include <string>

#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/status.h"

namespace zonestack {

// Registers "zonestack://" with rocksdb::ObjectLibrary::Default().
// Loading the library has done it already; calling it is idempotent, and
// gives a program that uses only Env::CreateFromUri a symbol it needs from
// the library, so a linker with --as-needed keeps the library.
void RegisterZoneStack();

// Opens (creating if missing) the DB at `db_path`, an absolute path on the
// volume `uri` names, with `base` options plus the volume's: its Env, the
// config's "rocksdb" options, and RocksDB's hints when the volume's scheme
// needs them (as AttachHints). The DB owns its Env; delete it before the
// process ends. Errors: InvalidArgument (URI, config, options, path),
// IOError and others from mounting or from RocksDB, with their messages.
rocksdb::Status OpenDb(const std::string& uri, const std::string& db_path,
                       const rocksdb::Options& base, std::unique_ptr<rocksdb::DB>* db);

// For a program that opens the DB itself on a "zonestack://" file system:
// gives `*options` what the volume's scheme needs from RocksDB. For a
// scheme that reads RocksDB's hints (HHZS and its baselines: `zsctl
// schemes`), that is the hint listener (flush and compaction levels,
// deletions), RocksDB's SSD block cache tier when the scheme caches
// (a new LRU block cache of the table options' capacity, whose secondary
// cache is the volume's SSD cache), and cold last-level SSTs when the scheme
// places by temperature. Other schemes need nothing: OK, options unchanged.
// Mounts the volume if no file system has yet. Use the result for one DB
// at a time: the scheme's view of the LSM tree describes one DB.
// Errors: InvalidArgument for a bad URI or options the scheme cannot use
// (no block-based table, no block cache); the mount error otherwise.
rocksdb::Status AttachHints(rocksdb::Options* options, const std::string& uri);

}  // namespace zonestack
