#pragma once

#include <memory>
#include <string>

namespace grpc {
class Channel;
class ServerBuilder;
}  // namespace grpc

namespace shoal::proto {

/// A channel for WorkerData calls (coordinator to worker, worker to worker): no message size limit, and
/// keep-alive pings during calls, so that a call to a host whose link was cut fails within seconds rather
/// than when TCP gives up.
std::shared_ptr<grpc::Channel> createDataChannel(const std::string& address);

/// Lets a worker's server accept those pings (gRPC servers refuse pings more often than every 5 minutes).
void acceptDataChannelPings(grpc::ServerBuilder& builder);

}  // namespace shoal::proto
