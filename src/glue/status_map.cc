#include "glue/status_map.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace zonestack::rocks {
namespace {

std::string Message(const absl::Status& status, absl::string_view context) {
  if (context.empty()) return std::string(status.message());
  return absl::StrCat(context, ": ", status.message());
}

}  // namespace

rocksdb::IOStatus ToIOStatus(const absl::Status& status, absl::string_view context) {
  if (status.ok()) return rocksdb::IOStatus::OK();
  const std::string msg = Message(status, context);
  switch (status.code()) {
    case absl::StatusCode::kNotFound:
      return rocksdb::IOStatus::PathNotFound(msg);
    case absl::StatusCode::kResourceExhausted:
      return rocksdb::IOStatus::NoSpace(msg);
    case absl::StatusCode::kInvalidArgument:
      return rocksdb::IOStatus::InvalidArgument(msg);
    case absl::StatusCode::kUnimplemented:
      return rocksdb::IOStatus::NotSupported(msg);
    case absl::StatusCode::kDataLoss:
      return rocksdb::IOStatus::Corruption(msg);
    default:
      return rocksdb::IOStatus::IOError(absl::StatusCodeToString(status.code()), msg);
  }
}

rocksdb::IOStatus ToIOStatusForLookup(const absl::Status& status, absl::string_view context) {
  if (status.code() != absl::StatusCode::kNotFound) return ToIOStatus(status, context);
  return rocksdb::IOStatus::NotFound(Message(status, context));
}

absl::Status ToAbslStatus(const rocksdb::Status& status) {
  if (status.ok()) return absl::OkStatus();
  const std::string msg = status.ToString();
  if (status.IsNotFound() || status.IsPathNotFound()) return absl::NotFoundError(msg);
  if (status.IsNoSpace()) return absl::ResourceExhaustedError(msg);
  if (status.IsInvalidArgument()) return absl::InvalidArgumentError(msg);
  if (status.IsNotSupported()) return absl::UnimplementedError(msg);
  if (status.IsCorruption()) return absl::DataLossError(msg);
  if (status.IsBusy() || status.IsTryAgain() || status.IsTimedOut()) {
    return absl::UnavailableError(msg);
  }
  return absl::InternalError(msg);
}

}  // namespace zonestack::rocks
