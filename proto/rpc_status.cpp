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

/// error_details: the SQLSTATE, then, when there are any, the DETAIL and HINT lines, each after a unit separator.
constexpr char kFieldSeparator = '\x1f';

grpc::Status toGrpcStatus(const Status& status) {
  if (status.isOk()) return grpc::Status::OK;
  std::string details(status.sqlState());
  if (!status.detail().empty() || !status.hint().empty()) {
    details += kFieldSeparator + status.detail() + kFieldSeparator + status.hint();
  }
  return grpc::Status(grpc::StatusCode::ABORTED, status.message(), details);
}

Status fromGrpcStatus(const grpc::Status& status, std::string_view peer) {
  if (status.ok()) return Status::ok();
  const std::string& details = status.error_details();
  if (details.size() == 5) {
    return Status(internSqlState(details), status.error_message());
  }
  if (details.size() > 5 && details[5] == kFieldSeparator) {
    const size_t hintStart = details.find(kFieldSeparator, 6);
    if (hintStart != std::string::npos) {
      return Status(internSqlState(std::string_view(details).substr(0, 5)), status.error_message())
          .withDetail(details.substr(6, hintStart - 6))
          .withHint(details.substr(hintStart + 1));
    }
  }
  return Status(SqlState::kConnectionFailure,
                fmt::format("worker {} failed: {} (gRPC code {})", peer, status.error_message(),
                            static_cast<int>(status.error_code())));
}

void throwRpcError(const grpc::Status& status, std::string_view peer) {
  throw ShoalError(fromGrpcStatus(status, peer));
}

}  // namespace shoal::proto
