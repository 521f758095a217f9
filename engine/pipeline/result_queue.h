#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <vector>

#include "engine/vector/chunk.h"

namespace shoal::engine {

/// Where a query's final rows wait between the dispatcher threads that produce
/// them and the one thread that sends them on (a worker's RPC stream), so that
/// the first rows leave while the rest are still being computed. Producers
/// never wait; the consumer waits with a timeout, so that it can also watch for
/// cancellation and for the query's end.
class ResultQueue {
 public:
  /// Holds at most about `bytes` of rows: push then waits until the reader took enough (a client that reads
  /// slowly throttles the pipeline instead of growing memory). Set before the first push. A bounded queue's
  /// rows are not charged to the query: the bound is their limit.
  void limitTo(uint64_t bytes) { limit_ = bytes; }
  bool bounded() const { return limit_ > 0; }
  /// The reader is gone: push drops its rows from now on, without waiting.
  void abandon();

  /// Adds a chunk of rows (any dispatcher thread).
  void push(Chunk chunk);
  /// No more chunks will come: the final pipeline finished.
  void close();
  /// Moves every waiting chunk into `out`, waiting up to `timeout` for one to arrive.
  /// Returns true once the queue is closed and empty.
  bool popAll(std::vector<Chunk>& out, std::chrono::milliseconds timeout);

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::condition_variable taken_;
  std::deque<Chunk> chunks_;
  bool closed_ = false;
  uint64_t limit_ = 0;
  uint64_t bytes_ = 0;  // of chunks_, when bounded
  bool abandoned_ = false;
};

}  // namespace shoal::engine
