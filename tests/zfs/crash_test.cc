// Crash consistency. Each iteration runs a random workload (creates,
// appends, syncs, closes, reopens, renames, links, deletes, directories
// made, renamed with their files and deleted, forced GC) against a model of what was acknowledged, cuts the power
// between operations or in the middle of one (EmulatedDevice::PowerOffAfter),
// mounts again and checks: every acknowledged name change is there, every
// file holds at least its synced bytes and at most what was appended, as a
// prefix of what was written, and fsck finds nothing.
//
// The random test's iteration i uses seed i; ZS_CRASH_SEED=N runs only
// seed N, ZS_CRASH_ITERATIONS=N runs N seeds. Two more tests cut at every
// device command of fixed workloads and of a metadata log roll.
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "ssd_first_placement.h"
#include "zfs_test_util.h"

namespace zonestack::zfs {
namespace {

using namespace testing_util;

struct FileState {
  uint64_t seed = 0;
  uint64_t synced = 0;   // acknowledged by Sync or Close
  uint64_t written = 0;  // appended, acknowledged or not
};

// What the volume must show after a crash. Files are never forgotten (a
// deleted file may still have a writer); names say which are live.
struct Model {
  std::map<std::string, int> names;
  std::map<int, FileState> files;
  std::set<std::string> dirs;  // besides "/"
};

class Workload {
 public:
  Workload(uint64_t seed, Volume* vol) : rng_(seed), vol_(vol) {}

  // Runs one random operation. Returns false when it failed because the
  // power went; `model_` then holds the state without the operation and
  // `uncertain_` the state with it.
  bool Step() {
    const int op = static_cast<int>(rng_() % 100);
    if (op < 12) return Create();
    if (op < 42) return Append();
    if (op < 54) return Sync(/*close=*/false);
    if (op < 62) return Sync(/*close=*/true);
    if (op < 66) return Reopen();
    if (op < 76) return Rename();
    if (op < 80) return Link();
    if (op < 88) return Delete();
    if (op < 92) return Dirs();
    if (op < 96) return Read();
    if (op < 98 && vol_->devices().size() > 1) return Relocate();
    return Gc();
  }

  Model model_;
  std::optional<Model> uncertain_;
  std::vector<std::pair<int, std::unique_ptr<WritableFile>>> writers_;

 private:
  std::string RandomPath() {
    static const char* kDirs[] = {"", "", "/a", "/b"};
    // Names longer than a block make records of two blocks, which leave
    // the metadata zone with a block no record fits in.
    if (rng_() % 8 == 0) return absl::StrCat("/", std::string(5000, 'L'), rng_() % 2);
    return absl::StrCat(kDirs[rng_() % 4], "/f", rng_() % 5);
  }
  std::string ExistingPath() {
    if (model_.names.empty()) return RandomPath();
    auto it = model_.names.begin();
    std::advance(it, rng_() % model_.names.size());
    return it->first;
  }
  bool HasWriter(int id) const {
    for (const auto& [wid, w] : writers_) {
      if (wid == id) return true;
    }
    return false;
  }
  bool ParentExists(const std::string& path) const {
    const std::string parent = ParentDir(path);
    return parent == "/" || model_.dirs.contains(parent);
  }
  static std::string ParentDir(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == 0 ? "/" : path.substr(0, slash);
  }
  // Records the outcome of an operation whose model effect is `apply`.
  bool Done(const absl::Status& s, const std::function<void(Model&)>& apply) {
    if (s.ok()) {
      apply(model_);
      return true;
    }
    EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << "unexpected failure: " << s;
    uncertain_ = model_;
    apply(*uncertain_);
    return false;
  }

  bool Create() {
    const std::string path = RandomPath();
    if (!ParentExists(path) || model_.dirs.contains(path)) return true;
    if (auto it = model_.names.find(path); it != model_.names.end() && HasWriter(it->second)) {
      return true;
    }
    const int id = next_id_++;
    auto w = vol_->Create(path, {.lifetime = static_cast<Lifetime>(rng_() % 3)});
    const bool ok = Done(w.status(), [&](Model& m) {
      m.files[id] = {.seed = rng_seed_base_ + static_cast<uint64_t>(id)};
      m.names[path] = id;
    });
    if (ok) writers_.push_back({id, std::move(*w)});
    return ok;
  }

  bool Append() {
    if (writers_.empty()) return true;
    auto& [id, w] = writers_[rng_() % writers_.size()];
    FileState& f = model_.files[id];
    const uint64_t n = rng_() % 8 == 0 ? 1 + rng_() % (700 << 10) : 1 + rng_() % 20000;
    const absl::Status s = w->Append(Pattern(f.seed, f.written, n));
    f.written += n;  // buffered even when the write-out failed
    if (uncertain_) uncertain_->files[id].written = f.written;
    return Done(s, [](Model&) {});
  }

