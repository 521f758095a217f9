#include "multiplexer/event_loop.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/check.h"

namespace shoal::multiplexer {

EventLoop::EventLoop() : epollFd_(epoll_create1(EPOLL_CLOEXEC)), wakeFd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
  SHOAL_CHECK(epollFd_ >= 0 && wakeFd_ >= 0, "epoll/eventfd: {}", std::strerror(errno));
  add(wakeFd_, EPOLLIN, [this](uint32_t) {
    uint64_t count;
    while (read(wakeFd_, &count, sizeof(count)) > 0) {
    }
  });
}

EventLoop::~EventLoop() {
  close(wakeFd_);
  close(epollFd_);
}

void EventLoop::add(int fd, uint32_t events, Handler handler) {
  uint64_t token = nextToken_++;
  epoll_event event{};
  event.events = events;
  event.data.u64 = token;
  SHOAL_CHECK(epoll_ctl(epollFd_, EPOLL_CTL_ADD, fd, &event) == 0, "epoll add fd {}: {}", fd, std::strerror(errno));
  watches_[fd] = Watch{token, std::move(handler)};
  fdByToken_[token] = fd;
}

void EventLoop::modify(int fd, uint32_t events) {
  auto it = watches_.find(fd);
  SHOAL_CHECK(it != watches_.end(), "epoll modify of unwatched fd {}", fd);
  epoll_event event{};
  event.events = events;
  event.data.u64 = it->second.token;
  SHOAL_CHECK(epoll_ctl(epollFd_, EPOLL_CTL_MOD, fd, &event) == 0, "epoll modify fd {}: {}", fd, std::strerror(errno));
}

void EventLoop::remove(int fd) {
  auto it = watches_.find(fd);
  if (it == watches_.end()) return;
  epoll_ctl(epollFd_, EPOLL_CTL_DEL, fd, nullptr);
  fdByToken_.erase(it->second.token);
  watches_.erase(it);
}

void EventLoop::runOnce(int timeoutMs) {
  epoll_event events[64];
  int ready = epoll_wait(epollFd_, events, 64, timeoutMs);
  for (int i = 0; i < ready; ++i) {
    // A handler earlier in this batch may have removed (and the fd number been
    // reused by) a later descriptor; the token says whether it is still the same watch.
    // epoll_event is packed on x86-64: copy the token out rather than bind a reference to a misaligned field.
    const uint64_t token = events[i].data.u64;
    auto fdIt = fdByToken_.find(token);
    if (fdIt == fdByToken_.end()) continue;
    Handler handler = watches_[fdIt->second].handler;
    handler(events[i].events);
  }
}

void EventLoop::wake() {
  uint64_t one = 1;
  [[maybe_unused]] ssize_t written = write(wakeFd_, &one, sizeof(one));
}

}  // namespace shoal::multiplexer
