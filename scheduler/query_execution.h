#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "common/status.h"
#include "scheduler/memory_tracker.h"
#include "scheduler/pipeline_job.h"

namespace shoal::scheduler {

class Dispatcher;

/// One query in the dispatcher: its pipeline jobs and their progress, its
/// priority, cancel flag, first error and memory tracker. The submitter keeps
/// a shared pointer to wait for it, cancel it or read its memory peak.
class QueryExecution : public std::enable_shared_from_this<QueryExecution> {
 public:
  /// `memoryBudget`: the node's, which the query's memory also counts against (null: none).
  QueryExecution(std::vector<PipelineJob> jobs, uint32_t priority, uint64_t memoryLimitBytes,
                 MemoryTracker* memoryBudget = nullptr);

  /// Stops the query at the next morsel boundary (and at the operators' cancel checks);
  /// the first reason given is the error `wait` throws.
  void cancel(Status reason);
  /// Cancels the query and waits until no thread uses its pipelines any more, swallowing its error: for a
  /// submitter that is leaving on an error of its own and is about to free what the pipelines point into.
  void abandon();
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }

  /// Blocks until every job finished (returns) or the query failed (throws its first error).
  void wait();
  /// Like wait(), giving up after `timeout`: false when the query is still running.
  bool waitFor(std::chrono::milliseconds timeout);
  bool done() const;

  MemoryTracker& memory() { return memory_; }
  uint32_t priority() const { return priority_; }
  /// Morsels currently running on dispatcher threads.
  uint32_t runningMorsels() const { return running_.load(std::memory_order_relaxed); }

 private:
  friend class Dispatcher;

  struct JobState {
    PipelineJob job;
    /// The job's morsels by NUMA node; claimed through `next`.
    std::vector<std::vector<Morsel>> queues;
    std::unique_ptr<std::atomic<size_t>[]> next;
    /// Morsels not yet completed; the thread that completes the last one finishes the job.
    std::atomic<size_t> unfinished{0};
    size_t waitingFor = 0;  // unfinished dependencies
    bool ready = false;
    bool finished = false;
    /// A streamed job's end was claimed: no more morsels come from its stream.
    bool streamEnded = false;
    std::vector<size_t> dependents;
  };

  /// Claims a morsel of a ready job, from `node`'s queues first, then by stealing. Needs the dispatcher's lock.
  std::optional<std::pair<size_t, Morsel>> claimLocked(uint32_t node);
  /// The next message of a streamed job (from `node`'s share only, unless `steal`), or its end once the
  /// stream is exhausted (or failed), or none.
  std::optional<Morsel> claimStreamedLocked(JobState& state, uint32_t node, bool steal);
  /// Makes job `index` runnable: runs its prepare, deals its morsels over `numaNodes` queues.
  void makeReadyLocked(size_t index, uint32_t numaNodes);
  void fail(const Status& status);
  void completeLocked();

  std::vector<std::unique_ptr<JobState>> jobs_;
  /// Set while the dispatcher runs the query: a cancel ends a query with no morsel in flight at once.
  Dispatcher* dispatcher_ = nullptr;
  const uint32_t priority_;
  MemoryTracker memory_;
  std::atomic<bool> cancelled_{false};
  std::atomic<uint32_t> running_{0};
  size_t jobsLeft_ = 0;

  mutable std::mutex mutex_;
  std::condition_variable finishedCondition_;
  bool completed_ = false;            // guarded by mutex_
  std::optional<Status> firstError_;  // guarded by mutex_
};

}  // namespace shoal::scheduler
