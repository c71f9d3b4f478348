// Names and directories: every change is one durable metadata record.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "zfs/files.h"
#include "zfs/volume_impl.h"

namespace zonestack::zfs {
namespace {

absl::Status CheckPath(const std::string& path) {
  if (path.empty() || path[0] != '/' || (path.size() > 1 && path.back() == '/')) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", path, "' is not an absolute path without a trailing slash"));
  }
  return absl::OkStatus();
}

absl::Status NoSuchFile(const std::string& path) {
  return absl::NotFoundError(absl::StrCat(path, ": no such file"));
}

// The record of `f` with `names` in place of its own.
Op PutWithNames(const FileMeta& f, std::vector<std::string> names)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  absl::ReaderMutexLock fl(&f.mu);
  FileRecord r = f.ToRecord();
  r.names = std::move(names);
  return {.type = OpType::kPutFile, .file = std::move(r)};
}

// Ops that take `name` away from `f`: delete it, or rewrite its names.
Op DropName(const FileMeta& f, const std::string& name) {
  if (f.names.size() == 1) return {.type = OpType::kDeleteFile, .id = f.id};
  std::vector<std::string> rest;
  for (const std::string& n : f.names) {
    if (n != name) rest.push_back(n);
  }
  return PutWithNames(f, std::move(rest));
}

}  // namespace

std::shared_ptr<FileMeta> VolumeImpl::Find(const std::string& path) const {
  auto it = names_.find(path);
  if (it == names_.end()) return nullptr;
  return files_.at(it->second);
}

bool VolumeImpl::DirExists(const std::string& path) const {
  return path == "/" || dirs_.contains(path);
}

void VolumeImpl::DroppedName(const std::shared_ptr<FileMeta>& f, const std::string& name) {
  names_.erase(name);
  std::erase(f->names, name);
  if (!f->names.empty()) return;
  files_.erase(f->id);
  f->deleted = true;
  options_.placement->OnRemoved(f->hint);
  if (f->readers == 0 && !f->writer_open) {
    absl::ReaderMutexLock fl(&f->mu);
    ReleaseExtents(f->extents);
  }
}

absl::StatusOr<std::unique_ptr<WritableFile>> VolumeImpl::Create(const std::string& path,
                                                                  const FileHint& hint,
                                                                  bool reopen,
                                                                  bool durable_name) {
  if (auto s = CheckPath(path); !s.ok()) return s;
  absl::MutexLock lock(&mu_);
  if (auto s = CheckWritable(); !s.ok()) return s;
  std::shared_ptr<FileMeta> old = Find(path);
  if (reopen) {
    if (!old) return NoSuchFile(path);
    if (old->writer_open) {
      return absl::FailedPreconditionError(absl::StrCat(path, " is already open for writing"));
    }
    old->writer_open = true;
    return NewWritableFile(this, old);
  }
  if (!DirExists(ParentDir(path))) {
    return absl::NotFoundError(absl::StrCat(ParentDir(path), ": no such directory"));
  }
  if (dirs_.contains(path)) return absl::FailedPreconditionError(absl::StrCat(path, " is a directory"));
  if (old && old->writer_open) {
    return absl::FailedPreconditionError(absl::StrCat(path, " is open for writing"));
  }
  auto f = std::make_shared<FileMeta>(next_id_);
  f->names = {path};
  f->hint = hint;
  f->hint.name = path;
  f->mtime_us = SystemMicros();
  std::vector<Op> ops;
  {
    absl::MutexLock fl(&f->mu);
    ops.push_back({.type = OpType::kPutFile, .file = f->ToRecord()});
  }
  if (old) ops.push_back(DropName(*old, path));  // create truncates: a new file
  if (auto s = Commit(std::move(ops), /*durable=*/durable_name || old); !s.ok()) return s;
  ++next_id_;
  if (old) DroppedName(old, path);
  files_[f->id] = f;
  names_[path] = f->id;
  f->writer_open = true;
  f->name_unflushed = !durable_name && !old;
  if (f->name_unflushed) deferred_names_.push_back(f);
  ResetDeadZones();
  return NewWritableFile(this, f);
}

absl::StatusOr<std::unique_ptr<ReadableFile>> VolumeImpl::Open(const std::string& path,
                                                              const OpenOptions& options) {
  absl::MutexLock lock(&mu_);
  std::shared_ptr<FileMeta> f = Find(path);
  if (!f) return NoSuchFile(path);
  ++f->readers;
  return NewReadableFile(this, f, options);
}

absl::Status VolumeImpl::Delete(const std::string& path, bool durable) {
  absl::MutexLock lock(&mu_);
  std::shared_ptr<FileMeta> f = Find(path);
  if (!f) return NoSuchFile(path);
  if (auto s = Commit({DropName(*f, path)}, durable); !s.ok()) return s;
  if (!durable) deletes_unflushed_ = true;
  DroppedName(f, path);
  ResetDeadZones();
  return absl::OkStatus();
}

