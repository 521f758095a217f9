#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "common/numa_topology.h"
#include "scheduler/freed_memory_returner.h"
#include "scheduler/memory_tracker.h"
#include "scheduler/query_execution.h"

namespace shoal::scheduler {

/// The morsel-driven dispatcher of the morsel-driven-parallelism paper: one
/// thread per hardware thread, pinned to its CPU, each asking for its next
/// morsel when it finishes one. A thread takes morsels whose data lives on
/// its NUMA node first and steals from other nodes when its own are gone.
/// Queries share the threads elastically: at every morsel boundary a thread
/// serves the query with the fewest running morsels per unit of priority, so
/// a new query gets threads within one morsel's time and a query of priority
/// 2 gets about twice the threads of one of priority 1. A cancelled query
/// hands out no more morsels.
class Dispatcher {
 public:
  /// `threads` 0: one per hardware thread. `memoryBudgetBytes`: what all of its queries may hold together
  /// (0: no budget).
  Dispatcher(uint32_t threads, NumaTopology topology, uint64_t memoryBudgetBytes = 0);
  ~Dispatcher();
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  /// Starts running `jobs` (a query's pipelines, in any order that their dependencies allow).
  std::shared_ptr<QueryExecution> submit(std::vector<PipelineJob> jobs, uint32_t priority = 1,
                                         uint64_t memoryLimitBytes = 0);

  uint32_t numThreads() const { return static_cast<uint32_t>(threads_.size()); }
  const NumaTopology& topology() const { return topology_; }
  /// The node's memory budget, which every query's MemoryTracker also counts against.
  MemoryTracker& memoryBudget() { return memoryBudget_; }
  /// Threads running a morsel right now (0 when idle).
  uint32_t busyThreads() const { return busy_.load(std::memory_order_relaxed); }

  /// Ends a cancelled query that has no morsel running (QueryExecution::cancel calls it).
  void reap(const std::shared_ptr<QueryExecution>& query);

 private:
  void threadMain(uint32_t index, uint32_t cpu);
  /// The next morsel for a thread on `node`, or none. Needs mutex_.
  std::optional<std::tuple<std::shared_ptr<QueryExecution>, size_t, Morsel>> pickLocked(uint32_t node);
  void completeMorsel(const std::shared_ptr<QueryExecution>& query, size_t job);
  /// One of `job`'s dependencies is met; when it was the last, the job becomes ready. Needs mutex_.
  /// Appends the job to `nowEmpty` when it has no morsels (the caller completes it).
  void dependencyMetLocked(QueryExecution& query, size_t job, std::vector<size_t>& nowEmpty);
  /// A streamed job's input changed (a message arrived, the stream ended or failed): wakes a thread.
  void wakeForStream();
  /// A job's gate opened (from the thread that opened it).
  void gateOpened(const std::shared_ptr<QueryExecution>& query, size_t job);

  NumaTopology topology_;
  MemoryTracker memoryBudget_;
  std::atomic<uint32_t> runningQueries_{0};
  FreedMemoryReturner freedMemoryReturner_{memoryBudget_, [this] { return runningQueries_.load() == 0; }};
  std::vector<std::thread> threads_;
  std::atomic<uint32_t> busy_{0};

  std::mutex mutex_;
  std::condition_variable workAvailable_;
  std::vector<std::shared_ptr<QueryExecution>> queries_;  // guarded by mutex_
  bool stopping_ = false;                                 // guarded by mutex_
};

}  // namespace shoal::scheduler
