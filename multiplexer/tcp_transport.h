#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "multiplexer/connection_thread.h"
#include "multiplexer/transport.h"

namespace shoal::multiplexer {

/// TCP: one connection per peer pair, non-blocking sockets on the network
/// thread's epoll set, large socket buffers, TCP_NODELAY so that the small
/// control frames of the schedule leave at once. Flow control is the same
/// credit scheme as on RDMA (the multiplexer counts credits; the link only
/// moves frames).
///
/// Handshakes use blocking sockets with timeouts on the connection thread.
class TcpTransport final : public Transport {
 public:
  explicit TcpTransport(LinkIdentity identity);
  ~TcpTransport() override;

  std::string_view name() const override { return "tcp"; }
  Status start(EventLoop& loop, LinkEvents& events, MessagePool& receivePool) override;
  void connect(NodeId peer) override;
  void runPending() override;
  void stop() override;

 private:
  struct Handshaken {
    int fd = -1;
    NodeId peer = 0;
    uint32_t peerWindow = 0;
    std::string error;  // set when a connect attempt failed
  };

  void acceptOne();
  Handshaken connectTo(NodeId peer);
  void finish(Handshaken result);

  LinkIdentity identity_;
  EventLoop* loop_ = nullptr;
  LinkEvents* events_ = nullptr;
  MessagePool* receivePool_ = nullptr;
  int listenFd_ = -1;
  ConnectionThread connectionThread_;
  std::mutex mutex_;
  std::vector<Handshaken> finished_;  // handshakes done, for the network thread
};

/// Sets a connected socket up for the data path: non-blocking, TCP_NODELAY and
/// large send and receive buffers.
void configureDataSocket(int fd);

}  // namespace shoal::multiplexer
