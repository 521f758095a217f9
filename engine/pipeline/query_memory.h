#pragma once

#include <cstdint>

namespace shoal::engine {

/// The memory account of one running query (the scheduler's MemoryTracker).
class QueryMemory {
 public:
  virtual ~QueryMemory() = default;
  /// Counts `bytes` more; fails with 53200 when that passes the query's limit.
  virtual void reserve(uint64_t bytes) = 0;
  /// Counts `bytes` fewer (memory a reserve counted has been freed).
  virtual void release(uint64_t bytes) = 0;
};

/// Operators grow hash tables, runs and result buffers deep inside a morsel;
/// rather than thread an account through every call, the dispatcher names the
/// query a thread is working for, and operators charge it here. A thread
/// working for no query (tests, the coordinator's helpers) charges nothing.
void setCurrentQueryMemory(QueryMemory* memory);
/// Charges `bytes` to the query this thread works for (53200 past its limit).
void reserveQueryMemory(uint64_t bytes);
/// Gives back `bytes` this thread reserved for its query and has freed.
void releaseQueryMemory(uint64_t bytes);

/// Sets the current query's account for a scope, restoring the previous one after.
class QueryMemoryScope {
 public:
  explicit QueryMemoryScope(QueryMemory* memory);
  ~QueryMemoryScope();
  QueryMemoryScope(const QueryMemoryScope&) = delete;
  QueryMemoryScope& operator=(const QueryMemoryScope&) = delete;

 private:
  QueryMemory* previous_;
};

}  // namespace shoal::engine
