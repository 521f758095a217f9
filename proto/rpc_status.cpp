#include "proto/rpc_status.h"

#include <mutex>
#include <set>
#include <string>

namespace shoal::proto {
namespace {

/// Status holds its SQLSTATE as a string_view: codes read off the wire are kept here for good.
std::string_view internSqlState(std::string_view code) {
  static std::mutex mutex;
  static std::set<std::string, std::less<>> codes;
  std::lock_guard lock(mutex);
  auto it = codes.find(code);
  if (it == codes.end()) it = codes.emplace(code).first;
  return *it;
}

}  // namespace

grpc::Status toGrpcStatus(const Status& status) {
  if (status.isOk()) return grpc::Status::OK;
  return grpc::Status(grpc::StatusCode::ABORTED, status.message(), std::string(status.sqlState()));
}

Status fromGrpcStatus(const grpc::Status& status, std::string_view peer) {
  if (status.ok()) return Status::ok();
  const std::string& details = status.error_details();
  if (details.size() == 5) {
    return Status(internSqlState(details), status.error_message());
  }
  return Status(SqlState::kConnectionFailure,
                fmt::format("worker {} failed: {} (gRPC code {})", peer, status.error_message(),
                            static_cast<int>(status.error_code())));
}

void throwRpcError(const grpc::Status& status, std::string_view peer) {
  throw ShoalError(fromGrpcStatus(status, peer));
}

}  // namespace shoal::proto
