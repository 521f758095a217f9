#pragma once

#include <sys/epoll.h>

#include <cstdint>
#include <functional>
#include <unordered_map>

namespace shoal::multiplexer {

/// The network thread's epoll set: sockets, RDMA completion and connection
/// channels, and an eventfd that other threads use to wake it. Handlers run on
/// the network thread; a handler may add or remove descriptors, even its own.
class EventLoop {
 public:
  using Handler = std::function<void(uint32_t events)>;

  EventLoop();
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  void add(int fd, uint32_t events, Handler handler);
  void modify(int fd, uint32_t events);
  void remove(int fd);

  /// Waits up to `timeoutMs` (0: just poll) and runs the handlers of ready descriptors.
  void runOnce(int timeoutMs);

  /// Wakes `runOnce` from any thread.
  void wake();

 private:
  struct Watch {
    uint64_t token;
    Handler handler;
  };

  int epollFd_;
  int wakeFd_;
  uint64_t nextToken_ = 1;
  std::unordered_map<int, Watch> watches_;
  std::unordered_map<uint64_t, int> fdByToken_;
};

}  // namespace shoal::multiplexer
