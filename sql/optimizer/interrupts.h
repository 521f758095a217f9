#pragma once

#include <atomic>

namespace shoal::sql {

/// Lets a long optimization stop when its statement is cancelled (statement_timeout, a cancel request), as
/// PostgreSQL's CHECK_FOR_INTERRUPTS does in its planner: a pathological query (hundreds of nested subqueries)
/// must not plan for longer than the statement may run. optimize() installs the statement's cancel flag for
/// its thread; the passes call checkForInterrupts() once per operator or step.
class InterruptScope {
 public:
  explicit InterruptScope(const std::atomic<bool>* cancelRequested);
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  const std::atomic<bool>* previous_;
};

/// Fails with 57014 when the current thread's statement has been cancelled; free when none is installed.
void checkForInterrupts();

}  // namespace shoal::sql
