#pragma once

#include <cstddef>
#include <cstdint>

namespace shoal {

/// The NUMA nodes this process places memory on, from libnuma. A machine
/// without NUMA (or without libnuma support) has one node. Tests and small
/// machines may force a fake topology (`--numa-nodes N`): memory is then
/// allocated normally but every placement decision runs as on a real N-node box.
class NumaTopology {
 public:
  /// Reads the real topology.
  static NumaTopology detect();
  /// Pretends there are `numNodes` nodes.
  static NumaTopology fake(uint32_t numNodes);

  uint32_t numNodes() const { return numNodes_; }
  bool isFake() const { return fake_; }

  /// The node a CPU belongs to (a fake topology deals CPUs round-robin over its nodes).
  uint32_t nodeOfCpu(uint32_t cpu) const;

  /// Allocates `bytes` uninitialized bytes on `node` (callers overwrite them all); release with `release`.
  void* allocate(size_t bytes, uint32_t node) const;
  void release(void* memory, size_t bytes) const;

  /// Maps `bytes` (a multiple of the page size) of fresh anonymous pages bound to `node`, not yet faulted
  /// in; nullptr when the system has no memory for them. Any page-aligned part of it may be unmapped
  /// on its own with munmap.
  void* mapPages(size_t bytes, uint32_t node) const;

 private:
  NumaTopology(uint32_t numNodes, bool fake) : numNodes_(numNodes), fake_(fake) {}

  uint32_t numNodes_;
  bool fake_;
};

}  // namespace shoal
