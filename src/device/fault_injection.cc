#include "device/fault_injection.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "device/emulated_device.h"
#include "device/zone_error.h"

namespace zonestack::device {
namespace {

absl::Status BadFault(absl::string_view spec, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(
      "fault '", spec, "': ", why,
      " (faults: none, or KIND[@OPT,...] joined by '+'; KIND read_error, write_error, read_only, "
      "offline; OPT zone:N or zone:A-B, after:N, prob:P, seed:S, count:N, "
      "on:read|write|any)"));
}

absl::Status ParseOption(absl::string_view spec, absl::string_view key, absl::string_view value,
                         FaultSpec* f) {
  auto whole = [&](uint64_t* out) {
    return absl::SimpleAtoi(value, out)
               ? absl::OkStatus()
               : BadFault(spec, absl::StrCat(key, ":", value, " is not a whole number"));
  };
  if (key == "zone") {
    std::pair<std::string, std::string> range = absl::StrSplit(value, absl::MaxSplits('-', 1));
    uint32_t a = 0, b = 0;
    const bool ok = absl::SimpleAtoi(range.first, &a) &&
                    (range.second.empty() ? (b = a, true) : absl::SimpleAtoi(range.second, &b));
    if (!ok || a > b) return BadFault(spec, absl::StrCat("zone:", value, " is not N or A-B"));
    f->first_zone = a;
    f->last_zone = b;
    return absl::OkStatus();
  }
  if (key == "after") return whole(&f->after);
  if (key == "seed") return whole(&f->seed);
  if (key == "count") {
    uint64_t n = 0;
    if (auto s = whole(&n); !s.ok()) return s;
    if (n > UINT32_MAX) return BadFault(spec, absl::StrCat("count:", value, " is too large"));
    f->count = static_cast<uint32_t>(n);
    return absl::OkStatus();
  }
  if (key == "prob") {
    double p = 0;
    if (!absl::SimpleAtod(value, &p) || !(p > 0 && p <= 1)) {
      return BadFault(spec, absl::StrCat("prob:", value, " must be in (0, 1]"));
    }
    f->probability = p;
    return absl::OkStatus();
  }
  if (key == "on") {
    if (f->kind == FaultKind::kReadError || f->kind == FaultKind::kWriteError) {
      return BadFault(spec, "on: applies to read_only and offline only");
    }
    if (value == "read") {
      f->on = FaultOn::kRead;
    } else if (value == "write") {
      f->on = FaultOn::kWrite;
    } else if (value == "any") {
      f->on = FaultOn::kAny;
    } else {
      return BadFault(spec, absl::StrCat("on:", value, " must be read, write or any"));
    }
    return absl::OkStatus();
  }
  return BadFault(spec, absl::StrCat("unknown option '", key, "'"));
}

absl::StatusOr<FaultSpec> ParseOne(absl::string_view spec) {
  std::pair<absl::string_view, absl::string_view> kind_opts =
      absl::StrSplit(spec, absl::MaxSplits('@', 1));
  FaultSpec f;
  const absl::string_view kind = kind_opts.first;
  if (kind == "read_error") {
    f.kind = FaultKind::kReadError;
  } else if (kind == "write_error") {
    f.kind = FaultKind::kWriteError;
  } else if (kind == "read_only") {
    f.kind = FaultKind::kReadOnly;
  } else if (kind == "offline") {
    f.kind = FaultKind::kOffline;
  } else {
    return BadFault(spec, absl::StrCat("unknown kind '", kind, "'"));
  }
  if (kind_opts.second.empty()) return f;
  for (absl::string_view opt : absl::StrSplit(kind_opts.second, ',')) {
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(opt, absl::MaxSplits(':', 1));
    if (auto s = ParseOption(spec, kv.first, kv.second, &f); !s.ok()) return s;
  }
  return f;
}

bool Counts(const FaultSpec& f, bool read, bool write) {
  switch (f.kind) {
    case FaultKind::kReadError: return read;
    case FaultKind::kWriteError: return write;
    case FaultKind::kReadOnly:
    case FaultKind::kOffline:
      return f.on == FaultOn::kAny || (f.on == FaultOn::kRead ? read : write);
  }
  return false;
}

}  // namespace