  bool Sync(bool close) {
    if (writers_.empty()) return true;
    const size_t i = rng_() % writers_.size();
    const int id = writers_[i].first;
    const absl::Status s = close ? writers_[i].second->Close() : writers_[i].second->Sync();
    if (close) writers_.erase(writers_.begin() + static_cast<long>(i));
    return Done(s, [&](Model& m) { m.files[id].synced = m.files[id].written; });
  }

  bool Reopen() {
    const std::string path = ExistingPath();
    auto it = model_.names.find(path);
    if (it == model_.names.end() || HasWriter(it->second)) return true;
    const int id = it->second;
    auto w = vol_->Reopen(path);
    if (!w.ok()) return Done(w.status(), [](Model&) {});
    EXPECT_EQ((*w)->size(), model_.files[id].written) << path;
    writers_.push_back({id, std::move(*w)});
    return true;
  }

  bool Rename() {
    const std::string from = ExistingPath(), to = RandomPath();
    if (!model_.names.contains(from) || !ParentExists(to) || model_.dirs.contains(to)) return true;
    return Done(vol_->Rename(from, to), [&](Model& m) {
      const int id = m.names.at(from);
      if (auto t = m.names.find(to); t != m.names.end() && t->second == id) return;  // rename(2)
      m.names.erase(from);
      m.names[to] = id;
    });
  }

  bool Link() {
    const std::string from = ExistingPath(), to = RandomPath();
    if (!model_.names.contains(from) || model_.names.contains(to) || !ParentExists(to) ||
        model_.dirs.contains(to)) {
      return true;
    }
    return Done(vol_->Link(from, to), [&](Model& m) { m.names[to] = m.names.at(from); });
  }

  bool Delete() {
    const std::string path = ExistingPath();
    if (!model_.names.contains(path)) return true;
    return Done(vol_->Delete(path), [&](Model& m) { m.names.erase(path); });
  }

  bool Dirs() {
    const std::string dir = rng_() % 2 ? "/a" : "/b";
    const std::string other = dir == "/a" ? "/b" : "/a";
    if (!model_.dirs.contains(dir)) {
      return Done(vol_->CreateDir(dir), [&](Model& m) { m.dirs.insert(dir); });
    }
    if (!model_.dirs.contains(other) && rng_() % 2) {
      // The directory with its files (and open writers) moves in one record.
      return Done(vol_->Rename(dir, other), [&](Model& m) {
        std::map<std::string, int> names;
        for (const auto& [name, id] : m.names) {
          names[name.starts_with(dir + "/") ? other + name.substr(dir.size()) : name] = id;
        }
        m.names = std::move(names);
        m.dirs.erase(dir);
        m.dirs.insert(other);
      });
    }
    for (const auto& [name, id] : model_.names) {
      if (name.starts_with(dir + "/")) return true;
    }
    return Done(vol_->DeleteDir(dir), [&](Model& m) { m.dirs.erase(dir); });
  }

  // Reads see what was written out, a prefix of what was appended.
  bool Read() {
    const std::string path = ExistingPath();
    auto it = model_.names.find(path);
    if (it == model_.names.end()) return true;
    const FileState& f = model_.files[it->second];
    auto r = vol_->Open(path);
    if (!r.ok()) return Done(r.status(), [](Model&) {});
    const uint64_t size = (*r)->size();
    EXPECT_LE(size, f.written) << path;
    const uint64_t off = size == 0 ? 0 : rng_() % size;
    std::vector<uint8_t> buf(std::min<uint64_t>(size - off, 100000));
    auto n = (*r)->Read(off, buf);
    if (!n.ok()) return Done(n.status(), [](Model&) {});
    EXPECT_EQ(*n, buf.size());
    EXPECT_TRUE(MatchesPattern(f.seed, off, buf)) << path << " @" << off;
    return true;
  }

  bool Gc() {
    auto gc = vol_->CollectGarbage(/*force=*/true);
    return Done(gc.status(), [](Model&) {});
  }

  bool Relocate() {
    const std::string path = ExistingPath();
    auto it = model_.names.find(path);
    if (it == model_.names.end() || HasWriter(it->second)) return true;
    const uint32_t to = static_cast<uint32_t>(rng_() % vol_->devices().size());
    return Done(vol_->Relocate(path, to), [](Model&) {});
  }

