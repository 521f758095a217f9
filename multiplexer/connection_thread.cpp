#include "multiplexer/connection_thread.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>

namespace shoal::multiplexer {

void ConnectionThread::start(int listenFd, std::function<void()> onListenReady, std::function<void(NodeId)> connectTo) {
  listenFd_ = listenFd;
  onListenReady_ = std::move(onListenReady);
  connectTo_ = std::move(connectTo);
  wakeFd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  thread_ = std::thread([this] { run(); });
}

void ConnectionThread::requestConnect(NodeId peer) {
  {
    std::lock_guard lock(mutex_);
    requests_.push_back(peer);
  }
  uint64_t one = 1;
  [[maybe_unused]] ssize_t written = write(wakeFd_, &one, sizeof(one));
}

void ConnectionThread::stop() {
  if (stopping_.exchange(true)) return;
  if (thread_.joinable()) {
    uint64_t one = 1;
    [[maybe_unused]] ssize_t written = write(wakeFd_, &one, sizeof(one));
    thread_.join();
  }
  if (wakeFd_ >= 0) close(wakeFd_);
  wakeFd_ = -1;
}

void ConnectionThread::run() {
  while (!stopping_.load()) {
    pollfd fds[2] = {{listenFd_, POLLIN, 0}, {wakeFd_, POLLIN, 0}};
    if (::poll(fds, 2, 500) < 0 && errno != EINTR) break;
    if ((fds[1].revents & POLLIN) != 0) {
      uint64_t count;
      [[maybe_unused]] ssize_t got = read(wakeFd_, &count, sizeof(count));
    }
    if (stopping_.load()) break;
    if ((fds[0].revents & POLLIN) != 0) onListenReady_();
    while (true) {
      NodeId peer;
      {
        std::lock_guard lock(mutex_);
        if (requests_.empty()) break;
        peer = requests_.front();
        requests_.pop_front();
      }
      connectTo_(peer);
    }
  }
}

}  // namespace shoal::multiplexer
