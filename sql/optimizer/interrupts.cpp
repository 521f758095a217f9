#include "sql/optimizer/interrupts.h"

#include "common/status.h"

namespace shoal::sql {
namespace {

thread_local const std::atomic<bool>* currentCancelFlag = nullptr;

}  // namespace

InterruptScope::InterruptScope(const std::atomic<bool>* cancelRequested) : previous_(currentCancelFlag) {
  currentCancelFlag = cancelRequested;
}

InterruptScope::~InterruptScope() {
  currentCancelFlag = previous_;
}

void checkForInterrupts() {
  if (currentCancelFlag != nullptr && currentCancelFlag->load(std::memory_order_relaxed)) {
    SHOAL_USER_FAIL(SqlState::kQueryCanceled, "canceling statement due to user request");
  }
}

}  // namespace shoal::sql
