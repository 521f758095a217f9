#pragma once

#include <memory>
#include <string>

namespace grpc {
class ChannelCredentials;
class ServerCredentials;
}  // namespace grpc

namespace shoal::proto {

// Internal gRPC (control, data, fragments, loads) over mutual TLS with the cluster's own CA: every node
// presents a certificate the CA signed (`shoal certs init` makes both) and accepts only peers that present
// one, so a process without the cluster's certificate cannot even open a call. Installed once per process,
// at start-up, before any channel or server exists; without it internal traffic is plaintext, guarded by the
// cluster token alone (internal_auth.h), and the node says so at start-up.

/// Reads the cluster CA, this node's certificate and its key (PEM files); fails (F0000) when one cannot be
/// read.
void installInternalTls(const std::string& caFile, const std::string& certificateFile, const std::string& keyFile);
bool internalTlsInstalled();

/// What internal channels and servers are made with: TLS with client certificates required and checked
/// against the cluster CA when installed, plaintext otherwise.
std::shared_ptr<grpc::ChannelCredentials> internalChannelCredentials();
std::shared_ptr<grpc::ServerCredentials> internalServerCredentials();

}  // namespace shoal::proto
