// The hint listener and SSD cache as RocksDB creates them by name (an
// OPTIONS file, db_bench's --secondary_cache_uri), and what the volume
// registry then knows of the hints a scheme gets.
#include "glue/hint_factories.h"

#include <gtest/gtest.h>

#include "glue/missing_hints.h"
#include "glue/registration.h"
#include "rocksdb/convenience.h"
#include "rocksdb/options.h"
#include "scheme_test_util.h"

namespace zonestack::rocks {
namespace {

class HintFactoriesTest : public SchemeDbTest {
 protected:
  void SetUp() override { RegisterZoneStack(); }

  // Mounts a volume of `config` (a path), as --fs_uri would.
  std::shared_ptr<zfs::Volume> Mount(const std::string& config) {
    auto parsed = ParseUri(kUriScheme + config);
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    auto volume = AcquireVolume(*parsed);
    EXPECT_TRUE(volume.ok()) << volume.status();
    return volume.ok() ? *volume : nullptr;
  }
};

rocksdb::Status ListenerFromOptionsFile(std::shared_ptr<rocksdb::EventListener>* out) {
  // As RocksDB parses an OPTIONS file's [DBOptions] line.
  rocksdb::ConfigOptions config;
  config.ignore_unsupported_options = false;
  rocksdb::DBOptions parsed;
  rocksdb::Status s = rocksdb::GetDBOptionsFromString(
      config, rocksdb::DBOptions(), "listeners={ZoneStackHintListener}", &parsed);
  if (s.ok() && parsed.listeners.size() == 1) *out = parsed.listeners[0];
  return s;
}

TEST_F(HintFactoriesTest, ListenerWithoutAHintedVolumeFailsToLoad) {
  Mount(WriteConfig(R"("scheme": "lifetime")"));
  std::shared_ptr<rocksdb::EventListener> listener;
  rocksdb::Status s = ListenerFromOptionsFile(&listener);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("no mounted ZoneStack volume has a hinted scheme"),
            std::string::npos)
      << s.ToString();
  EXPECT_EQ(listener, nullptr);
}

TEST_F(HintFactoriesTest, ListenerFromAnOptionsFileBindsToTheHintedVolume) {
  auto volume = Mount(WriteConfig(R"("scheme": "hhzs")"));
  ASSERT_NE(volume, nullptr);
  std::shared_ptr<rocksdb::EventListener> listener;
  ASSERT_TRUE(ListenerFromOptionsFile(&listener).ok());
  ASSERT_NE(listener, nullptr);
  EXPECT_STREQ(listener->Name(), "ZoneStackHintListener");
  auto* bound = dynamic_cast<OptionsFileHintListener*>(listener.get());
  ASSERT_NE(bound, nullptr);
  ASSERT_NE(bound->inner(), nullptr);

  // The listener counts; the SSD cache (hhzs caches) is still missing.
  auto missing = TakeMissingHints(*volume);
  ASSERT_TRUE(missing.has_value());
  EXPECT_FALSE(missing->listener);
  EXPECT_TRUE(missing->cache);
  EXPECT_EQ(missing->scheme, "hhzs");
  // Reported once per mount.
  EXPECT_FALSE(TakeMissingHints(*volume).has_value());
}

TEST_F(HintFactoriesTest, SecondaryCacheByNameIsTheVolumesSsdCache) {
  auto volume = Mount(WriteConfig(R"("scheme": "hhzs")"));
  ASSERT_NE(volume, nullptr);
  std::shared_ptr<rocksdb::SecondaryCache> cache;
  rocksdb::ConfigOptions config;
  config.ignore_unsupported_options = false;
  ASSERT_TRUE(rocksdb::SecondaryCache::CreateFromString(config, "ZoneStackSsdCache", &cache).ok());
  ASSERT_NE(cache, nullptr);
  EXPECT_STREQ(cache->Name(), "ZoneStackSsdCache");
  EXPECT_NE(FindSsdCache(*volume), nullptr);
  std::shared_ptr<rocksdb::EventListener> listener;
  ASSERT_TRUE(ListenerFromOptionsFile(&listener).ok());
  EXPECT_FALSE(TakeMissingHints(*volume).has_value());  // nothing missing
}

TEST_F(HintFactoriesTest, SecondaryCacheNeedsACachingScheme) {
  Mount(WriteConfig(R"("scheme": "p")"));  // HHZS placement alone: no cache
  std::shared_ptr<rocksdb::SecondaryCache> cache;
  rocksdb::Status s = rocksdb::SecondaryCache::CreateFromString({}, "ZoneStackSsdCache", &cache);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("caching scheme"), std::string::npos) << s.ToString();
}

TEST_F(HintFactoriesTest, TwoHintedVolumesAreAmbiguous) {
  Mount(WriteConfig(R"("scheme": "hhzs")"));
  Mount(WriteConfig(R"("scheme": "hhzs")", /*ssd_zones=*/48, /*hdd_zones=*/128));
  std::shared_ptr<rocksdb::EventListener> listener;
  rocksdb::Status s = ListenerFromOptionsFile(&listener);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("2 mounted volumes"), std::string::npos) << s.ToString();
}

TEST_F(HintFactoriesTest, NothingIsMissingWhileAnOpenDbHoldsItsHints) {
  const std::string config = WriteConfig(R"("scheme": "hhzs")");
  auto db = OpenDb(config, "/db", LevelOptions());
  ASSERT_TRUE(db.ok()) << db.status();
  auto parts = PartsOf(**db);
  ASSERT_TRUE(parts.has_value());
  EXPECT_FALSE(TakeMissingHints(*parts->volume).has_value());
}

TEST_F(HintFactoriesTest, AVolumeWithoutAnSsdMissesNoCache) {
  const std::string hdd = HddUri(64);
  auto config = ParseConfigJson(absl::StrCat(R"({"devices": [")", hdd, R"("], "scheme": "hhzs"})"),
                                "test");
  ASSERT_TRUE(config.ok()) << config.status();
  auto volume = AcquireVolume(*config);
  ASSERT_TRUE(volume.ok()) << volume.status();
  auto missing = TakeMissingHints(**volume);
  ASSERT_TRUE(missing.has_value());
  EXPECT_TRUE(missing->listener);
  EXPECT_FALSE(missing->cache);  // hhzs caches, but only on an SSD
  volume->reset();
  EXPECT_TRUE(Forget(kUriScheme + hdd).ok());
}

TEST(MissingHintsMessageTest, NamesWhatIsMissingAndHowToAttachIt) {
  MissingHints m{.volume = "emu:a;emu:b", .scheme = "b3", .without = "it guesses",
                 .listener = true, .cache = false};
  std::string text = MissingHintsMessage(m);
  EXPECT_NE(text.find("scheme 'b3' of volume 'emu:a;emu:b'"), std::string::npos) << text;
  EXPECT_NE(text.find("so it guesses."), std::string::npos) << text;
  EXPECT_NE(text.find("listeners={ZoneStackHintListener}"), std::string::npos) << text;
  EXPECT_EQ(text.find("ZoneStackSsdCache"), std::string::npos) << text;

  m.listener = false;
  m.cache = true;
  text = MissingHintsMessage(m);
  EXPECT_EQ(text.find("ZoneStackHintListener"), std::string::npos) << text;
  EXPECT_NE(text.find("its SSD cache stays empty"), std::string::npos) << text;
  EXPECT_NE(text.find("--secondary_cache_uri=ZoneStackSsdCache"), std::string::npos) << text;
}

}  // namespace
}  // namespace zonestack::rocks
