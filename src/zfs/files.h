// The file handles zfs hands out. Not a public header.
#pragma once

#include <memory>

#include "zfs/volume.h"

namespace zonestack::zfs {

class VolumeImpl;
struct FileMeta;

// REQUIRES: file->writer_open was set by the caller.
std::unique_ptr<WritableFile> NewWritableFile(VolumeImpl* volume, std::shared_ptr<FileMeta> file);
// REQUIRES: file->readers was incremented by the caller.
std::unique_ptr<ReadableFile> NewReadableFile(VolumeImpl* volume, std::shared_ptr<FileMeta> file,
                                              const OpenOptions& options);

}  // namespace zonestack::zfs
