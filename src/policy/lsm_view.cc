#include "policy/lsm_view.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace zonestack::policy {
namespace {

constexpr uint64_t kSecond = 1'000'000;

uint64_t SystemMicros() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace

int64_t SstNumber(const std::string& name) {
  absl::string_view base(name);
  if (auto slash = base.rfind('/'); slash != absl::string_view::npos) base.remove_prefix(slash + 1);
  if (!absl::ConsumeSuffix(&base, ".sst") || base.empty()) return -1;
  for (char c : base) {
    if (c < '0' || c > '9') return -1;
  }
  int64_t number = 0;
  if (!absl::SimpleAtoi(base, &number)) return -1;  // out of range
  return number;
}

uint32_t SstZones(uint64_t size, uint64_t zone_bytes) {
  if (zone_bytes == 0 || size <= zone_bytes) return 1;
  return static_cast<uint32_t>((size + zone_bytes - 1) / zone_bytes);
}

double SstInfo::ReadRate(uint64_t now_us) const {
  const uint64_t age_us = now_us > created_us ? now_us - created_us : 0;
  const double age_s = std::max(1.0, static_cast<double>(age_us) / kSecond);
  return static_cast<double>(reads) / age_s;
}

LsmView::LsmView(Clock now_us) : now_(now_us ? std::move(now_us) : Clock(SystemMicros)) {}

SstInfo& LsmView::Entry(uint64_t number, uint64_t now_us) {
  auto [it, inserted] = ssts_.try_emplace(number);
  if (inserted) {
    it->second.number = number;
    it->second.created_us = now_us;
  }
  return it->second;
}

void LsmView::FlushFileStarted(uint64_t number) {
  const uint64_t now = now_();
  absl::MutexLock lock(&mu_);
  SstInfo& sst = Entry(number, now);
  sst.level = 0;
  sst.being_written = true;
}

void LsmView::CompactionStarted(int job, int output_level,
                                const std::vector<std::pair<uint64_t, int>>& inputs) {
  const uint64_t now = now_();
  absl::MutexLock lock(&mu_);
  if (auto old = jobs_.find(job); old != jobs_.end()) FinishJob(old, {});
  Job& j = jobs_[job];
  j.output_level = std::max(0, output_level);
  for (const auto& [number, level] : inputs) {
    // The hint names the input's level: it also re-syncs a view that
    // missed the file's creation.
    SstInfo& sst = Entry(number, now);
    if (level >= 0) sst.level = level;
    sst.being_compacted = true;
    j.inputs.push_back({number, sst.size});
  }
}

void LsmView::CompactionFileStarted(int job, uint64_t number) {
  const uint64_t now = now_();
  absl::MutexLock lock(&mu_);
  auto it = jobs_.find(job);
  if (it == jobs_.end()) return;
  Job& j = it->second;
  ++j.outputs_started;
  SstInfo& sst = Entry(number, now);
  sst.level = j.output_level;
  sst.being_written = true;
}

void LsmView::FinishJob(std::map<int, Job>::iterator job, const std::vector<uint64_t>& outputs) {
  const Job& j = job->second;
  std::set<uint64_t> in;
  for (const Input& input : j.inputs) in.insert(input.number);
  const bool trivial_move =
      !outputs.empty() && std::set<uint64_t>(outputs.begin(), outputs.end()) == in;
  for (uint64_t number : in) {
    auto it = ssts_.find(number);
    if (it == ssts_.end()) continue;
    it->second.being_compacted = false;
    if (trivial_move) {
      it->second.level = j.output_level;
      it->second.trivially_moved = true;
    }
  }
  jobs_.erase(job);  // drops what is left of the job's demand
}

void LsmView::CompactionFinished(int job, const std::vector<uint64_t>& outputs) {
  absl::MutexLock lock(&mu_);
  auto it = jobs_.find(job);
  if (it != jobs_.end()) FinishJob(it, outputs);
}

void LsmView::TableFileCreated(uint64_t number, uint64_t size) {
  const uint64_t now = now_();
  absl::MutexLock lock(&mu_);
  SstInfo& sst = Entry(number, now);
  sst.size = size;
  sst.being_written = false;
}

void LsmView::TableFileDeleted(uint64_t number) {
  absl::MutexLock lock(&mu_);
  ssts_.erase(number);
}

void LsmView::SetLevel(uint64_t number, int level, uint64_t size) {
  const uint64_t now = now_();
  absl::MutexLock lock(&mu_);
  SstInfo& sst = Entry(number, now);
  sst.level = level;
  sst.size = size;
  sst.being_written = false;
}

void LsmView::RecordRead(uint64_t number) {
  absl::MutexLock lock(&mu_);
  auto it = ssts_.find(number);
  if (it == ssts_.end()) return;
  ++it->second.reads;
  if (!it->second.placed || it->second.on_ssd) return;
  // Only an HDD read needs the time, and every user read of an SST comes
  // here: a clock read is a system call where the kernel's clock source
  // cannot be read from user space.
  const uint64_t second = now_() / kSecond;
  if (!hdd_reads_.empty() && hdd_reads_.back().first == second) {
    ++hdd_reads_.back().second;
    return;
  }
  hdd_reads_.emplace_back(second, 1);
  // Buckets older than the longest window are never asked for again.
  const uint64_t oldest = second >= kMaxReadWindowSeconds ? second - kMaxReadWindowSeconds : 0;
  auto keep = std::find_if(hdd_reads_.begin(), hdd_reads_.end(),
                           [&](const auto& b) { return b.first >= oldest; });
  hdd_reads_.erase(hdd_reads_.begin(), keep);
}

void LsmView::SetLocation(uint64_t number, const std::string& path, bool on_ssd, uint64_t size) {
  const uint64_t now = now_();
  absl::MutexLock lock(&mu_);
  SstInfo& sst = Entry(number, now);
  sst.path = path;
  sst.on_ssd = on_ssd;
  sst.placed = true;
  // zfs reports the size it has so far (0 for a file's first zone).
  sst.size = std::max(sst.size, size);
}

void LsmView::NoteLevel(uint64_t number, int level) {
  if (level < 0) return;
  const uint64_t now = now_();
  absl::MutexLock lock(&mu_);
  SstInfo& sst = Entry(number, now);
  if (sst.level < 0) sst.level = level;
}

void LsmView::Forget(uint64_t number) {
  absl::MutexLock lock(&mu_);
  ssts_.erase(number);
}

std::optional<int> LsmView::PendingLevel(uint64_t number) const {
  absl::MutexLock lock(&mu_);
  auto it = ssts_.find(number);
  if (it == ssts_.end() || it->second.level < 0) return std::nullopt;
  return it->second.level;
}

std::vector<SstInfo> LsmView::Ssts() const {
  absl::MutexLock lock(&mu_);
  std::vector<SstInfo> out;
  out.reserve(ssts_.size());
  for (const auto& [number, sst] : ssts_) out.push_back(sst);
  return out;
}

std::optional<SstInfo> LsmView::Sst(uint64_t number) const {
  absl::MutexLock lock(&mu_);
  auto it = ssts_.find(number);
  if (it == ssts_.end()) return std::nullopt;
  return it->second;
}

size_t LsmView::NumLevels() const {
  int top = 0;
  for (const auto& [number, sst] : ssts_) top = std::max(top, sst.level);
  for (const auto& [id, job] : jobs_) top = std::max(top, job.output_level);
  return static_cast<size_t>(top) + 1;
}

LevelCounts LsmView::Counts(uint64_t zone_bytes, bool exclude_hdd_inputs) const {
  absl::MutexLock lock(&mu_);
  const size_t levels = NumLevels();
  LevelCounts c;
  c.zones.assign(levels, 0);
  c.zones_on_ssd.assign(levels, 0);
  c.demand.assign(levels, 0);
  for (const auto& [number, sst] : ssts_) {
    if (sst.level < 0) continue;
    const bool on_ssd = sst.placed && sst.on_ssd;
    if (exclude_hdd_inputs && sst.being_compacted && sst.placed && !on_ssd) continue;
    const uint32_t zones = SstZones(sst.size, zone_bytes);
    c.zones[sst.level] += zones;
    if (on_ssd) c.zones_on_ssd[sst.level] += zones;
  }
  for (const auto& [id, job] : jobs_) c.demand[job.output_level] += job.DemandLeft(zone_bytes);
  return c;
}

uint32_t LsmView::Job::DemandLeft(uint64_t zone_bytes) const {
  uint32_t zones = 0;
  for (const Input& input : inputs) zones += SstZones(input.size, zone_bytes);
  return zones > outputs_started ? zones - outputs_started : 0;
}

std::vector<uint32_t> LsmView::Demand() const { return Counts().demand; }

std::vector<uint32_t> LsmView::SstsPerLevel() const { return Counts().zones; }

double LsmView::HddReadRate(uint64_t window_us) const {
  const uint64_t now = now_();
  const uint64_t seconds =
      std::clamp<uint64_t>((window_us + kSecond - 1) / kSecond, 1, kMaxReadWindowSeconds);
  const uint64_t current = now / kSecond;  // in progress: not counted
  const uint64_t first = current >= seconds ? current - seconds : 0;
  absl::MutexLock lock(&mu_);
  uint64_t reads = 0;
  for (const auto& [second, count] : hdd_reads_) {
    if (second >= first && second < current) reads += count;
  }
  return static_cast<double>(reads) / static_cast<double>(seconds);
}

size_t LsmView::MemoryBytes() const {
  absl::MutexLock lock(&mu_);
  constexpr size_t kSsoCapacity = 15;  // libstdc++ keeps short strings inline
  size_t bytes = 0;
  for (const auto& [number, sst] : ssts_) {
    bytes += kMapNodeOverhead + sizeof(std::pair<const uint64_t, SstInfo>);
    if (sst.path.capacity() > kSsoCapacity) bytes += sst.path.capacity() + 1;
  }
  for (const auto& [id, job] : jobs_) {
    bytes += kMapNodeOverhead + sizeof(std::pair<const int, Job>) +
             job.inputs.capacity() * sizeof(Input);
  }
  bytes += hdd_reads_.capacity() * sizeof(hdd_reads_[0]);
  return bytes;
}

}  // namespace zonestack::policy
