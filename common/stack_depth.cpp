#include "common/stack_depth.h"

#include <pthread.h>

#include <cstdint>

#include "common/status.h"

namespace shoal {
namespace {

/// The lowest usable address of the calling thread's stack (stacks grow down here), found once per thread.
uintptr_t stackLowestAddress() {
  thread_local uintptr_t lowest = [] {
    pthread_attr_t attributes;
    void* address = nullptr;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
      pthread_attr_getstack(&attributes, &address, &size);
      size_t guard = 0;
      pthread_attr_getguardsize(&attributes, &guard);
      pthread_attr_destroy(&attributes);
      return reinterpret_cast<uintptr_t>(address) + guard;
    }
    return uintptr_t{0};
  }();
  return lowest;
}

}  // namespace

size_t remainingStackBytes() {
  auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  uintptr_t lowest = stackLowestAddress();
  return here > lowest ? here - lowest : 0;
}

void checkStackDepth(size_t neededBytes) {
  if (remainingStackBytes() < neededBytes + kStackReserveBytes) {
    SHOAL_USER_FAIL(SqlState::kStatementTooComplex,
                    "stack depth limit exceeded: the statement nests too deeply (simplify it, or split a long "
                    "chain of operators)");
  }
}

}  // namespace shoal
