// RocksDB on a GearDB volume (scheme "geardb") through OpenDb, on an
// emulated HM-SMR disk much smaller than what the workload writes: random
// overwrites run with automatic compactions off while the gear driver
// compacts; no write fails for space, zfs never collects garbage (the
// scheme forbids it, so only whole zones freed by compactions make room),
// and every key reads back, before and after a remount. With the option
// "gc" (SplitZNS's Gear baseline) on the splitzns ZNS SSD, the same
// driver runs under the device's active-zone limit and zfs may collect.
#include <atomic>
#include <iostream>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "glue/gear_driver.h"
#include "scheme_test_util.h"

namespace zonestack::rocks {
namespace {

// Zones of 1 MiB for the space-hold test: room for about 1 MiB of live
// pairs, the writing zones of the WAL, MANIFEST and levels, and L0 SSTs.
constexpr int kSpaceHoldTestZones = 24;

class GearDbTest : public SchemeDbTest {
 protected:
  // st13125nm007 (GearDB's drive) at 1/256: 1 MiB zones; 96 of them.
  void WriteConfig(const std::string& scheme) {
    config_ = WriteConfigOn({"emu:st13125nm007?zones=96&scale=1/256&timing=none"},
                            "\"scheme\": " + scheme);
  }
  std::string config_;
};

// LevelOptions with L1 256 KiB, levels x4, L0 compacted at 4 files: 4 MiB
// of live data reaches L4.
rocksdb::Options GearOptions() {
  rocksdb::Options o = LevelOptions();
  o.max_bytes_for_level_base = 256 << 10;
  o.max_bytes_for_level_multiplier = 4;
  o.level0_file_num_compaction_trigger = 4;
  // Every MANIFEST sync takes a block of its own on a zoned device; a
  // MANIFEST that never rolls would hold megabytes of a small disk.
  o.max_manifest_file_size = 1 << 20;
  return o;
}

// Puts `n` random overwrites of a 4,000-key space (1 KiB values), letting
// the driver catch up every `settle_every` puts (auto compactions are off,
// so RocksDB does not stall writers on L0; docs/geardb.md).
void Overwrite(rocksdb::DB* db, GearDriver* driver, int n, int settle_every, uint64_t seed,
               Model* model) {
  for (int done = 0; done < n; done += settle_every) {
    Fill(db, std::min(settle_every, n - done), 1024, 4000, seed + done, model);
    ASSERT_TRUE(driver->RunUntilIdle().ok());
  }
}

// Both ways of choosing windows (docs/geardb.md, 2.): "age" (the default)
// and "key_slices".
class GearDbWindowsTest : public GearDbTest, public ::testing::WithParamInterface<std::string> {};
INSTANTIATE_TEST_SUITE_P(Windows, GearDbWindowsTest, ::testing::Values("age", "key_slices"));

TEST_P(GearDbWindowsTest, RandomOverwritesNeverRunGcNorFailForSpaceAndAllReadBackAfterRemount) {
  const bool key_slices = GetParam() == "key_slices";
  WriteConfig(absl::StrCat(R"({"name": "geardb", "k": 4, "windows": ")", GetParam(), R"("})"));
  Model model;
  uint64_t device_writes = 0;
  uint64_t capacity = 0;
  {
    auto db = OpenDb(config_, "/db", GearOptions());
    ASSERT_TRUE(db.ok()) << db.status();
    auto parts = PartsOf(**db);
    ASSERT_TRUE(parts && parts->gear_driver && parts->scheme);
    EXPECT_TRUE((*db)->GetOptions().disable_auto_compactions);
    Overwrite(db->get(), parts->gear_driver, 40000, 2000, 1, &model);
    ASSERT_FALSE(HasFailure());
    ASSERT_TRUE((*db)->Flush(rocksdb::FlushOptions()).ok());
    ASSERT_TRUE(parts->gear_driver->RunUntilIdle().ok());
    EXPECT_TRUE(parts->gear_driver->last_error().ok()) << parts->gear_driver->last_error();
    CheckModel(db->get(), model);

    // The tree is deep and the driver did every kind of step it needed.
    EXPECT_GE(MaxLevel(db->get()), 3);
    const auto counters = parts->scheme->counters();
    auto count = [&](const std::string& name) {
      auto it = counters.find(name);
      return it == counters.end() ? int64_t{0} : it->second;
    };
    EXPECT_GT(count("steps.active"), 0);
    EXPECT_GT(count("steps.window") + count("steps.dump") + count("steps.out_of_window"), 0);
    EXPECT_GT(count("zones_released"), 0);
    EXPECT_EQ(count("failed_steps"), 0);
    if (key_slices) {
      // The key space was cut, the window went round, and the steps
      // stayed in it (an out-of-window step needs an SST cut at older
      // cuts).
      EXPECT_GT(count("slices"), 1);
      EXPECT_GT(count("windows_released"), 0);
      EXPECT_LE(10 * count("steps.out_of_window"), count("steps.window") + count("steps.dump"));
    } else {
      // By age: no slices; outputs cascaded over the cursors they carried.
      EXPECT_EQ(count("slices"), 1);
      EXPECT_EQ(count("steps.out_of_window"), 0);
      EXPECT_GT(count("steps.passive"), 0);
    }
    // Gap steps (sweep_gaps) are not asserted here: whether a sweep meets
    // a gap depends on where RocksDB's background flushes cut the SSTs,
    // which varies from run to run (key_slices met none in about 1 run of
    // 30 under a parallel ctest); gear_compaction_test covers them.
    // Settled, RocksDB has deleted every SST it no longer lists, and every
    // live SST lies in a zone of its level.
    EXPECT_EQ(count("unlisted_sst_bytes"), 0);
    EXPECT_EQ(count("misplaced_sst_bytes"), 0);
    for (const auto& [name, value] : counters) std::cout << name << " = " << value << "\n";

    // zfs never collected garbage, yet the disk took several times its
    // capacity: whole zones were freed and reused.
    const zfs::GcTotals gc = parts->volume->gc_totals();
    EXPECT_EQ(gc.runs, 0u);
    EXPECT_EQ(gc.bytes_relocated, 0u);
    device_writes = parts->volume->devices()[0]->Stats().Total().write_bytes;
    capacity = parts->volume->Space()[0].capacity_bytes;
    EXPECT_GT(device_writes, 2 * capacity);
    // Every zone holds SSTs of one level, as the hints said.
    std::map<uint32_t, std::set<int>> levels;
    for (const zfs::FileInfo& f : parts->volume->Files()) {
      if (f.hint.kind != zfs::FileKind::kSst) continue;
      for (const zfs::ExtentInfo& x : f.extents) levels[x.zone].insert(f.hint.level);
    }
    for (const auto& [zone, in] : levels) EXPECT_EQ(in.size(), 1u) << "zone " << zone;
    EXPECT_TRUE(SettledMismatches(db->get()).empty());
    ASSERT_TRUE((*db)->Close().ok());
  }
  ASSERT_TRUE(Unmount(kUriScheme + config_).ok());
  auto db = OpenDb(config_, "/db", GearOptions());
  ASSERT_TRUE(db.ok()) << db.status();
  CheckModel(db->get(), model);
  // The driver runs again after the remount.
  Overwrite(db->get(), PartsOf(**db)->gear_driver, 4000, 2000, 99, &model);
  CheckModel(db->get(), model);
  EXPECT_EQ(PartsOf(**db)->volume->gc_totals().runs, 0u);
}

// SplitZNS's Gear (5.1.3): the geardb layout and driver with GC on, on the
// paper's ZNS SSD (24 active zones) rather than an SMR disk.
TEST_F(GearDbTest, GearWithGcOnTheSplitZnsSsdCompactsAndReadsBackAfterRemount) {
  // splitzns at 1/256: 2 MiB zones (16 subzones, unused by geardb); 48.
  config_ = WriteConfigOn({"emu:splitzns?zones=48&scale=1/256&timing=none"},
                          R"("scheme": {"name": "geardb", "gc": true})");
  Model model;
  {
    auto db = OpenDb(config_, "/db", GearOptions());
    ASSERT_TRUE(db.ok()) << db.status();
    auto parts = PartsOf(**db);
    ASSERT_TRUE(parts && parts->gear_driver && parts->scheme);
    EXPECT_TRUE(parts->scheme->allows_gc());
    EXPECT_TRUE((*db)->GetOptions().disable_auto_compactions);
    Overwrite(db->get(), parts->gear_driver, 20000, 2000, 7, &model);
    ASSERT_FALSE(HasFailure());
    ASSERT_TRUE((*db)->Flush(rocksdb::FlushOptions()).ok());
    ASSERT_TRUE(parts->gear_driver->RunUntilIdle().ok());
    EXPECT_TRUE(parts->gear_driver->last_error().ok()) << parts->gear_driver->last_error();
    CheckModel(db->get(), model);
    EXPECT_GE(MaxLevel(db->get()), 2);
    const auto counters = parts->scheme->counters();
    auto it = counters.find("steps.active");
    EXPECT_TRUE(it != counters.end() && it->second > 0);
    it = counters.find("failed_steps");
    EXPECT_TRUE(it == counters.end() || it->second == 0);
    // No split zone: geardb asks for no subzone.
    for (const zfs::ZoneReport& z : parts->volume->Zones()) EXPECT_FALSE(z.zone.IsSplit());
    const zfs::GcTotals gc = parts->volume->gc_totals();
    std::cout << "gc runs " << gc.runs << ", bytes relocated " << gc.bytes_relocated << "\n";
    ASSERT_TRUE((*db)->Close().ok());
  }
  ASSERT_TRUE(Unmount(kUriScheme + config_).ok());
  auto db = OpenDb(config_, "/db", GearOptions());
  ASSERT_TRUE(db.ok()) << db.status();
  CheckModel(db->get(), model);
}

// The driver tells its observer of every step it counts (zsbench logs them:
// CompactFiles fires no listener event), with RocksDB's job info.
TEST_F(GearDbTest, StepObserverSeesEveryCountedStep) {
  WriteConfig(R"({"name": "geardb", "k": 4})");
  auto db = OpenDb(config_, "/db", GearOptions());
  ASSERT_TRUE(db.ok()) << db.status();
  GearDriver* driver = PartsOf(**db)->gear_driver;
  absl::Mutex mu;
  std::map<std::string, int64_t> seen;
  uint64_t output_bytes = 0;
  driver->SetStepObserver([&](const policy::GearStep& step, uint64_t micros,
                              const rocksdb::CompactionJobInfo& info) {
    absl::MutexLock l(&mu);
    ++seen[absl::StrCat("steps.", policy::GearStepName(step.kind))];
    EXPECT_GT(micros, 0u);
    EXPECT_EQ(info.output_level, step.output_level);
    output_bytes += info.stats.total_output_bytes;
  });
  Model model;
  Overwrite(db->get(), driver, 20000, 2000, 7, &model);
  ASSERT_FALSE(HasFailure());
  ASSERT_TRUE(driver->RunUntilIdle().ok());
  driver->SetStepObserver(nullptr);
  std::map<std::string, int64_t> counted;
  for (const auto& [name, n] : PartsOf(**db)->scheme->counters()) {
    if (name.starts_with("steps.") && n > 0) counted[name] = n;
  }
  absl::MutexLock l(&mu);
  EXPECT_EQ(seen, counted);
  EXPECT_TRUE(seen.contains("steps.active"));
  EXPECT_EQ(static_cast<int64_t>(output_bytes),
            PartsOf(**db)->scheme->counters().at("compaction_output_bytes"));
}

// LevelDB's write stop, which RocksDB drops with automatic compactions
// off: a burst of puts with only the driver's thread compacting never
// leaves more than level0_stop_writes_trigger SSTs in L0 (the writer that
// seals a MemTable past it waits), and every key reads back.
TEST_F(GearDbTest, WritesStopAtTheL0StopTrigger) {
  WriteConfig(R"({"name": "geardb", "k": 4})");
  rocksdb::Options o = GearOptions();
  o.level0_slowdown_writes_trigger = 6;
  o.level0_stop_writes_trigger = 6;
  auto db = OpenDb(config_, "/db", o);
  ASSERT_TRUE(db.ok()) << db.status();
  Model model;
  uint64_t most = 0;
  for (int i = 0; i < 600; ++i) {
    Fill(db->get(), 50, 1024, 4000, 1000 + i, &model);
    rocksdb::ColumnFamilyMetaData meta;
    (*db)->GetColumnFamilyMetaData(&meta);
    most = std::max<uint64_t>(most, meta.levels[0].files.size());
  }
  ASSERT_FALSE(HasFailure());
  EXPECT_LE(most, 6u);
  ASSERT_TRUE(PartsOf(**db)->gear_driver->RunUntilIdle().ok());
  const auto counters = PartsOf(**db)->scheme->counters();
  std::cout << "most L0 SSTs seen: " << most << ", write stops: "
            << (counters.contains("write_stops") ? counters.at("write_stops") : -1) << "\n";
  EXPECT_GT(counters.at("write_stops"), 0) << "the writers never outran the driver";
  CheckModel(db->get(), model);
}

// LevelDB's write slowdown, which RocksDB drops with automatic compactions
// off: from level0_slowdown_writes_trigger SSTs in L0 on, the writer that
// seals a MemTable waits up to 1 ms per entry in it; with the trigger at the
// stop trigger, never (the stop holds the writer instead).
TEST_F(GearDbTest, WritesSlowDownFromTheL0SlowdownTrigger) {
  for (const int slowdown : {2, 36}) {
    WriteConfig(R"({"name": "geardb", "k": 4})");
    rocksdb::Options o = GearOptions();
    o.level0_slowdown_writes_trigger = slowdown;
    o.level0_stop_writes_trigger = 36;
    auto db = OpenDb(config_, "/db" + std::to_string(slowdown), o);
    ASSERT_TRUE(db.ok()) << db.status();
    Model model;
    uint64_t most = 0;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 200; ++i) {
      Fill(db->get(), 50, 1024, 4000, 1000 + i, &model);
      rocksdb::ColumnFamilyMetaData meta;
      (*db)->GetColumnFamilyMetaData(&meta);
      most = std::max<uint64_t>(most, meta.levels[0].files.size());
    }
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now() - start)
                        .count();
    ASSERT_FALSE(HasFailure());
    const auto counters = PartsOf(**db)->scheme->counters();
    const int64_t slowed = counters.contains("write_slowdowns") ? counters.at("write_slowdowns") : -1;
    std::cout << "slowdown trigger " << slowdown << ": most L0 SSTs seen " << most
              << ", slowed MemTables " << slowed << ", " << ms << " ms\n";
    if (slowdown == o.level0_stop_writes_trigger) {
      EXPECT_EQ(slowed, 0);
    } else {
      EXPECT_GT(slowed, 0);
      // Each slowed MemTable held its writer at least 1 ms per entry.
      EXPECT_GE(ms, slowed);
    }
    CheckModel(db->get(), model);
    ASSERT_TRUE((*db)->Close().ok());
  }
}

