#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "common/numa_topology.h"

namespace shoal::worker {

/// Where column segments keep their values and string bytes: page-aligned pieces of anonymous memory,
/// each freed on its own (munmap), carved out of larger regions on the segment's NUMA node.
///
/// A fresh page costs its first write a page fault, which zeroes it; at SF 1 that is about a tenth of a
/// worker's loading CPU. A load therefore announces the bytes it expects (`expect`), and an idle-priority
/// thread faults regions in ahead of it: it runs only on a core nothing else wants, such as while the
/// TPC-H generator builds its text pool on one thread, and segments then land on pages that are ready.
/// The rest of the reserve goes back to the system when the load ends. Without a reserve, pieces come from
/// regions faulted in by their first writer, as with malloc. Thread-safe.
class SegmentMemory {
 public:
  /// Regions are carved into allocations up to this size; larger ones get a mapping of their own.
  static constexpr size_t kRegionBytes = 16 << 20;

  explicit SegmentMemory(NumaTopology topology);
  ~SegmentMemory();
  SegmentMemory(const SegmentMemory&) = delete;
  SegmentMemory& operator=(const SegmentMemory&) = delete;

  const NumaTopology& topology() const { return topology_; }

  /// `bytes` (rounded up to whole pages) on `node`; throws std::bad_alloc when the system has none.
  void* allocate(size_t bytes, uint32_t node);
  /// Frees what allocate(bytes, ...) returned.
  void release(void* memory, size_t bytes);

  /// Load `loadId` expects to store about `bytes` here: fault that much in ahead of it, spread over the
  /// nodes, at idle priority. Capped at a quarter of the machine's memory over all loads.
  void expect(uint64_t loadId, size_t bytes);
  /// Load `loadId` committed or aborted: stop faulting in for it and free what it left in the reserve.
  void loadEnded(uint64_t loadId);

  /// Bytes faulted in and not yet handed out, for tests and monitoring.
  size_t reservedBytes() const;

 private:
  struct Region {
    std::byte* begin = nullptr;
    size_t bytes = 0;
  };
  struct Node {
    Region current;            // being carved; its unused tail is unmapped when it is replaced
    std::deque<Region> ready;  // faulted in by the filler, not yet carved
  };

  /// `bytes` rounded up to whole pages (at least one): what a piece of that size takes.
  size_t wholePages(size_t bytes) const;
  Region mapRegion(size_t bytes, uint32_t node) const;
  static void unmap(std::byte* begin, size_t bytes);
  size_t targetBytes() const;  // under mutex_
  void fill();                 // the filler thread

  const NumaTopology topology_;
  const size_t pageBytes_;
  const size_t reserveCap_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Node> nodes_;
  std::map<uint64_t, size_t> expectedBytes_;  // per load still running
  size_t readyBytes_ = 0;                     // in nodes_[*].ready
  size_t filledForLoads_ = 0;                 // faulted in since the loads of expectedBytes_ began
  uint32_t nextFillNode_ = 0;
  bool stopping_ = false;
  std::thread filler_;
};

}  // namespace shoal::worker
