#pragma once

#include <functional>
#include <mutex>
#include <vector>

namespace shoal::engine {

/// Holds a pipeline back until its source's input has arrived from elsewhere
/// (an exchange whose senders have all finished). The scheduler treats an
/// unopened gate like an unfinished dependency, so no thread ever waits inside
/// a morsel for another node's rows. Opens once; thread-safe.
class SourceGate {
 public:
  /// Runs `callback` once the gate is open: at once (on this thread) if it already is.
  void whenOpen(std::function<void()> callback) {
    {
      std::lock_guard lock(mutex_);
      if (!open_) {
        callbacks_.push_back(std::move(callback));
        return;
      }
    }
    callback();
  }

  void open() {
    std::vector<std::function<void()>> callbacks;
    {
      std::lock_guard lock(mutex_);
      if (open_) return;
      open_ = true;
      callbacks.swap(callbacks_);
    }
    for (auto& callback : callbacks) callback();
  }

  bool isOpen() const {
    std::lock_guard lock(mutex_);
    return open_;
  }

 private:
  mutable std::mutex mutex_;
  bool open_ = false;
  std::vector<std::function<void()>> callbacks_;
};

}  // namespace shoal::engine
