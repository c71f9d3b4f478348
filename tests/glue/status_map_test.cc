#include "glue/status_map.h"

#include <gtest/gtest.h>

namespace zonestack::rocks {
namespace {

TEST(StatusMapTest, OkStaysOk) { EXPECT_TRUE(ToIOStatus(absl::OkStatus(), "/x").ok()); }

TEST(StatusMapTest, NotFoundIsPathNotFoundLikePosix) {
  rocksdb::IOStatus s = ToIOStatus(absl::NotFoundError("no such file"), "/db/1.sst");
  EXPECT_TRUE(s.IsPathNotFound());
  EXPECT_TRUE(s.IsIOError());
  EXPECT_NE(s.ToString().find("/db/1.sst: no such file"), std::string::npos) << s.ToString();
}

TEST(StatusMapTest, LookupNotFoundIsNotFound) {
  EXPECT_TRUE(ToIOStatusForLookup(absl::NotFoundError("gone"), "/db/x").IsNotFound());
  EXPECT_TRUE(ToIOStatusForLookup(absl::DataLossError("bad"), "/db/x").IsCorruption());
}

TEST(StatusMapTest, ResourceExhaustedIsNoSpace) {
  rocksdb::IOStatus s = ToIOStatus(absl::ResourceExhaustedError("no empty zone"), "/db/2.sst");
  EXPECT_TRUE(s.IsNoSpace());
  EXPECT_TRUE(s.IsIOError());
  EXPECT_NE(s.ToString().find("no empty zone"), std::string::npos);
}

TEST(StatusMapTest, InvalidArgumentUnimplementedDataLoss) {
  EXPECT_TRUE(ToIOStatus(absl::InvalidArgumentError("x")).IsInvalidArgument());
  EXPECT_TRUE(ToIOStatus(absl::UnimplementedError("x")).IsNotSupported());
  EXPECT_TRUE(ToIOStatus(absl::DataLossError("x")).IsCorruption());
}

TEST(StatusMapTest, OthersAreIOErrorsNamingTheCode) {
  rocksdb::IOStatus s = ToIOStatus(absl::FailedPreconditionError("open for writing"), "/f");
  EXPECT_TRUE(s.IsIOError());
  EXPECT_FALSE(s.IsNoSpace());
  EXPECT_FALSE(s.IsPathNotFound());
  EXPECT_NE(s.ToString().find("FAILED_PRECONDITION"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("/f: open for writing"), std::string::npos) << s.ToString();
}

TEST(StatusMapTest, RocksDbToAbsl) {
  EXPECT_TRUE(ToAbslStatus(rocksdb::Status::OK()).ok());
  EXPECT_EQ(ToAbslStatus(rocksdb::Status::NotFound("x")).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ToAbslStatus(rocksdb::IOStatus::PathNotFound("x")).code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(ToAbslStatus(rocksdb::IOStatus::NoSpace("x")).code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(ToAbslStatus(rocksdb::Status::InvalidArgument("x")).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ToAbslStatus(rocksdb::Status::NotSupported("x")).code(),
            absl::StatusCode::kUnimplemented);
  EXPECT_EQ(ToAbslStatus(rocksdb::Status::Corruption("x")).code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(ToAbslStatus(rocksdb::Status::Busy("x")).code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(ToAbslStatus(rocksdb::Status::IOError("x")).code(), absl::StatusCode::kInternal);
}

TEST(StatusMapTest, RoundTripKeepsNoSpace) {
  // A full volume must reach the caller of OpenDb/Put as "no space".
  absl::Status back = ToAbslStatus(ToIOStatus(absl::ResourceExhaustedError("full")));
  EXPECT_EQ(back.code(), absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace zonestack::rocks
