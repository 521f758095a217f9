#include "engine/pipeline/query_memory.h"

namespace shoal::engine {

namespace {
thread_local QueryMemory* currentQueryMemory = nullptr;
}  // namespace

void setCurrentQueryMemory(QueryMemory* memory) {
  currentQueryMemory = memory;
}

void reserveQueryMemory(uint64_t bytes) {
  if (currentQueryMemory != nullptr && bytes > 0) currentQueryMemory->reserve(bytes);
}

void releaseQueryMemory(uint64_t bytes) {
  if (currentQueryMemory != nullptr && bytes > 0) currentQueryMemory->release(bytes);
}

QueryMemoryScope::QueryMemoryScope(QueryMemory* memory) : previous_(currentQueryMemory) {
  currentQueryMemory = memory;
}

QueryMemoryScope::~QueryMemoryScope() {
  currentQueryMemory = previous_;
}

}  // namespace shoal::engine
