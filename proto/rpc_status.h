#pragma once

#include <string_view>

#include <grpcpp/support/status.h>

#include "common/status.h"
#include "proto/internal_auth.h"

namespace shoal::proto {

// User errors cross process boundaries inside gRPC statuses: the message as
// the message, the SQLSTATE in the error details, so that a bad row found by
// a worker reaches the client with the SQLSTATE the worker chose.

grpc::Status toGrpcStatus(const Status& status);
/// Serves one call of an internal service: refuses it (UNAUTHENTICATED) unless it presents the cluster
/// token (proto/internal_auth.h), then runs `body`, turning a ShoalError (or any exception) into a failed
/// gRPC status.
template <class Body>
grpc::Status serveRpc(const grpc::ServerContext* context, Body&& body) {
  if (grpc::Status allowed = checkInternalCall(*context); !allowed.ok()) return allowed;
  try {
    body();
    return grpc::Status::OK;
  } catch (const ShoalError& error) {
    return toGrpcStatus(error.status());
  } catch (const std::exception& error) {
    return toGrpcStatus(Status(SqlState::kInternalError, error.what()));
  }
}

/// The user error a failed RPC carries. Statuses without a SQLSTATE (the peer
/// was unreachable, the deadline passed) become 08006 naming `peer`.
Status fromGrpcStatus(const grpc::Status& status, std::string_view peer);
[[noreturn]] void throwRpcError(const grpc::Status& status, std::string_view peer);

}  // namespace shoal::proto
