#include "glue/background_job.h"

namespace zonestack::rocks {
namespace {

thread_local int tls_flush_depth = 0;
thread_local int tls_compaction_depth = 0;

int& Depth(BackgroundJob job) {
  return job == BackgroundJob::kFlush ? tls_flush_depth : tls_compaction_depth;
}

}  // namespace

void EnterBackgroundJob(BackgroundJob job) {
  if (job != BackgroundJob::kNone) ++Depth(job);
}

void LeaveBackgroundJob(BackgroundJob job) {
  if (job != BackgroundJob::kNone && Depth(job) > 0) --Depth(job);
}

BackgroundJob CurrentBackgroundJob() {
  if (tls_compaction_depth > 0) return BackgroundJob::kCompaction;
  if (tls_flush_depth > 0) return BackgroundJob::kFlush;
  return BackgroundJob::kNone;
}

}  // namespace zonestack::rocks
