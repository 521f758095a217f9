#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

#include "scheduler/memory_tracker.h"

namespace shoal::scheduler {

/// Gives the memory a large query held back to the system once the query has freed it: glibc keeps freed
/// blocks for reuse, so without this a node's resident memory stays at its largest query's peak after a
/// cancel, a timeout or a 53200. Every half second it trims when the node's queries hold 64 MB less than the
/// most they held since it last looked (its budget's count), or when no query runs (`idle`) and the
/// resident memory grew by 64 MB since it last trimmed (what queries allocate beyond their count: encoded
/// messages, gRPC buffers).
class FreedMemoryReturner {
 public:
  FreedMemoryReturner(MemoryTracker& budget, std::function<bool()> idle);
  ~FreedMemoryReturner();
  FreedMemoryReturner(const FreedMemoryReturner&) = delete;
  FreedMemoryReturner& operator=(const FreedMemoryReturner&) = delete;

 private:
  void run();

  MemoryTracker& budget_;
  const std::function<bool()> idle_;
  std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;  // guarded by mutex_
  std::thread thread_;
};

}  // namespace shoal::scheduler
