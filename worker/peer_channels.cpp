#include "worker/peer_channels.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

namespace shoal::worker {

std::shared_ptr<grpc::Channel> PeerChannels::get(const std::string& address) {
  std::lock_guard lock(mutex_);
  auto& channel = channels_[address];
  if (!channel) {
    grpc::ChannelArguments arguments;
    arguments.SetMaxReceiveMessageSize(-1);
    arguments.SetMaxSendMessageSize(-1);
    channel = grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), arguments);
  }
  return channel;
}

}  // namespace shoal::worker
