#include "scheduler/memory_tracker.h"

#include "common/status.h"

namespace shoal::scheduler {

void MemoryTracker::reserve(uint64_t bytes) {
  uint64_t used = usedBytes_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  if (limitBytes_ != 0 && used > limitBytes_) {
    usedBytes_.fetch_sub(bytes, std::memory_order_relaxed);
    if (isNodeBudget_) {
      SHOAL_USER_FAIL(SqlState::kOutOfMemory,
                      "out of memory: the queries running on this node would need more than its memory budget of "
                      "{} MB (--memory-budget-mb)",
                      limitBytes_ >> 20);
    }
    SHOAL_USER_FAIL(SqlState::kOutOfMemory,
                    "query needs more than its memory limit of {} MB (SET query_memory_limit_mb to raise it)",
                    limitBytes_ >> 20);
  }
  if (budget_ != nullptr) {
    try {
      budget_->reserve(bytes);
    } catch (...) {
      usedBytes_.fetch_sub(bytes, std::memory_order_relaxed);
      throw;
    }
  }
  uint64_t peak = peakBytes_.load(std::memory_order_relaxed);
  while (used > peak && !peakBytes_.compare_exchange_weak(peak, used, std::memory_order_relaxed)) {
  }
}

}  // namespace shoal::scheduler
