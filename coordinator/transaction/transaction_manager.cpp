#include "coordinator/transaction/transaction_manager.h"

#include <grpcpp/client_context.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <functional>
#include <thread>

#include "common/fault_points.h"
#include "common/status.h"
#include "proto/rpc_status.h"

namespace shoal::coordinator {

namespace {

/// Runs call(i) for every i < count, each on a thread of its own, and waits for all.
void inParallel(size_t count, const std::function<void(size_t)>& call) {
  if (count == 1) return call(0);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < count; ++i) threads.emplace_back(call, i);
  for (auto& thread : threads) thread.join();
}

grpc::Status finishOn(WorkerClients& workers, const std::string& address, uint64_t transactionId,
                      const std::vector<uint64_t>& writeIds, bool commit, uint64_t commitSeq) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(commit ? 60 : 10));
  proto::FinishTransactionRequest request;
  request.set_transaction_id(transactionId);
  for (uint64_t write : writeIds) request.add_write_ids(write);
  request.set_commit(commit);
  request.set_commit_seq(commitSeq);
  proto::FinishTransactionResponse response;
  return workers.dataStub(address).FinishTransaction(&context, request, &response);
}

}  // namespace

TransactionManager::TransactionManager(WorkerClients& workers, std::unique_ptr<CommitLog> log)
    : workers_(workers), log_(std::move(log)) {
  // Ids only need to be unique among transactions a worker may still hold; the time keeps them unique across
  // restarts, the counter within one.
  nextId_ = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count())
            << 12;
  lastSeq_ = log_->lastCommitSeq();
  // Decisions a previous coordinator left unapplied stay out of snapshots until the resolver re-drives them.
  for (const auto& [id, decision] : log_->pending()) applying_.insert(decision.commitSeq);
  spdlog::info("transactions: {}; commit sequence at {}", log_->describe(), lastSeq_);
}

TransactionManager::~TransactionManager() {
  resolver_.reset();
}

uint64_t TransactionManager::newId() {
  return nextId_.fetch_add(1);
}

uint64_t TransactionManager::visibleSeq() const {
  std::lock_guard lock(mutex_);
  return applying_.empty() ? lastSeq_ : *applying_.begin() - 1;
}

TransactionManager::PinnedSnapshot TransactionManager::pinVisibleSnapshot() {
  // Read and pinned under one lock: a horizon computed meanwhile is at most this number.
  std::lock_guard lock(mutex_);
  const uint64_t seq = applying_.empty() ? lastSeq_ : *applying_.begin() - 1;
  return PinnedSnapshot{seq, pinLocked(seq)};
}

std::shared_ptr<const void> TransactionManager::pinSnapshot(uint64_t commitSeq) {
  std::lock_guard lock(mutex_);
  return pinLocked(commitSeq);
}

std::shared_ptr<const void> TransactionManager::pinLocked(uint64_t seq) {
  auto position = pinned_.insert(seq);
  struct Unpin {
    TransactionManager* manager;
    std::multiset<uint64_t>::iterator position;
    ~Unpin() {
      std::lock_guard lock(manager->mutex_);
      manager->pinned_.erase(position);
    }
  };
  return std::shared_ptr<const void>(new Unpin{this, position});
}

uint64_t TransactionManager::oldestSnapshot() const {
  std::lock_guard lock(mutex_);
  const uint64_t visible = applying_.empty() ? lastSeq_ : *applying_.begin() - 1;
  return pinned_.empty() ? visible : std::min(visible, *pinned_.begin());
}

std::vector<proto::StorageStatistics> TransactionManager::commit(uint64_t transactionId,
                                                                 const std::vector<uint64_t>& writeIds,
                                                                 const std::set<std::string>& participants,
                                                                 const std::function<void()>& onDecided) {
  const std::vector<std::string> addresses(participants.begin(), participants.end());
  {
    std::lock_guard lock(mutex_);
    committing_.insert(transactionId);
  }
  struct LeaveCommitting {
    TransactionManager& manager;
    uint64_t transactionId;
    ~LeaveCommitting() {
      std::lock_guard lock(manager.mutex_);
      manager.committing_.erase(transactionId);
    }
  } leave{*this, transactionId};

  // Phase one: every worker makes its part durable and votes.
  std::vector<proto::PrepareTransactionResponse> responses(addresses.size());
  std::vector<grpc::Status> statuses(addresses.size());
  inParallel(addresses.size(), [&](size_t i) {
    grpc::ClientContext context;
    proto::PrepareTransactionRequest request;
    request.set_transaction_id(transactionId);
    for (uint64_t write : writeIds) request.add_write_ids(write);
    statuses[i] = workers_.dataStub(addresses[i]).PrepareTransaction(&context, request, &responses[i]);
  });
  for (size_t i = 0; i < addresses.size(); ++i) {
    if (statuses[i].ok()) continue;
    abort(transactionId, writeIds, participants);
    Status error = proto::fromGrpcStatus(statuses[i], addresses[i]);
    throw ShoalError(Status(error.sqlState(), fmt::format("the transaction was rolled back: worker {} could not "
                                                          "prepare its commit: {}",
                                                          addresses[i], error.message())));
  }
  faultPoint("coordinator-after-prepare");

  // The decision: from the moment it is durable, the transaction is committed.
  CommitDecision decision{transactionId, 0, addresses};
  {
    std::lock_guard record(recordMutex_);
    {
      std::lock_guard lock(mutex_);
      decision.commitSeq = ++lastSeq_;
      applying_.insert(decision.commitSeq);
    }
    try {
      log_->recordCommit(decision);
    } catch (...) {
      {
        std::lock_guard lock(mutex_);
        applying_.erase(decision.commitSeq);
      }
      abort(transactionId, writeIds, participants);
      throw;
    }
  }
  faultPoint("coordinator-after-decision");
  if (onDecided) {
    try {
      onDecided();
    } catch (const std::exception& error) {
      spdlog::warn("after the commit of transaction {} was decided: {}", transactionId, error.what());
    }
  }

  // Phase two. A worker that misses it applies the decision when the resolver (or its restart) gets to it.
  const bool everywhere = finish(decision);
  {
    std::lock_guard lock(mutex_);
    applying_.erase(decision.commitSeq);
  }
  if (everywhere) {
    try {
      log_->forget(transactionId);
    } catch (const ShoalError& error) {
      spdlog::warn("could not forget the decision on transaction {}: {}", transactionId, error.status().message());
    }
  }
  std::vector<proto::StorageStatistics> statistics;
  for (auto& response : responses) {
    for (auto& partition : *response.mutable_statistics()) statistics.push_back(std::move(partition));
  }
  return statistics;
}