const char* ToString(FaultKind k) {
  switch (k) {
    case FaultKind::kReadError: return "read_error";
    case FaultKind::kWriteError: return "write_error";
    case FaultKind::kReadOnly: return "read_only";
    case FaultKind::kOffline: return "offline";
  }
  return "unknown";
}

absl::StatusOr<std::vector<FaultSpec>> ParseFaults(absl::string_view text) {
  std::vector<FaultSpec> out;
  if (text == "none") return out;
  for (absl::string_view spec : absl::StrSplit(text, '+')) {
    auto f = ParseOne(spec);
    if (!f.ok()) return f.status();
    out.push_back(*f);
  }
  return out;
}

FaultInjectingDevice::FaultInjectingDevice(std::shared_ptr<ZonedDevice> inner,
                                           std::vector<FaultSpec> faults)
    : inner_(std::move(inner)), emulated_(dynamic_cast<EmulatedDevice*>(inner_.get())) {
  for (const FaultSpec& f : faults) AddFault(f);
}

void FaultInjectingDevice::AddFault(const FaultSpec& fault) {
  absl::MutexLock lock(&mu_);
  armed_.push_back({fault, 0, 0, std::mt19937_64(fault.seed)});
}

void FaultInjectingDevice::ClearFaults() {
  absl::MutexLock lock(&mu_);
  armed_.clear();
}

void FaultInjectingDevice::SetZoneReadOnly(uint32_t zone) {
  absl::MutexLock lock(&mu_);
  FailZone(zone, ZoneState::kReadOnly);
}

void FaultInjectingDevice::SetZoneOffline(uint32_t zone) {
  absl::MutexLock lock(&mu_);
  FailZone(zone, ZoneState::kOffline);
}

uint64_t FaultInjectingDevice::injected() const {
  absl::MutexLock lock(&mu_);
  return injected_;
}

void FaultInjectingDevice::FailZone(uint32_t zone, ZoneState state) {
  if (zone >= info().num_zones || zone < info().num_conventional_zones) return;
  if (emulated_ != nullptr) {
    auto now = emulated_->ReportZone(zone);
    if (now.ok() && now->state == ZoneState::kOffline) return;  // offline is final
    if (state == ZoneState::kOffline) {
      emulated_->SetZoneOffline(zone);
    } else {
      emulated_->SetZoneReadOnly(zone);
    }
    return;
  }
  ZoneState& s = failed_[zone];
  if (s != ZoneState::kOffline) s = state;  // offline is final
}

bool FaultInjectingDevice::Fires(Armed& a, Command cmd, uint32_t zone) {
  const FaultSpec& f = a.spec;
  if (!Counts(f, cmd == Command::kRead, cmd == Command::kWrite)) return false;
  if (zone < f.first_zone || zone > f.last_zone) return false;
  if (f.count != 0 && a.fired >= f.count) return false;
  if (++a.seen <= f.after) return false;
  if (f.probability > 0 &&
      std::uniform_real_distribution<double>(0, 1)(a.rng) >= f.probability) {
    return false;
  }
  ++a.fired;
  ++injected_;
  return true;
}

absl::Status FaultInjectingDevice::Inject(Command cmd, uint32_t zone, const std::string& what) {
  absl::Status error;
  {
    absl::MutexLock lock(&mu_);
    for (Armed& a : armed_) {
      if (!Fires(a, cmd, zone)) continue;
      switch (a.spec.kind) {
        case FaultKind::kReadOnly: FailZone(zone, ZoneState::kReadOnly); break;
        case FaultKind::kOffline: FailZone(zone, ZoneState::kOffline); break;
        case FaultKind::kReadError:
        case FaultKind::kWriteError:
          if (error.ok()) {
            error = absl::UnavailableError(
                absl::StrCat("injected I/O error (", ToString(a.spec.kind), "): ", what,
                             " on ", info().name, " zone ", zone));
          }
          break;
      }
    }
  }
  if (!error.ok()) return error;
  return CheckFailedZone(cmd, zone, what);
}

