#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "common/periodic_task.h"
#include "coordinator/cluster/worker_clients.h"
#include "coordinator/transaction/commit_log.h"

namespace shoal::coordinator {

/// The cluster's transactions, as the coordinator runs them: ids, the commit sequence and the two-phase commit.
///
/// A commit asks every participating worker to prepare (make its part durable and vote), then records the
/// decision with the next commit sequence number in the commit log, then tells the workers to apply it. A
/// snapshot reads at visibleSeq(): the highest number below which every decided commit was applied by all
/// its workers, so that no read sees a commit on one worker and not on another. A resolver (every second)
/// finishes decisions that a worker missed, and aborts what live workers hold prepared without a decision.
/// Thread-safe.
class TransactionManager {
 public:
  TransactionManager(WorkerClients& workers, std::unique_ptr<CommitLog> log);
  ~TransactionManager();

  /// A transaction or write id, unique across restarts.
  uint64_t newId();
  /// The commit sequence number a snapshot taken now reads at.
  uint64_t visibleSeq() const;
  /// A snapshot taken now (visibleSeq()), pinned while `pin` lives: the workers keep the row versions it reads.
  struct PinnedSnapshot {
    uint64_t commitSeq = 0;
    std::shared_ptr<const void> pin;
  };
  PinnedSnapshot pinVisibleSnapshot();
  /// Pins snapshot `commitSeq`, which something pinned already (so the workers still hold its versions).
  std::shared_ptr<const void> pinSnapshot(uint64_t commitSeq);
  /// The oldest snapshot pinned, or visibleSeq() when none is: what the workers may compact up to (the
  /// resolver tells them every second).
  uint64_t oldestSnapshot() const;
  const CommitLog& log() const { return *log_; }

  /// Commits the writes `writeIds` of transaction `transactionId`, which touched `participants`; returns
  /// what the workers' partitions gained and lost. A worker that fails to prepare aborts the transaction
  /// everywhere and fails with its error (08006 when it is gone).
  /// `onDecided` runs once the decision is durable, before any worker applies it.
  std::vector<proto::StorageStatistics> commit(uint64_t transactionId, const std::vector<uint64_t>& writeIds,
                                               const std::set<std::string>& participants,
                                               const std::function<void()>& onDecided = {});
  /// Drops the writes on every participant (best effort: a worker that misses it aborts when the resolver
  /// finds the transaction undecided).
  void abort(uint64_t transactionId, const std::vector<uint64_t>& writeIds, const std::set<std::string>& participants);

  /// Starts the resolver; once at start it also re-drives the decisions a previous coordinator left pending.
  void startResolver();
  void stopResolver() { resolver_.reset(); }
  /// One pass of the resolver.
  void resolveOnce();

 private:
  std::shared_ptr<const void> pinLocked(uint64_t seq);  // mutex_ held
  /// Tells `participants` the decision; returns whether all applied it.
  bool finish(const CommitDecision& decision);

  WorkerClients& workers_;
  std::unique_ptr<CommitLog> log_;
  std::atomic<uint64_t> nextId_{1};
  mutable std::mutex mutex_;
  uint64_t lastSeq_ = 0;            // guarded by mutex_
  std::set<uint64_t> applying_;     // guarded by mutex_: decided commit numbers not yet applied everywhere
  std::set<uint64_t> committing_;   // guarded by mutex_: transactions between prepare and decision
  std::multiset<uint64_t> pinned_;  // guarded by mutex_: snapshots in use
  std::mutex recordMutex_;          // decisions are recorded in the order of their numbers
  std::unique_ptr<PeriodicTask> resolver_;
};

}  // namespace shoal::coordinator
