#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace shoal {

/// Runs `task` on a thread of its own every `interval` until destroyed (which waits for a running task to
/// end): the background chores of a node, such as handing freed memory back or finishing missed drops.
class PeriodicTask {
 public:
  PeriodicTask(std::chrono::milliseconds interval, std::function<void()> task)
      : interval_(interval), task_(std::move(task)), thread_([this] { run(); }) {}
  ~PeriodicTask() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    stop_.notify_all();
    thread_.join();
  }
  PeriodicTask(const PeriodicTask&) = delete;
  PeriodicTask& operator=(const PeriodicTask&) = delete;

 private:
  void run() {
    std::unique_lock lock(mutex_);
    while (!stop_.wait_for(lock, interval_, [this] { return stopping_; })) {
      lock.unlock();
      task_();
      lock.lock();
    }
  }

  const std::chrono::milliseconds interval_;
  const std::function<void()> task_;
  std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;  // guarded by mutex_
  std::thread thread_;     // last: it starts once the members it uses exist
};

}  // namespace shoal
