#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string_view>
#include <vector>

#include "multiplexer/multiplexer.h"

namespace shoal::multiplexer::testing {

/// Ports that were free a moment ago (the kernel picks them).
inline std::vector<uint16_t> freePorts(size_t count) {
  std::vector<int> sockets;
  std::vector<uint16_t> ports;
  for (size_t i = 0; i < count; ++i) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
    socklen_t length = sizeof(address);
    getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    ports.push_back(ntohs(address.sin_port));
    sockets.push_back(fd);
  }
  for (int fd : sockets) close(fd);
  return ports;
}

/// The tests run over TCP on loopback, or, inside the soft-RoCE VM (tests/rdma), over RDMA on the address of
/// its rxe device: SHOAL_TEST_TRANSPORT=rdma and SHOAL_TEST_HOST name them.
inline MultiplexerOptions nodeOptions(NodeId self, const std::vector<uint16_t>& ports) {
  MultiplexerOptions options;
  options.self = self;
  const char* host = std::getenv("SHOAL_TEST_HOST");
  for (uint16_t port : ports) options.nodes.push_back(NodeAddress{host != nullptr ? host : "127.0.0.1", port});
  options.clusterId = "test-cluster";
  options.secret = "test-secret";
  const char* transport = std::getenv("SHOAL_TEST_TRANSPORT");
  options.transport =
      transport != nullptr && std::string_view(transport) == "rdma" ? TransportChoice::kRdma : TransportChoice::kTcp;
  options.messageBytes = 64 * 1024;
  return options;
}

/// N multiplexers on loopback, each with its own network thread, all connected.
class LocalCluster {
 public:
  LocalCluster(uint32_t nodes, void (*configure)(MultiplexerOptions&) = nullptr) : ports_(freePorts(nodes)) {
    for (NodeId node = 0; node < nodes; ++node) {
      MultiplexerOptions options = nodeOptions(node, ports_);
      if (configure != nullptr) configure(options);
      nodes_.push_back(std::make_unique<Multiplexer>(options));
    }
    for (auto& node : nodes_) {
      Status started = node->start();
      if (!started.isOk()) throw ShoalError(started);
    }
    for (auto& node : nodes_) {
      if (!node->waitForPeers(std::chrono::seconds(10))) {
        throw ShoalError(Status(SqlState::kConnectionFailure, "test cluster did not connect"));
      }
    }
  }
  ~LocalCluster() {
    for (auto& node : nodes_) node->shutdown();
  }

  Multiplexer& operator[](size_t node) { return *nodes_[node]; }
  size_t size() const { return nodes_.size(); }
  const std::vector<uint16_t>& ports() const { return ports_; }

 private:
  std::vector<uint16_t> ports_;
  std::vector<std::unique_ptr<Multiplexer>> nodes_;
};

}  // namespace shoal::multiplexer::testing
