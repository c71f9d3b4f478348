// The one place where zfs's absl::Status meets RocksDB's IOStatus. The
// mapping follows what RocksDB's own POSIX file system returns, because
// RocksDB branches on these codes (NoSpace stops writes and lets the
// SstFileManager recover; NotFound from FileExists means "file is gone").
//
// Named status_map.h, not status.h: with -Isrc, "rocksdb/status.h" inside
// RocksDB's own headers would resolve to a file of ours of that name.
#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "rocksdb/io_status.h"
#include "rocksdb/status.h"

namespace zonestack::rocks {

// Maps a zfs status to what RocksDB expects from a file system call.
// `context` (usually the path) is put in front of the message.
//   OK                -> OK
//   NotFound          -> IOError with subcode PathNotFound (as POSIX ENOENT)
//   ResourceExhausted -> IOError with subcode NoSpace (zfs is out of zones)
//   InvalidArgument   -> InvalidArgument
//   Unimplemented     -> NotSupported
//   DataLoss          -> Corruption (checksum mismatch, corrupt metadata)
//   anything else     -> IOError, with the absl code name in the message
rocksdb::IOStatus ToIOStatus(const absl::Status& status, absl::string_view context = {});

// As ToIOStatus, except NotFound becomes IOStatus::NotFound: what RocksDB
// expects from FileExists and GetChildren (POSIX returns it there too).
rocksdb::IOStatus ToIOStatusForLookup(const absl::Status& status,
                                      absl::string_view context = {});

// The reverse, for callers of the glue that speak absl (OpenDb).
//   NotFound, PathNotFound -> NotFound     NoSpace      -> ResourceExhausted
//   InvalidArgument        -> same         NotSupported -> Unimplemented
//   Corruption             -> DataLoss     Busy, TryAgain, TimedOut -> Unavailable
//   anything else          -> Internal, with RocksDB's text as the message
absl::Status ToAbslStatus(const rocksdb::Status& status);

}  // namespace zonestack::rocks