  std::mt19937_64 rng_;
  Volume* vol_;
  int next_id_ = 1;
  const uint64_t rng_seed_base_ = rng_() << 16;
};

// Everything that differs between the mounted volume and `m`.
std::vector<std::string> Differences(const Volume& vol, const Model& m) {
  std::vector<std::string> out;
  std::set<std::string> files, dirs;
  std::vector<std::string> todo = {"/"};
  while (!todo.empty()) {
    const std::string dir = todo.back();
    todo.pop_back();
    auto names = vol.List(dir);
    if (!names.ok()) {
      out.push_back(std::string(names.status().message()));
      continue;
    }
    for (const std::string& n : *names) {
      const std::string path = (dir == "/" ? "" : dir) + "/" + n;
      auto st = vol.Stat(path);
      if (st.ok() && st->is_dir) {
        dirs.insert(path);
        todo.push_back(path);
      } else {
        files.insert(path);
      }
    }
  }
  if (dirs != m.dirs) out.push_back("directories differ");
  for (const std::string& f : files) {
    if (!m.names.contains(f)) out.push_back(f + " exists but should not");
  }
  for (const auto& [path, id] : m.names) {
    const FileState& f = m.files.at(id);
    auto data = ReadFile(vol, path);
    if (!data.ok()) {
      out.push_back(path + ": " + std::string(data.status().message()));
      continue;
    }
    if (data->size() < f.synced || data->size() > f.written) {
      out.push_back(absl::StrCat(path, ": ", data->size(), " bytes, synced ", f.synced,
                                 ", written ", f.written));
    }
    if (!MatchesPattern(f.seed, 0, *data)) out.push_back(path + ": content differs");
  }
  return out;
}

// Where an iteration cuts the power: after `ops` operations, or, with
// `arm_at` >= 0, when the device has run `budget` more state-changing
// commands after operation `arm_at` started. `warm` record pairs first fill
// the metadata zone part way, so the log rolls at a chosen point.
struct Plan {
  bool hybrid = false;  // an SSD and an SMR disk, "hybrid" placement
  uint32_t cut_device = 0;
  uint64_t warm = 0;
  int ops = 0;
  int arm_at = -1;
  uint64_t budget = 0;
  int recovery_budget = -1;  // >= 0: the power also goes during the first mount
};

Plan RandomPlan(uint64_t seed) {
  std::mt19937_64 rng(seed);
  Plan p;
  p.hybrid = rng() % 3 == 0;
  p.cut_device = p.hybrid ? static_cast<uint32_t>(rng() % 2) : 0;
  p.warm = rng() % 70;
  p.ops = 30 + static_cast<int>(rng() % 150);
  if (rng() % 2 == 0) {
    p.arm_at = static_cast<int>(rng() % p.ops);
    p.budget = rng() % 12;
  }
  if (rng() % 4 == 0) p.recovery_budget = static_cast<int>(rng() % 4);
  return p;
}

// Runs one iteration; `*cut` tells whether the power went before the
// workload ended.
void RunIteration(uint64_t seed, const Plan& plan, bool* cut) {
  SCOPED_TRACE(absl::StrCat("workload seed ", seed, ", cut ",
                            plan.arm_at < 0 ? "after the last operation"
                                            : absl::StrCat("after ", plan.budget,
                                                           " commands from operation ",
                                                           plan.arm_at)));
  // 1 MiB zones of 538 KiB: files cross zones and the log rolls often.
  Devices devs = {OpenDev("emu:zn540?zones=64&scale=1/2048&timing=none")};
  MountOptions options;
  if (plan.hybrid) {
    devs = {OpenDev("emu:zn540?zones=16&scale=1/2048&timing=none"), OpenDev(SmrUri(48))};
    options.placement = SsdFirst();
  }
  ASSERT_OK(Volume::Format(devs));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Volume> vol, Volume::Mount(devs, options));
  for (uint64_t i = 0; i < plan.warm; ++i) {
    ASSERT_OK(vol->CreateDir("/warm"));
    ASSERT_OK(vol->DeleteDir("/warm"));
  }
  Workload w(seed * 7919 + 1, vol.get());
  for (int i = 0; i < plan.ops; ++i) {
    if (i == plan.arm_at) Emu(devs[plan.cut_device])->PowerOffAfter(plan.budget);
    if (!w.Step()) {  // the power went in the middle of it
      *cut = true;
      break;
    }
    if (::testing::Test::HasFailure()) return;
  }
  *cut |= Emu(devs[plan.cut_device])->powered_off();
  Crash(devs, vol, w.writers_);
  if (plan.recovery_budget >= 0) {
    Emu(devs[0])->PowerOffAfter(static_cast<uint64_t>(plan.recovery_budget));
    auto interrupted = Volume::Mount(devs, options);  // may or may not finish
    if (interrupted.ok()) vol = std::move(*interrupted);
    Crash(devs, vol);
  }
  ASSERT_OK_AND_ASSIGN(vol, Volume::Mount(devs, options));
  const auto problems = Differences(*vol, w.model_);
  if (!problems.empty()) {
    const auto with = w.uncertain_ ? Differences(*vol, *w.uncertain_) : problems;
    if (!with.empty()) {
      for (const std::string& p : problems) ADD_FAILURE() << p;
      if (w.uncertain_) {
        for (const std::string& p : with) ADD_FAILURE() << "(with the interrupted op) " << p;
      }
    }
  }
  ExpectConsistent(*vol, " after the crash");
  ExpectNoLeakedSpace(*vol);
  // The volume keeps working.
  ASSERT_OK(WriteFile(*vol, "/after-crash", Pattern(1, 300000)));
  ExpectConsistent(*vol, " after writing again");
  ExpectNoLeakedSpace(*vol);
}

TEST(CrashTest, AcknowledgedStateSurvivesPowerCutsAtRandomPoints) {
  uint64_t first = 0, count = 100;
  if (const char* s = std::getenv("ZS_CRASH_SEED")) {
    first = std::strtoull(s, nullptr, 10);
    count = 1;
  } else if (const char* n = std::getenv("ZS_CRASH_ITERATIONS")) {
    count = std::strtoull(n, nullptr, 10);
  }
  for (uint64_t seed = first; seed < first + count; ++seed) {
    bool cut = false;
    RunIteration(seed, RandomPlan(seed), &cut);
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << "failed at seed " << seed << "; rerun with ZS_CRASH_SEED=" << seed;
      return;
    }
  }
}