absl::Status FaultInjectingDevice::CheckFailedZone(Command cmd, uint32_t zone,
                                                   const std::string& what) const {
  absl::MutexLock lock(&mu_);
  auto it = failed_.find(zone);
  if (it == failed_.end()) return absl::OkStatus();
  // The errors the emulator's state machine gives for these states.
  const std::string where = absl::StrCat(what, ": zone ", zone);
  const bool offline = it->second == ZoneState::kOffline;
  switch (cmd) {
    case Command::kRead:  // read-only zones stay readable
      return offline ? MakeZoneError(ZoneError::kOffline, where) : absl::OkStatus();
    case Command::kWrite:
      return MakeZoneError(offline ? ZoneError::kOffline : ZoneError::kReadOnly, where);
    case Command::kManage: return MakeZoneError(ZoneError::kInvalidTransition, where);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<ZoneInfo>> FaultInjectingDevice::ReportZones(uint32_t first,
                                                                        uint32_t count) const {
  auto zones = inner_->ReportZones(first, count);
  if (!zones.ok()) return zones;
  absl::MutexLock lock(&mu_);
  for (ZoneInfo& z : *zones) {
    auto it = failed_.find(z.index);
    if (it != failed_.end()) z.state = it->second;
  }
  return zones;
}

absl::Status FaultInjectingDevice::Read(uint64_t offset, std::span<uint8_t> dst,
                                        const IoContext& ctx) {
  if (!dst.empty() && offset < info().capacity_bytes()) {
    // A read that spans zones (ZBC) is checked against each of them.
    const uint32_t last = ZoneOf(std::min(offset + dst.size(), info().capacity_bytes()) - 1);
    for (uint32_t z = ZoneOf(offset); z <= last; ++z) {
      const std::string what = absl::StrCat("read of ", dst.size(), " bytes at ", offset);
      if (auto s = Inject(Command::kRead, z, what); !s.ok()) return s;
    }
  }
  return inner_->Read(offset, dst, ctx);
}

absl::Status FaultInjectingDevice::Write(uint64_t offset, std::span<const uint8_t> src,
                                         const IoContext& ctx) {
  if (offset < info().capacity_bytes()) {
    const std::string what = absl::StrCat("write of ", src.size(), " bytes at ", offset);
    if (auto s = Inject(Command::kWrite, ZoneOf(offset), what); !s.ok()) return s;
  }
  return inner_->Write(offset, src, ctx);
}

absl::StatusOr<uint64_t> FaultInjectingDevice::Append(uint32_t zone,
                                                      std::span<const uint8_t> src,
                                                      const IoContext& ctx) {
  if (auto s = Inject(Command::kWrite, zone, absl::StrCat("append of ", src.size(), " bytes"));
      !s.ok()) {
    return s;
  }
  return inner_->Append(zone, src, ctx);
}

absl::Status FaultInjectingDevice::OpenZone(uint32_t zone, CellMode mode, const IoContext& ctx) {
  if (auto s = Inject(Command::kManage, zone, "open"); !s.ok()) return s;
  return inner_->OpenZone(zone, mode, ctx);
}

absl::Status FaultInjectingDevice::CloseZone(uint32_t zone, const IoContext& ctx) {
  if (auto s = Inject(Command::kManage, zone, "close"); !s.ok()) return s;
  return inner_->CloseZone(zone, ctx);
}

absl::Status FaultInjectingDevice::FinishZone(uint32_t zone, const IoContext& ctx) {
  if (auto s = Inject(Command::kManage, zone, "finish"); !s.ok()) return s;
  return inner_->FinishZone(zone, ctx);
}

absl::Status FaultInjectingDevice::ResetZone(uint32_t zone, const IoContext& ctx) {
  if (auto s = Inject(Command::kManage, zone, "reset"); !s.ok()) return s;
  return inner_->ResetZone(zone, ctx);
}

absl::Status FaultInjectingDevice::Flush(const IoContext& ctx) { return inner_->Flush(ctx); }

absl::StatusOr<uint64_t> FaultInjectingDevice::SimpleCopy(std::span<const CopyRange> sources,
                                                          uint32_t dst_zone,
                                                          const IoContext& ctx) {
  for (const CopyRange& r : sources) {
    if (r.length == 0 || r.offset >= info().capacity_bytes()) continue;
    const std::string what = absl::StrCat("copy source of ", r.length, " bytes at ", r.offset);
    if (auto s = Inject(Command::kRead, ZoneOf(r.offset), what); !s.ok()) return s;
  }
  if (auto s = Inject(Command::kWrite, dst_zone, "simple copy"); !s.ok()) return s;
  return inner_->SimpleCopy(sources, dst_zone, ctx);
}

absl::Status FaultInjectingDevice::SplitZone(uint32_t zone, const IoContext& ctx) {
  if (auto s = Inject(Command::kManage, zone, "split"); !s.ok()) return s;
  return inner_->SplitZone(zone, ctx);
}

absl::Status FaultInjectingDevice::MergeZone(uint32_t zone, const IoContext& ctx) {
  if (auto s = Inject(Command::kManage, zone, "merge"); !s.ok()) return s;
  return inner_->MergeZone(zone, ctx);
}

absl::StatusOr<uint64_t> FaultInjectingDevice::AppendSubzone(uint32_t zone, uint32_t subzone,
                                                              std::span<const uint8_t> src,
                                                              const IoContext& ctx) {
  const std::string what = absl::StrCat("append of ", src.size(), " bytes to subzone ", subzone);
  if (auto s = Inject(Command::kWrite, zone, what); !s.ok()) return s;
  return inner_->AppendSubzone(zone, subzone, src, ctx);
}

absl::Status FaultInjectingDevice::FinishSubzone(uint32_t zone, uint32_t subzone,
                                                 const IoContext& ctx) {
  if (auto s = Inject(Command::kManage, zone, "finish subzone"); !s.ok()) return s;
  return inner_->FinishSubzone(zone, subzone, ctx);
}

absl::Status FaultInjectingDevice::ResetSubzone(uint32_t zone, uint32_t subzone,
                                                const IoContext& ctx) {
  if (auto s = Inject(Command::kManage, zone, "reset subzone"); !s.ok()) return s;
  return inner_->ResetSubzone(zone, subzone, ctx);
}

std::optional<absl::StatusOr<std::unique_ptr<ZonedDevice>>> OpenWithFaults(
    const std::string& uri, DeviceOpener open) {
  const size_t q = uri.find('?');
  if (q == std::string::npos) return std::nullopt;
  std::vector<std::string> kept;
  std::optional<std::string> faults;
  for (absl::string_view kv : absl::StrSplit(absl::string_view(uri).substr(q + 1), '&')) {
    if (!absl::StartsWith(kv, "fault=")) {
      kept.emplace_back(kv);
      continue;
    }
    if (faults) {
      return absl::InvalidArgumentError(absl::StrCat(
          "device URI '", uri, "': fault= given twice; join faults with '+'"));
    }
    faults = std::string(kv.substr(6));
  }
  if (!faults) return std::nullopt;
  auto specs = ParseFaults(*faults);
  if (!specs.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("device URI '", uri, "': ", specs.status().message()));
  }
  std::string rest = uri.substr(0, q);
  if (!kept.empty()) absl::StrAppend(&rest, "?", absl::StrJoin(kept, "&"));
  auto dev = open(rest);
  if (!dev.ok()) return dev.status();
  return std::unique_ptr<ZonedDevice>(std::make_unique<FaultInjectingDevice>(
      std::shared_ptr<ZonedDevice>(std::move(*dev)), std::move(*specs)));
}

}  // namespace zonestack::device
