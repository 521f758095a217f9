#include "proto/data_channel.h"

#include <grpcpp/grpcpp.h>

#include "proto/internal_auth.h"

namespace shoal::proto {
namespace {

constexpr int kKeepAliveIntervalMs = 10000;
constexpr int kKeepAliveTimeoutMs = 5000;

}  // namespace

std::shared_ptr<grpc::Channel> createDataChannel(const std::string& address) {
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(-1);
  arguments.SetMaxSendMessageSize(-1);
  arguments.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, kKeepAliveIntervalMs);
  arguments.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, kKeepAliveTimeoutMs);
  arguments.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);  // a long query sends nothing for a while
  // Connections of this channel only: a channel made anew for a worker back from an outage must not pick up
  // the old channel's connection from gRPC's process-wide pool.
  arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return createInternalChannel(address, arguments);
}

void acceptDataChannelPings(grpc::ServerBuilder& builder) {
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, kKeepAliveIntervalMs / 2);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
}

}  // namespace shoal::proto
