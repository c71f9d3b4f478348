#include "glue/hint_listener.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "glue/background_job.h"
#include "glue/ssd_secondary_cache.h"
#include "glue/status_map.h"
#include "glue/volume_registry.h"

namespace zonestack::rocks {
namespace {

// The SST this thread last started to write. RocksDB reports an empty
// compaction output as "(nil)" in OnTableFileCreated, on the thread that
// started it (docs/rocksdb.md section 1).
thread_local int64_t tls_started_sst = -1;

std::vector<std::pair<uint64_t, int>> Inputs(const rocksdb::CompactionJobInfo& ci) {
  std::vector<std::pair<uint64_t, int>> inputs;
  inputs.reserve(ci.input_file_infos.size());
  for (const rocksdb::CompactionFileInfo& f : ci.input_file_infos) {
    inputs.emplace_back(f.file_number,
                        AbsoluteInputLevel(f.level, ci.base_input_level, ci.output_level));
  }
  return inputs;
}

std::string JoinPath(const std::string& dir, const std::string& name) {
  if (!dir.empty() && dir.back() == '/') return dir + name;
  return absl::StrCat(dir, "/", name);
}

// A flush (or recovery) writes its SST between OnTableFileCreationStarted and
// OnTableFileCreated on one thread, and reads it back there to verify it.
bool IsFlushLike(rocksdb::TableFileCreationReason reason) {
  return reason == rocksdb::TableFileCreationReason::kFlush ||
         reason == rocksdb::TableFileCreationReason::kRecovery;
}

}  // namespace

int AbsoluteInputLevel(int input_level_index, int base_level, int output_level) {
  if (input_level_index <= 0) return base_level;
  if (base_level == 0) return output_level;
  return std::min(base_level + input_level_index, output_level);
}

HintListener::HintListener(std::shared_ptr<policy::Scheme> scheme,
                           std::shared_ptr<ZoneStackFileSystem> fs,
                           std::shared_ptr<SsdSecondaryCache> cache)
    : scheme_(std::move(scheme)), fs_(std::move(fs)), cache_(std::move(cache)) {
  CountHintListener(*fs_->volume(), +1);
}

HintListener::~HintListener() { CountHintListener(*fs_->volume(), -1); }

void HintListener::PersistLevel(const std::string& path, int level) {
  // Advice only: a file deleted meanwhile is NotFound, and placement
  // still works from the view if zfs's record stays behind.
  fs_->SetSstLevel(path, level).IgnoreError();
}

absl::Status HintListener::Resync(rocksdb::DB* db,
                                  const std::vector<rocksdb::ColumnFamilyHandle*>& cfs) {
  // Under mu_ throughout: a callback that ran before saw a state older
  // than the metadata read here; one that waits applies a newer one.
  // RocksDB invokes callbacks without its DB mutex, so waiting on mu_
  // there cannot deadlock with the DB mutex taken here.
  absl::MutexLock lock(&mu_);
  std::vector<rocksdb::LiveFileMetaData> live;
  db->GetLiveFilesMetaData(&live);
  policy::LsmView& view = scheme_->view();
  for (const rocksdb::LiveFileMetaData& f : live) {
    view.SetLevel(f.file_number, f.level, f.size);
    PersistLevel(JoinPath(f.directory, f.relative_filename), f.level);
  }
  if (!cache_) return absl::OkStatus();
  std::vector<rocksdb::ColumnFamilyHandle*> families = cfs;
  if (families.empty()) families.push_back(db->DefaultColumnFamily());
  absl::Status status;
  for (rocksdb::ColumnFamilyHandle* cf : families) {
    rocksdb::TablePropertiesCollection props;
    if (rocksdb::Status s = db->GetPropertiesOfAllTables(cf, &props); !s.ok()) {
      status.Update(ToAbslStatus(s));
      continue;
    }
    for (const auto& [path, p] : props) {
      const int64_t number = policy::SstNumber(path);
      if (number >= 0 && p) cache_->AddTable(static_cast<uint64_t>(number), *p);
    }
  }
  return status;
}

void HintListener::DbClosed() {
  absl::MutexLock lock(&mu_);
  for (const auto& [job, unused] : jobs_) scheme_->view().CompactionFinished(job, {});
  jobs_.clear();
}

void HintListener::OnTableFileCreationStarted(const rocksdb::TableFileCreationBriefInfo& info) {
  if (IsFlushLike(info.reason)) EnterBackgroundJob(BackgroundJob::kFlush);
  const int64_t number = policy::SstNumber(info.file_path);
  tls_started_sst = number;
  if (number < 0) return;
  policy::LsmView& view = scheme_->view();
  switch (info.reason) {
    case rocksdb::TableFileCreationReason::kFlush:
    case rocksdb::TableFileCreationReason::kRecovery:
      view.FlushFileStarted(static_cast<uint64_t>(number));  // flushing hint: L0
      break;
    case rocksdb::TableFileCreationReason::kCompaction:
      // Compaction hint (ii); the job is known from OnCompactionBegin or,
      // for CompactFiles, from OnSubcompactionBegin on this thread.
      view.CompactionFileStarted(info.job_id, static_cast<uint64_t>(number));
      break;
    case rocksdb::TableFileCreationReason::kMisc:
      break;  // no level to tell
  }
}

void HintListener::OnCompactionBegin(rocksdb::DB* /*db*/, const rocksdb::CompactionJobInfo& ci) {
  EnterBackgroundJob(BackgroundJob::kCompaction);
  absl::MutexLock lock(&mu_);
  jobs_[ci.job_id] = Job{};
  // Compaction hint (i): the selected SSTs and the level they merge into.
  scheme_->view().CompactionStarted(ci.job_id, ci.output_level, Inputs(ci));
}

void HintListener::OnSubcompactionBegin(const rocksdb::SubcompactionJobInfo& si) {
  EnterBackgroundJob(BackgroundJob::kCompaction);
  absl::MutexLock lock(&mu_);
  auto [it, added] = jobs_.try_emplace(si.job_id);
  if (added) {
    // No OnCompactionBegin: CompactFiles (or a begin RocksDB skipped). The
    // output level is all there is; no inputs, so no demand either.
    it->second.from_subcompactions = true;
    scheme_->view().CompactionStarted(si.job_id, si.output_level, {});
  }
  if (it->second.from_subcompactions) ++it->second.running_subcompactions;
}

void HintListener::OnSubcompactionCompleted(const rocksdb::SubcompactionJobInfo& si) {
  LeaveBackgroundJob(BackgroundJob::kCompaction);
  absl::MutexLock lock(&mu_);
  auto it = jobs_.find(si.job_id);
  if (it == jobs_.end() || !it->second.from_subcompactions) return;
  // A subcompaction that starts late re-registers the job: harmless.
  if (--it->second.running_subcompactions > 0) return;
  scheme_->view().CompactionFinished(si.job_id, it->second.outputs);
  jobs_.erase(it);
}

void HintListener::OnTableFileCreated(const rocksdb::TableFileCreationInfo& info) {
  if (IsFlushLike(info.reason)) LeaveBackgroundJob(BackgroundJob::kFlush);
  int64_t number = policy::SstNumber(info.file_path);
  if (number < 0) number = tls_started_sst;  // "(nil)": an empty output
  tls_started_sst = -1;
  if (number < 0) return;
  const auto n = static_cast<uint64_t>(number);
  absl::MutexLock lock(&mu_);
  policy::LsmView& view = scheme_->view();
  if (!info.status.ok() || info.file_size == 0) {
    view.TableFileDeleted(n);  // not kept: forget its pending level
    return;
  }
  view.TableFileCreated(n, info.file_size);
  if (info.reason == rocksdb::TableFileCreationReason::kCompaction) {
    auto it = jobs_.find(info.job_id);
    if (it != jobs_.end() && it->second.from_subcompactions) it->second.outputs.push_back(n);
  }
  if (cache_) cache_->AddTable(n, info.table_properties);
}

void HintListener::FinishJobLocked(const rocksdb::CompactionJobInfo& ci) {
  policy::LsmView& view = scheme_->view();
  auto it = jobs_.find(ci.job_id);
  if (it == jobs_.end()) {
    // RocksDB skipped the begin (a paused manual compaction), or the job
    // was already finished from its subcompactions: register it so that
    // a trivial move is still relabelled.
    view.CompactionStarted(ci.job_id, ci.output_level, Inputs(ci));
  } else {
    jobs_.erase(it);
  }
  std::vector<uint64_t> outputs;
  if (ci.status.ok()) {
    for (const rocksdb::CompactionFileInfo& f : ci.output_file_infos) {
      outputs.push_back(f.file_number);
    }
  }
  // Compaction hint (iii).
  view.CompactionFinished(ci.job_id, outputs);
  if (outputs.empty()) return;

  std::vector<uint64_t> inputs;
  for (const rocksdb::CompactionFileInfo& f : ci.input_file_infos) inputs.push_back(f.file_number);
  std::vector<uint64_t> sorted_outputs = outputs;
  std::sort(inputs.begin(), inputs.end());
  std::sort(sorted_outputs.begin(), sorted_outputs.end());
  const bool trivial_move = inputs == sorted_outputs;
  // output_file_infos levels are absolute, unlike the inputs'.
  for (size_t i = 0; i < ci.output_file_infos.size() && i < ci.output_files.size(); ++i) {
    const rocksdb::CompactionFileInfo& f = ci.output_file_infos[i];
    if (trivial_move) {
      // No file was written, so zfs learns the new level only here.
      PersistLevel(ci.output_files[i], f.level);
    } else if (f.level != ci.output_level) {
      // Per-key placement wrote this output to the penultimate level,
      // not the job's output level its creation hint assumed.
      if (auto sst = view.Sst(f.file_number)) view.SetLevel(f.file_number, f.level, sst->size);
      PersistLevel(ci.output_files[i], f.level);
    }
  }
}

void HintListener::OnCompactionCompleted(rocksdb::DB* /*db*/,
                                         const rocksdb::CompactionJobInfo& ci) {
  LeaveBackgroundJob(BackgroundJob::kCompaction);
  absl::MutexLock lock(&mu_);
  FinishJobLocked(ci);
}

void HintListener::OnTableFileDeleted(const rocksdb::TableFileDeletionInfo& info) {
  const int64_t number = policy::SstNumber(info.file_path);
  if (number < 0 || !info.status.ok()) return;  // a failed delete leaves it live
  const auto n = static_cast<uint64_t>(number);
  absl::MutexLock lock(&mu_);
  scheme_->view().TableFileDeleted(n);
  if (cache_) cache_->RemoveTable(n);
}

void HintListener::OnExternalFileIngested(rocksdb::DB* db,
                                          const rocksdb::ExternalFileIngestionInfo& /*info*/) {
  // Called without the DB mutex, so the DB may be asked here. A failure
  // to read table properties only leaves the SSD cache unable to map the
  // new SST's blocks: they are not cached.
  Resync(db).IgnoreError();
}

}  // namespace zonestack::rocks
