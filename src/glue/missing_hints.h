// The warning that a volume's scheme runs without the RocksDB hints it
// needs: a program that passes only --fs_uri gets the file system but no
// hint listener or SSD secondary cache, because RocksDB attaches nothing to
// a DB on behalf of its file system. Said once per mount, on stderr and in
// the DB's info log, when the first SST is opened with hints missing
// (by then RocksDB has attached every listener the program gave it).
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "glue/volume_registry.h"
#include "rocksdb/env.h"
#include "zfs/volume.h"

namespace zonestack::rocks {

// The text of the warning: the scheme, what is missing, what the scheme
// then does, and how to attach the hints.
std::string MissingHintsMessage(const MissingHints& missing);

// One per ZoneStackFileSystem over a volume with a hinted scheme.
// Thread-safe.
class HintsWarning {
 public:
  // The info log RocksDB opened through the file system (the DB's LOG);
  // the warning goes there too. Only the latest is kept, weakly.
  void SetInfoLog(const std::shared_ptr<rocksdb::Logger>& log);
  // An SST of `volume` is being opened. The first call asks the registry
  // what is missing (TakeMissingHints) and warns; later calls do nothing.
  void SstOpened(const zfs::Volume& volume);

 private:
  std::atomic<bool> checked_{false};
  absl::Mutex mu_;
  std::weak_ptr<rocksdb::Logger> info_log_ ABSL_GUARDED_BY(mu_);
};

}  // namespace zonestack::rocks