absl::Status VolumeImpl::Rename(const std::string& from, const std::string& to) {
  if (auto s = CheckPath(to); !s.ok()) return s;
  absl::MutexLock lock(&mu_);
  if (from != "/" && dirs_.contains(from)) return RenameDir(from, to);
  std::shared_ptr<FileMeta> f = Find(from);
  if (!f) return NoSuchFile(from);
  if (from == to) return absl::OkStatus();
  if (!DirExists(ParentDir(to))) {
    return absl::NotFoundError(absl::StrCat(ParentDir(to), ": no such directory"));
  }
  if (DirExists(to)) return absl::FailedPreconditionError(absl::StrCat(to, " is a directory"));
  std::shared_ptr<FileMeta> target = Find(to);
  if (target == f) return absl::OkStatus();  // links to one file: rename(2) does nothing
  std::vector<std::string> names;
  for (const std::string& n : f->names) names.push_back(n == from ? to : n);
  std::vector<Op> ops = {PutWithNames(*f, names)};
  if (target) ops.push_back(DropName(*target, to));
  if (auto s = Commit(std::move(ops)); !s.ok()) return s;
  if (target) DroppedName(target, to);
  names_.erase(from);
  names_[to] = f->id;
  f->names = names;
  f->hint.name = names[0];
  ResetDeadZones();
  return absl::OkStatus();
}

// One record moves the whole tree: put-dir for each new directory, a
// put-file with the new names for each file with a name below `from`, and
// delete-dir for the old directories, children first. Replay applies them
// in that order, so a crash leaves the tree wholly at `from` or at `to`
// (RocksDB's checkpoint publishes its ".checkpointN.tmp" directory so).
absl::Status VolumeImpl::RenameDir(const std::string& from, const std::string& to) {
  if (to == from) return absl::OkStatus();
  if (to.starts_with(from + "/")) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot move directory ", from, " into itself (", to, ")"));
  }
  if (!DirExists(ParentDir(to))) {
    return absl::NotFoundError(absl::StrCat(ParentDir(to), ": no such directory"));
  }
  if (names_.contains(to)) {
    return absl::FailedPreconditionError(absl::StrCat(to, " is a file, not a directory"));
  }
  const std::string prefix = from + "/";
  const bool target_exists = DirExists(to);
  if (target_exists) {  // rename(2): an empty directory is replaced
    const std::string tprefix = to == "/" ? "/" : to + "/";
    auto n = names_.lower_bound(tprefix);
    auto d = dirs_.lower_bound(tprefix);
    if (to == "/" || (n != names_.end() && n->first.starts_with(tprefix)) ||
        (d != dirs_.end() && d->starts_with(tprefix))) {
      return absl::FailedPreconditionError(absl::StrCat(to, ": directory not empty"));
    }
  }
  auto moved = [&](const std::string& path) {
    return path.starts_with(prefix) ? to + path.substr(from.size()) : path;
  };
  std::vector<std::string> old_dirs = {from};
  for (auto d = dirs_.lower_bound(prefix); d != dirs_.end() && d->starts_with(prefix); ++d) {
    old_dirs.push_back(*d);
  }
  std::vector<std::shared_ptr<FileMeta>> files;  // each once, even with two names below
  for (auto n = names_.lower_bound(prefix); n != names_.end() && n->first.starts_with(prefix);
       ++n) {
    std::shared_ptr<FileMeta> f = files_.at(n->second);
    if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);
  }
  std::vector<Op> ops;
  for (const std::string& d : old_dirs) {  // sorted: parents before children
    if (d == from && target_exists) continue;
    ops.push_back({.type = OpType::kPutDir, .path = d == from ? to : moved(d)});
  }
  std::vector<std::vector<std::string>> new_names;
  for (const auto& f : files) {
    std::vector<std::string> names;
    for (const std::string& n : f->names) names.push_back(moved(n));
    ops.push_back(PutWithNames(*f, names));
    new_names.push_back(std::move(names));
  }
  for (auto d = old_dirs.rbegin(); d != old_dirs.rend(); ++d) {
    ops.push_back({.type = OpType::kDeleteDir, .path = *d});
  }
  if (auto s = Commit(std::move(ops)); !s.ok()) return s;
  for (size_t i = 0; i < files.size(); ++i) {
    for (const std::string& n : files[i]->names) names_.erase(n);
    files[i]->names = std::move(new_names[i]);
    for (const std::string& n : files[i]->names) names_[n] = files[i]->id;
    files[i]->hint.name = files[i]->names[0];
  }
  for (const std::string& d : old_dirs) dirs_.erase(d);
  dirs_.insert(to);
  for (const std::string& d : old_dirs) {
    if (d != from) dirs_.insert(moved(d));
  }
  return absl::OkStatus();
}

