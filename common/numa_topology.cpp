#include "common/numa_topology.h"

#include <sys/mman.h>

#include <numa.h>

#include <cstdlib>
#include <new>

#include "common/check.h"

namespace shoal {

NumaTopology NumaTopology::detect() {
  if (numa_available() < 0) {
    return NumaTopology(1, false);
  }
  return NumaTopology(static_cast<uint32_t>(numa_max_node() + 1), false);
}

NumaTopology NumaTopology::fake(uint32_t numNodes) {
  SHOAL_CHECK(numNodes >= 1, "a fake NUMA topology needs at least one node");
  return NumaTopology(numNodes, true);
}

uint32_t NumaTopology::nodeOfCpu(uint32_t cpu) const {
  if (fake_) return cpu % numNodes_;
  if (numNodes_ == 1) return 0;
  int node = numa_node_of_cpu(static_cast<int>(cpu));
  return node < 0 ? 0 : static_cast<uint32_t>(node) % numNodes_;
}

void* NumaTopology::allocate(size_t bytes, uint32_t node) const {
  SHOAL_CHECK(node < numNodes_, "NUMA node {} of {}", node, numNodes_);
  if (bytes == 0) bytes = 1;
  void* memory = nullptr;
  if (!fake_ && numNodes_ > 1) {
    memory = numa_alloc_onnode(bytes, static_cast<int>(node));  // page-granular
  } else {
    memory = std::malloc(bytes);
  }
  if (memory == nullptr) throw std::bad_alloc();
  return memory;
}

void NumaTopology::release(void* memory, size_t bytes) const {
  if (memory == nullptr) return;
  if (!fake_ && numNodes_ > 1) {
    numa_free(memory, bytes == 0 ? 1 : bytes);
  } else {
    std::free(memory);
  }
}

void* NumaTopology::mapPages(size_t bytes, uint32_t node) const {
  SHOAL_CHECK(node < numNodes_, "NUMA node {} of {}", node, numNodes_);
  if (!fake_ && numNodes_ > 1) return numa_alloc_onnode(bytes, static_cast<int>(node));  // mmap, then mbind
  void* memory = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return memory == MAP_FAILED ? nullptr : memory;
}

}  // namespace shoal
