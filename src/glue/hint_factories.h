// RocksDB object factories through which an unmodified program (db_bench,
// db_stress) attaches ZoneStack's hints without code:
//  - EventListener "ZoneStackHintListener": an OPTIONS file's
//    `listeners={ZoneStackHintListener}` line under [DBOptions], passed with
//    db_bench's --options_file;
//  - SecondaryCache "ZoneStackSsdCache": db_bench's
//    --secondary_cache_uri=ZoneStackSsdCache.
// Both find their volume in the process-wide volume registry (see each
// class), so the program must have mounted it first through --fs_uri.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "glue/hint_listener.h"
#include "glue/ssd_secondary_cache.h"
#include "rocksdb/listener.h"
#include "rocksdb/secondary_cache.h"
#include "rocksdb/utilities/object_registry.h"

namespace zonestack::rocks {

// Adds both factories to `library`. RegisterZoneStack calls it.
void RegisterHintFactories(rocksdb::ObjectLibrary& library);

// The listener an OPTIONS file names. RocksDB's factory call passes nothing
// but the name, and RocksDB 7.8 calls no PrepareOptions on listeners parsed
// from a file, so the factory binds it at once to the one mounted volume
// with a hinted scheme (OnlyHintedVolume): the program mounts it through
// --fs_uri before it loads the file. With no such volume, or several, the
// factory fails and so does loading the file (db_bench: "Unable to load
// options file"), instead of running without hints. At the first flush or
// compaction it brings the scheme's view in line with the DB's live SSTs
// (HintListener::Resync), which OpenDb does right after the open; an
// OPTIONS file has no hook there.
//
// Thread-safety: the callbacks may come from any thread.
class OptionsFileHintListener : public rocksdb::EventListener {
 public:
  explicit OptionsFileHintListener(std::shared_ptr<HintListener> inner)
      : inner_(std::move(inner)) {}
  // A listener for the one mounted volume with a hinted scheme, over a new
  // file system of that volume. InvalidArgument as OnlyHintedVolume.
  static absl::StatusOr<std::unique_ptr<OptionsFileHintListener>> ForOnlyHintedVolume();

  static const char* kClassName() { return HintListener::kClassName(); }
  const char* Name() const override { return kClassName(); }
  std::string GetId() const override { return ""; }  // as HintListener's
  const std::shared_ptr<HintListener>& inner() const { return inner_; }

  void OnFlushBegin(rocksdb::DB* db, const rocksdb::FlushJobInfo& info) override;
  void OnTableFileCreationStarted(const rocksdb::TableFileCreationBriefInfo& info) override;
  void OnCompactionBegin(rocksdb::DB* db, const rocksdb::CompactionJobInfo& ci) override;
  void OnSubcompactionBegin(const rocksdb::SubcompactionJobInfo& si) override;
  void OnSubcompactionCompleted(const rocksdb::SubcompactionJobInfo& si) override;
  void OnTableFileCreated(const rocksdb::TableFileCreationInfo& info) override;
  void OnCompactionCompleted(rocksdb::DB* db, const rocksdb::CompactionJobInfo& ci) override;
  void OnTableFileDeleted(const rocksdb::TableFileDeletionInfo& info) override;
  void OnExternalFileIngested(rocksdb::DB* db,
                              const rocksdb::ExternalFileIngestionInfo& info) override;

 private:
  void ResyncOnce(rocksdb::DB* db);

  const std::shared_ptr<HintListener> inner_;
  std::atomic<bool> resynced_{false};
};

// The secondary cache db_bench's --secondary_cache_uri names: the SSD cache
// of the one mounted volume whose scheme caches (OnlyHintedVolume), shared
// with that volume's hint listener. RocksDB's registry wants an object it
// owns, so this forwards to the volume's cache, which lives per mount.
class SharedSsdCache : public rocksdb::SecondaryCache {
 public:
  explicit SharedSsdCache(std::shared_ptr<SsdSecondaryCache> cache) : cache_(std::move(cache)) {}
  const char* Name() const override { return cache_->Name(); }
  rocksdb::Status Insert(const rocksdb::Slice& key, void* value,
                         const rocksdb::Cache::CacheItemHelper* helper) override {
    return cache_->Insert(key, value, helper);
  }
  std::unique_ptr<rocksdb::SecondaryCacheResultHandle> Lookup(
      const rocksdb::Slice& key, const rocksdb::Cache::CreateCallback& create_cb, bool wait,
      bool advise_erase, bool& is_in_sec_cache) override {
    return cache_->Lookup(key, create_cb, wait, advise_erase, is_in_sec_cache);
  }
  bool SupportForceErase() const override { return cache_->SupportForceErase(); }
  void Erase(const rocksdb::Slice& key) override { cache_->Erase(key); }
  void WaitAll(std::vector<rocksdb::SecondaryCacheResultHandle*> handles) override {
    cache_->WaitAll(std::move(handles));
  }
  std::string GetPrintableOptions() const override { return cache_->GetPrintableOptions(); }

 private:
  const std::shared_ptr<SsdSecondaryCache> cache_;
};

}  // namespace zonestack::rocks
