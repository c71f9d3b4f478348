#include "glue/missing_hints.h"

#include <cstdio>

#include "absl/strings/str_cat.h"

namespace zonestack::rocks {

std::string MissingHintsMessage(const MissingHints& m) {
  std::string lacks, without, attach;
  if (m.listener) {
    lacks = "no ZoneStackHintListener (flush and compaction levels)";
    without = m.without;
    attach = "an OPTIONS file with listeners={ZoneStackHintListener} under [DBOptions]";
  }
  if (m.cache) {
    absl::StrAppend(&lacks, lacks.empty() ? "no" : " and no",
                    " ZoneStackSsdCache secondary cache (blocks evicted from the block cache)");
    absl::StrAppend(&without, without.empty() ? "" : "; ", "its SSD cache stays empty");
    absl::StrAppend(&attach, attach.empty() ? "" : " and ",
                    "--secondary_cache_uri=ZoneStackSsdCache (db_bench)");
  }
  return absl::StrCat("zonestack: WARNING: scheme '", m.scheme, "' of volume '", m.volume,
                      "' runs without the RocksDB hints it needs: ", lacks,
                      " is attached to this DB, so ", without, ". Attach them with ", attach,
                      ", or zonestack::AttachHints (README, \"Use it from any RocksDB program\").");
}

void HintsWarning::SetInfoLog(const std::shared_ptr<rocksdb::Logger>& log) {
  absl::MutexLock lock(&mu_);
  info_log_ = log;
}

void HintsWarning::SstOpened(const zfs::Volume& volume) {
  if (checked_.exchange(true, std::memory_order_relaxed)) return;
  std::optional<MissingHints> missing = TakeMissingHints(volume);
  if (!missing) return;
  const std::string message = MissingHintsMessage(*missing);
  std::fprintf(stderr, "%s\n", message.c_str());
  std::shared_ptr<rocksdb::Logger> log;
  {
    absl::MutexLock lock(&mu_);
    log = info_log_.lock();
  }
  if (log) {
    rocksdb::Log(rocksdb::InfoLogLevel::WARN_LEVEL, log, "%s", message.c_str());
    log->Flush();
  }
}

}  // namespace zonestack::rocks