TEST(CrashTest, AcknowledgedStateSurvivesACutAtEveryDeviceCommand) {
  // Workloads that roll the metadata log early and span zones, each cut
  // after 0, 1, 2, ... device commands until it runs to the end.
  for (uint64_t seed : {1000, 1001, 1002}) {
    for (uint64_t budget = 0;; ++budget) {
      bool cut = false;
      RunIteration(seed, {.warm = 64, .ops = 60, .arm_at = 0, .budget = budget}, &cut);
      if (::testing::Test::HasFailure()) return;
      if (!cut) break;
      ASSERT_LT(budget, 2000u) << "the workload never ends";
    }
  }
}

TEST(CrashTest, CutAtEachStepOfALogRollRecovers) {
  // Two-block records (a long name) leave the zone a block it cannot use,
  // so the roll starts with the old zone not yet full.
  const std::string a = "/" + std::string(5000, 'a'), b = "/" + std::string(5000, 'b');
  auto rename = [&](Volume& vol, int i) { return i % 2 ? vol.Rename(b, a) : vol.Rename(a, b); };
  int before_roll = 0;
  {
    Devices devs = {OpenDev("emu:zn540?zones=16&scale=1/2048&timing=none")};
    ASSERT_OK(Volume::Format(devs));
    ASSERT_OK_AND_ASSIGN(auto vol, Volume::Mount(devs));
    ASSERT_OK(vol->CreateDir("/d"));  // one block: the two-block records leave a gap
    ASSERT_OK(WriteFile(*vol, a, {}));
    const std::string head = (*vol->DumpLog())[0];
    while ((*vol->DumpLog())[0] == head) ASSERT_OK(rename(*vol, before_roll++));
    --before_roll;  // renames that fit before the one that rolls
  }
  for (uint64_t budget = 0; budget < 10; ++budget) {
    SCOPED_TRACE(absl::StrCat("cut after ", budget, " commands of the roll"));
    Devices devs = {OpenDev("emu:zn540?zones=16&scale=1/2048&timing=none")};
    ASSERT_OK(Volume::Format(devs));
    ASSERT_OK_AND_ASSIGN(auto vol, Volume::Mount(devs));
    ASSERT_OK(vol->CreateDir("/d"));
    ASSERT_OK(WriteFile(*vol, a, {}));
    for (int i = 0; i < before_roll; ++i) ASSERT_OK(rename(*vol, i));
    Emu(devs[0])->PowerOffAfter(budget);
    const bool renamed = rename(*vol, before_roll).ok();
    Crash(devs, vol);
    ASSERT_OK_AND_ASSIGN(vol, Volume::Mount(devs));
    const int done = before_roll + (renamed ? 1 : 0);
    EXPECT_OK(vol->Stat(done % 2 ? b : a));
    ExpectConsistent(*vol);
    ASSERT_OK(WriteFile(*vol, "/after", Pattern(1, 1000)));
    ASSERT_OK(rename(*vol, done));
    ExpectConsistent(*vol);
  }
}

}  // namespace
}  // namespace zonestack::zfs
