// Crash consistency of RocksDB on ZoneStack: a workload of synced writes,
// power lost at a random point (the emulator drops everything not flushed
// and fails every later command), remount, reopen: every acknowledged write
// is there, nothing else is, and zfs's fsck finds nothing wrong.
//
// 100 cuts here; scripts/long_test.sh runs 1000 (ZS_CRASH_ITERATIONS).
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "db_test_util.h"

namespace zonestack::rocks {
namespace {

constexpr char kUri[] = "zonestack://emu:zn540?zones=24&scale=1/256&timing=none";

int Iterations() {
  const char* e = std::getenv("ZS_CRASH_ITERATIONS");
  return e ? std::atoi(e) : 100;
}

// The write in flight when the power went: it may or may not have landed.
struct InFlight {
  std::string key;
  std::optional<std::string> value;  // nullopt = a delete
};

void RunOneCut(const std::string& uri, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::map<std::string, std::string> acked;
  std::optional<InFlight> in_flight;
  rocksdb::Options options = SmallOptions();
  options.write_buffer_size = 16 << 10 << (rng() % 3);  // flushes at different points
  // The registry keeps the devices open across an unmount, as hardware
  // stays plugged in across a reboot.
  std::vector<device::EmulatedDevice*> devs;
  {
    TestDb t;
    ASSERT_TRUE(OpenTestDb(uri, "/db", {}, options, &t).ok());
    devs = EmulatedDevices(uri);
    ASSERT_EQ(devs.size(), 1u);
    const int cut_at = 10 + static_cast<int>(rng() % 800);
    rocksdb::WriteOptions sync;
    sync.sync = true;
    for (int i = 0;; ++i) {
      // Losing power a few device commands later cuts in the middle of a
      // WAL append, a flush or a compaction, wherever they happen to be.
      if (i == cut_at) devs[0]->PowerOffAfter(rng() % 30);
      if (i > cut_at + 2000) devs[0]->PowerOff();
      const std::string key = absl::StrCat("k", rng() % 400);
      InFlight op{key, std::nullopt};
      if (rng() % 5 != 0) op.value = std::string(20 + rng() % 300, static_cast<char>('a' + i % 26));
      in_flight = op;
      rocksdb::Status s = op.value ? t.db->Put(sync, key, *op.value) : t.db->Delete(sync, key);
      if (!s.ok()) break;  // the power is gone
      if (op.value) {
        acked[key] = *op.value;
      } else {
        acked.erase(key);
      }
      in_flight.reset();
    }
    devs[0]->PowerOff();
    (void)t.Close();  // fails: the device has no power
  }
  // A reboot: the host's state is gone, the device powers back on.
  ASSERT_TRUE(Unmount(uri).ok());
  for (auto* d : devs) d->PowerOn();
  TestDb t;
  rocksdb::Status s = OpenTestDb(uri, "/db", {}, options, &t);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<rocksdb::Iterator> it(t.db->NewIterator(rocksdb::ReadOptions()));
  std::map<std::string, std::string> seen;
  for (it->SeekToFirst(); it->Valid(); it->Next()) seen[it->key().ToString()] = it->value().ToString();
  ASSERT_TRUE(it->status().ok()) << it->status().ToString();
  for (const auto& [k, v] : acked) {
    if (in_flight && in_flight->key == k) continue;
    auto f = seen.find(k);
    ASSERT_NE(f, seen.end()) << "acknowledged key " << k << " lost";
    ASSERT_EQ(f->second, v) << "acknowledged key " << k << " has a wrong value";
  }
  for (const auto& [k, v] : seen) {
    if (in_flight && in_flight->key == k) {
      const bool old_value = acked.contains(k) && acked.at(k) == v;
      const bool new_value = in_flight->value && *in_flight->value == v;
      ASSERT_TRUE(old_value || new_value) << "key " << k << " in flight has a third value";
      continue;
    }
    ASSERT_TRUE(acked.contains(k)) << "key " << k << " was never acknowledged";
  }
  if (in_flight && !in_flight->value && seen.contains(in_flight->key)) {
    ASSERT_TRUE(acked.contains(in_flight->key));
  }
  auto vol = FindVolume(uri);
  ASSERT_TRUE(vol.ok());
  for (const std::string& p : (*vol)->Check()) ADD_FAILURE() << p;
}

// ZnH2's HM Hybrid on a small HZNS device (16 zones of 1 MiB, 256 KiB in
// SLC): the synced writes' WAL blocks fill the SLC cache and zones open in
// QLC, with the migration thread (every 5 ms) free to move SSTs to QLC
// when the power goes. The test asserts that QLC zones got data; whether
// a move was under way at a given cut is left to chance.
std::string HznsUri() {
  const std::string path = absl::StrCat(::testing::TempDir(), "/zs_db_crash_hzns.json");
  std::ofstream(path) << R"({"devices": ["emu:znh2?zones=16&scale=1/1024&timing=none"],)"
                      << R"( "scheme": {"name": "znh2", "period_ms": 5}})";
  return "zonestack://" + path;
}

TEST(DbCrashTest, AcknowledgedSyncedWritesSurviveRandomPowerCuts) {
  const int n = Iterations();
  for (int i = 0; i < n; ++i) {
    const uint64_t seed = 1000 + i;
    SCOPED_TRACE(absl::StrCat("seed ", seed));
    RunOneCut(kUri, seed);
    ASSERT_TRUE(Forget(kUri).ok());
    if (HasFatalFailure()) return;
  }
}

TEST(DbCrashTest, HznsWithCellMigrationSurvivesRandomPowerCuts) {
  const std::string uri = HznsUri();
  const int n = std::max(1, Iterations() / 5);
  uint64_t migrated = 0;
  for (int i = 0; i < n; ++i) {
    const uint64_t seed = 5000 + i;
    SCOPED_TRACE(absl::StrCat("seed ", seed));
    RunOneCut(uri, seed);
    if (auto vol = FindVolume(uri); vol.ok()) {  // let go before Forget
      for (const zfs::ZoneReport& z : (*vol)->Zones()) {
        if (z.zone.cell_mode == device::CellMode::kQlc) migrated += z.written_bytes;
      }
    }
    const absl::Status forgot = Forget(uri);
    ASSERT_TRUE(forgot.ok()) << forgot;
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(migrated, 0u) << "no run wrote a QLC zone: the cuts never met QLC data";
}

// DB::SyncWAL makes writes acknowledged with sync = false durable, synced
// from the caller's thread while another thread keeps writing (RocksDB
// asks the WAL's file for IsSyncThreadSafe; it said no before, and
// SyncWAL failed with NotSupported). What SyncWAL returned before the
// power went must come back.
TEST(DbCrashTest, SyncWalFromAnotherThreadMakesEarlierWritesDurable) {
  rocksdb::Options options = SmallOptions();
  options.write_buffer_size = 4 << 20;  // no memtable flush: the WAL alone holds them
  std::vector<device::EmulatedDevice*> devs;
  int durable = 0;
  {
    TestDb t;
    ASSERT_TRUE(OpenTestDb(kUri, "/db", {}, options, &t).ok());
    devs = EmulatedDevices(kUri);
    ASSERT_EQ(devs.size(), 1u);
    std::atomic<int> written{0};
    std::atomic<bool> stop{false}, failed{false};
    std::thread writer([&] {
      for (int i = 0; !stop.load(); ++i) {
        if (!t.db->Put({}, absl::StrCat("k", i), std::string(100, 'v')).ok()) {
          failed.store(true);
          break;
        }
        written.store(i + 1);
      }
    });
    for (int round = 0; round < 50; ++round) {
      // Each SyncWAL comes after more puts, while the writer goes on.
      while (written.load() < (round + 1) * 20 && !failed.load()) std::this_thread::yield();
      ASSERT_FALSE(failed.load());
      const int before = written.load();
      const rocksdb::Status s = t.db->SyncWAL();
      ASSERT_TRUE(s.ok()) << s.ToString();
      durable = before;
    }
    stop.store(true);
    writer.join();
    ASSERT_GT(durable, 0);
    devs[0]->PowerOff();
    (void)t.Close();
  }
  ASSERT_TRUE(Unmount(kUri).ok());
  for (auto* d : devs) d->PowerOn();
  TestDb t;
  rocksdb::Status s = OpenTestDb(kUri, "/db", {}, options, &t);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (int i = 0; i < durable; ++i) {
    std::string v;
    ASSERT_TRUE(t.db->Get({}, absl::StrCat("k", i), &v).ok()) << "k" << i << " of " << durable;
  }
  ASSERT_TRUE(t.Close().ok());
  ASSERT_TRUE(Forget(kUri).ok());
}

}  // namespace
}  // namespace zonestack::rocks
