#pragma once

#include <cstdint>

namespace shoal {

/// The memory this process may use on its host: the physical memory, or the cgroup's limit (v2 memory.max,
/// or v1 memory.limit_in_bytes) when that is smaller, as in a container or a systemd unit with MemoryMax.
uint64_t usableHostMemoryBytes();

/// This process's resident memory (/proc/self/statm), 0 when unknown.
uint64_t residentMemoryBytes();

/// What the allocator holds (glibc's mallinfo2, over all its arenas): bytes handed out and in use, and bytes
/// freed but kept for reuse, which count as resident until returned.
struct HeapUse {
  uint64_t inUseBytes = 0;
  uint64_t freeBytes = 0;
};
HeapUse heapUse();

/// Hands memory the allocator keeps after a large query back to the system (glibc's malloc_trim), so that
/// a node's resident memory falls once a query's memory has been freed.
void returnFreedMemory();

}  // namespace shoal
