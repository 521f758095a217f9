#include "engine/pipeline/result_queue.h"

namespace shoal::engine {

void ResultQueue::push(Chunk chunk) {
  {
    std::unique_lock lock(mutex_);
    if (limit_ > 0) {
      taken_.wait(lock, [&] { return bytes_ < limit_ || abandoned_; });
      if (abandoned_) return;
      bytes_ += chunk.memoryBytes();
    }
    chunks_.push_back(std::move(chunk));
  }
  changed_.notify_one();
}

void ResultQueue::abandon() {
  {
    std::lock_guard lock(mutex_);
    abandoned_ = true;
    chunks_.clear();
    bytes_ = 0;
  }
  taken_.notify_all();
}

void ResultQueue::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  changed_.notify_one();
}

bool ResultQueue::popAll(std::vector<Chunk>& out, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, timeout, [&] { return closed_ || !chunks_.empty(); });
  while (!chunks_.empty()) {
    out.push_back(std::move(chunks_.front()));
    chunks_.pop_front();
  }
  if (limit_ > 0) {
    bytes_ = 0;
    taken_.notify_all();
  }
  return closed_;
}

}  // namespace shoal::engine
