// Device fault injection: a ZonedDevice decorator that fails chosen
// commands with an I/O error, or turns a zone read-only or offline in the
// middle of a run, as failing media would. Tests and the device URI's
// fault= parameter (docs/emulator.md) use it to check that every layer
// above reports a failure instead of losing data silently.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "device/zoned_device.h"

namespace zonestack::device {

class EmulatedDevice;

enum class FaultKind {
  kReadError,   // the read fails (UnavailableError); no data is returned
  kWriteError,  // the write, append or copy fails and writes nothing
  kReadOnly,    // the zone becomes read-only, then the command runs
  kOffline,     // the zone goes offline, then the command runs
};

// Which commands a zone-state fault counts: reads, writes (write, append,
// Simple Copy), or every command that names a zone (zone management too).
// Read and write errors count reads and writes respectively.
enum class FaultOn { kRead, kWrite, kAny };

struct FaultSpec {
  FaultKind kind = FaultKind::kReadError;
  // Zones the fault watches (commands elsewhere pass untouched).
  uint32_t first_zone = 0;
  uint32_t last_zone = UINT32_MAX;
  FaultOn on = FaultOn::kWrite;
  // Matching commands let through before the fault may fire.
  uint64_t after = 0;
  // 0: fire at the next matching command once `after` have passed; else
  // fire at each matching command with this probability (seeded).
  double probability = 0;
  uint64_t seed = 1;
  // How many times it fires; 0 = without limit.
  uint32_t count = 1;
};

const char* ToString(FaultKind k);

// Parses a fault list: "none" (a device to arm later with AddFault), or
// SPEC[+SPEC...], SPEC = KIND[@OPT,OPT...], KIND one of
// read_error, write_error, read_only, offline; OPT one of zone:N,
// zone:A-B, after:N, prob:P, seed:S, count:N (0 = no limit), on:read|write|any.
// InvalidArgument names what is wrong.
absl::StatusOr<std::vector<FaultSpec>> ParseFaults(absl::string_view text);

// Thread-safety: as ZonedDevice; the fault methods may be called at any time.
class FaultInjectingDevice : public ZonedDevice {
 public:
  explicit FaultInjectingDevice(std::shared_ptr<ZonedDevice> inner,
                                std::vector<FaultSpec> faults = {});

  // Arms another fault; its command count starts now.
  void AddFault(const FaultSpec& fault);
  // Disarms every fault not yet fired. Zones already failed stay failed.
  void ClearFaults();
  // Fails a zone now. Over an EmulatedDevice the emulator's own zone state
  // changes (and a file backing keeps it); over any other device this
  // decorator reports and enforces the state itself.
  void SetZoneReadOnly(uint32_t zone);
  void SetZoneOffline(uint32_t zone);
  // Faults fired so far.
  uint64_t injected() const;
  ZonedDevice* inner() const { return inner_.get(); }

  const DeviceInfo& info() const override { return inner_->info(); }
  absl::StatusOr<std::vector<ZoneInfo>> ReportZones(uint32_t first,
                                                    uint32_t count) const override;
  absl::Status Read(uint64_t offset, std::span<uint8_t> dst, const IoContext& ctx) override;
  absl::Status Write(uint64_t offset, std::span<const uint8_t> src,
                     const IoContext& ctx) override;
  absl::StatusOr<uint64_t> Append(uint32_t zone, std::span<const uint8_t> src,
                                  const IoContext& ctx) override;
  using ZonedDevice::OpenZone;
  absl::Status OpenZone(uint32_t zone, CellMode mode, const IoContext& ctx) override;
  absl::Status CloseZone(uint32_t zone, const IoContext& ctx) override;
  absl::Status FinishZone(uint32_t zone, const IoContext& ctx) override;
  absl::Status ResetZone(uint32_t zone, const IoContext& ctx) override;
  absl::Status Flush(const IoContext& ctx) override;
  absl::StatusOr<uint64_t> SimpleCopy(std::span<const CopyRange> sources, uint32_t dst_zone,
                                      const IoContext& ctx) override;
  absl::Status SplitZone(uint32_t zone, const IoContext& ctx) override;
  absl::Status MergeZone(uint32_t zone, const IoContext& ctx) override;
  absl::StatusOr<std::vector<SubzoneInfo>> ReportSubzones(uint32_t zone) const override {
    return inner_->ReportSubzones(zone);
  }
  absl::StatusOr<uint64_t> AppendSubzone(uint32_t zone, uint32_t subzone,
                                         std::span<const uint8_t> src,
                                         const IoContext& ctx) override;
  absl::Status FinishSubzone(uint32_t zone, uint32_t subzone, const IoContext& ctx) override;
  absl::Status ResetSubzone(uint32_t zone, uint32_t subzone, const IoContext& ctx) override;
  DeviceStats Stats() const override { return inner_->Stats(); }

 private:
  enum class Command { kRead, kWrite, kManage };
  struct Armed {
    FaultSpec spec;
    uint64_t seen = 0;   // matching commands so far
    uint32_t fired = 0;
    std::mt19937_64 rng;
  };

  // Counts a command on `zone` against every armed fault, applies the zone
  // faults that fire, and returns the I/O error of one that fires (OK if
  // none): `what` describes the command for the message.
  absl::Status Inject(Command cmd, uint32_t zone, const std::string& what);
  bool Fires(Armed& a, Command cmd, uint32_t zone) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FailZone(uint32_t zone, ZoneState state) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Over a device other than the emulator: the zone error a command on a
  // failed zone gets, OK if the zone is not failed here.
  absl::Status CheckFailedZone(Command cmd, uint32_t zone, const std::string& what) const;

  const std::shared_ptr<ZonedDevice> inner_;
  // Set when inner_ is an EmulatedDevice, which keeps failed zones itself.
  EmulatedDevice* const emulated_;
  mutable absl::Mutex mu_;
  std::vector<Armed> armed_ ABSL_GUARDED_BY(mu_);
  // Zones failed by this decorator over a non-emulated device.
  std::map<uint32_t, ZoneState> failed_ ABSL_GUARDED_BY(mu_);
  uint64_t injected_ ABSL_GUARDED_BY(mu_) = 0;
};

// The device URI hook: when `uri` carries a fault=SPECS query parameter,
// opens the URI without it through `open` and wraps the device in a
// FaultInjectingDevice; nullopt when there is no fault parameter.
using DeviceOpener = absl::StatusOr<std::unique_ptr<ZonedDevice>> (*)(const std::string&);
std::optional<absl::StatusOr<std::unique_ptr<ZonedDevice>>> OpenWithFaults(
    const std::string& uri, DeviceOpener open);

}  // namespace zonestack::device
