#include "glue/hint_factories.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "glue/volume_registry.h"
#include "glue/zs_file_system.h"
#include "rocksdb/env.h"

namespace zonestack::rocks {
absl::StatusOr<std::unique_ptr<OptionsFileHintListener>>
OptionsFileHintListener::ForOnlyHintedVolume() {
  auto volume = OnlyHintedVolume(kClassName(), /*caching=*/false);
  if (!volume.ok()) return volume.status();
  std::shared_ptr<policy::Scheme> scheme = FindScheme(**volume);
  auto fs = std::make_shared<ZoneStackFileSystem>(*volume, "", scheme);
  return std::make_unique<OptionsFileHintListener>(
      std::make_shared<HintListener>(std::move(scheme), std::move(fs), AcquireSsdCache(**volume)));
}

void OptionsFileHintListener::ResyncOnce(rocksdb::DB* db) {
  if (resynced_.exchange(true)) return;
  if (absl::Status s = inner_->Resync(db); !s.ok()) {
    // The view still learns every SST written from now on.
    std::fprintf(stderr, "zonestack: %s: reading the DB's table properties: %s\n", kClassName(),
                 s.ToString().c_str());
  }
}

void OptionsFileHintListener::OnFlushBegin(rocksdb::DB* db, const rocksdb::FlushJobInfo&) {
  ResyncOnce(db);
}
void OptionsFileHintListener::OnTableFileCreationStarted(
    const rocksdb::TableFileCreationBriefInfo& info) {
  inner_->OnTableFileCreationStarted(info);
}
void OptionsFileHintListener::OnCompactionBegin(rocksdb::DB* db,
                                                const rocksdb::CompactionJobInfo& ci) {
  ResyncOnce(db);
  inner_->OnCompactionBegin(db, ci);
}
void OptionsFileHintListener::OnSubcompactionBegin(const rocksdb::SubcompactionJobInfo& si) {
  inner_->OnSubcompactionBegin(si);
}
void OptionsFileHintListener::OnSubcompactionCompleted(const rocksdb::SubcompactionJobInfo& si) {
  inner_->OnSubcompactionCompleted(si);
}
void OptionsFileHintListener::OnTableFileCreated(const rocksdb::TableFileCreationInfo& info) {
  inner_->OnTableFileCreated(info);
}
void OptionsFileHintListener::OnCompactionCompleted(rocksdb::DB* db,
                                                    const rocksdb::CompactionJobInfo& ci) {
  inner_->OnCompactionCompleted(db, ci);
}
void OptionsFileHintListener::OnTableFileDeleted(const rocksdb::TableFileDeletionInfo& info) {
  inner_->OnTableFileDeleted(info);
}
void OptionsFileHintListener::OnExternalFileIngested(
    rocksdb::DB* db, const rocksdb::ExternalFileIngestionInfo& info) {
  inner_->OnExternalFileIngested(db, info);
}

void RegisterHintFactories(rocksdb::ObjectLibrary& library) {
  library.AddFactory<rocksdb::EventListener>(
      OptionsFileHintListener::kClassName(),
      [](const std::string&, std::unique_ptr<rocksdb::EventListener>* guard,
         std::string* errmsg) -> rocksdb::EventListener* {
        auto listener = OptionsFileHintListener::ForOnlyHintedVolume();
        if (!listener.ok()) {
          *errmsg = std::string(listener.status().message());
          return nullptr;
        }
        guard->reset(listener->release());
        return guard->get();
      });
  library.AddFactory<rocksdb::SecondaryCache>(
      SsdSecondaryCache::kClassName(),
      [](const std::string&, std::unique_ptr<rocksdb::SecondaryCache>* guard,
         std::string* errmsg) -> rocksdb::SecondaryCache* {
        auto volume = OnlyHintedVolume(SsdSecondaryCache::kClassName(), /*caching=*/true);
        std::shared_ptr<SsdSecondaryCache> cache =
            volume.ok() ? AcquireSsdCache(**volume) : nullptr;
        if (!cache) {
          *errmsg = volume.ok() ? absl::StrCat(SsdSecondaryCache::kClassName(),
                                               ": the volume has no SSD to cache on")
                                : std::string(volume.status().message());
          return nullptr;
        }
        NoteSsdCacheInUse(**volume);
        guard->reset(new SharedSsdCache(std::move(cache)));
        return guard->get();
      });
}

}  // namespace zonestack::rocks