bool TransactionManager::finish(const CommitDecision& decision) {
  std::vector<grpc::Status> statuses(decision.participants.size());
  inParallel(decision.participants.size(), [&](size_t i) {
    statuses[i] = finishOn(workers_, decision.participants[i], decision.transactionId, {}, true, decision.commitSeq);
  });
  bool everywhere = true;
  for (size_t i = 0; i < statuses.size(); ++i) {
    if (statuses[i].ok()) continue;
    everywhere = false;
    spdlog::warn("worker {} has not applied the commit of transaction {} yet ({}); it will when it is back",
                 decision.participants[i], decision.transactionId, statuses[i].error_message());
  }
  return everywhere;
}

void TransactionManager::abort(uint64_t transactionId, const std::vector<uint64_t>& writeIds,
                               const std::set<std::string>& participants) {
  const std::vector<std::string> addresses(participants.begin(), participants.end());
  inParallel(addresses.size(), [&](size_t i) {
    grpc::Status status = finishOn(workers_, addresses[i], transactionId, writeIds, false, 0);
    if (!status.ok()) {
      spdlog::warn("abort of transaction {} on worker {} failed ({}); the resolver will abort it there", transactionId,
                   addresses[i], status.error_message());
    }
  });
}

void TransactionManager::startResolver() {
  resolver_ = std::make_unique<PeriodicTask>(std::chrono::seconds(1), [this] {
    try {
      resolveOnce();
    } catch (const std::exception& error) {
      spdlog::debug("transaction resolver: {}", error.what());
    }
  });
}

void TransactionManager::resolveOnce() {
  // Decisions some participant missed (or that a previous coordinator left).
  std::set<uint64_t> driven;
  for (const auto& [id, decision] : log_->pending()) {
    {
      std::lock_guard lock(mutex_);
      if (committing_.contains(id)) continue;
    }
    if (finish(decision)) log_->forget(id);
    driven.insert(decision.commitSeq);
  }
  {
    // Once re-driven, a decision a dead worker still misses no longer holds snapshots back: that worker
    // cannot serve a read before it resolves what it holds in doubt.
    std::lock_guard lock(mutex_);
    for (uint64_t seq : driven) applying_.erase(seq);
  }
  // What live workers hold prepared with no decision: presumed aborted, unless its commit is under way. And
  // the snapshot horizon, up to which they compact old row versions.
  proto::AdvanceHorizonRequest horizon;
  horizon.set_oldest_snapshot(oldestSnapshot());
  for (const auto& worker : workers_.liveWorkers()) {
    {
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
      proto::AdvanceHorizonResponse response;
      workers_.dataStub(worker.address).AdvanceHorizon(&context, horizon, &response);
    }
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
    proto::ListPreparedTransactionsRequest request;
    proto::ListPreparedTransactionsResponse response;
    if (!workers_.dataStub(worker.address).ListPreparedTransactions(&context, request, &response).ok()) continue;
    for (const auto& prepared : response.transactions()) {
      {
        std::lock_guard lock(mutex_);
        if (committing_.contains(prepared.transaction_id())) continue;
      }
      // Read after the check above: a commit leaves committing_ only once its decision is recorded.
      auto decisions = log_->pending();
      std::vector<uint64_t> writes(prepared.write_ids().begin(), prepared.write_ids().end());
      if (auto decision = decisions.find(prepared.transaction_id()); decision != decisions.end()) {
        finishOn(workers_, worker.address, prepared.transaction_id(), writes, true, decision->second.commitSeq);
      } else {
        spdlog::info("aborting transaction {} that worker {} holds prepared without a decision",
                     prepared.transaction_id(), worker.address);
        finishOn(workers_, worker.address, prepared.transaction_id(), writes, false, 0);
      }
    }
  }
}

}  // namespace shoal::coordinator
