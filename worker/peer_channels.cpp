#include "worker/peer_channels.h"

#include "proto/data_channel.h"

namespace shoal::worker {

std::shared_ptr<grpc::Channel> PeerChannels::get(const std::string& address) {
  std::lock_guard lock(mutex_);
  auto& channel = channels_[address];
  if (!channel) channel = proto::createDataChannel(address);
  return channel;
}

}  // namespace shoal::worker
