// zstier: an nbdkit plugin serving ZoneStack's block tier (ZoneTier) as an
// NBD export (docs/zonetier.md, "Block device export"):
//   nbdkit -f -U /tmp/tier.sock ./zstier.so scheme=HA-256-CFC
//       'drive=emu:st8000as0022?zones=2000&scale=1/2048&timing=none'
//       'ssd=emu:zn540?zones=64&conv=64&scale=1/2048&timing=none'
// (one command line).
// The devices are opened once nbdkit has forked and live until it exits;
// the tier is opened per connection and flushed and closed when the client
// leaves. Every error reaches the client as EIO, with the message in
// nbdkit's log.
#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include <cerrno>
#include <cstdio>
#include <memory>
#include <span>
#include <string>

#include "absl/strings/numbers.h"
#include "tools/zstier_nbd/tier_export.h"

namespace {

namespace zt = zonestack::tier;

zt::ExportConfig config;
// Test switch: a power cut of both devices after each connection closes.
bool power_cut_on_close = false;
std::unique_ptr<zt::TierExport> tier_export;
// The one connection's handle (SERIALIZE_CONNECTIONS): nbdkit needs a
// non-null pointer.
int handle_token;

int Fail(const absl::Status& s) {
  nbdkit_error("zstier: %s", s.ToString().c_str());
  nbdkit_set_error(EIO);
  return -1;
}

int Config(const char* key, const char* value) {
  const std::string k = key;
  uint64_t* number = k == "ssd_tier_bytes" ? &config.ssd_tier_bytes
                     : k == "cache_bytes"  ? &config.cache_bytes
                     : k == "period"       ? &config.period_requests
                                           : nullptr;
  if (number != nullptr) {
    if (!absl::SimpleAtoi(value, number)) {
      nbdkit_error("zstier: %s='%s' is not a whole number", key, value);
      return -1;
    }
  } else if (k == "power_cut_on_close") {
    const int b = nbdkit_parse_bool(value);
    if (b < 0) return -1;
    power_cut_on_close = b == 1;
  } else if (k == "scheme") {
    config.scheme = value;
  } else if (k == "drive") {
    config.drive_uri = value;
  } else if (k == "ssd") {
    config.ssd_uri = value;
  } else {
    nbdkit_error("zstier: unknown parameter '%s'", key);
    return -1;
  }
  return 0;
}

// After the fork: the emulator's threads would not survive it.
int AfterFork() {
  auto e = zt::TierExport::Open(config);
  if (!e.ok()) return Fail(e.status());
  tier_export = std::move(*e);
  return 0;
}

void Unload() {
  if (!tier_export) return;
  if (tier_export->connected()) {
    if (auto s = tier_export->Disconnect(); !s.ok()) Fail(s);
  }
  tier_export.reset();
}

void* Open(int /*readonly*/) {
  if (auto s = tier_export->Connect(); !s.ok()) {
    Fail(s);
    return nullptr;
  }
  const zt::RecoveryInfo& r = tier_export->tier()->recovery();
  std::fprintf(stderr,
               "zstier: connection opened: %s mapping, checkpoint generation %lu + %lu log "
               "records\n",
               r.formatted ? "a new" : "recovered", r.generation, r.log_records);
  return &handle_token;
}

void Close(void* /*handle*/) {
  // One line per connection in nbdkit's log: what the tier did with it.
  const zt::TierStats st = tier_export->tier()->Stats();
  std::fprintf(stderr,
               "zstier: connection closed: reads=%lu writes=%lu ssd_tier_writes=%lu "
               "sequential_writes=%lu drive_nsws=%lu cache_admissions=%lu evictions=%lu "
               "promotions=%lu demotions=%lu periods=%lu\n",
               st.reads, st.writes, st.ssd_tier_writes, st.sequential_writes, st.drive_nsws,
               st.cache_admissions, st.evictions, st.promotions, st.demotions, st.periods);
  // nbdkit cannot tell the departed client; the log can, and the next
  // connection recovers whatever the last successful flush made durable.
  if (auto s = tier_export->Disconnect(); !s.ok()) Fail(s);
  if (power_cut_on_close) {
    if (auto s = tier_export->PowerCut(); !s.ok()) {
      Fail(s);
    } else {
      std::fprintf(stderr, "zstier: power cut to both devices\n");
    }
  }
}

int64_t GetSize(void* /*handle*/) { return static_cast<int64_t>(tier_export->size()); }

int Yes(void* /*handle*/) { return 1; }
int FuaNative(void* /*handle*/) { return NBDKIT_FUA_NATIVE; }

int BlockSize(void* /*handle*/, uint32_t* minimum, uint32_t* preferred, uint32_t* maximum) {
  // Any alignment works (read-modify-write); whole blocks avoid it.
  *minimum = 1;
  *preferred = tier_export->block_size();
  *maximum = 0xffffffff;
  return 0;
}

int Pread(void* /*handle*/, void* buf, uint32_t count, uint64_t offset, uint32_t /*flags*/) {
  auto s = tier_export->Read(offset, std::span(static_cast<uint8_t*>(buf), count));
  return s.ok() ? 0 : Fail(s);
}

int Pwrite(void* /*handle*/, const void* buf, uint32_t count, uint64_t offset, uint32_t flags) {
  auto s = tier_export->Write(offset, std::span(static_cast<const uint8_t*>(buf), count),
                              (flags & NBDKIT_FLAG_FUA) != 0);
  return s.ok() ? 0 : Fail(s);
}

int Flush(void* /*handle*/, uint32_t /*flags*/) {
  auto s = tier_export->Flush();
  return s.ok() ? 0 : Fail(s);
}

int ThreadModel() { return NBDKIT_THREAD_MODEL_SERIALIZE_CONNECTIONS; }

nbdkit_plugin MakePlugin() {
  nbdkit_plugin p{};
  p.name = "zstier";
  p.longname = "ZoneStack block tier (ZoneTier: SSD + host-aware SMR)";
  p.version = "1";
  p.description = "ZoneStack's block tier over emulated devices";
  p.unload = Unload;
  p.config = Config;
  p.config_help =
      "scheme=NAME          DM-64-LRU, DM-128-LRU, DM-256-LRU, HA-256-LRU, HA-256-CFC\n"
      "drive=URI            the SMR drive (default: 250 MiB st8000as0022, timing=none)\n"
      "ssd=URI              the SSD, conventional zones (default: 64 MiB zn540)\n"
      "ssd_tier_bytes=N     SSD tier size (default: 10% of the drive)\n"
      "cache_bytes=N        cache size (default: 1% of the drive)\n"
      "period=N             requests per placement period (default: 1000)\n"
      "power_cut_on_close=BOOL  cut both devices' power after each connection (tests)";
  p.after_fork = AfterFork;
  p.open = Open;
  p.close = Close;
  p.get_size = GetSize;
  p.can_write = Yes;
  p.can_flush = Yes;
  p.is_rotational = Yes;
  p.can_fua = FuaNative;
  p.block_size = BlockSize;
  p.pread = Pread;
  p.pwrite = Pwrite;
  p.flush = Flush;
  p.thread_model = ThreadModel;
  // The one errno this plugin gives is set by nbdkit_set_error.
  p.errno_is_preserved = 0;
  return p;
}

nbdkit_plugin plugin = MakePlugin();

}  // namespace

#define THREAD_MODEL NBDKIT_THREAD_MODEL_SERIALIZE_CONNECTIONS
NBDKIT_REGISTER_PLUGIN(plugin)
