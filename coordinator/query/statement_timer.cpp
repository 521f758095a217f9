#include "coordinator/query/statement_timer.h"

namespace shoal::coordinator {

StatementTimer::StatementTimer(std::chrono::milliseconds timeout, std::function<void()> onTimeout) {
  if (timeout.count() <= 0) return;
  thread_ = std::thread([this, timeout, onTimeout = std::move(onTimeout)] {
    std::unique_lock lock(mutex_);
    if (stopped_.wait_for(lock, timeout, [this] { return stopping_; })) return;
    fired_.store(true);
    onTimeout();
  });
}

StatementTimer::~StatementTimer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stopped_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace shoal::coordinator
