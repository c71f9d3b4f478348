// Which RocksDB background job the calling thread is inside, as the
// HintListener learns it from the job's own callbacks (RocksDB calls them
// on the job's threads: docs/rocksdb.md section 1).
//
// The I/O priority alone cannot tell a background read from a user read:
// RocksDB 7.8 raises flush and compaction I/O to IO_USER while writes are
// delayed or stopped (FlushJob/CompactionJob::GetRateLimiterPriority), so
// under a write stall compaction reads would count as user reads, and feed
// HHZS's per-SST read rates and its HDD read-rate trigger (3.4).
#pragma once

namespace zonestack::rocks {

enum class BackgroundJob { kNone, kFlush, kCompaction };

// Enter/Leave nest per thread (a compaction's first subcompaction runs on
// the job's own thread); a Leave without its Enter is ignored.
void EnterBackgroundJob(BackgroundJob job);
void LeaveBackgroundJob(BackgroundJob job);

// The job the calling thread is in; compaction wins if both are open.
BackgroundJob CurrentBackgroundJob();

}  // namespace zonestack::rocks
