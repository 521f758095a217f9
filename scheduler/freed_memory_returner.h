#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

#include "common/periodic_task.h"
#include "scheduler/memory_tracker.h"

namespace shoal::scheduler {

/// Gives the memory a large query held back to the system once the query has freed it: glibc keeps freed
/// blocks for reuse, so without this a node's resident memory stays at its largest query's peak after a
/// cancel, a timeout or a 53200. Every half second it trims when the node's queries hold 64 MB less than the
/// most they held since it last looked (its budget's count), or when no query runs (`idle`) and the
/// resident memory grew by 64 MB since it last trimmed (what queries allocate beyond their count: encoded
/// messages, gRPC buffers). Under steady load neither may happen while glibc's arenas keep every block the
/// queries freed (`make soak` saw workers' memory step up that way): then it trims when they keep 32 MB
/// free, at most every 10 s.
class FreedMemoryReturner {
 public:
  FreedMemoryReturner(MemoryTracker& budget, std::function<bool()> idle);

 private:
  void check();

  MemoryTracker& budget_;
  const std::function<bool()> idle_;
  uint64_t residentAfterTrim_;
  std::chrono::steady_clock::time_point lastTrim_;
  PeriodicTask task_;  // last: it runs check(), which uses the members above
};

}  // namespace shoal::scheduler
