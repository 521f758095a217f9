#pragma once

#include <memory>
#include <string>

#include <grpcpp/support/channel_arguments.h>
#include <grpcpp/support/status.h>

namespace grpc {
class Channel;
class ServerContext;
}  // namespace grpc

namespace shoal::proto {

// Every node of a cluster reads the same secret from --cluster-secret-file. Internal gRPC calls (control,
// data, fragments, loads) present a token derived from it, and every internal service refuses a call
// without it; the exchange multiplexer's handshake proves the secret too. The secret is process-wide: a
// node installs it once at start-up, before it creates a channel or a server.

/// Reads a cluster secret file: fails (22023) when it is missing, readable by others than its owner, or
/// shorter than kMinClusterSecretBytes.
std::string readClusterSecretFile(const std::string& path);
/// Writes a fresh random secret to `path`, readable by its owner only; fails when the file exists.
void writeClusterSecretFile(const std::string& path);
inline constexpr size_t kMinClusterSecretBytes = 16;

/// Makes `secret` the one this process presents and checks.
void installClusterSecret(const std::string& secret);
/// The installed secret (empty before installClusterSecret).
std::string clusterSecret();

/// A channel to another node's internal service that presents the cluster token on every call.
std::shared_ptr<grpc::Channel> createInternalChannel(const std::string& address,
                                                     const grpc::ChannelArguments& arguments = {});

/// OK when the call presents this process's cluster token; UNAUTHENTICATED otherwise (also when no secret
/// is installed). Every handler of an internal service starts with it.
grpc::Status checkInternalCall(const grpc::ServerContext& context);

}  // namespace shoal::proto
