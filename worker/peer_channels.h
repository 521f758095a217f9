#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <grpcpp/channel.h>

namespace shoal::worker {

/// One gRPC channel per peer address, created on first use and shared by every
/// thread that talks to that peer. Thread-safe.
class PeerChannels {
 public:
  std::shared_ptr<grpc::Channel> get(const std::string& address);

 private:
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<grpc::Channel>> channels_;  // guarded by mutex_
};

}  // namespace shoal::worker
