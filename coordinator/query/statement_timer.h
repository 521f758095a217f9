#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace shoal::coordinator {

/// statement_timeout for one piece of a session's work (a simple query, or one Execute of a portal, as in
/// PostgreSQL): unless destroyed first, calls `onTimeout` once `timeout` has passed. A zero timeout arms
/// nothing. The callback runs on the timer's own thread.
class StatementTimer {
 public:
  StatementTimer(std::chrono::milliseconds timeout, std::function<void()> onTimeout);
  ~StatementTimer();

  StatementTimer(const StatementTimer&) = delete;
  StatementTimer& operator=(const StatementTimer&) = delete;

  /// Whether the timeout passed and `onTimeout` ran.
  bool fired() const { return fired_.load(); }

 private:
  std::mutex mutex_;
  std::condition_variable stopped_;
  bool stopping_ = false;  // guarded by mutex_
  std::atomic<bool> fired_{false};
  std::thread thread_;
};

}  // namespace shoal::coordinator