absl::Status VolumeImpl::Link(const std::string& from, const std::string& to) {
  if (auto s = CheckPath(to); !s.ok()) return s;
  absl::MutexLock lock(&mu_);
  std::shared_ptr<FileMeta> f = Find(from);
  if (!f) return NoSuchFile(from);
  if (names_.contains(to) || dirs_.contains(to)) {
    return absl::AlreadyExistsError(absl::StrCat(to, " exists"));
  }
  if (!DirExists(ParentDir(to))) {
    return absl::NotFoundError(absl::StrCat(ParentDir(to), ": no such directory"));
  }
  std::vector<std::string> names = f->names;
  names.push_back(to);
  if (auto s = Commit({PutWithNames(*f, names)}); !s.ok()) return s;
  f->names = names;
  names_[to] = f->id;
  return absl::OkStatus();
}

absl::StatusOr<FileStat> VolumeImpl::Stat(const std::string& path) const {
  absl::MutexLock lock(&mu_);
  if (DirExists(path)) return FileStat{.is_dir = true};
  std::shared_ptr<FileMeta> f = Find(path);
  if (!f) return NoSuchFile(path);
  return FileStat{.size = f->size.load(),
                  .mtime_us = f->mtime_us,
                  .links = static_cast<uint32_t>(f->names.size())};
}

absl::StatusOr<std::vector<std::string>> VolumeImpl::List(const std::string& dir) const {
  absl::MutexLock lock(&mu_);
  if (!DirExists(dir)) return absl::NotFoundError(absl::StrCat(dir, ": no such directory"));
  const std::string prefix = dir == "/" ? "/" : dir + "/";
  std::vector<std::string> out;
  auto add = [&](const std::string& path) {
    if (!path.starts_with(prefix) || path.size() == prefix.size()) return false;
    const std::string rest = path.substr(prefix.size());
    if (rest.find('/') == std::string::npos) out.push_back(rest);
    return true;
  };
  for (auto it = names_.lower_bound(prefix); it != names_.end() && add(it->first); ++it) {
  }
  for (auto it = dirs_.lower_bound(prefix); it != dirs_.end() && add(*it); ++it) {
  }
  return out;
}

absl::Status VolumeImpl::CreateDir(const std::string& path) {
  if (auto s = CheckPath(path); !s.ok()) return s;
  absl::MutexLock lock(&mu_);
  // Like mkdir -p: missing parents are created in the same record.
  std::vector<Op> ops;
  for (std::string p = path; !DirExists(p); p = ParentDir(p)) {
    if (names_.contains(p)) return absl::AlreadyExistsError(absl::StrCat(p, " is a file"));
    ops.insert(ops.begin(), {.type = OpType::kPutDir, .path = p});
  }
  if (ops.empty()) return absl::OkStatus();
  if (auto s = Commit(ops); !s.ok()) return s;
  for (const Op& op : ops) dirs_.insert(op.path);
  return absl::OkStatus();
}

absl::Status VolumeImpl::DeleteDir(const std::string& path) {
  absl::MutexLock lock(&mu_);
  if (path == "/") return absl::InvalidArgumentError("cannot delete the root directory");
  if (!dirs_.contains(path)) return absl::NotFoundError(absl::StrCat(path, ": no such directory"));
  const std::string prefix = path + "/";
  auto n = names_.lower_bound(prefix);
  auto d = dirs_.lower_bound(prefix);
  if ((n != names_.end() && n->first.starts_with(prefix)) ||
      (d != dirs_.end() && d->starts_with(prefix))) {
    return absl::FailedPreconditionError(absl::StrCat(path, ": directory not empty"));
  }
  if (auto s = Commit({{.type = OpType::kDeleteDir, .path = path}}); !s.ok()) return s;
  dirs_.erase(path);
  return absl::OkStatus();
}

absl::Status VolumeImpl::SetHint(const std::string& path, const FileHint& hint) {
  absl::MutexLock lock(&mu_);
  std::shared_ptr<FileMeta> f = Find(path);
  if (!f) return NoSuchFile(path);
  // Logged now: a closed file, or one with nothing new to sync, would
  // otherwise lose it at the next mount. Not flushed: a hint guides
  // placement only, and the next durable change carries it.
  FileHint updated = f->hint;
  updated.kind = hint.kind;
  updated.lifetime = hint.lifetime;
  if (hint.level >= 0) updated.level = hint.level;
  Op op = PutWithNames(*f, f->names);
  op.file.kind = updated.kind;
  op.file.lifetime = updated.lifetime;
  op.file.level = updated.level;
  if (auto s = Commit({op}, /*durable=*/false); !s.ok()) return s;
  f->hint = updated;
  return absl::OkStatus();
}

}  // namespace zonestack::zfs
