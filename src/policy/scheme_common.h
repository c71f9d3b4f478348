// What the hint-driven schemes (HHZS, Bh, AUTO, tiered) share: device
// order, zone groups, the SST level of a file being placed, SST
// priorities (HHZS 3.4), and the bookkeeping of OnPlaced/OnRemoved.
// Internal to the policy layer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "policy/hhzs_options.h"
#include "policy/scheme.h"

namespace zonestack::policy {

// Zone groups: the WAL, metadata (MANIFEST etc.), and one group per SST so
// that every SST gets zones of its own (the authors' code never shares a
// zone holding an L>=1 SST; a zone is then reset as soon as its SST dies).
inline constexpr uint32_t kWalGroup = 0;
inline constexpr uint32_t kMetadataGroup = 1;
inline constexpr uint32_t kSstGroupBase = 16;
uint32_t SstGroup(uint64_t number);

std::optional<uint32_t> FirstSsd(const std::vector<DeviceView>& devices);
std::optional<uint32_t> FirstHdd(const std::vector<DeviceView>& devices);
// [first SSD, first HDD] or the reverse; a missing kind is left out.
std::vector<uint32_t> DeviceOrder(const std::vector<DeviceView>& devices, bool ssd_first);

// HHZS 3.4: `a` ranks above `b` if it lies at a lower level, or at the same
// level with a higher read rate (kReadRateFirst: a higher read rate, or the
// same rate at a lower level). Ties (which the paper leaves open) go to
// the SST that was not trivially moved (as the authors' code does), then
// to the newer SST, so the order is total and decisions reproducible.
bool HigherPriority(const SstInfo& a, const SstInfo& b, uint64_t now_us,
                    SstPriority order = SstPriority::kLevelFirst);
// An SST migration may pick: placed by zfs, complete, of known level and
// not an input of a running compaction (it is about to be deleted).
bool Migratable(const SstInfo& sst);

// Base of the HHZS paper's schemes, which place files by kind and SST level.
class HintedScheme : public Scheme {
 public:
  std::string name() const override { return name_; }
  const HhzsOptions& options() const { return options_; }
  // SSTs: records where zfs put the file. An SST that arrives on the SSD
  // (a popularity migration) drops its SSD-cached blocks.
  void OnPlaced(const FileHint& file, uint32_t device, bool device_is_ssd,
                uint64_t size) override;
  void OnRemoved(const FileHint& file) override;
  std::string without_hints() const override {
    return "every SST counts as level 0 (placed like a flush output, SSD first) and "
           "migration sees no levels";
  }

 protected:
  HintedScheme(std::string name, HhzsOptions options, const SchemeEnv& env)
      : Scheme(env), name_(std::move(name)), options_(std::move(options)) {}
  // The level the SST will have: the hint's, else the view's pending
  // level, else 0.
  int SstLevel(const FileHint& file) const;
  // WAL [SSD, HDD] in group 0; metadata and other files [HDD, SSD] in
  // group 1 (the authors' code keeps metadata on the HDD); SSTs in their
  // own group, SSD first iff `sst_ssd_first`.
  PlacementDecision Decide(const FileHint& file, const std::vector<DeviceView>& devices,
                           bool sst_ssd_first, bool wal_pool) const;
  // True at most once per options().decision_interval_us.
  bool DecisionDue();
  // HDD user reads exceed half the HDD's random-read IOPS: popularity
  // migration's trigger (HHZS 3.4).
  bool ReadBound() const {
    return view_.HddReadRate(options_.hdd_read_window_us) > options_.hdd_random_read_iops / 2;
  }
  // HigherPriority in the order options().priority names.
  bool Ranks(const SstInfo& a, const SstInfo& b, uint64_t now_us) const {
    return HigherPriority(a, b, now_us, options_.priority);
  }

  const std::string name_;
  const HhzsOptions options_;

 private:
  absl::Mutex decision_mu_;
  std::optional<uint64_t> last_decision_us_ ABSL_GUARDED_BY(decision_mu_);
};

}  // namespace zonestack::policy
