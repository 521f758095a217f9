#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "multiplexer/wire_format.h"

namespace shoal::multiplexer {

/// The thread on which a transport accepts and makes connections. Handshakes
/// block (with timeouts) here, so a slow or hostile connection never stalls
/// the network thread. It waits on the transport's listening descriptor and
/// on connect requests from the network thread.
class ConnectionThread {
 public:
  ConnectionThread() = default;
  ~ConnectionThread() { stop(); }
  ConnectionThread(const ConnectionThread&) = delete;
  ConnectionThread& operator=(const ConnectionThread&) = delete;

  /// Calls `onListenReady` when `listenFd` is readable and `connectTo(peer)`
  /// for each requested peer, all on the new thread.
  void start(int listenFd, std::function<void()> onListenReady, std::function<void(NodeId)> connectTo);
  /// Asks for a connection to `peer` (any thread).
  void requestConnect(NodeId peer);
  /// Stops and joins the thread; a handshake under way finishes first.
  void stop();

 private:
  void run();

  int listenFd_ = -1;
  int wakeFd_ = -1;
  std::function<void()> onListenReady_;
  std::function<void(NodeId)> connectTo_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::deque<NodeId> requests_;
};

}  // namespace shoal::multiplexer