// The space hold (GearOptions::space_hold). The driver is held after its
// first step, as a disk's seeks hold it behind a fast writer, and L0's
// stop trigger is out of reach, so only space can stop the writer. With
// the hold the writer waits once the empty zones are fewer than a step
// needs, and goes on without a failed put once the driver runs again;
// without it, the writer fills the disk with L0 SSTs and a put fails.
TEST_F(GearDbTest, AWriterAheadOfTheDriverWaitsForSpaceInsteadOfFailing) {
  for (const bool hold : {true, false}) {
    SCOPED_TRACE(hold ? "space hold on" : "space hold off");
    config_ = WriteConfigOn(
        {absl::StrCat("emu:st13125nm007?zones=", kSpaceHoldTestZones, "&scale=1/256&timing=none")},
        absl::StrCat(R"("scheme": {"name": "geardb", "slowdown_ms": 0, "space_hold": )",
                     hold ? "true" : "false", "}"));
    rocksdb::Options o = GearOptions();
    o.level0_slowdown_writes_trigger = 1000;
    o.level0_stop_writes_trigger = 1000;
    // The info LOG and MANIFEST take a line or a record per step: capped,
    // as the experiments cap them.
    o.max_log_file_size = 128 << 10;
    o.keep_log_file_num = 2;
    o.max_manifest_file_size = 256 << 10;
    const std::string path = hold ? "/held" : "/unheld";
    auto db = OpenDb(config_, path, o);
    ASSERT_TRUE(db.ok()) << db.status();
    auto parts = PartsOf(**db);
    ASSERT_TRUE(parts && parts->gear_driver);
    absl::Mutex mu;
    bool driver_held = false, driver_free = false;
    parts->gear_driver->SetStepObserver(
        [&](const policy::GearStep&, uint64_t, const rocksdb::CompactionJobInfo&) {
          absl::MutexLock l(&mu);
          driver_held = true;
          mu.Await(absl::Condition(&driver_free));
        });
    auto release_driver = [&] {
      absl::MutexLock l(&mu);
      driver_free = true;
    };
    // 1,000 keys: however many versions L0 holds, the driver's active
    // step writes about 1 MiB, which the reserve holds.
    Model model;
    std::atomic<int> done{0}, failed{0};
    testing_common::TestThread writer([&] {
      std::mt19937_64 rng(7);
      for (int i = 0; i < 30000 && failed == 0; ++i) {
        const std::string key = Key(rng() % 1000);
        std::string value(1024, ' ');
        for (char& c : value) c = static_cast<char>('a' + rng() % 26);
        if ((*db)->Put(rocksdb::WriteOptions(), key, value).ok()) {
          model[key] = value;
          ++done;
        } else {
          ++failed;
        }
      }
    }, release_driver);
    {
      absl::MutexLock l(&mu);
      ASSERT_TRUE(mu.AwaitWithTimeout(absl::Condition(&driver_held), absl::Seconds(60)));
    }
    // With the hold, the writer goes on until it is held for space (no put
    // for a second); without it, until a put fails (zfs waits for room a
    // while before it fails a write).
    int before = -1;
    for (int waited = 0; waited < 120 && failed == 0 && (!hold || done != before); ++waited) {
      before = done;
      absl::SleepFor(absl::Seconds(1));
    }
    uint64_t empty = 0;
    for (const zfs::DeviceSpace& d : parts->volume->Space()) empty += d.empty_zones;
    std::cout << (hold ? "hold" : "no hold") << ": " << done << " puts, " << failed
              << " failed, " << empty << " empty zones while the driver was held\n";
    if (!hold) {
      EXPECT_GT(failed, 0) << "the writer stopped with room left: the case shows nothing";
      release_driver();
      writer.Join();
      parts->gear_driver->SetStepObserver(nullptr);
      // The disk is full and RocksDB has a background error: a step now
      // fails, and every failed step is counted by its error's code too.
      const absl::Status settled = parts->gear_driver->RunUntilIdle();
      EXPECT_FALSE(settled.ok()) << "a step succeeded on a full disk";
      int64_t steps = 0, by_code = 0;
      for (const auto& [name, n] : parts->scheme->counters()) {
        if (name == "failed_steps") steps = n;
        if (name.starts_with("failed_steps.")) by_code += n;
        if (name.starts_with("failed_steps")) std::cout << name << " = " << n << "\n";
      }
      EXPECT_GT(steps, 0);
      EXPECT_EQ(by_code, steps);
      (*db)->Close().PermitUncheckedError();
      continue;
    }
    EXPECT_EQ(failed, 0);
    EXPECT_LT(done, 30000) << "the writer was never held";
    EXPECT_LT(empty, 6u) << "held with room left";
    release_driver();
    writer.Join();
    parts->gear_driver->SetStepObserver(nullptr);
    EXPECT_EQ(failed, 0);
    EXPECT_EQ(done, 30000);
    ASSERT_TRUE((*db)->Flush(rocksdb::FlushOptions()).ok());
    ASSERT_TRUE(parts->gear_driver->RunUntilIdle().ok());
    const auto counters = parts->scheme->counters();
    EXPECT_GT(counters.contains("space_holds") ? counters.at("space_holds") : 0, 0);
    EXPECT_EQ(parts->volume->gc_totals().runs, 0u);
    CheckModel(db->get(), model);
    ASSERT_TRUE((*db)->Close().ok());
    parts.reset();  // it holds the volume
    db->reset();
    ASSERT_TRUE(Unmount(kUriScheme + config_).ok());
    auto again = OpenDb(config_, path, o);
    ASSERT_TRUE(again.ok()) << again.status();
    CheckModel(again->get(), model);
    again->reset();
    // The other case gets a disk of its own (same URI, so forget this one).
    ASSERT_TRUE(Forget(kUriScheme + config_).ok());
  }
}

}  // namespace
}  // namespace zonestack::rocks
